//! Opening a batch: the first entries of the inbox recorded in the manifest under a new
//! ingest; and the open ingest's batch shown again (resume, status).

use super::report::{Batch, BatchItem, Prepared};
use super::{IngestError, match_entries, read_inbox};
use crate::clock::Now;
use crate::collections::feeds;
use crate::fault;
use crate::inbox::{Hints, Inbox};
use crate::lock::VaultLock;
use crate::manifest::{Manifest, NewEntry, Opened, Step};
use crate::runstate::{self, OpenIngest, RunDir};
use crate::vault::{INBOX, Vault};

/// Open an ingest of at most `limit` entries (`None`: the configured batch size; 0: all).
/// With one open already, show it; with none recorded but an interrupted finalize found in
/// the archive (its records lost with the manifest), reopen that one. `progress` hears how the
/// scan and the checks of the snapshot go.
pub fn prepare(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
    limit: Option<usize>,
    progress: &dyn crate::progress::Progress,
) -> Result<Prepared, IngestError> {
    // Prepares run one at a time, and never while a finalize or abort changes the record.
    let _lock = VaultLock::acquire(&vault.root).map_err(IngestError::Lock)?;
    runstate::restore_locked(&vault.root, manifest)?;
    let bytes = read_inbox(vault)?.ok_or_else(|| IngestError::InboxMissing(vault.path(INBOX)))?;
    let inbox = Inbox::parse(&bytes, now.today)?;
    if manifest.open_ingest_row()?.is_some() {
        return in_progress(vault, manifest, now, Vec::new());
    }
    if let Some(found) = super::recover::interrupted(vault, manifest, &inbox, now)? {
        manifest.mirror_ingest(&found.row(), &found.entries)?;
        RunDir::of(&vault.root).record_ingest(&found)?;
        let warning = format!(
            "finalize of ingest {} was interrupted after archiving {} of these entries, and \
             its record was lost (the manifest and .sparks/ingest.json were deleted): they are \
             its batch again; finalize completes it, archiving nothing twice",
            found.id,
            found.entries.len()
        );
        return in_progress(vault, manifest, now, vec![warning]);
    }
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
    // What the batch will do is told against the wiki as it is now; with nothing to open an
    // ingest for, there is nothing to record.
    let snapshot = match entries.is_empty() {
        true => None,
        false => Some(super::provenance::take(vault, manifest, now, progress)?),
    };
    match manifest.open_ingest(
        &token,
        &now.timestamp,
        remaining,
        &entries,
        snapshot.as_ref(),
    )? {
        Opened::New(id) => {
            // The manifest first, then the record: a crash between the two leaves an open
            // ingest the next command's restore records.
            let row = manifest
                .open_ingest_row()?
                .ok_or(IngestError::NoOpenIngest)?;
            let open = OpenIngest::of(&row, manifest.batch(id)?);
            RunDir::of(&vault.root).record_ingest(&open)?;
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
                    related: Vec::new(),
                })
                .collect::<Vec<_>>();
            let items = with_related(manifest, items)?;
            let mut batch = batch_of(
                Some(id),
                items,
                remaining,
                Some(now.timestamp.clone()),
                None,
            );
            batch.warnings.extend(inbox.warnings);
            Ok(Prepared::Opened(batch))
        }
        Opened::AlreadyOpen(_) => in_progress(vault, manifest, now, Vec::new()),
        Opened::Nothing => {
            let mut batch = batch_of(None, Vec::new(), 0, None, None);
            batch.warnings.extend(inbox.warnings);
            Ok(Prepared::Empty(batch))
        }
    }
}

/// The open ingest's batch, as a prepare that found it open answers.
fn in_progress(
    vault: &Vault,
    manifest: &Manifest,
    now: &Now,
    warnings: Vec<String>,
) -> Result<Prepared, IngestError> {
    let mut batch = open_batch(vault, manifest, now)?.ok_or(IngestError::NoOpenIngest)?;
    batch.warnings.extend(warnings);
    Ok(Prepared::InProgress(batch))
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

/// An entry larger than this is worth a warning: an agent may not read it whole.
const LARGE_ENTRY: usize = 1 << 20;

/// The warnings a batch's entries call for: each entry larger than [`LARGE_ENTRY`].
fn large_entries(entries: &[BatchItem]) -> Vec<String> {
    entries
        .iter()
        .filter(|e| e.content.len() > LARGE_ENTRY)
        .map(|e| {
            format!(
                "entry {} (captured {}) is {:.1} MiB, more than 1 MiB: it may not fit in one \
                 read; read it in parts, or keep it in the inbox (keep {} at finalize) and tell \
                 the human",
                e.id,
                e.capture_date,
                e.content.len() as f64 / (1 << 20) as f64,
                e.id
            )
        })
        .collect()
}

/// `items` with the pages each may belong in (`related`), found as the wiki is now.
fn with_related(
    manifest: &Manifest,
    mut items: Vec<BatchItem>,
) -> Result<Vec<BatchItem>, IngestError> {
    let texts: Vec<&str> = items.iter().map(|i| i.content.as_str()).collect();
    let related = crate::search::related::where_each_belongs(manifest, &texts)?;
    for (item, related) in items.iter_mut().zip(related) {
        item.related = related;
    }
    Ok(items)
}

fn batch_of(
    id: Option<i64>,
    entries: Vec<BatchItem>,
    remaining: usize,
    started_at: Option<String>,
    step: Option<Step>,
) -> Batch {
    Batch {
        warnings: large_entries(&entries),
        ingest_id: id,
        total: entries.len(),
        affected_collections: feeds::fed_by_all(entries.iter().map(|e| e.content.as_str())),
        entries,
        remaining,
        already_in_progress: false,
        started_at,
        step,
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
            related: Vec::new(),
        })
        .collect();
    let items = with_related(manifest, items)?;
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
    batch.warnings.extend(warnings);
    Ok(Some(batch))
}
