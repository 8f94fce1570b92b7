//! The `publish` soak: a small wiki published with `--all`; each round one page's body is
//! edited, another's title changed and a page added, then the publish is killed at a random
//! moment and run again until it succeeds. After each round the site is byte for byte the one
//! a publish into an empty folder makes (a file missing or left over is lost or duplicated),
//! and no staging folder is left behind.

use super::{Finding, Soak};
use crate::harness::TestVault;
use std::collections::BTreeMap;
use std::path::Path;

/// Pages of the wiki at the start.
const PAGES: usize = 24;

fn rel(i: usize) -> String {
    format!("wiki/concepts/Page {i}.md")
}

/// Page `i`: linking the next page, embedding the one after, with a heading.
fn text(i: usize, title: &str, body: &str) -> String {
    format!(
        "---\ntitle: {title}\ntype: concept\ncreated: 2026-04-01\nupdated: 2026-04-20\n---\n\n\
         {body} See [[Page {}]]; ![[Page {}#Part]]\n\n## Part\n\nA part of page {i}.\n",
        i + 1,
        i + 2
    )
}

/// Every file under `out` (its staging folder included), by path, with its bytes.
fn files(out: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(out)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(out).expect("in the site");
            let rel = rel.to_string_lossy().replace('\\', "/");
            (
                rel,
                std::fs::read(e.path()).expect("read a file of the site"),
            )
        })
        .collect()
}

#[test]
fn publish_killed_at_random_ends_with_the_site_a_publish_into_an_empty_folder_makes() {
    let mut soak = Soak::new("publish");
    let v = TestVault::new();
    for i in 0..PAGES {
        v.write(&rel(i), text(i, &format!("Page {i}"), "Words."));
    }
    v.run(&["publish", "--all"]).ok();
    let (site, fresh) = (v.path("site"), v.path("fresh"));
    for (round, pages) in (0..soak.rounds).zip(PAGES..) {
        let edited = round % pages;
        let body = format!("Words of round {round}.");
        v.write(&rel(edited), text(edited, &format!("Page {edited}"), &body));
        let retitled = (round * 7 + 3) % pages;
        let title = format!("Page {retitled}, round {round}");
        v.write(&rel(retitled), text(retitled, &title, "Words."));
        v.write(&rel(pages), text(pages, &format!("Page {pages}"), "New."));

        let first = soak.kill_at_random(&v, &["publish", "--all"]);
        soak.disturb(&v, round);
        soak.settle(
            &v,
            round,
            &first,
            || false,
            || {
                let r = v.run(&["publish", "--all"]);
                match r.code {
                    Some(0) => Ok(()),
                    _ => Err(r.stderr),
                }
            },
        );
        let _ = std::fs::remove_dir_all(&fresh);
        let afresh = v.run(&["publish", "--all", fresh.to_str().expect("a UTF-8 path")]);
        if afresh.code != Some(0) {
            soak.stuck_at(round, "a publish into an empty folder", &afresh.stderr);
            continue;
        }
        let findings = compare(round, &files(&site), &files(&fresh));
        soak.count(round, findings);
        soak.leftovers(&v, round);
    }
    soak.report();
}

/// What differs between the site `made` and the one made `afresh`: a file missing or not as
/// made afresh is lost, a file the fresh site has not (a staged file left, a page removed
/// that stayed) duplicated.
fn compare(
    round: usize,
    made: &BTreeMap<String, Vec<u8>>,
    afresh: &BTreeMap<String, Vec<u8>>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for (rel, bytes) in afresh {
        match made.get(rel) {
            None => out.push(Finding::lost(
                format!("{round} {rel}"),
                1,
                format!("{rel} is missing"),
            )),
            Some(b) if b != bytes => out.push(Finding::lost(
                format!("{round} {rel}"),
                1,
                format!("{rel} is not as a publish afresh makes it"),
            )),
            Some(_) => {}
        }
    }
    for rel in made.keys().filter(|r| !afresh.contains_key(*r)) {
        out.push(Finding::duplicated(
            format!("{round} {rel}"),
            1,
            format!("{rel} is left over"),
        ));
    }
    out
}
