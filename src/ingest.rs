//! The ingest lifecycle. `prepare` records a batch of inbox entries and hands it to the
//! agent; `finalize` archives exactly the entries of that batch that are still in the inbox
//! unchanged, removes exactly those from the inbox, scans, commits and closes the ingest.
//!
//! Finalize is a recorded sequence of steps (plan, archive, inbox, scan, regen, commit), each safe to
//! run again: archive blocks carry markers so none is appended twice, the inbox rewrite removes
//! only entries still present, and a commit is recognised by its trailer. Running finalize
//! again after a crash at any point completes the ingest with nothing lost or duplicated.

use crate::archive::{self, ArchiveError, Item};
use crate::clock::Now;
use crate::collections::{ALL, Collection, feeds, regen};
use crate::fault;
use crate::fsio;
use crate::git::{self, Commit, GitError};
use crate::inbox::{Hints, Inbox, InboxError};
use crate::lock::VaultLock;
use crate::manifest::{BatchEntry, Manifest, ManifestError, NewEntry, Opened, Outcome};
use crate::scan::{self, ScanError, ScanIssue};
use crate::vault::{ARCHIVE_DIR, INBOX, MANIFEST, Vault};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::path::PathBuf;

/// The steps of finalize after planning, in order.
const STEPS: [&str; 5] = ["archive", "inbox", "scan", "regen", "commit"];

/// How many times the inbox rewrite starts over when a human keeps appending.
const REWRITE_ATTEMPTS: usize = 20;

/// A batch as the agent sees it (prepare, resume, status).
#[derive(Debug, Clone, Serialize)]
pub struct Batch {
    /// The ingest id; `null` when nothing was opened.
    pub ingest_id: Option<i64>,
    /// The entries to process.
    pub entries: Vec<BatchItem>,
    /// Entries in this batch.
    pub total: usize,
    /// Entries left in the inbox beyond this batch.
    pub remaining: usize,
    /// The collections this batch's captures feed: exactly those finalize regenerates for it
    /// (fewer when entries are kept or edited meanwhile). Registry keys, sorted.
    pub affected_collections: Vec<Collection>,
    /// True when this is an ingest opened earlier and not yet finalized.
    pub already_in_progress: bool,
    /// When the ingest was opened.
    pub started_at: Option<String>,
    /// The last finalize step done, when finalize was interrupted.
    pub step: Option<String>,
    /// Things worth knowing that did not stop the command.
    pub warnings: Vec<String>,
}

/// One entry of a batch.
#[derive(Debug, Clone, Serialize)]
pub struct BatchItem {
    /// The entry's id in this ingest (1-based), for `finalize --keep`.
    pub id: u32,
    /// `YYYY-MM-DD`: use it for `created:` of pages made from this entry.
    pub capture_date: String,
    /// The capture.
    pub content: String,
    /// blake3 of the content.
    pub hash: String,
    /// What the content looks like it holds.
    pub hints: Hints,
}

/// What prepare did.
#[derive(Debug, Clone)]
pub enum Prepared {
    /// A new ingest was opened.
    Opened(Batch),
    /// One was open already; here it is, to resume.
    InProgress(Batch),
    /// The inbox holds nothing to ingest.
    Empty(Batch),
}

/// What finalize did.
#[derive(Debug, Clone, Serialize)]
pub struct Finalized {
    /// The ingest completed.
    pub ingest_id: i64,
    /// Entries archived and removed from the inbox.
    pub archived: usize,
    /// The same count under the original's key.
    pub entry_count: usize,
    /// How many archive files hold them (the original's key; `archive_files` lists them).
    pub archived_files: usize,
    /// Entries left in the inbox by `--keep`.
    pub kept: usize,
    /// Entries edited or removed since prepare, left alone.
    pub changed: usize,
    /// Entries in the inbox now.
    pub remaining: usize,
    /// The ids of kept entries.
    pub kept_entries: Vec<u32>,
    /// The ids of changed entries.
    pub changed_entries: Vec<u32>,
    /// The archive files holding this ingest's entries.
    pub archive_files: Vec<String>,
    /// The commit made, if any.
    pub commit: Option<String>,
    /// Its abbreviated form, as the text prints it (the original's key).
    pub commit_sha: Option<String>,
    /// Why no commit was made.
    pub commit_skipped: Option<String>,
    /// Files the post-ingest scan could not read.
    pub scan_errors: Vec<ScanIssue>,
    /// The collections regenerated for this batch: those its archived captures feed, as
    /// prepare listed them (registry keys, sorted).
    pub regenerated: Vec<Collection>,
    /// Other collections whose pages finalize rewrote because other sources of theirs changed
    /// since the last completed ingest (pages written meanwhile, new raw files).
    pub also_regenerated: Vec<Collection>,
    /// True when this finalize resumed an interrupted one.
    pub resumed: bool,
    /// Things worth knowing that did not stop the command.
    pub warnings: Vec<String>,
}

