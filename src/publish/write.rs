//! A publish, step by step: what each page says (read again only when its file changed since
//! the last publish), the published site, what changed since then and which pages that
//! touches, then every file of the site made — a page untouched by the change kept as it is —
//! and what is no longer made removed.

use super::feeds;
use super::kept::{Full, Keeping, Kept};
use super::lists::{self, Listing};
use super::out::{Memory, Out, OutError, Record, Short, Source};
use super::pages;
use super::paths;
use super::select::Rules;
use super::site::{Site, Touches};
use super::urls::{self, Base};
use super::{Options, PublishError, Report, Warning};
use crate::file_error::FileError;
use crate::manifest::{LinkTable, Manifest, SitePage};
use crate::markdown::{Block, frontmatter, rewrite};
use crate::render::embed::Audience;
use crate::render::layout::{FAVICON, STYLE};
use crate::render::paths::{is_markdown, resolve_clean};
use crate::vault::Vault;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write as _;

/// The pages of a site whose publish gives back what it frees at once: it holds hundreds of
/// megabytes, and a page of megabytes frees and makes as much again (at 100,000 pages, a cold
/// publish peaked at 349 MB with mimalloc's delay, 299 MB without). A smaller one keeps the
/// delay, which spares it the calls (one page changed at 10,000 pages: about 5% of its time).
const LARGE: usize = 30_000;

/// Publish the vault's wiki as `options` say, from the manifest `m` (brought up to date by the
/// caller).
pub fn publish(vault: &Vault, m: &Manifest, options: &Options) -> Result<Report, PublishError> {
    super::check_place(vault, &options.out)?;
    if !options.dry_run {
        super::keep_out_of_git(vault, &options.out)?;
    }
    let config = &vault.config;
    let rules = Rules::new(options.all || config.publish.all, &config.publish.include)?;
    let base = Base::of(
        options
            .base_url
            .as_deref()
            .or(config.publish.base_url.as_deref()),
    );
    let name = vault.name();
    let mut out = Out::open(&options.out, options.dry_run)?;
    let memory_path = Memory::path(&vault.root, &options.out);
    if !options.dry_run {
        super::out::clear_leftovers(&memory_path);
    }
    let kept_path = Kept::path(&vault.root, &options.out);
    // What was read before counts only for the files the folder still has as they were made.
    let mut memory = match out.old.files.is_empty() {
        true => Memory::default(),
        false => Memory::load(&memory_path),
    };
    let mut report = Report {
        out: options.out.display().to_string(),
        dry_run: options.dry_run,
        ..Report::default()
    };
    let pages = m.site_pages()?;
    if pages.len() >= LARGE {
        crate::memory::give_back_at_once();
    }
    let links = m.site_links()?;
    let mut sources: BTreeMap<String, Source> = BTreeMap::new();
    let mut published = Vec::new();
    for p in pages {
        let hash = Short::of_hex(&p.hash);
        let Read {
            says,
            problems,
            face,
        } = read(vault, &memory, &p, hash);
        report
            .warnings
            .extend(problems.iter().map(|(line, message)| Warning {
                page: p.path.clone(),
                line: *line,
                message: message.clone(),
            }));
        let shown = rules.publishes(&p.path, says);
        sources.insert(
            p.path.clone(),
            Source {
                hash,
                says,
                problems,
                shown,
                title: p.title.clone(),
                face,
            },
        );
        match shown {
            true => published.push(p),
            false => report.private += 1,
        }
    }
    let mut site = Site::new(published, &links);
    report.published = site.pages.len();
    let mut links = links;
    links.extend(path_links(vault, m, &site, &sources)?);
    attach(m, &mut site, &links, &mut sources)?;
    warn_hidden_links(&site, &links, &mut report.warnings);
    // The pages are made through connections of their own.
    m.release_cache()?;
    let key = super::site_key(config, &name, &base);
    let touched = touched(&site, &memory, &sources, &links, key != memory.site);
    // The last publish's links counted for what this change touches, and count for nothing
    // more; this one's are kept as the memory keeps them, and held no longer (21 MB at
    // 100,000 pages, while every page is made).
    memory.links = Vec::new();
    let kept_links = record_links(&sources, &links);
    drop(links);
    // Nothing read changed since the last publish, and its files are all there: keep them.
    let unchanged = sources == memory.sources && key == memory.site && out.keep_all();
    let redirects = match unchanged {
        true => out.old.redirects.clone(),
        false => {
            let cx = pages::Ctx {
                vault,
                site: &site,
                base: &base,
                name: &name,
            };
            let mut full = out.stream(pages::FULL)?;
            writeln!(full, "# {}", feeds::line(&name))
                .map_err(|e| OutError::from(full.error(e)))?;
            let mut kept = Kept::open(&kept_path, &key, full.len);
            let mut keeping = Keeping::begin(&kept_path, &key, options.dry_run)?;
            let old_full = match out.is_current(pages::FULL) {
                true => Full::open(&options.out.join(pages::FULL)),
                false => None,
            };
            let made = pages::make_all(
                &cx,
                &touched,
                (&mut out, &mut full, old_full),
                (&mut kept, &mut keeping),
            )?;
            keeping.finish()?;
            out.put_stream(full)?;
            crate::fault::reached("publish.pages");
            let redirects = super::redirects::find(&site, &memory, &out.old);
            for (from, to) in &redirects {
                if let Some(file) = urls::file_of(&urls::page(from)) {
                    let html = super::redirects::page(&site, from, to, &base);
                    out.put(&file, html.as_bytes())?;
                }
            }
            let description = &config.publish.description;
            site_files(&site, &name, description, made, &base, &mut out)?;
            attachments_copied(vault, &site, &memory, &mut out)?;
            redirects
        }
    };
    // What is no longer needed goes before the record and the memory are written.
    drop((site, memory));
    let memory = Memory {
        site: key,
        links: kept_links,
        sources,
    };
    report.written = out.written();
    report.skipped = out.skipped;
    report.removed = out.finish(Record {
        redirects,
        ..Record::default()
    })?;
    if !options.dry_run {
        memory.save(&memory_path)?;
    }
    Ok(report)
}

