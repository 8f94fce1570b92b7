//! What a scan is asked and what it returns. The field names are a public contract (the JSON
//! of `sparks scan --json`, and `Seen` in the JSON of every command that scans first), so the
//! types stay together here.

use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;

/// What to scan.
#[derive(Debug, Clone, Copy, Default)]
pub struct ScanOptions {
    /// Read every file, whatever its metadata says.
    pub full: bool,
}

/// What a scan did.
#[derive(Debug, Clone, Serialize)]
pub struct ScanReport {
    /// The vault root.
    pub vault_root: PathBuf,
    /// Files visited.
    pub walked: usize,
    /// Files read and hashed.
    pub hashed: usize,
    /// Of those, files whose content was new or different.
    pub changed: usize,
    /// Files skipped because their metadata was unchanged.
    pub skipped: usize,
    /// Files marked deleted.
    pub deleted: usize,
    /// Link targets resolved again.
    pub resolved: usize,
    /// Sections embedded (read for search by meaning): only those of changed files.
    pub embedded: usize,
    /// Files and directories that could not be read.
    pub errors: Vec<ScanIssue>,
    /// Wall time, in milliseconds.
    pub duration_ms: u64,
    /// Wall time, in nanoseconds (the original's key).
    pub duration_ns: u64,
    /// With `--rebuild`: where the old manifest's files were moved.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<PathBuf>,
    /// With `--rebuild`: how many ingests' history was carried over from the old manifest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_kept: Option<usize>,
    /// With `--rebuild`: what could not be carried over, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The files whose content changed, appeared or went (for a watcher to name; not in the
    /// JSON).
    #[serde(skip)]
    pub touched: Touched,
}

/// The vault-relative files a scan found changed, appeared or gone: the first [`Touched::MAX`]
/// of them, and whether there were more.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Touched {
    /// The files, in the order the scan met them.
    pub paths: Vec<String>,
    /// More files changed than `paths` holds.
    pub more: bool,
}

impl Touched {
    /// How many paths are kept: a scan that changes more is a rebuild, not an edit to name.
    pub const MAX: usize = 1_000;

    /// Add a file.
    pub(super) fn add(&mut self, path: &str) {
        match self.paths.len() < Self::MAX {
            true => self.paths.push(path.to_string()),
            false => self.more = true,
        }
    }

    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty() && !self.more
    }
}

impl ScanReport {
    /// Record the wall time since `started`.
    pub(super) fn timed(&mut self, started: Instant) {
        let elapsed = started.elapsed();
        self.duration_ms = elapsed.as_millis() as u64;
        self.duration_ns = elapsed.as_nanos() as u64;
    }
}

/// A file or directory the scan could not read.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ScanIssue {
    /// Vault-relative path.
    pub path: String,
    /// What went wrong.
    pub error: String,
}

/// What a command that answers from the manifest says about bringing it up to date first:
/// nothing when all went well (both fields are left out of its JSON then).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Seen {
    /// Files the scan could not read: the answer used what the manifest knew of them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scan_errors: Vec<ScanIssue>,
    /// Set when the manifest could not be written (a read-only vault): the answer is as of
    /// this scan (RFC 3339; `never` without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manifest_as_of: Option<String>,
}