/// What abort did.
#[derive(Debug, Clone, Serialize)]
pub struct Aborted {
    /// The ingest closed; `null` when none was open.
    pub ingest_id: Option<i64>,
    /// Entries of its batch, all still in the inbox.
    pub entries: usize,
}

/// An ingest operation failed.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// `inbox.md` does not exist.
    #[error("{} does not exist", .0.display())]
    InboxMissing(PathBuf),
    /// `inbox.md` cannot be read or written.
    #[error("cannot {action} {}: {source}", path.display())]
    InboxIo {
        /// read or replace
        action: &'static str,
        /// The inbox.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// `inbox.md` cannot be parsed.
    #[error(transparent)]
    Inbox(#[from] InboxError),
    /// The inbox kept changing while finalize tried to rewrite it.
    #[error("inbox.md changed {REWRITE_ATTEMPTS} times while finalize was rewriting it")]
    InboxBusy,
    /// No ingest is open.
    #[error("no ingest is open")]
    NoOpenIngest,
    /// `--keep` names an entry the batch does not have.
    #[error("ingest {ingest} has no entry {entry} (its entries are 1 to {count})")]
    UnknownEntry {
        /// The ingest.
        ingest: i64,
        /// The id asked for.
        entry: u32,
        /// How many entries the batch has.
        count: usize,
    },
    /// Finalize has started on the ingest, so it cannot be aborted.
    #[error(
        "ingest {ingest} is partly finalized (its last step done was {step}), so it cannot be aborted"
    )]
    AbortRefused {
        /// The ingest.
        ingest: i64,
        /// Its last step.
        step: String,
    },
    /// The vault lock could not be taken.
    #[error("cannot lock the vault: {0}")]
    Lock(std::io::Error),
    /// Archiving failed.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// The scan failed.
    #[error(transparent)]
    Scan(#[from] ScanError),
    /// Regenerating the collections failed.
    #[error(transparent)]
    Regen(#[from] crate::collections::regen::RegenError),
    /// The commit failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The manifest failed.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
}

impl IngestError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            IngestError::InboxMissing(_) => {
                Some("run `sparks init` in the vault to create inbox.md again")
            }
            IngestError::NoOpenIngest => Some("run `sparks ingest --prepare` first"),
            IngestError::AbortRefused { .. } => {
                Some("run `sparks ingest --finalize` again: it resumes where it stopped")
            }
            IngestError::Git(g) => g.hint(),
            IngestError::Manifest(m) => m.hint(),
            IngestError::Scan(s) => s.hint(),
            IngestError::Regen(r) => r.hint(),
            _ => None,
        }
    }
}

/// Finalize stopped part-way (or could not start); running it again resumes.
#[derive(Debug)]
pub struct FinalizeFailed {
    /// The ingest (0 when none is open).
    pub ingest: i64,
    /// Steps done before the failure.
    pub done: Vec<&'static str>,
    /// The cause.
    pub error: Box<IngestError>,
}

impl std::fmt::Display for FinalizeFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.ingest, self.done.as_slice()) {
            (0, _) => write!(f, "cannot finalize: {}", self.error),
            (id, []) => write!(f, "cannot finalize ingest {id}"),
            (id, done) => write!(
                f,
                "finalize of ingest {id} stopped after {} (nothing is lost; run it again to resume)",
                done.join(", ")
            ),
        }
    }
}

