//! Names of any Unicode never panic: for generated names (emoji at either end, ZWJ sequences,
//! combining marks alone or after a letter, CJK, right-to-left scripts, letters whose lower
//! case is longer than they are, names ending in `.md`-like suffixes such as `x.m💡`, names of
//! 300 bytes and more), `mv` and `merge` run or refuse with a message and leave the vault as it
//! was, `capture` and `tasks add` keep the text, a page of that name is found by its links, by
//! name and by its URL in the viewer, and a scan reads a file of that name without an error.

#![allow(clippy::unwrap_used)]
#![allow(clippy::disallowed_methods)]

use proptest::prelude::*;
use sparks::clock::Now;
use sparks::manifest::{Manifest, Resolution};
use sparks::markdown::rewrite;
use sparks::mv::{MergeRequest, MoveRequest, NewName, Operation, mv};
use sparks::progress::Silent;
use sparks::render::html::href_for;
use sparks::scan::{ScanOptions, scan};
use sparks::tasks::{self, Done, Filter};
use sparks::vault::{MANIFEST, Vault};
use sparks::view::{Site, routes::dispatch};
use std::collections::BTreeMap;
use std::path::Path;

/// The pieces names are made of.
const PIECES: &[&str] = &[
    "Ideas",
    " ",
    "💡",
    "👩\u{200d}💻",
    "e\u{301}",
    "\u{301}",
    "漢字",
    "東京",
    "שלום",
    "مرحبا",
    "\u{200f}",
    ".m",
    ".md",
    ".MD",
    "x.m💡",
    "-",
    "_",
    "é",
    "İ",
    "Σ",
    "ﬁ",
    "🇫🇷",
];

/// A name: a few pieces, or one piece repeated past the 255 bytes a file name may have.
fn name() -> impl Strategy<Value = String> {
    let piece = proptest::sample::select(PIECES);
    let short = proptest::collection::vec(piece.clone(), 1..6).prop_map(|p| p.concat());
    let long = (piece, 40usize..90).prop_map(|(p, n)| p.repeat(n));
    prop_oneof![4 => short, 1 => long]
}

fn now() -> Now {
    Now {
        today: chrono::NaiveDate::from_ymd_opt(2026, 5, 1).unwrap(),
        timestamp: "2026-05-01T10:00:00+00:00".into(),
        ns: 1_777_630_000_000_000_000,
    }
}

/// A page titled `title` (quoted, as YAML needs for a title such as `- x`).
fn page(root: &Path, rel: &str, title: &str, body: &str) {
    let text = format!(
        "---\ntitle: \"{title}\"\ntype: concept\nmaturity: seed\nsources: [raw/a.md]\n\
         created: 2026-04-01\nupdated: 2026-04-01\n---\n\n{body}\n"
    );
    let file = root.join(rel);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, text).unwrap();
}

/// A vault of `pages` (path, title, body), scanned; the scan read every file.
fn vault(root: &Path, pages: &[(&str, &str, &str)]) -> (Vault, Manifest) {
    std::fs::write(root.join("sparks.toml"), "[git]\nauto_commit = false\n").unwrap();
    std::fs::create_dir_all(root.join("raw")).unwrap();
    std::fs::write(root.join("raw/a.md"), "a\n").unwrap();
    for (rel, title, body) in pages {
        page(root, rel, title, body);
    }
    let vault = Vault::open(root).unwrap();
    let mut manifest = Manifest::open(&root.join(MANIFEST)).unwrap();
    rescan(&vault, &mut manifest);
    (vault, manifest)
}

fn rescan(vault: &Vault, manifest: &mut Manifest) {
    let now = now();
    let report = scan(
        vault,
        manifest,
        ScanOptions::default(),
        &now.timestamp,
        now.ns,
        &Silent,
    )
    .unwrap();
    assert!(report.errors.is_empty(), "{:?}", report.errors);
}

