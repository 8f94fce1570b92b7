//! `collections regen`: regenerate collection pages. With no names only the collections whose
//! sources changed since the last completed ingest ([`super::affected`]); `--all` all seven.
//! Pages are written atomically and only when their content changed (an unchanged page keeps
//! every byte); then the manifest records them and, with `auto_commit`, exactly the written
//! pages are committed.
//!
//! Regen sees the files as they are now: it brings the manifest up to date first (an
//! incremental scan, cheap when nothing changed), since both what is affected and the inputs of
//! some pages (Projects, the archive list) come from the manifest, and a quote file written
//! after the last `sparks scan` must reach Quotes (the original read its sources from disk).

use super::page;
use super::text::Inputs;
use super::{ALL, Collection, ExtractError, GlobError};
use crate::clock::Now;
use crate::failure::{Action, Advice, Hint};
use crate::fsio;
use crate::git::{Commit, GitError};
use crate::lock::VaultLock;
use crate::manifest::{Manifest, ManifestError};
use crate::progress::{Phase, Progress};
use crate::scan;
use crate::vault::Vault;
use serde::Serialize;

/// Which collections to regenerate.
#[derive(Debug, Clone, Default)]
pub struct RegenRequest {
    /// Collection names: registry keys or titles (`ReadingList`, `Reading List`), any case.
    pub names: Vec<String>,
    /// All seven.
    pub all: bool,
    /// Write nothing; say what would change.
    pub dry_run: bool,
    /// Commit the written pages when `auto_commit` is on (finalize commits them itself).
    pub commit: bool,
}

/// What happened to one collection.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// The collection (its registry key in JSON).
    pub name: Collection,
    /// Its page, vault-relative.
    pub path: String,
    /// Its page, absolute (the original's key).
    pub output_path: std::path::PathBuf,
    /// The page's length in bytes, as generated (the original's key).
    pub bytes: usize,
    /// Entries on the page.
    pub items: usize,
    /// `written`, `unchanged` or, with `--dry-run`, `would_write`.
    pub status: Status,
}

/// What regen did with a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The page changed and was written.
    Written,
    /// The page would not change; it was left alone.
    Unchanged,
    /// The page would change (`--dry-run`: nothing was written).
    WouldWrite,
}

