//! Every published page made: a batch at a time, on every core (each thread reading the
//! manifest through a connection of its own), then written in order. A page the change did not
//! touch is kept as the last publish wrote it, its Markdown read back. What the listings need
//! of each page is kept small: its description, its words for the search (interned by
//! [`search::Builder`]); its Markdown goes straight into `llms-full.txt`, which is written as
//! it grows. No batch's pages are held past the batch.

use super::feeds::Descriptions;
use super::out::{Out, OutError, Put, Stream};
use super::site::Site;
use super::urls::{self, Base};
use super::{PublishError, page, search};
use crate::file_error::FileError;
use crate::manifest::{Manifest, SitePage};
use crate::render::layout::{Document, crumbs};
use crate::vault::Vault;
use std::collections::BTreeSet;
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

/// What a published page's footer says.
pub(super) const FOOTER: &str = "Published with Sparks";

/// What the site's listings and search need of the pages made.
#[derive(Debug, Default)]
pub(super) struct Made {
    /// Each page's first sentences, by path.
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

/// One page made by a thread: its files, written when it was rendered, and what the rest
/// needs.
struct One {
    path: String,
    /// Its HTML and Markdown files, written (none: kept).
    files: Option<(Put, Put)>,
    markdown: String,
    description: String,
    search: search::Counted,
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

/// Make every published page, those `touched` rendered, the others kept when their files are
/// there as written; each page's Markdown appended to `full` (llms-full.txt), in path order.
pub(super) fn make_all(
    cx: &Ctx<'_>,
    touched: &BTreeSet<String>,
    out: &mut Out,
    full: &mut Stream,
) -> Result<Made, PublishError> {
    let mut made = Made::default();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let manifest = cx.vault.path(crate::vault::MANIFEST);
    for batch in cx.site.pages.chunks(BATCH) {
        let jobs: Vec<(&SitePage, bool)> = batch
            .iter()
            .map(|p| {
                let keep = !touched.contains(&p.path) && {
                    let (html, md) = files_of(&p.path);
                    out.is_current(&html) && out.is_current(&md)
                };
                (p, !keep)
            })
            .collect();
        let ones = on_threads(&jobs, threads, |m, job| one(cx, m, out, job), &manifest)?;
        for o in ones {
            match o.files {
                Some((html, md)) => {
                    out.record(html);
                    out.record(md);
                }
                None => {
                    let (html_file, md_file) = files_of(&o.path);
                    out.keep(&html_file);
                    out.keep(&md_file);
                }
            }
            // Its links are relative to its own file: in llms-full.txt, at the root, to the root.
            let md = match cx.base {
                Base::Relative => {
                    let up = "../".repeat(urls::markdown(&o.path).matches('/').count());
                    o.markdown
                        .replace(&format!("]({up}"), "](")
                        .replace(&format!("](<{up}"), "](<")
                }
                Base::Absolute(_) => o.markdown,
            };
            let url = cx.base.href(&urls::page(&o.path), "");
            write!(full, "\n---\nurl: {url}\n---\n\n{}", md.trim_start())
                .map_err(|e| OutError::from(full.error(e)))?;
            made.descriptions.insert(o.path, o.description);
            made.search.add_counted(o.search);
        }
    }
    Ok(made)
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
/// wrote read back (rendered after all when that cannot be read); counted for the search.
fn one(
    cx: &Ctx<'_>,
    m: &Manifest,
    out: &Out,
    job: &(&SitePage, bool),
) -> Result<One, PublishError> {
    let (p, render) = *job;
    let path = cx.vault.root.join(&p.path);
    let text = crate::fsio::read_to_string(&path).map_err(FileError::at("read", &path))?;
    let (html_file, md_file) = files_of(&p.path);
    let kept = match render {
        true => None,
        false => out.read(&md_file),
    };
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
            let here = urls::page(&p.path);
            let crumbs = crumbs(&p.path);
            let html = document(cx.name, Some(&pg.title), &crumbs, &pg.main, Some(&pg.aside));
            let html = out.write(&html_file, urls::relocate(&html, &here, cx.base).as_bytes())?;
            let md = out.write(&md_file, pg.markdown.as_bytes())?;
            (Some((html, md)), pg.markdown, pg.title, pg.text)
        }
    };
    let description = page::describe(&readable);
    let search = search::Counted::of(&search::Doc {
        url: urls::page(&p.path),
        title,
        text: readable,
    });
    Ok(One {
        path: p.path.clone(),
        files,
        markdown,
        description,
        search,
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
