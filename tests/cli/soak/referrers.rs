//! The pages that link to the page the `mv` and `merge` soaks rename or merge: [`REFERRERS`]
//! pages, each with every link form Obsidian has (title, label, heading, block, embed, folder
//! path, `.md`, and the escaped pipe of a table row), and the check that after the command each
//! names the new page in the same form and nothing else of it changed.

use super::{Ended, Finding, Soak, once, unfinished};
use crate::harness::{TODAY, TestVault, page_text};

/// How many pages link to the page under test.
pub const REFERRERS: usize = 120;

/// What the referrers link to: a page's name, one of its headings and one of its block ids.
pub struct Target<'a> {
    pub name: &'a str,
    pub heading: &'a str,
    pub block: &'a str,
}

fn rel(i: usize) -> String {
    format!("wiki/refs/Ref {i:03}.md")
}

fn title(i: usize) -> String {
    format!("Ref {i:03}")
}

/// Referrer `i`'s body: every link form, in prose, an embed and a table row.
fn body(i: usize, t: &Target) -> String {
    let Target {
        name: n,
        heading: h,
        block: b,
    } = t;
    format!(
        "{} cites [[{n}]], [[{n}|the page]], [[{n}#{h}]], [[{n}#^{b}]], [[concepts/{n}]] and \
         [[{n}.md]].\n\n![[{n}]]\n\n| row | link |\n|---|---|\n| {i} | [[{n}\\|label]] |",
        title(i)
    )
}

/// The text of referrer `i` linking to `t`.
fn text(i: usize, t: &Target) -> String {
    page_text(&title(i), &format!("raw/inbox/{TODAY}.md"), &body(i, t))
}

/// Write every referrer, linking to `t`, with a modification time in the past: the racy-
/// timestamp rule would otherwise make every scan read them again.
pub fn write(v: &TestVault, t: &Target) {
    for i in 0..REFERRERS {
        v.write(&rel(i), text(i, t))
            .set_mtime(&rel(i), "2026-04-01");
    }
}

/// The page each `[[…]]` of `text` names: without its heading, block or label, `.md` or
/// folder.
fn names(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("[[") {
        let inner = &rest[start + 2..];
        let Some(end) = inner.find("]]") else { break };
        let target = inner[..end]
            .split(['|', '#', '\\'])
            .next()
            .unwrap_or_default()
            .trim();
        let target = target.strip_suffix(".md").unwrap_or(target);
        out.push(target.rsplit('/').next().unwrap_or(target));
        rest = &inner[end + 2..];
    }
    out
}

/// Every referrer links to `new` exactly as it linked to `old`, and nothing else of it
/// changed. Each link still naming `old` is lost; each referrer that differs otherwise (a link
/// rewritten twice or garbled, other text changed) is duplicated.
pub fn check(v: &TestVault, round: usize, old: &Target, new: &Target) -> Vec<Finding> {
    let (mut stale, mut stale_in, mut garbled) = (0, Vec::new(), Vec::new());
    for i in 0..REFERRERS {
        let got = v.read(&rel(i));
        let want = text(i, new);
        if got == want {
            continue;
        }
        let n = names(&got)
            .iter()
            .filter(|n| n.eq_ignore_ascii_case(old.name))
            .count();
        if n > 0 {
            stale += n;
            stale_in.push(title(i));
        }
        // With the stale links counted, the rest must be the new text. (The heading and
        // block move with the page: the soaks keep them.)
        let rewritten = got
            .replace(&format!("[[{}", old.name), &format!("[[{}", new.name))
            .replace(
                &format!("[[concepts/{}", old.name),
                &format!("[[concepts/{}", new.name),
            );
        if rewritten != want {
            garbled.push((title(i), got));
        }
    }
    let mut out = Vec::new();
    if stale > 0 {
        out.push(Finding::lost(
            format!("{round} links"),
            stale,
            format!(
                "links still naming {:?} in {} referrers: {}",
                old.name,
                stale_in.len(),
                stale_in.join(", ")
            ),
        ));
    }
    if let Some((first, text)) = garbled.first() {
        out.push(Finding::duplicated(
            format!("{round} referrers"),
            garbled.len(),
            format!("referrers not what the rewrite makes of them; the first, {first}:\n{text}"),
        ));
    }
    out
}

/// One round of a soak whose command rewrites the referrers (`mv`, `merge`): `args` killed at
/// a random moment, the vault disturbed, the command run again until it succeeds (unless
/// `findings` shows it had completed before the kill), then what `findings` and `lint` find
/// counted; `repair` puts a stuck round right by hand, so that the next can go on.
pub fn kill_and_check(
    soak: &mut Soak,
    v: &TestVault,
    round: usize,
    args: &[&str],
    findings: impl Fn() -> Vec<Finding>,
    repair: impl FnOnce(),
) {
    let first = soak.kill_at_random(v, args);
    soak.disturb(v, round);
    let ended = soak.settle(
        v,
        round,
        &first,
        || !unfinished(v) && findings().is_empty(),
        || once(v, args),
    );
    let mut found = findings();
    found.extend(lint(v, round, found.is_empty()));
    soak.count(round, found);
    soak.leftovers(v, round);
    if ended == Ended::Stuck {
        repair();
    }
}

/// What `sparks lint` finds unreachable (broken links, headings and blocks, missing embeds),
/// counted as lost when the files' text showed nothing wrong: the manifest then disagrees
/// with the files.
fn lint(v: &TestVault, round: usize, text_clean: bool) -> Vec<Finding> {
    let report = v.run(&["lint", "--json"]).json();
    let broken: u64 = [
        "broken-links",
        "broken-headings",
        "broken-blocks",
        "missing-embeds",
    ]
    .iter()
    .map(|c| report["counts"][c].as_u64().unwrap_or(0))
    .sum();
    match (broken, text_clean) {
        (0, _) | (_, false) => Vec::new(),
        (n, true) => vec![Finding::lost(
            format!("{round} lint"),
            n as usize,
            format!(
                "lint reports {n} broken links though every file is right: {}",
                report["counts"]
            ),
        )],
    }
}

/// A link left naming the old page is lost, once per link; a referrer changed otherwise is
/// duplicated; the others are right.
#[test]
fn the_check_finds_a_stale_link_and_a_garbled_referrer() {
    let v = TestVault::new();
    let (old, new) = (
        Target {
            name: "Old",
            heading: "H",
            block: "b",
        },
        Target {
            name: "New",
            heading: "H",
            block: "b",
        },
    );
    write(&v, &new);
    assert!(check(&v, 0, &old, &new).is_empty());
    v.write(
        &rel(3),
        v.read(&rel(3)).replacen("[[New#H]]", "[[Old#H]]", 1),
    );
    v.write(&rel(5), v.read(&rel(5)).replacen("[[New]]", "[[New]]]]", 1));
    let found: Vec<(bool, usize)> = check(&v, 0, &old, &new)
        .iter()
        .map(|f| (f.lost, f.count))
        .collect();
    assert_eq!(found, [(true, 1), (false, 1)]);
    v.write(&rel(7), v.read(&rel(7)).replace("New", "Old"));
    let found = check(&v, 0, &old, &new);
    assert_eq!(
        (found[0].lost, found[0].count),
        (true, 9),
        "8 links of Ref 007, 1 of Ref 003"
    );
}
