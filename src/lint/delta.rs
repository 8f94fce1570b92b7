//! The lint delta of an ingest: the issues the gate's checks find on the pages a batch touched
//! that were not there before the batch. Prepare records the issues as it finds the vault;
//! finalize lints again and keeps what is new. An issue is the same issue when its check, page
//! and message are: the batch may move it to another line without adding it.

use super::{Check, Issue, LintError};
use crate::manifest::{Manifest, Pages};
use crate::progress::Progress;
use crate::vault::Vault;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// The checks whose new issues make a batch worse: links that lead nowhere (or to several
/// places), fragments that match nothing, frontmatter missing or invalid, and names two pages
/// claim. Orphans, thin and stale pages are the agent's ongoing work, not a batch's damage,
/// and conflict copies (`sync-conflicts`) a sync's.
pub const GATE_CHECKS: &[Check] = &[
    Check::AmbiguousLinks,
    Check::BrokenBlocks,
    Check::BrokenHeadings,
    Check::BrokenLinks,
    Check::DuplicateAliases,
    Check::DuplicateTitles,
    Check::InvalidFrontmatter,
    Check::MissingEmbeds,
    Check::MissingFrontmatter,
];

/// An issue as it is stored (and read back from an older record).
#[derive(Debug, Serialize, Deserialize)]
struct Stored {
    check: String,
    path: String,
    line: Option<usize>,
    message: String,
}

/// The issues the gate's checks find in the manifest as it is, on the pages in `scope`,
/// `progress` hearing how the checks go.
pub fn gate_issues(
    vault: &Vault,
    manifest: &Manifest,
    scope: Pages<'_>,
    progress: &dyn Progress,
) -> Result<Vec<Issue>, LintError> {
    super::lint_in(vault, manifest, GATE_CHECKS, scope, progress)
}

/// Issues as stored JSON.
pub fn encode(issues: &[Issue]) -> String {
    serde_json::to_string(issues).unwrap_or_else(|_| "[]".into())
}

/// Issues as stored JSON, one text per page that has any, by page.
pub fn encode_by_page(issues: &[Issue]) -> Vec<(String, String)> {
    let mut by_page: std::collections::BTreeMap<&str, Vec<&Issue>> = Default::default();
    for i in issues {
        by_page.entry(&i.path).or_default().push(i);
    }
    by_page
        .into_iter()
        .map(|(page, issues)| {
            let json = serde_json::to_string(&issues).unwrap_or_else(|_| "[]".into());
            (page.to_string(), json)
        })
        .collect()
}

/// Stored JSON as issues; checks this sparks does not know are left out.
pub fn decode(json: &str) -> Vec<Issue> {
    let stored: Vec<Stored> = serde_json::from_str(json).unwrap_or_default();
    stored
        .into_iter()
        .filter_map(|s| {
            Some(Issue {
                check: s.check.parse().ok()?,
                path: s.path,
                line: s.line,
                message: s.message,
                hint: String::new(),
                action: None,
            })
        })
        .collect()
}

/// The issues of `after` on the `touched` pages that `before` did not have (each issue of
/// `before` excuses one equal issue of `after`).
pub fn delta(before: &[Issue], after: &[Issue], touched: &HashSet<&str>) -> Vec<Issue> {
    let mut had: HashMap<(Check, &str, &str), usize> = HashMap::new();
    for i in before {
        *had.entry((i.check, &i.path, &i.message)).or_default() += 1;
    }
    after
        .iter()
        .filter(|i| touched.contains(i.path.as_str()))
        .filter(
            |i| match had.get_mut(&(i.check, i.path.as_str(), i.message.as_str())) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    false
                }
                _ => true,
            },
        )
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issue(check: &str, path: &str, line: usize, message: &str) -> Issue {
        Issue {
            check: check.parse().unwrap(),
            path: path.into(),
            line: Some(line),
            message: message.into(),
            hint: String::new(),
            action: None,
        }
    }

    #[test]
    fn only_new_issues_on_touched_pages_count_wherever_their_line() {
        let before = [
            issue(
                "broken-links",
                "wiki/a.md",
                3,
                "[[X]] matches no page or file",
            ),
            issue(
                "broken-links",
                "wiki/b.md",
                1,
                "[[Y]] matches no page or file",
            ),
        ];
        let after = [
            // Moved down two lines by the batch: not new.
            issue(
                "broken-links",
                "wiki/a.md",
                5,
                "[[X]] matches no page or file",
            ),
            // The same link written a second time: new.
            issue(
                "broken-links",
                "wiki/a.md",
                9,
                "[[X]] matches no page or file",
            ),
            issue(
                "missing-frontmatter",
                "wiki/c.md",
                1,
                "no frontmatter block",
            ),
            // On a page the batch did not touch.
            issue(
                "broken-links",
                "wiki/d.md",
                1,
                "[[Z]] matches no page or file",
            ),
        ];
        let touched = HashSet::from(["wiki/a.md", "wiki/c.md"]);
        let d = delta(&before, &after, &touched);
        assert_eq!(d, vec![after[1].clone(), after[2].clone()]);
    }

    #[test]
    fn issues_survive_storage_and_unknown_checks_are_dropped() {
        let issues = vec![issue("broken-links", "wiki/a.md", 3, "m")];
        assert_eq!(decode(&encode(&issues)), issues);
        let old = r#"[{"check":"no-such-check","path":"p","line":null,"message":"m"}]"#;
        assert_eq!(decode(old), vec![]);
    }
}
