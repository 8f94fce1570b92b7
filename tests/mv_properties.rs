//! The property of `mv`: for random vaults (pages in several folders, titles that are or are not
//! their file names, aliases, every link form, links in code, Markdown links), after moving a
//! random page to a new title or path, every link that resolved before resolves after, to the
//! same page, and no byte of any file changed but link targets, `updated:`, `aliases:` and the
//! moved page's `title:`.

#![allow(clippy::unwrap_used)]
#![allow(clippy::disallowed_methods)]

use proptest::prelude::*;
use sparks::clock::Now;
use sparks::manifest::Manifest;
use sparks::markdown::rewrite;
use sparks::mv::{MoveRequest, mv};
use sparks::progress::Silent;
use sparks::scan::{ScanOptions, scan};
use sparks::vault::{MANIFEST, Vault};
use std::collections::BTreeMap;
use std::path::Path;

const TITLES: [&str; 7] = [
    "Alpha",
    "Beta",
    "Gamma Ray",
    "Delta",
    "Epsilon",
    "Zeta Fn",
    "Eta",
];
const ALIASES: [&str; 7] = ["Al", "Be", "Ga", "De", "Ep", "Ze", "Et"];
const FOLDERS: [&str; 3] = ["wiki/concepts", "wiki/entities", "wiki/concepts/deep"];

/// A page of the random vault.
#[derive(Debug, Clone)]
struct Page {
    title: &'static str,
    path: String,
    alias: Option<&'static str>,
}

/// One link, by form, to page `to` (`None`: a name no page has).
#[derive(Debug, Clone)]
struct Link {
    form: u8,
    to: Option<usize>,
}

fn now() -> Now {
    Now {
        today: chrono::NaiveDate::from_ymd_opt(2026, 5, 1).unwrap(),
        timestamp: "2026-05-01T10:00:00+00:00".into(),
        ns: 1_777_630_000_000_000_000,
    }
}

fn rel_path(from: &str, to: &str) -> String {
    let dir: Vec<&str> = from.rsplit_once('/').unwrap().0.split('/').collect();
    let target: Vec<&str> = to.split('/').collect();
    let common = dir.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let mut out = "../".repeat(dir.len() - common);
    out.push_str(&target[common..].join("/"));
    out
}

fn stem(path: &str) -> &str {
    path.rsplit('/')
        .next()
        .unwrap()
        .strip_suffix(".md")
        .unwrap()
}

/// The text of a link to `to` from the page at `from`, in form `form`.
fn link(form: u8, from: &str, to: Option<&Page>) -> String {
    let Some(p) = to else {
        return "[[Nowhere Page]]".into();
    };
    let t = p.title;
    let dir = p.path.rsplit_once('/').unwrap().0;
    let folder = dir.rsplit('/').next().unwrap();
    match form % 13 {
        0 => format!("[[{t}]]"),
        1 => format!("[[{}]]", t.to_lowercase()),
        2 => format!("[[{t}|shown]]"),
        3 => format!("[[{t}#Heading]]"),
        4 => format!("![[{t}#^blk]]"),
        5 => format!("[[{folder}/{}]]", stem(&p.path)),
        6 => format!("[[{}.md]]", stem(&p.path)),
        7 => format!("[[{}]]", p.alias.unwrap_or(t)),
        8 => format!("`[[{t}]]`"),
        9 => format!("| [[{t}\\|cell]] |"),
        10 => format!("[md]({})", rel_path(from, &p.path).replace(' ', "%20")),
        11 => format!("[[{}]]", stem(&p.path)),
        _ => format!("[[{t}#Heading|x]] and [[{t}]]"),
    }
}

fn page_text(p: &Page, body: &str) -> String {
    let alias = p
        .alias
        .map(|a| format!("aliases: [{a}]\n"))
        .unwrap_or_default();
    format!(
        "---\ntitle: {}\ntype: concept\nmaturity: seed\n{alias}sources: [raw/a.md]\n\
         created: 2026-04-01\nupdated: 2026-04-01\n---\n\nText. ^blk\n\n## Heading\n\n{body}\n",
        p.title
    )
}

/// Every live link's resolution, by source and position.
fn resolutions(root: &Path) -> BTreeMap<String, Vec<Option<String>>> {
    let c = rusqlite::Connection::open(root.join(MANIFEST)).unwrap();
    let mut stmt = c
        .prepare("SELECT source, resolved FROM links WHERE target <> '' ORDER BY source, seq")
        .unwrap();
    let mut out: BTreeMap<String, Vec<Option<String>>> = BTreeMap::new();
    let rows = stmt
        .query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?))
        })
        .unwrap();
    for r in rows {
        let (s, res) = r.unwrap();
        out.entry(s).or_default().push(res);
    }
    out
}

