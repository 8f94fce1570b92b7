//! What a revert writes, decided before it writes anything: the entries to put back, the
//! archive blocks to take out, each page's content before the ingest (kept in the manifest, or
//! read from git and checked against the hash the snapshot recorded), and the pages changed
//! again since, which stop the revert.

use super::{Conflict, PageUndo, PutBack, Reverted, Undo, not_revertible};
use crate::archive;
use crate::collections::{ALL, Collection, feeds};
use crate::fsio;
use crate::fsio::FileError;
use crate::git;
use crate::ingest::IngestError;
use crate::ingest::history::{State, first_line};
use crate::manifest::{BatchEntry, IngestRecord, Manifest, Outcome, PageAction, PageChange};
use crate::vault::{ARCHIVE_DIR, INBOX, Vault};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A page to put back.
#[derive(Serialize, Deserialize)]
pub(super) struct Page {
    /// What the ingest did to it.
    pub change: PageChange,
    /// A collection's page: regenerated afterwards, so a later change is no conflict.
    pub generated: bool,
    /// Its content before the ingest; `None` when the ingest created it.
    #[serde(with = "text_or_hex")]
    pub before: Option<Vec<u8>>,
}

/// A revert's plan: all it writes, so that the journal alone completes an interrupted revert
/// (the manifest may be rebuilt or deleted in between).
#[derive(Serialize, Deserialize)]
pub(super) struct Plan {
    /// The ingest.
    pub record: IngestRecord,
    /// The entries it archived, in batch order.
    pub entries: Vec<BatchEntry>,
    /// The pages to put back.
    pub pages: Vec<Page>,
    /// Pages changed again since the ingest (a plan with any is never journaled).
    #[serde(skip)]
    pub conflicts: Vec<Conflict>,
    /// The collections to regenerate: those the entries fed, and those whose page the ingest
    /// wrote.
    pub collections: Vec<Collection>,
    /// The inbox before and after finalize removed the batch, when recorded: the entries go
    /// back byte for byte while the inbox still starts as finalize left it.
    #[serde(with = "text_or_hex_pair")]
    pub inbox_texts: Option<(Vec<u8>, Vec<u8>)>,
}

impl Plan {
    /// Every page the plan writes stays in the vault (a plan from a journal is checked before
    /// it runs).
    pub(super) fn check_paths(&self, vault: &Vault) -> Result<(), crate::vault::PathError> {
        for p in &self.pages {
            vault.checked(&p.change.path)?;
        }
        Ok(())
    }
}

/// Refuse an ingest that cannot be reverted, saying why.
pub(super) fn check(manifest: &Manifest, r: &IngestRecord) -> Result<(), IngestError> {
    let why = match (State::of(r), &r.reverted_at) {
        (State::Open, _) => Some("it is still open: finalize or abort it".to_string()),
        (State::Aborted, _) => Some("it was aborted, so it archived nothing".to_string()),
        (State::Reverted, Some(at)) => Some(format!("it was reverted already ({at})")),
        _ if !r.snapshot => Some(
            "it was finalized by an earlier sparks, which recorded nothing of what it did"
                .to_string(),
        ),
        _ => None,
    };
    if let Some(why) = why {
        return Err(not_revertible(r.id, why));
    }
    if let Some(open) = manifest.open_ingest_row()? {
        return Err(not_revertible(
            r.id,
            format!(
                "ingest {} is open, and its batch is told against the wiki as it is: finalize \
                 or abort it first",
                open.id
            ),
        ));
    }
    Ok(())
}

/// The content of a file, `None` when there is none.
pub(super) fn read(vault: &Vault, rel: &str) -> Result<Option<Vec<u8>>, IngestError> {
    let path = vault.path(rel);
    Ok(fsio::read_if_exists(&path).map_err(FileError::at("read", path))?)
}

/// blake3 of some content, hex.
pub(super) fn hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

