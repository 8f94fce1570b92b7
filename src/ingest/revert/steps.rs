//! The steps of a revert, each safe to run again: the inbox rewrite is recorded (as
//! fingerprints) before it is made and recognised afterwards, so no entry is put back twice;
//! archive blocks are found by their markers, so none is taken out twice; a page already as
//! it was before is left alone.

use super::plan::Plan;
use super::{hash, read};
use crate::clock::Now;
use crate::collections::{Collection, regen};
use crate::fsio;
use crate::fsio::FileError;
use crate::inbox::Inbox;
use crate::ingest::steps::{fingerprint, starts_with};
use crate::ingest::{IngestError, REWRITE_ATTEMPTS, match_entries, read_inbox};
use crate::manifest::{BatchEntry, Manifest};
use crate::runstate::RunDir;
use crate::vault::{INBOX, Vault};

/// Put the entries back into the inbox, after its header, unless this revert did already.
pub(super) fn put_back(
    vault: &Vault,
    journal: &RunDir,
    now: &Now,
    plan: &Plan,
) -> Result<(), IngestError> {
    let path = vault.path(INBOX);
    // The rewrite an interrupted run recorded before making it (by its fingerprint).
    let recorded = journal
        .journaled()?
        .and_then(|j| j.notes.get(INBOX_AFTER).cloned());
    for _ in 0..REWRITE_ATTEMPTS {
        let current = read_inbox(vault)?;
        let bytes = current.clone().unwrap_or_default();
        if let Some(after) = &recorded
            && starts_with(&bytes, after)
        {
            return Ok(());
        }
        let new = restored(&bytes, plan.inbox_texts.as_ref(), &plan.entries, now)?;
        journal.journal_note(INBOX_AFTER, &fingerprint(&new))?;
        let io = |source| IngestError::Io(FileError::at("replace", path.clone())(source));
        let replaced = match current {
            None => fsio::write_atomic(&path, &new).map(|()| true),
            Some(old) => fsio::replace_if_unchanged(&path, &old, &new),
        };
        if replaced.map_err(io)? {
            return Ok(());
        }
    }
    Err(IngestError::InboxBusy)
}

/// Check, before anything is written, that the entries can be put back into the inbox as it
/// is now (it parses; what finalize recorded of it parses).
pub(super) fn check_inbox(vault: &Vault, now: &Now, plan: &Plan) -> Result<(), IngestError> {
    let current = read_inbox(vault)?.unwrap_or_default();
    restored(&current, plan.inbox_texts.as_ref(), &plan.entries, now).map(drop)
}

/// The journal's note of the inbox a revert is writing: `<len>:<blake3>` of its new content.
const INBOX_AFTER: &str = "inbox_after";

/// The inbox `current` with `entries` put back. When it still starts with what finalize left
/// (`texts`: the inbox before and after finalize), it becomes the inbox before finalize
/// followed by whatever was appended since: byte for byte as it was. Otherwise the entries'
/// chunks, as the human wrote them, go right after the header. An entry without a date line
/// gets its capture date as one.
fn restored(
    current: &[u8],
    texts: Option<&(Vec<u8>, Vec<u8>)>,
    entries: &[BatchEntry],
    now: &Now,
) -> Result<Vec<u8>, IngestError> {
    let old = match texts {
        Some((before, _)) => Some((Inbox::parse(before, now.today)?, before)),
        None => None,
    };
    // Where each entry is in the inbox before finalize.
    let found: Vec<Option<usize>> = match &old {
        Some((inbox, _)) => {
            let hashes: Vec<&str> = inbox.entries.iter().map(|e| e.hash.as_str()).collect();
            match_entries(entries, &hashes, |_| true)
        }
        None => vec![None; entries.len()],
    };
    if let (Some((inbox, before)), Some((_, after))) = (&old, texts)
        && current.starts_with(after)
    {
        let dates: Vec<(usize, &str)> = found
            .iter()
            .zip(entries)
            .filter_map(|(f, e)| Some(((*f)?, e.capture_date.as_str())))
            .collect();
        let mut out = inbox.with_date_lines(before, &dates);
        out.extend_from_slice(&current[after.len()..]);
        return Ok(out);
    }
    let chunks: Vec<Vec<u8>> = found
        .iter()
        .zip(entries)
        .map(|(f, e)| match (f, &old) {
            (Some(i), Some((inbox, before))) => inbox.chunk_of(before, *i, &e.capture_date),
            _ => format!("{}\n{}\n", e.capture_date, e.content).into_bytes(),
        })
        .collect();
    Ok(Inbox::parse(current, now.today)?.with_chunks_first(current, &chunks))
}

/// Take the entries' blocks out of their archive files.
pub(super) fn unarchive(vault: &Vault, plan: &Plan) -> Result<(), IngestError> {
    for (file, markers) in plan.blocks() {
        crate::archive::remove_blocks(&vault.root, &file, &markers)?;
    }
    Ok(())
}

/// Put every page back as it was before the ingest.
pub(super) fn restore_pages(vault: &Vault, plan: &Plan) -> Result<(), IngestError> {
    for p in &plan.pages {
        let rel = &p.change.path;
        let now = read(vault, rel)?.map(|b| hash(&b));
        if now == p.before.as_deref().map(hash) {
            continue;
        }
        if !p.generated && now != p.change.after_hash {
            return Err(IngestError::ChangedMidRevert {
                ingest: plan.record.id,
                path: rel.clone(),
            });
        }
        let path = vault.path(rel);
        let io = |action, source| IngestError::Io(FileError::at(action, path.clone())(source));
        match &p.before {
            None => fs_err::remove_file(&path).map_err(|e| io("remove", e))?,
            Some(bytes) => {
                if let Some(dir) = path.parent() {
                    fs_err::create_dir_all(dir).map_err(|e| io("write", e))?;
                }
                fsio::write_atomic(&path, bytes).map_err(|e| io("write", e))?;
            }
        }
    }
    Ok(())
}

/// Regenerate the collections the ingest fed or wrote, from the sources as they are now; a
/// collection with nothing in it whose page does not exist is not created. Returns those
/// whose pages were written. `progress` hears how it goes.
pub(super) fn regen(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
    collections: &[Collection],
    progress: &dyn crate::progress::Progress,
) -> Result<Vec<Collection>, IngestError> {
    let would = regen::write_pages(vault, manifest, now, collections, true, progress)?;
    let chosen: Vec<Collection> = would
        .iter()
        .filter(|o| o.status == regen::Status::WouldWrite)
        .filter(|o| o.items > 0 || o.output_path.exists())
        .map(|o| o.name)
        .collect();
    crate::ingest::steps::write_pages(vault, manifest, now, &chosen, progress)
}
