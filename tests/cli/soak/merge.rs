//! The `merge` soak: each round a fresh page FROM (its own title, heading, block id and one
//! distinctive sentence), linked from [`REFERRERS`] pages in every link form, is merged into
//! the same page INTO; each `merge` is killed at a random moment and run again until it
//! succeeds. After each round FROM's file is gone, every link names INTO, and INTO holds FROM's
//! sentence exactly once.
//!
//! [`REFERRERS`]: super::referrers::REFERRERS

use super::referrers::{self, Target};
use super::{Finding, Soak, unfinished};
use crate::harness::delete_manifest;
use crate::harness::{TestVault, commit_all, git};

const INTO: &str = "Orchard";

fn rel(name: &str) -> String {
    format!("wiki/concepts/{name}.md")
}

/// Round `round`'s FROM: its title, its heading, its block id and its sentence, all its own
/// (a heading INTO had already would make links to it ambiguous, and merge refuses those).
struct Graft {
    name: String,
    heading: String,
    block: String,
    sentence: String,
}

impl Graft {
    fn of(round: usize) -> Graft {
        Graft {
            name: format!("Graft {round}"),
            heading: format!("Facet {round}"),
            block: format!("b{round}"),
            sentence: format!("The graft of round {round} took."),
        }
    }

    /// What the referrers link to: FROM, or INTO after the merge (FROM's heading and block
    /// move into INTO).
    fn target<'a>(&'a self, name: &'a str) -> Target<'a> {
        Target {
            name,
            heading: &self.heading,
            block: &self.block,
        }
    }
}

#[test]
fn merge_killed_at_random_moves_each_page_and_every_link_once() {
    let mut soak = Soak::new("merge");
    let v = TestVault::new();
    v.page(
        &rel(INTO),
        INTO,
        "The orchard holds every graft. It is old. It is large.",
    );
    commit_all(&v);
    for round in 0..soak.rounds {
        let from = Graft::of(round);
        v.page(
            &rel(&from.name),
            &from.name,
            &format!(
                "{} ^{}\n\n## {}\n\nMore words. Two sentences.",
                from.sentence, from.block, from.heading
            ),
        )
        .set_mtime(&rel(&from.name), "2026-04-01");
        referrers::write(&v, &from.target(&from.name));
        git(&v, &v.root, &["add", "-A", "wiki"]);
        git(&v, &v.root, &["commit", "-qm", &format!("round {round}")]);
        // Scanned, as a watched vault is: merge's own refresh then has nothing to read, and
        // a kill within the first 100 ms reaches its writes.
        let scan = v.run(&["scan"]);
        if scan.code != Some(0) {
            soak.stuck_at(round, "scan", &scan.stderr);
        }

        referrers::kill_and_check(
            &mut soak,
            &v,
            round,
            &["merge", &from.name, INTO],
            || findings(&v, round, &from),
            || repair(&v, &from),
        );
    }
    soak.report();
}

/// FROM's file is gone, INTO holds its sentence once, and every referrer links to INTO: the
/// sentence missing or a link naming FROM is lost; FROM still there or its sentence twice is
/// duplicated.
fn findings(v: &TestVault, round: usize, from: &Graft) -> Vec<Finding> {
    let mut out = Vec::new();
    let key = |what: &str| format!("{round} {what}");
    if v.path(&rel(&from.name)).exists() {
        out.push(Finding::duplicated(
            key("from"),
            1,
            format!("{} is still there", rel(&from.name)),
        ));
    }
    let into = v.read(&rel(INTO));
    match into.matches(&from.sentence).count() {
        1 => {}
        0 => out.push(Finding::lost(
            key("sentence"),
            1,
            format!("{INTO} lacks {:?}", from.sentence),
        )),
        n => out.push(Finding::duplicated(
            key("sentence"),
            n - 1,
            format!("{INTO} holds {:?} {n} times", from.sentence),
        )),
    }
    out.extend(referrers::check(
        v,
        round,
        &from.target(&from.name),
        &from.target(INTO),
    ));
    out
}

/// By hand, so that the next round can go on: FROM gone, the links naming INTO, and an
/// interrupted operation that refuses every other write forgotten with the manifest.
fn repair(v: &TestVault, from: &Graft) {
    let _ = std::fs::remove_file(v.path(&rel(&from.name)));
    referrers::write(v, &from.target(INTO));
    if unfinished(v) {
        delete_manifest(v);
    }
}