impl std::error::Error for FinalizeFailed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        // With no ingest there is nothing to add: the message is the cause.
        (self.ingest != 0).then_some(&*self.error as _)
    }
}

fn read_inbox(vault: &Vault) -> Result<Option<Vec<u8>>, IngestError> {
    let path = vault.path(INBOX);
    match std::fs::read(&path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(IngestError::InboxIo {
            action: "read",
            path,
            source,
        }),
    }
}

/// The archive files the open ingest will write: `raw/inbox/<capture date>.md` for each
/// capture date of its batch (entries already planned to stay in the inbox left out). The
/// contract tells the agent to cite them before finalize creates them, so lint and fmt count
/// them as existing while the ingest is open. Empty when no ingest is open.
pub fn pending_archives(manifest: &Manifest) -> Result<BTreeSet<String>, ManifestError> {
    let Some(row) = manifest.open_ingest_row()? else {
        return Ok(BTreeSet::new());
    };
    Ok(manifest
        .batch(row.id)?
        .into_iter()
        .filter(|e| matches!(e.outcome, None | Some(Outcome::Archive)))
        .map(|e| format!("{ARCHIVE_DIR}/{}.md", e.capture_date))
        .collect())
}

/// [`pending_archives`] of the vault's manifest; empty when it has none yet.
pub fn pending_archives_in(vault: &Vault) -> Result<BTreeSet<String>, ManifestError> {
    let path = vault.path(MANIFEST);
    if !path.exists() {
        return Ok(BTreeSet::new());
    }
    pending_archives(&Manifest::open(&path)?)
}

/// Open an ingest of at most `limit` entries (`None`: the configured batch size; 0: all).
pub fn prepare(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
    limit: Option<usize>,
) -> Result<Prepared, IngestError> {
    let bytes = read_inbox(vault)?.ok_or_else(|| IngestError::InboxMissing(vault.path(INBOX)))?;
    let inbox = Inbox::parse(&bytes, now.today)?;
    let limit = match limit.unwrap_or(vault.config.ingest.batch_size) {
        0 => usize::MAX,
        n => n,
    };
    let take = inbox.entries.len().min(limit);
    let entries: Vec<NewEntry> = inbox.entries[..take]
        .iter()
        .map(|e| NewEntry {
            capture_date: e.capture_date.to_string(),
            hash: e.hash.clone(),
            content: e.content.clone(),
            hints: serde_json::to_string(&Hints::of(&e.content)).unwrap_or_else(|_| "{}".into()),
        })
        .collect();
    let remaining = inbox.entries.len() - take;
    let token = token(now, &entries);
    match manifest.open_ingest(&token, &now.timestamp, remaining, &entries)? {
        Opened::New(id) => {
            fault::reached("prepare.open");
            let items = inbox.entries[..take]
                .iter()
                .enumerate()
                .map(|(i, e)| BatchItem {
                    id: i as u32 + 1,
                    capture_date: e.capture_date.to_string(),
                    content: e.content.clone(),
                    hash: e.hash.clone(),
                    hints: Hints::of(&e.content),
                })
                .collect();
            let mut batch = batch_of(
                Some(id),
                items,
                remaining,
                Some(now.timestamp.clone()),
                None,
            );
            batch.warnings = inbox.warnings;
            Ok(Prepared::Opened(batch))
        }
        Opened::AlreadyOpen(_) => {
            let batch = open_batch(vault, manifest, now)?.ok_or(IngestError::NoOpenIngest)?;
            Ok(Prepared::InProgress(batch))
        }
        Opened::Nothing => {
            let mut batch = batch_of(None, Vec::new(), 0, None, None);
            batch.warnings = inbox.warnings;
            Ok(Prepared::Empty(batch))
        }
    }
}

/// A token unique to this ingest, even if a rebuilt manifest reuses its id: archive markers
/// and commit trailers carry it, so a retry recognises its own work and nothing else.
fn token(now: &Now, entries: &[NewEntry]) -> String {
    let mut h = blake3::Hasher::new();
    h.update(&now.ns.to_le_bytes());
    h.update(&std::process::id().to_le_bytes());
    for e in entries {
        h.update(e.hash.as_bytes());
    }
    h.finalize().to_hex()[..16].to_string()
}

