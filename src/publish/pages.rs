//! Every published page made: a batch at a time, on every core (each thread reading the
//! manifest through a connection of its own), then written in order. A page the change did not
//! touch is kept as the last publish wrote it: what it gave the listings taken from what the
//! last publish kept ([`super::kept`]) when its file is the same, its piece of `llms-full.txt`
//! copied from the last one, or else its Markdown read back and its file read and counted.
//! What the listings need of each page is kept small: its description, its words for the
//! search (interned by [`search::Builder`]); its Markdown goes straight into `llms-full.txt`,
//! which is written as it grows. No batch's pages are held past the batch.

use super::feeds::Descriptions;
use super::kept::{Full, Given, Keeping, Kept, Piece};
use super::out::{Out, OutError, Put, Stream};
use super::site::Site;
use super::spill::Spill;
use super::urls::{self, Base};
use super::{PublishError, page, search};
use crate::file_error::FileError;
use crate::manifest::{Manifest, SitePage};
use crate::render::layout::{Document, crumbs};
use crate::vault::Vault;
use std::io::Write as _;

/// Pages made between two writes.
const BATCH: usize = 256;

/// The sections the bar of a published page links to.
pub(super) const SECTIONS: &[(&str, &str)] = &[
    ("Index", "/"),
    ("Tags", "/tags"),
    ("Graph", "/graph"),
    ("Search", "/search"),
];

/// The file holding every published page's Markdown.
pub(super) const FULL: &str = "llms-full.txt";

/// What a published page's footer says.
pub(super) const FOOTER: &str = "Published with Sparks";

/// What the site's listings and search need of the pages made.
#[derive(Debug)]
pub(super) struct Made {
    /// Each page's first sentences, by place.
    pub descriptions: Descriptions,
    /// The search index, a page added at a time.
    pub search: search::Builder,
}

/// What publishing needs besides the pages.
pub(super) struct Ctx<'a> {
    pub vault: &'a Vault,
    pub site: &'a Site,
    pub base: &'a Base,
    pub name: &'a str,
}

/// What a thread is to do for a page: render it, or keep its files (and then what it gave
/// the listings, when the last publish kept that).
struct Job<'a> {
    page: &'a SitePage,
    render: bool,
    given: Option<Given>,
    /// Its piece of `llms-full.txt` as the last one holds it (its files kept), and the piece's
    /// length and hash as kept.
    piece: Option<(Vec<u8>, Piece)>,
}

impl Job<'_> {
    /// Whether a thread has work to do for it: it is rendered, or what it gave the listings or
    /// its piece of `llms-full.txt` must be read from its files.
    fn busy(&self) -> bool {
        self.render || self.given.is_none() || self.piece.is_none()
    }
}

/// One page made by a thread: its files, written when it was rendered, and what the rest
/// needs.
struct One {
    /// Its HTML and Markdown files, written (none: kept).
    files: Option<(Put, Put)>,
    /// Its Markdown (none: its job has its piece of `llms-full.txt`).
    markdown: Option<String>,
    /// What it gives the listings (none: as its job said).
    given: Option<Given>,
}

/// A document of the site in the viewer's layout, with the viewer's URLs.
pub(super) fn document(
    name: &str,
    title: Option<&str>,
    crumbs: &str,
    main: &str,
    aside: Option<&str>,
) -> String {
    Document {
        vault: name,
        title,
        crumbs,
        main,
        aside,
        query: "",
        sections: SECTIONS,
        search: "/search/",
        head: "",
        footer: FOOTER,
    }
    .render()
}