/// Every file under `wiki/`, by path.
fn wiki(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.join("wiki")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// What each live link of `source` resolves to, in order.
fn links_of(root: &Path, source: &str) -> Vec<Option<String>> {
    let c = rusqlite::Connection::open(root.join(MANIFEST)).unwrap();
    let mut stmt = c
        .prepare("SELECT resolved FROM links WHERE source = ?1 AND target <> '' ORDER BY seq")
        .unwrap();
    stmt.query_map([source], |r| r.get::<_, Option<String>>(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

const EPSILON: &str = "wiki/concepts/Epsilon.md";
const BETA: &str = "wiki/concepts/Beta.md";
const GAMMA: &str = "wiki/concepts/Gamma.md";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn mv_and_merge_take_any_name_or_refuse_it_and_change_nothing(
        name in name(),
        as_path in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let (vault, mut manifest) = vault(root, &[
            (EPSILON, "Epsilon", "Epsilon text."),
            (BETA, "Beta", "Beta text."),
            (GAMMA, "Gamma", "See [[Epsilon]], [e](Epsilon.md) and [[Beta]]."),
        ]);
        let before = wiki(root);
        let now = now();
        let new = match as_path {
            true => format!("wiki/synthesis/{name}.md"),
            false => name.clone(),
        };
        let req = MoveRequest { page: EPSILON.into(), new: new.clone(), no_alias: false, dry_run: false };
        let result = mv(&vault, &mut manifest, &now, &req, &Silent);
        let to = match NewName::parse(&new) {
            Ok(NewName::Title(t)) => format!("wiki/concepts/{t}.md"),
            Ok(NewName::Path(p)) => p,
            Err(refused) => {
                let e = result.expect_err("a NEW that cannot be is refused").to_string();
                prop_assert!(e.contains(&refused), "{} / {}", e, refused);
                prop_assert_eq!(wiki(root), before, "a refusal changes nothing");
                return Ok(());
            }
        };
        let report = result.unwrap();
        prop_assert_eq!(&report.to, &to);
        prop_assert!(root.join(&to).is_file() && !root.join(EPSILON).exists());
        rescan(&vault, &mut manifest);
        prop_assert_eq!(links_of(root, GAMMA), vec![Some(to.clone()), Some(BETA.to_string())]);
        let title = report.title;
        prop_assert_eq!(manifest.resolve_name(&title).unwrap(), Resolution::Resolved(to.clone()));
        let gamma = std::fs::read_to_string(root.join(GAMMA)).unwrap();
        let dests: Vec<String> = rewrite::markdown_links(&gamma)
            .iter()
            .map(|m| rewrite::percent_decode(&gamma[m.dest.clone()]).unwrap())
            .collect();
        let from_gamma = to.strip_prefix("wiki/concepts/").map_or_else(
            || format!("../{}", to.strip_prefix("wiki/").unwrap()),
            str::to_string,
        );
        prop_assert_eq!(dests, vec![from_gamma], "the Markdown link of {}", GAMMA);

        // The page of that name receives a merge, and is merged away.
        let into = MergeRequest { from: BETA.into(), into: to.clone(), dry_run: false };
        into.run(&vault, &mut manifest, &now, &Silent).unwrap();
        rescan(&vault, &mut manifest);
        prop_assert_eq!(links_of(root, GAMMA), vec![Some(to.clone()); 2]);
        let away = MergeRequest { from: to.clone(), into: GAMMA.into(), dry_run: false };
        away.run(&vault, &mut manifest, &now, &Silent).unwrap();
        prop_assert!(!root.join(&to).exists());
        rescan(&vault, &mut manifest);
        prop_assert_eq!(
            manifest.resolve_name(&title).unwrap(),
            Resolution::Resolved(GAMMA.to_string()),
            "the merged title is an alias of INTO"
        );
    }

    #[test]
    fn capture_and_tasks_keep_any_text(text in name()) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let (vault, mut manifest) = vault(root, &[]);
        let now = now();
        let kept = text.trim();
        match sparks::capture::capture(&vault, &mut manifest, &text, None, &now) {
            Ok(c) => prop_assert_eq!(c.content, kept),
            Err(e) => prop_assert!(kept.is_empty(), "{}", e),
        }
        let today = now.today.to_string();
        let added = tasks::add(root, &text, &text, &today);
        if kept.is_empty() {
            prop_assert!(added.is_err());
            return Ok(());
        }
        let added = added.unwrap();
        prop_assert_eq!((added.section.as_str(), added.text.as_str()), (kept, kept));
        let filter = Filter { all: false, section: Some(text.clone()) };
        let listed = tasks::list(root, &filter).unwrap();
        prop_assert_eq!(listed.tasks.len(), 1);
        prop_assert_eq!(&listed.tasks[0].text, kept);
        let done = tasks::done(root, &text).unwrap();
        prop_assert!(matches!(done, Done::Completed { .. }), "{:?}", done);
    }

    #[test]
    fn a_page_of_any_name_is_found_by_its_links_its_name_and_its_url(name in name()) {
        let stem = name.trim();
        let fits = |file: &str| file.len() <= 255;
        if stem.is_empty() || stem.starts_with('.') || !fits(&format!("{stem}.md")) {
            return Ok(());
        }
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let one = format!("wiki/concepts/{stem}.md");
        // A page whose name without `.md` ends in `.md` too, when it fits.
        let two = format!("wiki/concepts/{stem}.md.md");
        let mut pages = vec![
            (one.as_str(), stem, "page-one"),
            ("wiki/concepts/Linker.md", "Linker", ""),
        ];
        let link = format!("[[{stem}]]");
        pages[1].2 = &link;
        let twin = format!("{stem} twin");
        if fits(&format!("{stem}.md.md")) {
            pages.push((two.as_str(), &twin, "page-two"));
        }
        // A file of that name with no extension: a scan reads it as no page.
        std::fs::create_dir_all(root.join("wiki/files")).unwrap();
        std::fs::write(root.join("wiki/files").join(stem), "bytes\n").unwrap();
        let (_vault, manifest) = vault(root, &pages);
        if !stem.to_ascii_lowercase().ends_with(".md") {
            prop_assert_eq!(links_of(root, "wiki/concepts/Linker.md"), vec![Some(one.clone())]);
            prop_assert_eq!(manifest.resolve_name(stem).unwrap(), Resolution::Resolved(one.clone()));
        }
        let site = Site::new(root.to_path_buf(), "v".into());
        for (rel, _, marker) in pages.iter().filter(|p| p.2.starts_with("page-")) {
            let url = href_for(rel);
            let reply = dispatch(&site, &url, None);
            prop_assert_eq!(reply.status, 200, "{} for {}", url, rel);
            let body = String::from_utf8_lossy(&reply.body);
            prop_assert!(body.contains(marker), "{} shows {} not {}", url, rel, marker);
        }
    }
}