/// What a publish reads of a page's file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Read {
    /// What its frontmatter's `publish:` says.
    says: Option<bool>,
    /// What is wrong with that (by line).
    problems: Vec<(Option<usize>, String)>,
    /// What the pages near it show of it ([`Source::face`]).
    face: Option<Short>,
}

/// What the page `p`'s file says of publishing, what is wrong with that (by line), and what the
/// pages near it show of it: as the last publish read it when the file is the same (its `hash`
/// as the memory keeps it), else read now (a page that cannot be read is not published; a
/// value that is not `true` or `false` keeps it private, with a warning).
fn read(vault: &Vault, old: &Memory, p: &SitePage, hash: Short) -> Read {
    if let Some(s) = old.sources.get(&p.path).filter(|s| s.hash == hash) {
        return Read {
            says: s.says,
            problems: s.problems.clone(),
            face: s.face,
        };
    }
    let text = match crate::fsio::read_to_string(&vault.root.join(&p.path)) {
        Ok(t) => t,
        Err(e) => {
            let message = format!("not published: it cannot be read ({e})");
            return Read {
                says: Some(false),
                problems: vec![(None, message)],
                face: None,
            };
        }
    };
    let face = face(p);
    match frontmatter::split(&text).block {
        Block::Valid(fm) => Read {
            problems: fm
                .problems
                .iter()
                .filter(|x| x.key == "publish")
                .map(|x| (Some(x.line), x.message.clone()))
                .collect(),
            says: fm.publish,
            face,
        },
        _ => Read {
            says: None,
            problems: Vec::new(),
            face,
        },
    }
}