fn batch_of(
    id: Option<i64>,
    entries: Vec<BatchItem>,
    remaining: usize,
    started_at: Option<String>,
    step: Option<String>,
) -> Batch {
    Batch {
        ingest_id: id,
        total: entries.len(),
        affected_collections: feeds::fed_by_all(entries.iter().map(|e| e.content.as_str())),
        entries,
        remaining,
        already_in_progress: false,
        started_at,
        step,
        warnings: Vec::new(),
    }
}

/// The open ingest's batch, if one is open.
pub fn open_batch(
    vault: &Vault,
    manifest: &Manifest,
    now: &Now,
) -> Result<Option<Batch>, IngestError> {
    let Some(row) = manifest.open_ingest_row()? else {
        return Ok(None);
    };
    let recorded = manifest.batch(row.id)?;
    let items: Vec<BatchItem> = recorded
        .iter()
        .map(|e| BatchItem {
            id: e.id,
            capture_date: e.capture_date.clone(),
            content: e.content.clone(),
            hash: e.hash.clone(),
            hints: serde_json::from_str(&e.hints).unwrap_or_default(),
        })
        .collect();
    let mut warnings = Vec::new();
    let remaining = match read_inbox(vault)?.map(|b| Inbox::parse(&b, now.today)) {
        Some(Ok(inbox)) => {
            let hashes: Vec<&str> = inbox.entries.iter().map(|e| e.hash.as_str()).collect();
            let matched = match_entries(&recorded, &hashes, |_| true);
            hashes.len() - matched.iter().filter(|m| m.is_some()).count()
        }
        Some(Err(e)) => {
            warnings.push(format!("cannot count the entries left in the inbox: {e}"));
            0
        }
        None => 0,
    };
    let mut batch = batch_of(
        Some(row.id),
        items,
        remaining,
        Some(row.started_at),
        row.step,
    );
    batch.already_in_progress = true;
    batch.warnings = warnings;
    Ok(Some(batch))
}

/// For each batch entry accepted by `want`, the index of the inbox entry with its hash (each
/// inbox entry matched once, in order), or `None` when it is no longer there.
fn match_entries(
    batch: &[BatchEntry],
    inbox_hashes: &[&str],
    want: impl Fn(&BatchEntry) -> bool,
) -> Vec<Option<usize>> {
    let mut by_hash: HashMap<&str, VecDeque<usize>> = HashMap::new();
    for (i, h) in inbox_hashes.iter().enumerate() {
        by_hash.entry(h).or_default().push_back(i);
    }
    batch
        .iter()
        .map(|b| {
            if !want(b) {
                return None;
            }
            by_hash.get_mut(b.hash.as_str())?.pop_front()
        })
        .collect()
}

/// What finalize is asked to do.
#[derive(Debug, Clone, Default)]
pub struct FinalizeOptions {
    /// The commit message; default `ingest: N entries`.
    pub message: Option<String>,
    /// Entries of the batch to leave in the inbox.
    pub keep: Vec<u32>,
}