impl Status {
    /// The name in JSON: `written`, `unchanged`, `would_write`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Written => "written",
            Status::Unchanged => "unchanged",
            Status::WouldWrite => "would_write",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl Serialize for Status {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// What regen did.
#[derive(Debug, Clone, Serialize)]
pub struct RegenReport {
    /// Per collection, in registry order.
    pub collections: Vec<Outcome>,
    /// Pages written.
    pub written: usize,
    /// True when nothing was written on purpose.
    pub dry_run: bool,
    /// The commit made, if any.
    pub commit: Option<String>,
    /// Why no commit was made, when one was wanted.
    pub commit_skipped: Option<String>,
    /// What bringing the manifest up to date first met, when anything.
    #[serde(flatten)]
    pub seen: scan::Seen,
}

/// Regen could not run.
#[derive(Debug, thiserror::Error)]
pub enum RegenError {
    /// A name that is no collection.
    #[error(
        "there is no collection called {0:?} (collections: Quotes, Bookmarks, Books, Reading List, Media, Ideas, Projects)"
    )]
    Unknown(String),
    /// Tasks is edited, not generated.
    #[error(
        "Tasks is never regenerated: it is the live task list, edited by adding tasks and ticking them done"
    )]
    Tasks,
    /// A source glob is invalid.
    #[error(transparent)]
    Glob(#[from] GlobError),
    /// A page could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The page.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The vault lock could not be taken.
    #[error("cannot lock the vault: {0}")]
    Lock(std::io::Error),
    /// Working out what changed failed.
    #[error(transparent)]
    Affected(#[from] super::affected::AffectedError),
    /// The scan before choosing or after writing failed.
    #[error("the scan around regenerating failed: {0}")]
    Scan(String),
    /// The commit failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The manifest failed.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
}

// An extractor's error is the regen error of the same name: same message, same hint.
impl From<ExtractError> for RegenError {
    fn from(e: ExtractError) -> RegenError {
        match e {
            ExtractError::Glob(g) => RegenError::Glob(g),
            ExtractError::Manifest(m) => RegenError::Manifest(m),
        }
    }
}

impl Hint for RegenError {
    /// What the user can do about it.
    fn hint(&self) -> Option<Advice> {
        match self {
            RegenError::Glob(_) => Some(Advice::say(
                "fix the glob in sparks.toml, relative to the vault root (e.g. raw/quotes/**/*.md)",
            )),
            RegenError::Scan(_) => {
                Some(Advice::run(Action::Scan).then(" to see which files cannot be read"))
            }
            RegenError::Affected(a) => a.hint(),
            RegenError::Git(g) => g.hint(),
            RegenError::Manifest(m) => m.hint(),
            RegenError::Unknown(_)
            | RegenError::Tasks
            | RegenError::Write { .. }
            | RegenError::Lock(_) => None,
        }
    }
}

/// The collection a user's name means.
pub fn by_name(name: &str) -> Result<Collection, RegenError> {
    let k = crate::key::loose_key(name).replace(' ', "");
    if k == "tasks" {
        return Err(RegenError::Tasks);
    }
    ALL.into_iter()
        .find(|c| crate::key::key(c.name()) == k)
        .ok_or_else(|| RegenError::Unknown(name.to_string()))
}

/// Regenerate the requested collections, `progress` hearing how the scans and the writing go.
pub fn regen(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
    req: &RegenRequest,
    fresh: &mut scan::Freshness,
    progress: &dyn Progress,
) -> Result<RegenReport, RegenError> {
    let _lock = if req.dry_run {
        None
    } else {
        Some(VaultLock::acquire(&vault.root).map_err(RegenError::Lock)?)
    };
    let seen = scan::refresh(vault, manifest, now, fresh, progress)
        .map_err(|e| RegenError::Scan(e.to_string()))?;
    let mut chosen: Vec<Collection> = if req.all {
        ALL.to_vec()
    } else if req.names.is_empty() {
        let a = super::affected::affected(vault, manifest)?;
        ALL.into_iter()
            .filter(|c| a.affected.contains(&c.name()))
            .collect()
    } else {
        req.names
            .iter()
            .map(|n| by_name(n))
            .collect::<Result<_, _>>()?
    };
    chosen.sort();
    chosen.dedup();
    let outcomes = write_pages(vault, manifest, now, &chosen, req.dry_run, progress)?;
    let written: Vec<String> = outcomes
        .iter()
        .filter(|o| o.status == Status::Written)
        .map(|o| o.path.clone())
        .collect();
    let (mut commit, mut commit_skipped) = (None, None);
    if !written.is_empty() {
        scan::scan_paths(vault, manifest, &written, now.ns, progress)
            .map_err(|e| RegenError::Scan(e.to_string()))?;
        if req.commit && vault.config.git.auto_commit {
            let names: Vec<&str> = outcomes
                .iter()
                .filter(|o| o.status == Status::Written)
                .map(|o| o.name.title())
                .collect();
            let message = format!("collections: regenerate {}", names.join(", "));
            match crate::runstate::commit(&vault.root, &message, Some(&written), None)? {
                Commit::Made { sha, .. } => commit = Some(sha),
                Commit::Skipped(reason) => commit_skipped = Some(reason),
            }
        } else if req.commit {
            commit_skipped = Some("auto_commit is false in sparks.toml".into());
        }
    }
    Ok(RegenReport {
        written: written.len(),
        collections: outcomes,
        dry_run: req.dry_run,
        commit,
        commit_skipped,
        seen,
    })
}

/// Render and (unless `dry_run`) write the pages of `chosen`, `progress` hearing how it goes.
pub fn write_pages(
    vault: &Vault,
    manifest: &Manifest,
    now: &Now,
    chosen: &[Collection],
    dry_run: bool,
    progress: &dyn Progress,
) -> Result<Vec<Outcome>, RegenError> {
    let inputs = Inputs::new(vault, manifest);
    let today = now.today.to_string();
    let mut out = Vec::new();
    progress.phase(Phase::Writing, Some(chosen.len() as u64));
    // The pages share a directory, synced once after the last rename.
    let mut renames = fsio::Renames::default();
    for &c in chosen {
        progress.advance(1);
        let body = c.body(&inputs)?;
        let path = c.output();
        let abs = vault.path(&path);
        let old = fsio::read_to_string(&abs).ok();
        let new = page::render(c, &body, old.as_deref(), &today);
        let status = if old.as_deref() == Some(new.as_str()) {
            Status::Unchanged
        } else if dry_run {
            Status::WouldWrite
        } else {
            let err = |source| RegenError::Write {
                path: path.clone(),
                source,
            };
            if let Some(dir) = abs.parent() {
                fs_err::create_dir_all(dir).map_err(err)?;
            }
            renames.write_atomic(&abs, new.as_bytes()).map_err(err)?;
            crate::fault::reached("regen.write");
            Status::Written
        };
        out.push(Outcome {
            name: c,
            path,
            bytes: new.len(),
            output_path: abs,
            items: body.items,
            status,
        });
    }
    if let Some(last) = out.iter().rfind(|o| o.status == Status::Written) {
        let path = last.path.clone();
        renames
            .sync()
            .map_err(|source| RegenError::Write { path, source })?;
    }
    inputs.keep()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_forgiving_and_tasks_is_refused() {
        for n in ["ReadingList", "Reading List", "readinglist", "reading-list"] {
            assert_eq!(by_name(n).unwrap(), Collection::ReadingList, "{n}");
        }
        assert!(matches!(by_name("Tasks"), Err(RegenError::Tasks)));
        assert!(matches!(by_name("Quotez"), Err(RegenError::Unknown(_))));
    }

    #[test]
    fn page_statuses_keep_their_json_names() {
        let json = serde_json::to_string(&[Status::Written, Status::Unchanged, Status::WouldWrite])
            .unwrap();
        assert_eq!(json, r#"["written","unchanged","would_write"]"#);
        assert_eq!(format!("{:>11}", Status::Written), "    written");
    }
}