/// The hash of what the pages near the page `p` show of it: its title, type, tags and aliases,
/// and the headings and block ids their links may name (as the manifest has them: the body is
/// not parsed again, which for a page of megabytes took ten times its size).
fn face(p: &SitePage) -> Option<Short> {
    let mut h = blake3::Hasher::new();
    let mut part = |s: &str| {
        h.update(s.as_bytes());
        h.update(&[0]);
    };
    part(p.title.as_deref().unwrap_or("\u{1}"));
    part(p.kind.as_deref().unwrap_or("\u{1}"));
    for t in p.tags.iter().chain(&p.aliases) {
        part(t);
    }
    h.update(&[2]);
    h.update(&p.anchors);
    Some(Short::from(&h.finalize()))
}

/// The links the published pages write as Markdown paths (`[text](Other.md)`, `![alt](a.png)`)
/// to the vault's pages and the files they may carry: the manifest records none, so the pages
/// the scan found such links in are read. They count for what a change touches and for the
/// attachments, not for backlinks or the graph (as in the viewer).
fn path_links(
    vault: &Vault,
    m: &Manifest,
    site: &Site,
    sources: &BTreeMap<String, Source>,
) -> Result<Vec<(String, String, bool)>, PublishError> {
    let mut found = Vec::new();
    for page in m.pages_with_path_links()? {
        if site.page(&page).is_none() {
            continue;
        }
        let path = vault.root.join(&page);
        let text = crate::fsio::read_to_string(&path).map_err(FileError::at("read", &path))?;
        for r in rewrite::markdown_links(&text) {
            let exists = |p: &str| {
                sources.contains_key(p)
                    || (attachable(p) && m.file_hash(p).ok().flatten().is_some())
            };
            if let Some((target, _)) = paths::named(&page, &text[r.dest.clone()], exists) {
                found.push((page.clone(), target, r.image));
            }
        }
    }
    Ok(found)
}

/// Find the attachments the published pages link to or embed: files that are no Markdown and
/// not raw captures, recorded with their hashes.
fn attach(
    m: &Manifest,
    site: &mut Site,
    links: &LinkTable,
    sources: &mut BTreeMap<String, Source>,
) -> Result<(), PublishError> {
    let wanted: BTreeSet<&str> = links
        .iter()
        .filter(|(s, t, _)| site.page(s).is_some() && attachable(t))
        .map(|(_, t, _)| t)
        .collect();
    for t in wanted {
        if let Some(hash) = m.file_hash(t)? {
            site.attachments.insert(t.to_string(), hash.clone());
            sources.insert(
                t.to_string(),
                Source {
                    hash: Short::of_hex(&hash),
                    says: None,
                    problems: Vec::new(),
                    shown: true,
                    title: None,
                    face: None,
                },
            );
        }
    }
    Ok(())
}

/// Whether a published page may carry the file at `path` along: not Markdown, not a raw
/// capture, not Sparks' own.
fn attachable(path: &str) -> bool {
    !is_markdown(path)
        && !path.starts_with("raw/")
        && !path.starts_with(crate::vault::MANIFEST)
        && !path.starts_with("sparks.")
        && !path.split('/').any(|part| part.starts_with('.'))
}

/// Warn of each published page's links to wiki pages that are not published: they show as
/// their text alone.
fn warn_hidden_links(site: &Site, links: &LinkTable, warnings: &mut Vec<Warning>) {
    for (s, t, embed) in links.iter() {
        if site.page(s).is_some() && crate::scan::is_page(t) && !site.shows(t) {
            warnings.push(Warning {
                page: s.to_string(),
                line: None,
                message: format!(
                    "{} {t}, which is not published: the site shows the link's text alone",
                    if embed { "embeds" } else { "links to" }
                ),
            });
        }
    }
}