impl Plan {
    /// Plan the revert of `record`; with `check`, find the pages changed again since (a
    /// resumed revert has written some of them itself).
    pub(super) fn make(
        vault: &Vault,
        manifest: &Manifest,
        record: &IngestRecord,
        check: bool,
    ) -> Result<Plan, IngestError> {
        let id = record.id;
        let entries: Vec<BatchEntry> = manifest
            .batch(id)?
            .into_iter()
            .filter(|e| e.outcome == Some(Outcome::Archive))
            .collect();
        let outputs: BTreeMap<String, Collection> = ALL.iter().map(|c| (c.output(), *c)).collect();
        let mut collections = feeds::fed_by_all(entries.iter().map(|e| e.content.as_str()));
        let mut pages = Vec::new();
        let mut conflicts = Vec::new();
        for (change, _) in manifest.ingest_pages(id)? {
            let generated = outputs.get(&change.path).copied();
            collections.extend(generated);
            let now = read(vault, &change.path)?.map(|b| hash(&b));
            let untouched = now == change.after_hash || now == change.before_hash;
            // A page the ingest made that is gone since was deleted, as the revert would, or
            // renamed or merged by a later command, whose page the revert would leave behind.
            let moved = check
                && untouched
                && now.is_none()
                && change.after_hash.is_some()
                && super::later::find(vault, manifest, &change, None)?.is_some();
            if check && generated.is_none() && (!untouched || moved) {
                conflicts.push(conflict(vault, manifest, id, change, now.as_deref())?);
                continue;
            }
            pages.push(Page {
                change,
                generated: generated.is_some(),
                before: None,
            });
        }
        collections.sort();
        collections.dedup();
        // What later commands did is undone newest first: those conflicts come first, so.
        conflicts.sort_by_key(|c| std::cmp::Reverse(c.later.as_ref().map(|l| l.at_ns)));
        let mut missing = None;
        if conflicts.is_empty() {
            pages.retain_mut(|p| {
                if p.change.action == PageAction::Created {
                    return true;
                }
                p.before = match before(vault, manifest, record, &p.change) {
                    Ok(b) => Some(b),
                    // A collection's page is regenerated anyway.
                    Err(_) if p.generated => return false,
                    Err(e) => {
                        missing.get_or_insert(e);
                        return true;
                    }
                };
                true
            });
        }
        if let Some(e) = missing {
            return Err(e);
        }
        Ok(Plan {
            record: record.clone(),
            entries,
            pages,
            conflicts,
            collections,
            inbox_texts: manifest.inbox_texts(id)?,
        })
    }

    /// Every path the revert may write: the inbox, the archive files, the pages and the
    /// collections' pages.
    pub(super) fn paths(&self) -> Vec<String> {
        let mut out = vec![INBOX.to_string()];
        out.extend(self.archive_files());
        out.extend(self.pages.iter().map(|p| p.change.path.clone()));
        out.extend(self.collections.iter().map(|c| c.output()));
        out.sort();
        out.dedup();
        out
    }

    /// The archive files holding the entries' blocks, with their markers.
    pub(super) fn blocks(&self) -> BTreeMap<String, Vec<String>> {
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for e in &self.entries {
            out.entry(archive_file(e))
                .or_default()
                .push(archive::marker(
                    self.record.number,
                    &self.record.token,
                    e.id,
                    &e.hash,
                ));
        }
        out
    }

    fn archive_files(&self) -> Vec<String> {
        self.blocks().into_keys().collect()
    }

    /// The report of this plan, before anything is written.
    pub(super) fn report(&self, dry_run: bool, resumed: bool) -> Reverted {
        Reverted {
            ingest_id: self.record.id,
            dry_run,
            reverted: false,
            entries: self
                .entries
                .iter()
                .map(|e| PutBack {
                    id: e.id,
                    capture_date: e.capture_date.clone(),
                    first_line: first_line(&e.content),
                    archived_to: archive_file(e),
                })
                .collect(),
            archive_files: self.archive_files(),
            pages: self
                .pages
                .iter()
                .map(|p| PageUndo {
                    path: p.change.path.clone(),
                    action: p.change.action,
                    undo: match p.change.action {
                        PageAction::Created => Undo::Delete,
                        _ => Undo::Restore,
                    },
                })
                .collect(),
            conflicts: self.conflicts.clone(),
            regenerated: match dry_run {
                true => self.collections.clone(),
                false => Vec::new(),
            },
            commit: None,
            commit_skipped: None,
            resumed,
            warnings: Vec::new(),
        }
    }
}