/// Finalize the open ingest, or resume an interrupted finalize.
pub fn finalize(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
    opts: &FinalizeOptions,
) -> Result<Finalized, FinalizeFailed> {
    let _lock = VaultLock::acquire(&vault.root).map_err(|e| FinalizeFailed {
        ingest: 0,
        done: Vec::new(),
        error: Box::new(IngestError::Lock(e)),
    })?;
    let row = match manifest.open_ingest_row() {
        Ok(Some(row)) => row,
        Ok(None) => return Err(failed(0, &[], IngestError::NoOpenIngest)),
        Err(e) => return Err(failed(0, &[], e.into())),
    };
    let id = row.id;
    let mut run = Run {
        vault,
        now,
        id,
        token: row.token.clone(),
        done: Vec::new(),
        warnings: Vec::new(),
    };
    let resumed = row.step.is_some();
    let first = match row.step.as_deref() {
        None | Some("plan") => 0,
        Some(step) => STEPS.iter().position(|s| *s == step).map_or(0, |i| i + 1),
    };
    if let Some(step) = &row.step {
        run.done = STEPS[..first].to_vec();
        if !opts.keep.is_empty() {
            run.warnings.push(format!(
                "resuming ingest {id} after step {step}: --keep is ignored, the entries chosen \
                 when finalize first ran stand"
            ));
        }
    } else {
        run.plan(manifest, &opts.keep).map_err(|e| run.fail(e))?;
    }
    let batch = manifest.batch(id).map_err(|e| run.fail(e.into()))?;
    let archived: Vec<&BatchEntry> = batch
        .iter()
        .filter(|e| e.outcome == Some(Outcome::Archive))
        .collect();
    let ids = |o: Outcome| -> Vec<u32> {
        batch
            .iter()
            .filter(|e| e.outcome == Some(o))
            .map(|e| e.id)
            .collect()
    };

    let mut archive_files = Vec::new();
    let mut remaining = None;
    let mut scan_errors = Vec::new();
    // What the batch feeds is regenerated in any case; a resumed run did it before it stopped.
    let regenerated = feeds::fed_by_all(archived.iter().map(|e| e.content.as_str()));
    let mut also_regenerated = Vec::new();
    let mut commit = None;
    for (i, step) in STEPS.iter().enumerate() {
        let redo = i < first;
        let result = match *step {
            // Done steps that produce facts the summary needs are cheap to recompute.
            "archive" => run.archive(&archived).map(|files| archive_files = files),
            "inbox" if redo => Ok(()),
            "inbox" => run
                .clear_inbox(manifest, &archived, row.inbox_rewrite.as_ref())
                .map(|n| remaining = Some(n)),
            "scan" if redo => Ok(()),
            "scan" => run.scan(manifest).map(|errors| scan_errors = errors),
            "regen" if redo => Ok(()),
            "regen" => run
                .regen(manifest, &regenerated)
                .map(|others| also_regenerated = others),
            _ => run
                .commit(archived.len(), opts.message.as_deref())
                .map(|c| commit = Some(c)),
        };
        result.map_err(|e| run.fail(e))?;
        if !redo {
            fault::reached(match *step {
                "archive" => "finalize.archive",
                "inbox" => "finalize.inbox",
                "scan" => "finalize.scan",
                "regen" => "finalize.regen",
                _ => "finalize.commit",
            });
            if *step != "commit" {
                manifest
                    .record_step(id, step)
                    .map_err(|e| run.fail(e.into()))?;
            }
            run.done.push(step);
        }
    }
    let remaining = match remaining {
        Some(n) => n,
        None => run.count_inbox().map_err(|e| run.fail(e))?,
    };
    let (sha, skipped) = match commit {
        Some(Commit::Made { sha, .. }) => (Some(sha), None),
        Some(Commit::Skipped(reason)) => (None, Some(reason)),
        None => (None, None),
    };
    let (kept_entries, changed_entries) = (ids(Outcome::Keep), ids(Outcome::Changed));
    manifest
        .complete_ingest(
            id,
            &now.timestamp,
            now.ns,
            (archived.len(), kept_entries.len(), changed_entries.len()),
            sha.as_deref(),
            skipped.as_deref(),
        )
        .map_err(|e| run.fail(e.into()))?;
    Ok(Finalized {
        ingest_id: id,
        archived: archived.len(),
        entry_count: archived.len(),
        archived_files: archive_files.len(),
        kept: kept_entries.len(),
        changed: changed_entries.len(),
        remaining,
        kept_entries,
        changed_entries,
        archive_files,
        commit_sha: sha.as_deref().map(crate::git::short),
        commit: sha,
        commit_skipped: skipped,
        scan_errors,
        regenerated,
        also_regenerated,
        resumed,
        warnings: run.warnings,
    })
}

fn failed(ingest: i64, done: &[&'static str], error: IngestError) -> FinalizeFailed {
    FinalizeFailed {
        ingest,
        done: done.to_vec(),
        error: Box::new(error),
    }
}

/// One finalize run's context.
struct Run<'a> {
    vault: &'a Vault,
    now: &'a Now,
    id: i64,
    token: String,
    done: Vec<&'static str>,
    warnings: Vec<String>,
}

