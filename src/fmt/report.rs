//! What `fmt` returns. Its field names are a public contract (the JSON of `sparks fmt --json`
//! and of the MCP tool), so the types stay together here.

use crate::schema::Severity;
use serde::Serialize;

/// The outcome: what was checked, what remains wrong, what was fixed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FmtReport {
    /// Files read.
    pub files_checked: usize,
    /// Files (or unreadable directories) with at least one issue left.
    pub files_with_issues: usize,
    /// The issues left, by path then line.
    pub issues: Vec<FmtIssue>,
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
