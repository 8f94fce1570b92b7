//! `affected`: which generated collections need regenerating since the last completed ingest,
//! and the files that say so. It reads the manifest as the last scan left it (and the few
//! archive files it must look inside); it writes nothing.
//!
//! A file counts when its content changed after the last completed ingest finished, and so do
//! the archive files that ingest wrote (finalize scans them before it records its end, so their
//! change is older than the end) and every deleted file that was a source: removing a quote
//! file changes Quotes. With no completed ingest, every file counts. Times are compared as
//! nanoseconds, never as text. An archive file counts for the collections its captures feed
//! ([`crate::collections::feeds`], the rule prepare and finalize use too).

use crate::collections::feeds::{FROM_ARCHIVE, fed_by};
use crate::collections::{ALL, Collection, GlobError, Source};
use crate::manifest::{Manifest, ManifestError};
use crate::vault::{ARCHIVE_DIR, Vault};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use std::collections::{BTreeSet, HashMap};

/// Which collections need regenerating, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Affected {
    /// The collections with a reason, in registry order.
    pub affected: Vec<&'static str>,
    /// For every collection, in registry order: the changed or deleted files behind it.
    pub reasons: Reasons,
    /// When the last completed ingest finished (RFC 3339); `null` without one.
    pub since: Option<String>,
}

/// Every collection's reasons, serialized as a map in registry order.
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
}

impl AffectedError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            AffectedError::Manifest(m) => m.hint(),
            AffectedError::Glob(_) => Some(
                "fix the glob in sparks.toml, relative to the vault root (e.g. raw/quotes/**/*.md)",
            ),
        }
    }
}

/// Work out which collections are affected.
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
    Ok(Affected {
        affected: reasons
            .iter()
            .filter(|(_, p)| !p.is_empty())
            .map(|(c, _)| c.name())
            .collect(),
        reasons: Reasons(reasons),
        since: last.and_then(|row| row.finished_at),
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
            match std::fs::read(self.vault.path(path)) {
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
    fn reasons_serialize_in_registry_order() {
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