impl Run<'_> {
    fn fail(&self, error: IngestError) -> FinalizeFailed {
        failed(self.id, &self.done, error)
    }

    /// Decide, once, what happens to each entry, and record it.
    fn plan(&mut self, manifest: &mut Manifest, keep: &[u32]) -> Result<(), IngestError> {
        let batch = manifest.batch(self.id)?;
        if let Some(&bad) = keep.iter().find(|k| !batch.iter().any(|e| e.id == **k)) {
            return Err(IngestError::UnknownEntry {
                ingest: self.id,
                entry: bad,
                count: batch.len(),
            });
        }
        let bytes = read_inbox(self.vault)?;
        let inbox = match &bytes {
            Some(b) => Some(Inbox::parse(b, self.now.today)?),
            None => None,
        };
        let hashes: Vec<&str> = inbox
            .iter()
            .flat_map(|i| i.entries.iter().map(|e| e.hash.as_str()))
            .collect();
        let found = match_entries(&batch, &hashes, |e| !keep.contains(&e.id));
        let plan: Vec<(u32, Outcome)> = batch
            .iter()
            .zip(&found)
            .map(|(e, f)| {
                let o = if keep.contains(&e.id) {
                    Outcome::Keep
                } else if f.is_some() {
                    Outcome::Archive
                } else {
                    Outcome::Changed
                };
                (e.id, o)
            })
            .collect();
        for (id, o) in &plan {
            if *o == Outcome::Changed {
                self.warnings.push(format!(
                    "entry {id} was edited or removed since prepare; it is not archived (what is \
                     in the inbox now stays there for the next ingest)"
                ));
            }
        }
        manifest.record_plan(self.id, &plan)?;
        fault::reached("finalize.plan");
        self.done.push("plan");
        Ok(())
    }

    fn archive(&self, entries: &[&BatchEntry]) -> Result<Vec<String>, IngestError> {
        let items: Vec<Item<'_>> = entries
            .iter()
            .map(|e| Item {
                entry: e.id,
                capture_date: &e.capture_date,
                hash: &e.hash,
                content: &e.content,
            })
            .collect();
        Ok(archive::archive(&self.vault.root, self.id, &self.token, &items)?.files)
    }

    /// Remove the archived entries still in the inbox; returns how many entries remain.
    /// Remove the archived entries still in the inbox; returns how many entries remain.
    /// `recorded` is the rewrite an interrupted run was about to make: if the inbox now starts
    /// with its result (and no longer with what it replaced), it was made, and whatever
    /// follows was captured since, so nothing is removed again.
    fn clear_inbox(
        &mut self,
        manifest: &Manifest,
        entries: &[&BatchEntry],
        recorded: Option<&(String, String)>,
    ) -> Result<usize, IngestError> {
        let path = self.vault.path(INBOX);
        let owned: Vec<BatchEntry> = entries.iter().map(|e| (*e).clone()).collect();
        for _ in 0..REWRITE_ATTEMPTS {
            let Some(bytes) = read_inbox(self.vault)? else {
                self.warnings
                    .push("inbox.md is missing; there was nothing to remove".into());
                return Ok(0);
            };
            let inbox = Inbox::parse(&bytes, self.now.today)?;
            if let Some((before, after)) = recorded
                && !starts_with(&bytes, before)
                && starts_with(&bytes, after)
            {
                return Ok(inbox.entries.len());
            }
            let hashes: Vec<&str> = inbox.entries.iter().map(|e| e.hash.as_str()).collect();
            let remove: Vec<usize> = match_entries(&owned, &hashes, |_| true)
                .into_iter()
                .flatten()
                .collect();
            if remove.is_empty() {
                return Ok(inbox.entries.len());
            }
            let new = inbox.without(&bytes, &remove);
            manifest.record_inbox_rewrite(self.id, &fingerprint(&bytes), &fingerprint(&new))?;
            let replaced = fsio::replace_if_unchanged(&path, &bytes, &new).map_err(|source| {
                IngestError::InboxIo {
                    action: "replace",
                    path: path.clone(),
                    source,
                }
            })?;
            if replaced {
                return Ok(inbox.entries.len() - remove.len());
            }
        }
        Err(IngestError::InboxBusy)
    }

    fn count_inbox(&self) -> Result<usize, IngestError> {
        match read_inbox(self.vault)? {
            Some(b) => Ok(Inbox::parse(&b, self.now.today)?.entries.len()),
            None => Ok(0),
        }
    }

    fn scan(&self, manifest: &mut Manifest) -> Result<Vec<ScanIssue>, IngestError> {
        let report = scan::rescan(self.vault, manifest, self.now)?;
        Ok(report.errors)
    }

    /// Regenerate the collections `batch` feeds, and those whose other sources changed since
    /// the last completed ingest (pages the agent wrote, files dropped into raw/), so that the
    /// commit includes them; rescan if any page was written. Returns the other collections
    /// whose pages were rewritten.
    fn regen(
        &self,
        manifest: &mut Manifest,
        batch: &[Collection],
    ) -> Result<Vec<Collection>, IngestError> {
        let affected =
            crate::affected::affected(self.vault, manifest).map_err(regen::RegenError::from)?;
        let chosen: Vec<Collection> = ALL
            .into_iter()
            .filter(|c| batch.contains(c) || affected.affected.contains(&c.name()))
            .collect();
        let outcomes = regen::write_pages(self.vault, manifest, self.now, &chosen, false)?;
        let written: Vec<Collection> = outcomes
            .iter()
            .filter(|o| o.status == "written")
            .map(|o| o.name)
            .collect();
        if !written.is_empty() {
            scan::rescan(self.vault, manifest, self.now)?;
        }
        Ok(written.into_iter().filter(|c| !batch.contains(c)).collect())
    }

    fn commit(&self, archived: usize, message: Option<&str>) -> Result<Commit, IngestError> {
        if !self.vault.config.git.auto_commit {
            return Ok(Commit::Skipped(
                "auto_commit is false in sparks.toml".into(),
            ));
        }
        let trailer = format!("Sparks-Ingest: {} {}", self.id, self.token);
        if let Some(sha) = git::head_with_line(&self.vault.root, &trailer)? {
            return Ok(Commit::Made {
                sha,
                paths: Vec::new(),
            });
        }
        let subject = match message {
            Some(m) if !m.trim().is_empty() => m.trim().to_string(),
            _ => format!(
                "ingest: {archived} {}",
                if archived == 1 { "entry" } else { "entries" }
            ),
        };
        Ok(git::commit_vault(
            &self.vault.root,
            &format!("{subject}\n\n{trailer}\n"),
        )?)
    }
}