/// A file's text with what `mv` may change blanked: link targets, Markdown destinations and
/// the frontmatter lines `updated:`, `aliases:` and (for the moved page) `title:`.
fn blanked(text: &str, moved: bool) -> String {
    let mut edits: Vec<rewrite::Edit> = rewrite::wikilinks(text)
        .iter()
        .map(|r| r.retarget("@"))
        .collect();
    edits.extend(rewrite::markdown_links(text).iter().map(|m| rewrite::Edit {
        range: m.dest.clone(),
        text: "@".into(),
    }));
    rewrite::apply(text, &edits)
        .lines()
        .filter(|l| {
            let changes = l.starts_with("updated:")
                || l.starts_with("aliases:")
                || (moved && l.starts_with("title:"));
            !changes
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn vault() -> impl Strategy<Value = (Vec<Page>, Vec<Vec<Link>>)> {
    (3usize..7)
        .prop_flat_map(|n| {
            (
                proptest::sample::subsequence((0..TITLES.len()).collect::<Vec<_>>(), n),
                proptest::collection::vec((0usize..3, any::<bool>(), any::<bool>()), n),
                proptest::collection::vec(
                    proptest::collection::vec((any::<u8>(), 0usize..8), 0..6),
                    n,
                ),
            )
        })
        .prop_map(|(picked, shapes, links)| {
            let pages: Vec<Page> = picked
                .iter()
                .zip(&shapes)
                .map(|(&i, &(folder, own_stem, alias))| {
                    let title = TITLES[i];
                    let stem = match own_stem {
                        true => title.to_string(),
                        false => format!("f-{}", title.to_lowercase().replace(' ', "-")),
                    };
                    Page {
                        title,
                        path: format!("{}/{stem}.md", FOLDERS[folder]),
                        alias: alias.then_some(ALIASES[i]),
                    }
                })
                .collect();
            let n = pages.len();
            let links = links
                .into_iter()
                .map(|ls| {
                    ls.into_iter()
                        .map(|(form, to)| Link {
                            form,
                            to: (to < n).then_some(to),
                        })
                        .collect()
                })
                .collect();
            (pages, links)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn after_mv_every_link_leads_where_it_led_and_nothing_else_changed(
        (pages, links) in vault(),
        which in any::<prop::sample::Index>(),
        new_form in 0u8..3,
        no_alias in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("sparks.toml"), "[git]\nauto_commit = false\n").unwrap();
        std::fs::create_dir_all(root.join("raw")).unwrap();
        std::fs::write(root.join("raw/a.md"), "a\n").unwrap();
        for (i, p) in pages.iter().enumerate() {
            let body: Vec<String> = links[i]
                .iter()
                .map(|l| link(l.form, &p.path, l.to.map(|t| &pages[t])))
                .collect();
            let file = root.join(&p.path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, page_text(p, &body.join("\n\n"))).unwrap();
        }
        let vault = Vault::open(root).unwrap();
        let mut manifest = Manifest::open(&root.join(MANIFEST)).unwrap();
        let now = now();
        scan(&vault, &mut manifest, ScanOptions::default(), &now.timestamp, now.ns, &Silent).unwrap();
        let before_links = resolutions(root);
        let before_files: BTreeMap<String, String> = pages
            .iter()
            .map(|p| (p.path.clone(), std::fs::read_to_string(root.join(&p.path)).unwrap()))
            .collect();

        let moved = &pages[which.index(pages.len())];
        let new = match new_form {
            0 => "Renamed Page".to_string(),
            1 => "wiki/synthesis/Renamed Page.md".to_string(),
            _ => format!("wiki/synthesis/{}", moved.path.rsplit('/').next().unwrap()),
        };
        let req = MoveRequest { page: moved.path.clone(), new, no_alias, dry_run: false };
        let report = mv(&vault, &mut manifest, &now, &req, &Silent).unwrap();
        let to = report.to.clone();
        let map = |p: &str| if p == moved.path { to.clone() } else { p.to_string() };
        scan(&vault, &mut manifest, ScanOptions::default(), &now.timestamp, now.ns, &Silent).unwrap();
        let after_links = resolutions(root);

        for (source, before) in &before_links {
            let after = &after_links[&map(source)];
            prop_assert_eq!(after.len(), before.len(), "links of {}", source);
            for (b, a) in before.iter().zip(after) {
                if let Some(b) = b {
                    prop_assert_eq!(a.clone(), Some(map(b)), "a link of {}", source);
                }
            }
        }
        for (path, old) in &before_files {
            let now_text = std::fs::read_to_string(root.join(map(path))).unwrap();
            prop_assert_eq!(
                blanked(&now_text, path == &moved.path),
                blanked(old, path == &moved.path),
                "{}", path
            );
            // Markdown links lead to the same file (the moved page's new path for it).
            let dests = |text: &str, at: &str| -> Vec<String> {
                rewrite::markdown_links(text)
                    .iter()
                    .map(|m| {
                        let d = text[m.dest.clone()].replace("%20", " ");
                        let mut parts: Vec<&str> = at.rsplit_once('/').unwrap().0.split('/').collect();
                        for s in d.split('/') {
                            match s {
                                ".." => { parts.pop(); }
                                "." => {}
                                s => parts.push(s),
                            }
                        }
                        parts.join("/")
                    })
                    .collect()
            };
            let before_dests: Vec<String> = dests(old, path).iter().map(|d| map(d)).collect();
            prop_assert_eq!(dests(&now_text, &map(path)), before_dests, "{}", path);
        }
        prop_assert!(!std::path::Path::new(&root.join(&moved.path)).exists() || to == moved.path);
    }
}
