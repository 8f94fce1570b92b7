//! The issues of one file: the schema's (the same rules `lint` applies), sources that do not
//! exist, and whatever `--fix` would change, so that a file passes `--check` exactly when
//! `--fix` leaves it alone.

use super::repair::repair_split;
use super::{Fix, FmtIssue, issue};
use crate::markdown::{Block, frontmatter};
use crate::schema::{self, Severity};

/// Every frontmatter issue of the file `path` holding `text`, by line.
pub fn check(path: &str, text: &str, exists: impl Fn(&str) -> bool) -> Vec<FmtIssue> {
    let split = frontmatter::split(text);
    let fm = match &split.block {
        Block::None => {
            let message = "no frontmatter block".to_string();
            return vec![issue(path, Some(1), None, Severity::Missing, message)];
        }
        Block::Invalid { line, message } => {
            let message = message.clone();
            return vec![issue(path, Some(*line), None, Severity::Invalid, message)];
        }
        Block::Valid(fm) => fm,
    };
    let line = |key: &str| Some(fm.line_of(key).unwrap_or(1));
    let mut out: Vec<FmtIssue> = schema::validate(path, fm)
        .into_iter()
        .map(|i| issue(path, line(&i.key), Some(&i.key), i.severity, i.message))
        .collect();
    for s in fm
        .sources
        .iter()
        .filter(|s| !s.trim().is_empty() && !exists(s))
    {
        let message = format!("source {s} does not exist");
        out.push(issue(
            path,
            line("sources"),
            Some("sources"),
            Severity::Invalid,
            message,
        ));
    }
    // Whatever `--fix` would change is an issue too, so that a file passes `--check` exactly
    // when `--fix` leaves it alone. A repair of a key the schema already faults adds nothing.
    for f in repair_split(path, text, &split).1 {
        if f.key.is_some() && out.iter().any(|i| i.key == f.key) {
            continue;
        }
        let (at, message) = match &f.key {
            Some(k) => (
                line(k),
                format!("{} should be written {}", f.before, f.after),
            ),
            None => (
                first_moved(&f).and_then(|k| fm.line_of(k)).or(Some(1)),
                format!(
                    "keys out of order: {} (the order is {})",
                    f.before,
                    schema::KEY_ORDER.join(", ")
                ),
            ),
        };
        out.push(issue(
            path,
            at,
            f.key.as_deref(),
            Severity::Invalid,
            message,
        ));
    }
    out.sort_by_key(|i| i.line);
    out
}

/// The first key a reorder moves: where the old and the new order first differ, the key the
/// new order brings forward (a schema key, whose line is known).
fn first_moved(reorder: &Fix) -> Option<&str> {
    let old = reorder.before.split(", ");
    let new = reorder.after.split(", ");
    old.zip(new).find(|(a, b)| a != b).map(|(_, b)| b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fmt::repair;

    const GOOD: &str = "---\ntitle: A\ntype: concept\nmaturity: seed\ntags: [x]\nsources: [raw/a.md]\n\
                        created: 2026-03-02\nupdated: 2026-03-09\n---\nbody\n";

    fn keys(issues: &[FmtIssue]) -> Vec<(Option<usize>, Option<&str>)> {
        issues.iter().map(|i| (i.line, i.key.as_deref())).collect()
    }

    #[test]
    fn a_good_page_passes() {
        assert_eq!(check("wiki/a.md", GOOD, |_| true), []);
    }

    #[test]
    fn issues_name_their_line_and_key() {
        assert_eq!(
            keys(&check("wiki/a.md", "# no block\n", |_| true)),
            [(Some(1), None)]
        );
        assert_eq!(
            keys(&check("wiki/a.md", "---\ntitle: [a\n---\n", |_| true))[0].1,
            None
        );
        let text = GOOD
            .replace("title: A\n", "")
            .replace("maturity: seed", "maturity: ripe");
        assert_eq!(
            keys(&check("wiki/a.md", &text, |_| true)),
            [(Some(1), Some("title")), (Some(3), Some("maturity"))]
        );
        let missing = check("wiki/a.md", GOOD, |_| false);
        assert_eq!(keys(&missing), [(Some(6), Some("sources"))]);
        assert_eq!(missing[0].message, "source raw/a.md does not exist");
    }

    #[test]
    fn repairs_are_mechanical_and_reported() {
        let text = "---\ntype: concept\ntitle: A # name\nmaturity: seed\ntags: ['#AI', Machine Learning, ai]\n\
                    sources: raw/a.md\ncreated: 2026/3/2\nupdated: \"2026-03-09T10:00\"\n---\nbody\n";
        let (out, fixes) = repair("wiki/a.md", text);
        assert_eq!(
            out,
            "---\ntitle: A # name\ntype: concept\nmaturity: seed\ntags: [ai, machine-learning]\n\
             sources: [raw/a.md]\ncreated: 2026-03-02\nupdated: \"2026-03-09\"\n---\nbody\n"
        );
        let got: Vec<_> = fixes
            .iter()
            .map(|f| (f.key.as_deref(), f.before.as_str(), f.after.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    Some("tags"),
                    "[#AI, Machine Learning, ai]",
                    "[ai, machine-learning]"
                ),
                (Some("sources"), "raw/a.md", "[raw/a.md]"),
                (Some("created"), "2026/3/2", "2026-03-02"),
                (Some("updated"), "2026-03-09T10:00", "2026-03-09"),
                (
                    None,
                    "type, title, maturity, tags, sources, created, updated",
                    "title, type, maturity, tags, sources, created, updated"
                ),
            ]
        );
        assert_eq!(check("wiki/a.md", &out, |_| true), []);
        assert_eq!(
            repair("wiki/a.md", &out),
            (out.clone(), Vec::new()),
            "a second repair changes nothing"
        );
    }

    #[test]
    fn check_fails_on_everything_fix_would_change() {
        let moved = GOOD
            .replace("tags: [x]\n", "")
            .replace("updated: 2026-03-09\n", "updated: 2026-03-09\ntags: [x]\n");
        for text in [
            moved.clone(),
            GOOD.replace("tags: [x]", "tags: [People]"),
            GOOD.replace("tags: [x]", "tags: [x, x]"),
            GOOD.replace("tags: [x]", "tags: \"#Local First, Tools\""),
            GOOD.replace("sources: [raw/a.md]", "sources: raw/a.md"),
            GOOD.replace("created: 2026-03-02", "created: 2026/3/2"),
        ] {
            let (fixed, fixes) = repair("wiki/a.md", &text);
            assert!(!fixes.is_empty(), "{text}");
            assert!(!check("wiki/a.md", &text, |_| true).is_empty(), "{text}");
            assert_eq!(check("wiki/a.md", &fixed, |_| true), [], "{fixed}");
        }
        let order = check("wiki/a.md", &moved, |_| true);
        assert_eq!(
            keys(&order),
            [(Some(8), None)],
            "the line of the key to move up"
        );
        assert!(
            order[0].message.starts_with(
                "keys out of order: title, type, maturity, sources, created, updated, tags"
            ),
            "{}",
            order[0].message
        );
        let (fixed, _) = repair(
            "wiki/a.md",
            &GOOD.replace("tags: [x]", "tags: \"#Local First, Tools\""),
        );
        assert!(fixed.contains("tags: [local-first, tools]\n"), "{fixed}");
    }
}