fn archive_file(e: &BatchEntry) -> String {
    format!("{ARCHIVE_DIR}/{}.md", e.capture_date)
}

/// Who changed a page last since ingest `id`: the latest later ingest that touched it, if
/// the page is as that ingest left it; otherwise a later `done`, `mv` or `merge` when the files
/// tell it; otherwise an edit outside ingests.
fn conflict(
    vault: &Vault,
    manifest: &Manifest,
    id: i64,
    change: PageChange,
    now: Option<&str>,
) -> Result<Conflict, IngestError> {
    let by = manifest
        .later_change(id, &change.path)?
        .filter(|(_, after)| after.as_deref() == now)
        .map(|(later, _)| later);
    let later = match by {
        Some(_) => None,
        None => super::later::find(vault, manifest, &change, now)?,
    };
    let changed_by = match (by, &later, now) {
        (Some(ingest), ..) => format!("ingest {ingest}"),
        (None, Some(l), _) => format!("{} by `sparks {}`", l.what(), l.command),
        (None, None, None) => format!("deleted after ingest {id}, not by an ingest"),
        (None, None, Some(_)) => format!("edited after ingest {id}, not by an ingest"),
    };
    Ok(Conflict {
        path: change.path,
        action: change.action,
        changed_by,
        ingest: by,
        later,
    })
}

/// A page's content before ingest `r`: kept in the manifest, or read from git (the commit
/// before the ingest's, or HEAD when prepare ran) when it has the hash the snapshot recorded.
fn before(
    vault: &Vault,
    manifest: &Manifest,
    r: &IngestRecord,
    change: &PageChange,
) -> Result<Vec<u8>, IngestError> {
    if let Some(b) = manifest.page_before(r.id, &change.path)? {
        return Ok(b);
    }
    let mut said = None;
    let tries = [(&r.commit_sha, true), (&r.base_commit, false)];
    for (sha, parent) in tries {
        let Some(sha) = sha else { continue };
        match git::file_at(&vault.root, sha, parent, &change.path) {
            Ok(Some(b)) if Some(hash(&b)) == change.before_hash => return Ok(b),
            Ok(_) => {}
            Err(e) => said = Some(e.to_string()),
        }
    }
    Err(IngestError::NoContentBefore {
        ingest: r.id,
        path: change.path.clone(),
        git: said,
    })
}

/// Bytes in a plan: as text when they are UTF-8 (a page, an inbox), else as hex.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Bytes {
    Text(String),
    Hex(String),
}

impl Bytes {
    fn of(bytes: &[u8]) -> Bytes {
        match std::str::from_utf8(bytes) {
            Ok(t) => Bytes::Text(t.to_string()),
            Err(_) => Bytes::Hex(bytes.iter().map(|b| format!("{b:02x}")).collect()),
        }
    }

    fn into_bytes(self) -> Result<Vec<u8>, String> {
        match self {
            Bytes::Text(t) => Ok(t.into_bytes()),
            Bytes::Hex(h) => (0..h.len())
                .step_by(2)
                .map(|i| {
                    h.get(i..i + 2)
                        .and_then(|d| u8::from_str_radix(d, 16).ok())
                        .ok_or_else(|| format!("{h:?} is not hex"))
                })
                .collect(),
        }
    }
}

mod text_or_hex {
    use super::Bytes;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(v: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        v.as_deref().map(Bytes::of).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        Option::<Bytes>::deserialize(d)?
            .map(|b| b.into_bytes().map_err(serde::de::Error::custom))
            .transpose()
    }
}

mod text_or_hex_pair {
    use super::Bytes;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    type Pair = Option<(Vec<u8>, Vec<u8>)>;

    pub fn serialize<S: Serializer>(v: &Pair, s: S) -> Result<S::Ok, S::Error> {
        v.as_ref()
            .map(|(a, b)| (Bytes::of(a), Bytes::of(b)))
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Pair, D::Error> {
        let pair = Option::<(Bytes, Bytes)>::deserialize(d)?;
        let bytes = |b: Bytes| b.into_bytes().map_err(serde::de::Error::custom);
        pair.map(|(a, b)| Ok((bytes(a)?, bytes(b)?))).transpose()
    }
}
