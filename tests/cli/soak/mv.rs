//! The `mv` soak: a page with a heading and a block id, linked from [`REFERRERS`] pages in
//! every link form, renamed back and forth (`Apple` → `Pear`, then `Pear` → `Apple`) with
//! `--no-alias`, each `mv` killed at a random moment and run again until it succeeds. After
//! each round the page is under its new name only, with its text, and every link names it.
//!
//! [`REFERRERS`]: super::referrers::REFERRERS

use super::referrers::{self, Target};
use super::{Finding, Soak, unfinished};
use crate::harness::delete_manifest;
use crate::harness::{TODAY, TestVault, commit_all, page_text};

const NAMES: [&str; 2] = ["Apple", "Pear"];

/// The page's body: a block id and a heading for the links to reach. It never names itself,
/// so that any mention of the old name in the vault is a link left behind.
const BODY: &str = "This fruit grows on trees. ^core\n\n## Taste\n\nSweet or sour. Often both.";

fn target(name: &str) -> Target<'_> {
    Target {
        name,
        heading: "Taste",
        block: "core",
    }
}

fn rel(name: &str) -> String {
    format!("wiki/concepts/{name}.md")
}

fn text(name: &str) -> String {
    page_text(name, &format!("raw/inbox/{TODAY}.md"), BODY)
}

#[test]
fn mv_killed_at_random_leaves_the_page_and_every_link_under_the_new_name() {
    let mut soak = Soak::new("mv");
    let v = TestVault::new();
    v.write(&rel(NAMES[0]), text(NAMES[0]));
    referrers::write(&v, &target(NAMES[0]));
    commit_all(&v);
    for round in 0..soak.rounds {
        let (old, new) = (NAMES[round % 2], NAMES[(round + 1) % 2]);
        referrers::kill_and_check(
            &mut soak,
            &v,
            round,
            &["mv", old, new, "--no-alias"],
            || findings(&v, round, old, new),
            || repair(&v, old, new),
        );
    }
    soak.report();
}

/// The page is under `new` only, with its text (its title `new`), and every referrer links to
/// it: the page missing or a link naming `old` is lost, the page under both names or changed
/// otherwise is duplicated.
fn findings(v: &TestVault, round: usize, old: &str, new: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let key = |what: &str| format!("{round} {what}");
    match std::fs::read_to_string(v.path(&rel(new))) {
        Err(_) => out.push(Finding::lost(key("page"), 1, format!("no {}", rel(new)))),
        Ok(t) if t != text(new) => out.push(Finding::duplicated(
            key("page"),
            1,
            format!("{} is not the page renamed:\n{t}", rel(new)),
        )),
        Ok(_) => {}
    }
    if v.path(&rel(old)).exists() {
        out.push(Finding::duplicated(
            key("old page"),
            1,
            format!("{} is still there", rel(old)),
        ));
    }
    out.extend(referrers::check(v, round, &target(old), &target(new)));
    out
}

/// By hand, so that the next round can go on: the rename completed as it should have been,
/// and an interrupted operation that refuses every other write forgotten with the manifest.
fn repair(v: &TestVault, old: &str, new: &str) {
    v.write(&rel(new), text(new));
    let _ = std::fs::remove_file(v.path(&rel(old)));
    referrers::write(v, &target(new));
    if unfinished(v) {
        delete_manifest(v);
    }
}