/// The published pages a publish makes again: every one when `all` (what every page shows
/// changed) or when the last publish recorded none, else those whose own file changed, the
/// pages embedding them, and — when what they show of it changed too (its face, title or
/// publishing, or its links) — the pages near them, in the links of the last publish or of
/// this one. Whether each is, by its place among the site's pages.
fn touched(
    site: &Site,
    old: &Memory,
    sources: &BTreeMap<String, Source>,
    links: &LinkTable,
    all: bool,
) -> Vec<bool> {
    if all || old.sources.is_empty() {
        return vec![true; site.pages.len()];
    }
    let mut places = vec![false; site.pages.len()];
    for p in touched_by_change(site, old, sources, links) {
        if let Some(place) = site.place(&p) {
            places[place] = true;
        }
    }
    places
}

/// The published pages a change touches, by path ([`touched`]).
fn touched_by_change(
    site: &Site,
    old: &Memory,
    sources: &BTreeMap<String, Source>,
    links: &LinkTable,
) -> BTreeSet<String> {
    let changed: BTreeSet<&str> = sources
        .iter()
        .filter(|(p, s)| old.sources.get(*p) != Some(s))
        .map(|(p, _)| p.as_str())
        .chain(
            old.sources
                .keys()
                .filter(|p| !sources.contains_key(*p))
                .map(String::as_str),
        )
        .collect();
    let mut touched: BTreeSet<String> = changed.iter().map(|p| p.to_string()).collect();
    if changed.is_empty() {
        return touched;
    }
    let names: Vec<&String> = old.sources.keys().collect();
    let old_links = || {
        old.links.iter().filter_map(|&(s, t, e)| {
            Some((
                names.get(s as usize)?.as_str(),
                names.get(t as usize)?.as_str(),
                e,
            ))
        })
    };
    let (out_before, out_now) = (
        links_from(&changed, old_links()),
        links_from(&changed, links.iter()),
    );
    let face = |s: &Source| (s.says, s.shown, s.title.clone(), s.face);
    let wide: Vec<(&str, bool)> = changed
        .iter()
        .map(|c| {
            let wide = old.sources.get(*c).map(face) != sources.get(*c).map(face)
                || out_before.get(c) != out_now.get(c);
            (*c, wide)
        })
        .collect();
    let names_now = links.paths.iter().map(String::as_str).collect();
    Touches::new(names.iter().map(|n| n.as_str()).collect(), &old.links).add(&wide, &mut touched);
    Touches::new(names_now, &links.links).add(&wide, &mut touched);
    touched.retain(|p| site.page(p).is_some());
    touched
}

/// The links (target, embed) of each of the pages `from` among `links`, in order.
fn links_from<'a>(
    from: &BTreeSet<&str>,
    links: impl Iterator<Item = (&'a str, &'a str, bool)>,
) -> HashMap<&'a str, Vec<(&'a str, bool)>> {
    let mut out: HashMap<&str, Vec<(&str, bool)>> = HashMap::new();
    for (s, t, e) in links.filter(|(s, _, _)| from.contains(s)) {
        out.entry(s).or_default().push((t, e));
    }
    for list in out.values_mut() {
        list.sort_unstable();
    }
    out
}

/// The links between the files of `sources`, as the record keeps them (indexes into its keys).
fn record_links(sources: &BTreeMap<String, Source>, links: &LinkTable) -> Vec<(u32, u32, bool)> {
    let at: BTreeMap<&str, u32> = sources
        .keys()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i as u32))
        .collect();
    links
        .iter()
        .filter_map(|(s, t, e)| Some((*at.get(s)?, *at.get(t)?, e)))
        .collect()
}

/// Write a listing at the site path `at` (its main column dropped once in the document, the
/// document once relocated: the index of a large site is megabytes, held at most twice).
fn listing(
    out: &mut Out,
    name: &str,
    at: &str,
    l: Listing,
    base: &Base,
) -> Result<(), PublishError> {
    let html = pages::document(name, l.title.as_deref(), "", &l.main, l.aside.as_deref());
    drop(l);
    let relocated = urls::relocate(&html, at, base);
    drop(html);
    let file = urls::file_of(at).unwrap_or_else(|| "index.html".into());
    out.put(&file, relocated.as_bytes())?;
    Ok(())
}