/// Make every published page, those `touched` (by place) rendered, the others kept when their
/// files are there as written; each page's Markdown appended to `full` (llms-full.txt), in
/// path order.
/// What a page gave the listings is taken from `kept` when its file did not change, and the
/// piece of a page kept from the last `llms-full.txt` (`old`); each page's is kept again in
/// `keeping`.
pub(super) fn make_all(
    cx: &Ctx<'_>,
    touched: &[bool],
    (out, full, mut old): (&mut Out, &mut Stream, Option<Full>),
    (kept, keeping): (&mut Kept, &mut Keeping),
) -> Result<Made, PublishError> {
    // What is said of each page is put aside in the vault's run-time folder until it is
    // written.
    let aside = cx.vault.path(crate::vault::RUN_DIR);
    let mut made = Made {
        descriptions: Descriptions::new(Spill::in_dir(&aside)?),
        search: search::Builder::new(Spill::in_dir(&aside)?),
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let manifest = cx.vault.path(crate::vault::MANIFEST);
    for (first, batch) in (0..).step_by(BATCH).zip(cx.site.pages.chunks(BATCH)) {
        let jobs: Vec<Job> = (first..)
            .zip(batch)
            .map(|(place, page)| {
                let keep = !touched[place] && {
                    let (html, md) = files_of(&page.path);
                    out.is_current(&html) && out.is_current(&md)
                };
                let (given, piece) = kept.take(&page.path, &page.hash).unzip();
                let piece = match (keep, piece, &mut old) {
                    (true, Some(p), Some(old)) => old.piece(&p).map(|bytes| (bytes, p)),
                    _ => None,
                };
                Job {
                    page,
                    render: !keep,
                    given,
                    piece,
                }
            })
            .collect();
        // A page kept whole (its files, what it gave, its piece) needs no thread.
        let busy: Vec<&Job> = jobs.iter().filter(|j| j.busy()).collect();
        let mut ones =
            on_threads(&busy, threads, |m, job| one(cx, m, out, job), &manifest)?.into_iter();
        for (place, job) in (first..).zip(jobs) {
            let o = job.busy().then(|| ones.next()).flatten().unwrap_or(One {
                files: None,
                markdown: None,
                given: None,
            });
            let path = &job.page.path;
            match o.files {
                Some((html, md)) => {
                    out.record(html);
                    out.record(md);
                }
                None => {
                    let (html_file, md_file) = files_of(path);
                    out.keep_current(&html_file);
                    out.keep_current(&md_file);
                }
            }
            // A piece copied is hashed once, when it is read; one made, here.
            let (piece, kept_as) = match (job.piece, o.markdown) {
                (Some((bytes, p)), _) => (bytes, p),
                (None, markdown) => {
                    let bytes = markdown.map_or(Vec::new(), |md| piece(cx, path, md).into_bytes());
                    let p = Piece::of(0, &bytes);
                    (bytes, p)
                }
            };
            full.write_all(&piece)
                .map_err(|e| OutError::from(full.error(e)))?;
            let Some(given) = o.given.or(job.given) else {
                continue;
            };
            keeping.add(path, &job.page.hash, &given, kept_as)?;
            made.descriptions.set(place, &given.description)?;
            made.search.add_counted(given.counted)?;
        }
    }
    Ok(made)
}

/// The piece of `llms-full.txt` of the page at `path`, whose published Markdown is `md`.
fn piece(cx: &Ctx<'_>, path: &str, md: String) -> String {
    // Its links are relative to its own file: in llms-full.txt, at the root, to the root.
    let md = match cx.base {
        Base::Relative => {
            let up = "../".repeat(urls::markdown(path).matches('/').count());
            md.replace(&format!("]({up}"), "](")
                .replace(&format!("](<{up}"), "](<")
        }
        Base::Absolute(_) => md,
    };
    let url = cx.base.href(&urls::page(path), "");
    format!("\n---\nurl: {url}\n---\n\n{}", md.trim_start())
}

/// The files of the page at `path`: its HTML and its Markdown, in the output folder.
fn files_of(path: &str) -> (String, String) {
    (
        urls::file_of(&urls::page(path)).unwrap_or_default(),
        urls::file_of(&urls::markdown(path)).unwrap_or_default(),
    )
}

/// `f` of every job, the jobs shared out over `threads` threads, each with a connection of its
/// own to the manifest at `manifest`; in order.
fn on_threads<J: Sync, R: Send>(
    jobs: &[J],
    threads: usize,
    f: impl Fn(&Manifest, &J) -> Result<R, PublishError> + Sync,
    manifest: &std::path::Path,
) -> Result<Vec<R>, PublishError> {
    let work = |part: &[J]| -> Result<Vec<R>, PublishError> {
        let m = Manifest::open_read_only(manifest)?;
        part.iter().map(|j| f(&m, j)).collect()
    };
    if jobs.is_empty() {
        return Ok(Vec::new());
    }
    if threads < 2 || jobs.len() < 8 {
        return work(jobs);
    }
    let size = jobs.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .chunks(size)
            .map(|part| s.spawn(move || work(part)))
            .collect();
        let mut all = Vec::with_capacity(jobs.len());
        for h in handles {
            all.extend(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))?);
        }
        Ok(all)
    })
}

/// Make the page of `job`: rendered and written when it says so, else what the last publish
/// wrote read back (rendered after all when that cannot be read); counted for the search
/// unless the job says what it gave (its file is as when that was kept).
fn one(cx: &Ctx<'_>, m: &Manifest, out: &Out, job: &Job<'_>) -> Result<One, PublishError> {
    let p = job.page;
    let (html_file, md_file) = files_of(&p.path);
    let kept = match job.render {
        true => None,
        false => out.read(&md_file),
    };
    let kept = match (kept, &job.given) {
        (Some(markdown), Some(_)) => {
            return Ok(One {
                files: None,
                markdown: Some(markdown),
                given: None,
            });
        }
        (kept, _) => kept,
    };
    let path = cx.vault.root.join(&p.path);
    let text = crate::fsio::read_to_string(&path).map_err(FileError::at("read", &path))?;
    let (files, markdown, title, readable) = match kept {
        Some(md) => {
            let title = p
                .title
                .clone()
                .unwrap_or_else(|| first_line_title(&md, &p.path));
            let readable = crate::scan::meaning::readable(&p.path, &text, &title);
            (None, md, title, readable)
        }
        None => {
            let pg = page::make(&cx.vault.root, m, cx.site, p, &text, cx.base)?;
            // What a page of megabytes is made of is dropped as soon as it is used.
            drop(text);
            let page::Made {
                main,
                aside,
                title,
                markdown,
                text,
            } = pg;
            let html = {
                let doc = document(cx.name, Some(&title), &crumbs(&p.path), &main, Some(&aside));
                drop((main, aside));
                urls::relocate(&doc, &urls::page(&p.path), cx.base)
            };
            let put = out.write(&html_file, html.as_bytes())?;
            drop(html);
            let md = out.write(&md_file, markdown.as_bytes())?;
            (Some((put, md)), markdown, title, text)
        }
    };
    if job.given.is_some() {
        return Ok(One {
            files,
            markdown: Some(markdown),
            given: None,
        });
    }
    let given = Given {
        description: page::describe(&readable),
        counted: search::Counted::of(&search::Doc {
            url: urls::page(&p.path),
            title,
            text: readable,
        }),
    };
    Ok(One {
        files,
        markdown: Some(markdown),
        given: Some(given),
    })
}

/// The title of a page's published Markdown: its first line, an H1.
fn first_line_title(md: &str, path: &str) -> String {
    md.lines()
        .next()
        .and_then(|l| l.strip_prefix("# "))
        .map_or_else(
            || crate::render::html::display_title(path, None),
            str::to_string,
        )
}
