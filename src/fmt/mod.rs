//! `sparks fmt`: the frontmatter of files read from disk, checked against the schema that
//! `lint` uses ([`crate::schema::validate`], no rules of its own), and with `fix` the
//! mechanical repairs: key order, tag form, a single value where a list belongs, date form.
//! Without `fix`, every repair `fix` would make is reported as an issue.
//! The edits themselves are [`crate::markdown::edit`]'s; this module chooses the files, the
//! repairs, and writes atomically. Never invents content: a missing title stays missing.
//!
//! The pieces: `check` finds the issues, `repair` makes the mechanical repairs, `select` turns
//! the argument into files, `report` is what the command returns. This file runs them over the
//! chosen files and writes what changed.

mod check;
mod repair;
mod report;
mod select;

pub use crate::holding::Holding;
pub use check::check;
pub use repair::{repair, repair_date, repair_list};
pub use report::{Fix, FmtIssue, FmtIssues, FmtReport, Recheck};

use crate::manifest::Manifest;
use crate::markdown::{Block, frontmatter};
use crate::progress::{Phase, Progress};
use crate::schema::{self, Severity};
use crate::vault::Vault;
use crate::{fault, fsio};
use select::select;
use std::collections::BTreeSet;
use std::path::Path;

/// What to check.
#[derive(Debug, Clone, Default)]
pub struct FmtRequest {
    /// A vault-relative file, directory or glob; `None` for every Markdown file under `wiki/`.
    pub target: Option<String>,
    /// Repair what is mechanical and write the files that change.
    pub fix: bool,
    /// Sources that count as existing although they do not yet: the archive files of the open
    /// ingest ([`crate::manifest::Manifest::pending_archives`]).
    pub pending: BTreeSet<String>,
    /// Whether a check that changes nothing holds its issues, or finds them again as they are
    /// written.
    pub holding: Holding,
}

