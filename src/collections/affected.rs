//! `affected`: which generated collections need regenerating since the last completed ingest,
//! and the files that say so. It writes no file of the vault.
//!
//! The command sees the files as they are now: it brings the manifest up to date first (an
//! incremental scan, cheap when nothing changed), since a file dropped into `raw/quotes/`
//! after the last scan changes Quotes whether or not anyone ran `sparks scan` (the original
//! listed its sources on disk too). Finalize, which has just scanned, asks [`affected`]
//! directly.
//!
//! A file counts when its content changed after the last completed ingest finished, and so do
//! the archive files that ingest wrote (finalize scans them before it records its end, so their
//! change is older than the end) and every deleted file that was a source: removing a quote
//! file changes Quotes. With no completed ingest, every file counts. Times are compared as
//! nanoseconds, never as text. An archive file counts for the collections its captures feed
//! ([`super::feeds`], the rule prepare and finalize use too).

use super::feeds::{FROM_ARCHIVE, fed_by};
use super::{ALL, Collection, GlobError, Source};
use crate::clock::Now;
use crate::manifest::{Manifest, ManifestError};
use crate::scan::{ScanError, Seen};
use crate::vault::{ARCHIVE_DIR, Vault};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use std::collections::{BTreeSet, HashMap};

/// Which collections need regenerating, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Affected {
    /// The collections with a reason, by registry key, sorted as the original sorted them
    /// (byte-wise: `Bookmarks`, `Books`, `Ideas`, `Media`, `Projects`, `Quotes`,
    /// `ReadingList`).
    pub affected: Vec<&'static str>,
    /// For each affected collection, in the same order: the changed or deleted files behind
    /// it (the original's key and shape).
    pub reason: Reasons,
    /// When the last completed ingest finished (RFC 3339); `null` without one.
    pub since: Option<String>,
    /// What bringing the manifest up to date first met, when anything.
    #[serde(flatten)]
    pub seen: Seen,
}

/// The affected collections' reasons, serialized as a map in the order of `affected`.
#[derive(Debug, Clone, Default)]
pub struct Reasons(pub Vec<(Collection, Vec<String>)>);

impl Serialize for Reasons {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (c, paths) in &self.0 {
            map.serialize_entry(c.name(), paths)?;
        }
        map.end()
    }
}

/// `affected` could not run.
#[derive(Debug, thiserror::Error)]
pub enum AffectedError {
    /// The manifest failed.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// A configured source glob is unusable.
    #[error(transparent)]
    Glob(#[from] GlobError),
    /// Bringing the manifest up to date failed.
    #[error(transparent)]
    Scan(#[from] ScanError),
}

impl crate::failure::Hint for AffectedError {
    /// What the user can do about it.
    fn hint(&self) -> Option<crate::failure::Advice> {
        match self {
            AffectedError::Manifest(m) => m.hint(),
            AffectedError::Glob(_) => Some(crate::failure::Advice::say(
                "fix the glob in sparks.toml, relative to the vault root (e.g. raw/quotes/**/*.md)",
            )),
            AffectedError::Scan(s) => s.hint(),
        }
    }
}

/// Bring the manifest up to date with the files (`progress` hearing how the scan goes), then
/// work out which collections are affected.
pub fn affected_now(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
    fresh: &mut crate::scan::Freshness,
    progress: &dyn crate::progress::Progress,
) -> Result<Affected, AffectedError> {
    let seen = crate::scan::refresh(vault, manifest, now, fresh, progress)?;
    Ok(Affected {
        seen,
        ..affected(vault, manifest)?
    })
}

/// Work out which collections are affected, from the manifest as it is.
pub fn affected(vault: &Vault, manifest: &Manifest) -> Result<Affected, AffectedError> {
    let last = manifest.last_completed_ingest()?;
    let mut changed: BTreeSet<String> = manifest
        .changed_since(last.as_ref().and_then(|r| r.finished_ns))?
        .into_iter()
        .collect();
    if let Some(row) = &last {
        for date in manifest.archived_capture_dates(row.id)? {
            changed.insert(format!("{ARCHIVE_DIR}/{date}.md"));
        }
    }
    let deleted: BTreeSet<String> = manifest
        .deleted_since(last.as_ref().and_then(|r| r.finished_ns))?
        .into_iter()
        .collect();
    let mut archives = ArchiveCache::new(vault);
    let mut reasons = Vec::new();
    for c in ALL {
        let sources = c.sources(&vault.config)?;
        let mut paths = BTreeSet::new();
        for source in &sources {
            for p in changed.iter().filter(|p| source.covers(p)) {
                let counts = match source {
                    Source::Archive => archives.get(p).contains(&c),
                    Source::Files(_) | Source::Entities => true,
                };
                if counts {
                    paths.insert(p.clone());
                }
            }
            // What a deleted file held is gone, so it may have fed any of its collections.
            paths.extend(deleted.iter().filter(|p| source.covers(p)).cloned());
        }
        reasons.push((c, paths.into_iter().collect::<Vec<_>>()));
    }
    reasons.retain(|(_, paths)| !paths.is_empty());
    reasons.sort_by_key(|(c, _)| c.name());
    Ok(Affected {
        affected: reasons.iter().map(|(c, _)| c.name()).collect(),
        reason: Reasons(reasons),
        since: last.and_then(|row| row.finished_at),
        seen: Seen::default(),
    })
}

/// Archive files, each read at most once.
struct ArchiveCache<'a> {
    vault: &'a Vault,
    feeds: HashMap<String, Vec<Collection>>,
}

impl<'a> ArchiveCache<'a> {
    fn new(vault: &'a Vault) -> ArchiveCache<'a> {
        ArchiveCache {
            vault,
            feeds: HashMap::new(),
        }
    }

    /// The collections the archive file at `path` feeds; a file that cannot be read may
    /// feed any of them.
    fn get(&mut self, path: &str) -> &[Collection] {
        self.feeds.entry(path.to_string()).or_insert_with(|| {
            match crate::fsio::read(&self.vault.path(path)) {
                Ok(bytes) => fed_by(&String::from_utf8_lossy(&bytes)),
                Err(_) => FROM_ARCHIVE.to_vec(),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_serialize_in_the_order_given() {
        let r = Reasons(vec![
            (Collection::Quotes, vec!["raw/quotes/a.md".into()]),
            (Collection::Books, vec![]),
        ]);
        assert_eq!(
            serde_json::to_string(&r).expect("reasons serialize"),
            r#"{"Quotes":["raw/quotes/a.md"],"Books":[]}"#
        );
    }
}
