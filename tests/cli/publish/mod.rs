//! `sparks publish`: the wiki as a static site. Nothing of a private page reaches any file of
//! the site; which pages are published; every link of the site leads to a file there (and a
//! fragment to an id in it), relative or under `--base-url`; llms.txt as llmstxt.org reads it,
//! the Markdown copies, the sitemap and feed as XML, the search index; a second publish writes
//! only what changed and removes only what it wrote; redirects after `mv`; `--dry-run`; the
//! folders refused; the scan and git leave the site alone.

use crate::harness::{TestVault, refused, tree};
use crate::snapshot;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod afresh;
mod incremental;
mod links;
mod outputs;
mod privacy;

/// A 1×1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

/// The address of the tests that publish under `--base-url`.
const BASE: &str = "https://example.org/notes/";

/// A page's text: its title and type, the frontmatter lines `front` (each ending in a newline),
/// its dates, then `body`.
fn page(title: &str, kind: &str, front: &str, body: &str) -> String {
    format!(
        "---\ntitle: {title}\ntype: {kind}\n{front}created: 2026-04-01\nupdated: 2026-04-20\n\
         ---\n\n{body}\n"
    )
}

/// Replace `from` (which must be there) with `to` in the vault file `rel`.
#[track_caller]
fn edit(v: &TestVault, rel: &str, from: &str, to: &str) {
    let text = v.read(rel);
    assert!(text.contains(from), "{rel} has no {from:?}:\n{text}");
    v.write(rel, text.replacen(from, to, 1));
}

/// `sparks publish --json <args>`, which must succeed: its report.
#[track_caller]
fn publish(v: &TestVault, args: &[&str]) -> Value {
    let mut all = vec!["publish", "--json"];
    all.extend(args);
    v.run(&all).ok().json()
}

/// The strings of the report's list `key`.
fn list(report: &Value, key: &str) -> Vec<String> {
    report[key]
        .as_array()
        .unwrap_or_else(|| panic!("no list {key} in {report}"))
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// Every file under `out` with its bytes, by its path there (`/`-separated).
fn files(out: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(out)
        .into_iter()
        .map(|e| e.expect("walk the site"))
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(out).unwrap();
            let rel = rel.to_string_lossy().replace('\\', "/");
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

/// The text of the file `rel` of the site at `out`.
#[track_caller]
fn text(out: &Path, rel: &str) -> String {
    std::fs::read_to_string(out.join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
}

/// The vault paths of the pages published into `out`: those with a Markdown copy there.
fn published(out: &Path) -> BTreeSet<String> {
    files(out)
        .into_keys()
        .filter(|p| p.starts_with("wiki/") && p.ends_with(".md"))
        .collect()
}