/// The site's files besides its pages: the listings, the search, the files for agents and
/// feed readers, the stylesheet and icon.
fn site_files(
    site: &Site,
    name: &str,
    description: &str,
    made: pages::Made,
    base: &Base,
    out: &mut Out,
) -> Result<(), PublishError> {
    listing(out, name, "", lists::index(site, name, description), base)?;
    listing(out, name, "tags/", lists::all_tags(site), base)?;
    let tags = lists::tags(site);
    for (tag, pages) in &tags {
        listing(
            out,
            name,
            &urls::tag(tag),
            lists::tag(tag, pages, &tags),
            base,
        )?;
    }
    listing(out, name, "graph/", lists::whole_graph(site), base)?;
    listing(out, name, "search/", lists::search(), base)?;
    let missing = pages::document(name, Some("Not found"), "", &lists::not_found().main, None);
    out.put("404.html", urls::relocate(&missing, "", base).as_bytes())?;
    let said = &made.descriptions;
    let mut llms = out.stream("llms.txt")?;
    feeds::llms(site, (name, description), said, base, &mut llms)?;
    out.put_stream(llms)?;
    let mut sitemap = out.stream("sitemap.xml")?;
    feeds::sitemap(site, base, &mut sitemap)?;
    out.put_stream(sitemap)?;
    out.put(
        "feed.xml",
        feeds::atom(site, name, description, said, base)?.as_bytes(),
    )?;
    made.search
        .write_files(|file, bytes| out.put(file, bytes))?;
    out.put("static/style.css", STYLE.as_bytes())?;
    out.put("favicon.ico", FAVICON)?;
    Ok(())
}

/// Copy the attachments the published pages carry, each read from the vault only when it
/// changed since the last publish.
fn attachments_copied(
    vault: &Vault,
    site: &Site,
    old: &Memory,
    out: &mut Out,
) -> Result<(), PublishError> {
    for (path, hash) in &site.attachments {
        let file = format!("file/{path}");
        let same = (old.sources.get(path)).is_some_and(|s| s.hash == Short::of_hex(hash));
        if same && out.keep(&file) {
            continue;
        }
        // A file that resolves outside the vault (a symbolic link) is not carried along.
        let Ok(found) = resolve_clean(&vault.root, path) else {
            continue;
        };
        let bytes = crate::fsio::read(&found.abs).map_err(FileError::at("read", &found.abs))?;
        out.put(&file, &bytes)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_publish_value_is_warned_of_again_when_the_page_is_not_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let vault = Vault {
            root: dir.path().to_path_buf(),
            config: crate::config::Config::default(),
        };
        let path = "wiki/a.md";
        fs_err::create_dir_all(dir.path().join("wiki")).unwrap();
        fs_err::write(
            dir.path().join(path),
            "---\ntitle: A\npublish: \"yes\"\n---\n\nA.\n",
        )
        .unwrap();
        let page = SitePage {
            path: path.into(),
            title: Some("A".into()),
            hash: "h".into(),
            ..SitePage::default()
        };
        let first = read(&vault, &Memory::default(), &page, Short::of_hex("h"));
        assert_ne!(first.says, Some(true), "{first:?}");
        assert_eq!(first.problems.len(), 1, "{first:?}");
        assert_eq!(first.problems[0].0, Some(3));
        assert!(first.face.is_some());
        let mut memory = Memory::default();
        memory.sources.insert(
            path.into(),
            Source {
                hash: Short::of_hex("h"),
                says: first.says,
                problems: first.problems.clone(),
                shown: false,
                title: Some("A".into()),
                face: first.face,
            },
        );
        fs_err::remove_file(dir.path().join(path)).unwrap();
        assert_eq!(
            read(&vault, &memory, &page, Short::of_hex("h")),
            first,
            "the same file: what the last publish read, its problems too"
        );
    }
}
