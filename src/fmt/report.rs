//! What `fmt` returns. Its field names are a public contract (the JSON of `sparks fmt --json`
//! and of the MCP tool), so the types stay together here.

use crate::schema::Severity;
use serde::{Serialize, Serializer};
use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::path::PathBuf;

/// The outcome: what was checked, what remains wrong, what was fixed.
#[derive(Debug, Default, Serialize)]
pub struct FmtReport {
    /// Files read.
    pub files_checked: usize,
    /// Files (or unreadable directories) with at least one issue left.
    pub files_with_issues: usize,
    /// The issues left, by path then line.
    pub issues: FmtIssues,
    /// The changes made, in the order they were made.
    pub fixes: Vec<Fix>,
    /// Files rewritten.
    pub files_fixed: usize,
}

/// One frontmatter problem.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FmtIssue {
    /// The vault-relative path.
    pub path: String,
    /// The 1-based line (of the key, or of the block's opening line when a key is missing);
    /// `None` when the file could not be read.
    pub line: Option<usize>,
    /// The key concerned; `None` for the block as a whole.
    pub key: Option<String>,
    /// Missing or invalid.
    pub severity: Severity,
    /// What is wrong.
    pub message: String,
}

/// One change made by `fix`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fix {
    /// The vault-relative path.
    pub path: String,
    /// The key changed; `None` when the keys were reordered.
    pub key: Option<String>,
    /// The value before (for a reorder, the keys in their old order).
    pub before: String,
    /// The value after.
    pub after: String,
}

/// The issues left: held, or, for a check that changes nothing, counted and found again in
/// their files as they are written (a file changed in between gives its issues as it is then).
#[derive(Debug)]
pub enum FmtIssues {
    /// Every issue.
    Held(Vec<FmtIssue>),
    /// Where to find them again.
    Streamed(Box<Recheck>),
}

impl Default for FmtIssues {
    fn default() -> FmtIssues {
        FmtIssues::Held(Vec::new())
    }
}

/// The files whose issues a streamed report finds again, and how.
#[derive(Debug)]
pub struct Recheck {
    /// The vault root.
    pub(super) root: PathBuf,
    /// Sources that count as existing ([`super::FmtRequest::pending`]).
    pub(super) pending: BTreeSet<String>,
    /// The issues of the directories that could not be read, held: a few.
    pub(super) unreadable: Vec<FmtIssue>,
    /// The files checked, sorted.
    pub(super) files: Vec<String>,
    /// Which of `files` had issues, by index.
    pub(super) with_issues: Vec<u32>,
    /// How many issues they had in all.
    pub(super) count: usize,
}

impl FmtIssues {
    /// How many.
    pub fn len(&self) -> usize {
        match self {
            FmtIssues::Held(issues) => issues.len(),
            FmtIssues::Streamed(r) => r.unreadable.len() + r.count,
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Give each issue, by path then line, until `give` breaks; a streamed report reads the
    /// files with issues again (a file it cannot read any more is an issue of its own).
    pub fn each(
        &self,
        give: &mut dyn FnMut(&FmtIssue) -> ControlFlow<()>,
    ) -> Result<(), super::FmtError> {
        let (held, recheck) = match self {
            FmtIssues::Held(issues) => (issues, None),
            FmtIssues::Streamed(r) => (&r.unreadable, Some(r)),
        };
        if held.iter().try_for_each(&mut *give).is_break() {
            return Ok(());
        }
        let Some(r) = recheck else {
            return Ok(());
        };
        let req = super::FmtRequest {
            pending: r.pending.clone(),
            ..super::FmtRequest::default()
        };
        for &at in &r.with_issues {
            let (issues, _) = super::process(&r.root, &r.files[at as usize], &req)?;
            if issues.iter().try_for_each(&mut *give).is_break() {
                return Ok(());
            }
        }
        Ok(())
    }
}

impl Serialize for FmtIssues {
    /// The issues as a list, written as they are found.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let len = match self {
            FmtIssues::Held(issues) => Some(issues.len()),
            FmtIssues::Streamed(_) => None,
        };
        crate::holding::list(s, len, |give| self.each(give))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{FmtRequest, Holding, fmt};
    use super::*;
    use crate::progress::Silent;

    /// A streamed check writes what a held one holds, as JSON, with the same counts.
    #[test]
    fn a_streamed_check_writes_what_a_held_one_holds() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path();
        let page = |name: &str, text: &str| {
            let path = root.join("wiki/concepts").join(name);
            fs_err::create_dir_all(path.parent().expect("a folder")).expect("dirs");
            fs_err::write(path, text).expect("a page");
        };
        page("A.md", "# No frontmatter\n");
        page(
            "B.md",
            "---\ntitle: B\ntype: Concept\nsources: [raw/gone.md, x]\n---\n",
        );
        page("C.md", "---\ntitle: [unclosed\n---\n");
        page(
            "D.md",
            "---\ntype: concept\ntitle: D\ntags: [Two Words]\n---\nText.\n",
        );
        let report = |holding| {
            let req = FmtRequest {
                holding,
                ..FmtRequest::default()
            };
            fmt(root, &req, &Silent).expect("fmt")
        };
        let (held, streamed) = (report(Holding::Whole), report(Holding::Streamed));
        assert!(matches!(streamed.issues, FmtIssues::Streamed(_)));
        assert!(held.issues.len() >= 6, "{held:#?}");
        assert_eq!(streamed.issues.len(), held.issues.len());
        let json = |r: &FmtReport| serde_json::to_string_pretty(r).expect("JSON");
        assert_eq!(json(&streamed), json(&held));
    }
}