/// `<len>:<blake3>` of some bytes.
fn fingerprint(bytes: &[u8]) -> String {
    format!("{}:{}", bytes.len(), blake3::hash(bytes).to_hex())
}

/// Whether `bytes` starts with the content a [`fingerprint`] describes.
fn starts_with(bytes: &[u8], print: &str) -> bool {
    let Some((len, _)) = print.split_once(':') else {
        return false;
    };
    let Ok(len) = len.parse::<usize>() else {
        return false;
    };
    bytes.len() >= len && fingerprint(&bytes[..len]) == print
}

/// Close the open ingest without finalizing it. Nothing needs restoring: prepare changed no
/// file. Refused once finalize has started on it.
pub fn abort(vault: &Vault, manifest: &mut Manifest, now: &Now) -> Result<Aborted, IngestError> {
    let _lock = VaultLock::acquire(&vault.root).map_err(IngestError::Lock)?;
    let Some(row) = manifest.open_ingest_row()? else {
        return Ok(Aborted {
            ingest_id: None,
            entries: 0,
        });
    };
    if let Some(step) = row.step {
        return Err(IngestError::AbortRefused {
            ingest: row.id,
            step,
        });
    }
    let entries = manifest.batch(row.id)?.len();
    if !manifest.abort_ingest(row.id, &now.timestamp, now.ns)? {
        return Err(IngestError::AbortRefused {
            ingest: row.id,
            step: "plan".into(),
        });
    }
    fault::reached("abort.close");
    Ok(Aborted {
        ingest_id: Some(row.id),
        entries,
    })
}