/// `fmt` could not do its work.
#[derive(Debug, thiserror::Error)]
pub enum FmtError {
    /// The argument names a place outside the vault.
    #[error("{0:?} is outside the vault (give a path relative to the vault root)")]
    Outside(String),
    /// The argument names nothing.
    #[error(
        "no file or directory {0:?} in the vault (paths and globs are relative to the vault root)"
    )]
    NotFound(String),
    /// The argument is a symbolic link, which fmt neither follows nor replaces.
    #[error("{0} is a symbolic link; fmt does not follow links")]
    Symlink(String),
    /// The glob does not parse.
    #[error("{pattern:?} is not a valid glob: {source}")]
    Glob {
        /// The pattern.
        pattern: String,
        /// The cause.
        source: globset::Error,
    },
    /// A fixed file could not be written.
    #[error("cannot write {path}")]
    Write {
        /// The vault-relative path.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A file changed every time fmt was about to write it.
    #[error("{0} kept changing while it was being fixed; it was left as it is")]
    Busy(String),
    /// A repair would have made the block unreadable (a bug: nothing is written).
    #[error("fixing {0} would make its frontmatter unreadable; it was left as it is")]
    Broken(String),
    /// The files were fixed, but recording them in the manifest failed.
    #[error("the files were fixed, but the manifest could not record them: {0}")]
    Record(#[from] crate::scan::ScanError),
}

/// Check (and with `req.fix`, repair) the frontmatter of the chosen files of the vault at
/// `root`, telling `progress` how many files are done. A streamed check that fixes nothing
/// keeps which files had issues, not the issues.
pub fn fmt(root: &Path, req: &FmtRequest, progress: &dyn Progress) -> Result<FmtReport, FmtError> {
    let (files, mut issues) = select(root, req.target.as_deref())?;
    let mut report = FmtReport {
        files_with_issues: issues.len(),
        ..FmtReport::default()
    };
    let streamed = req.holding == Holding::Streamed && !req.fix;
    let (mut with_issues, mut count) = (Vec::new(), 0);
    progress.phase(Phase::Reading, Some(files.len() as u64));
    for (at, rel) in files.iter().enumerate() {
        progress.advance(1);
        let (file_issues, fixes) = process(root, rel, req)?;
        report.files_checked += 1;
        report.files_with_issues += usize::from(!file_issues.is_empty());
        report.files_fixed += usize::from(!fixes.is_empty());
        match streamed {
            true if !file_issues.is_empty() => {
                // The files of a vault are far fewer than 2^32.
                with_issues.push(at as u32);
                count += file_issues.len();
            }
            true => {}
            false => issues.extend(file_issues),
        }
        report.fixes.extend(fixes);
    }
    report.issues = match streamed {
        true => FmtIssues::Streamed(Box::new(Recheck {
            root: root.to_path_buf(),
            pending: req.pending.clone(),
            unreadable: issues,
            files,
            with_issues,
            count,
        })),
        false => FmtIssues::Held(issues),
    };
    Ok(report)
}

/// [`fmt`] on the vault, then, when files were fixed, record them in the manifest (so that the
/// next `lint` or `query` sees them as they are now); `progress` hears how both go.
pub fn fmt_recorded(
    vault: &Vault,
    manifest: &mut Manifest,
    req: &FmtRequest,
    now_ns: i64,
    progress: &dyn Progress,
) -> Result<FmtReport, FmtError> {
    let report = fmt(&vault.root, req, progress)?;
    let fixed: Vec<String> = report.fixes.iter().map(|f| f.path.clone()).collect();
    if !fixed.is_empty() {
        crate::scan::scan_paths(vault, manifest, &fixed, now_ns, progress)?;
    }
    Ok(report)
}

/// The issues of one file after any fixes, and the fixes written.
fn process(
    root: &Path,
    rel: &str,
    req: &FmtRequest,
) -> Result<(Vec<FmtIssue>, Vec<Fix>), FmtError> {
    let abs = root.join(rel);
    // A file edited between our read and our write is read again, never overwritten.
    for _ in 0..3 {
        let bytes = match fsio::read(&abs) {
            Ok(b) => b,
            Err(e) => {
                return Ok((
                    vec![unreadable(rel, format!("cannot read: {e}"))],
                    Vec::new(),
                ));
            }
        };
        let text = match fsio::utf8(&bytes) {
            Ok(t) => t,
            Err(line) => {
                let message = "not UTF-8 text".to_string();
                return Ok((
                    vec![issue(rel, Some(line), None, Severity::Invalid, message)],
                    Vec::new(),
                ));
            }
        };
        let (new, fixes) = if req.fix {
            repair(rel, text)
        } else {
            (text.to_string(), Vec::new())
        };
        let issues = check(rel, &new, |s| {
            req.pending.contains(schema::source_path(s)) || source_exists(root, s)
        });
        if fixes.is_empty() {
            return Ok((issues, fixes));
        }
        if !matches!(frontmatter::split(&new).block, Block::Valid(_)) {
            return Err(FmtError::Broken(rel.into()));
        }
        let written =
            fsio::replace_if_unchanged(&abs, &bytes, new.as_bytes()).map_err(|source| {
                FmtError::Write {
                    path: rel.into(),
                    source,
                }
            })?;
        if written {
            fault::reached("fmt.write");
            return Ok((issues, fixes));
        }
    }
    Err(FmtError::Busy(rel.into()))
}

/// Whether a source names a file or directory of the vault (as lint's dead-sources check reads it).
fn source_exists(root: &Path, source: &str) -> bool {
    let p = Path::new(schema::source_path(source));
    p.is_relative()
        && !p.components().any(|c| c == std::path::Component::ParentDir)
        && root.join(p).exists()
}

/// An issue of `path`.
fn issue(
    path: &str,
    line: Option<usize>,
    key: Option<&str>,
    severity: Severity,
    message: String,
) -> FmtIssue {
    FmtIssue {
        path: path.into(),
        line,
        key: key.map(Into::into),
        severity,
        message,
    }
}

/// An issue of a file or directory that could not be read.
fn unreadable(path: &str, message: String) -> FmtIssue {
    issue(path, None, None, Severity::Invalid, message)
}
