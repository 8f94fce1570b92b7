//! An interrupted finalize whose records are lost: the manifest deleted and `.sparks/` with
//! it, after finalize archived its batch and before it took the batch out of the inbox. The
//! archive still tells: each block's marker names its ingest (id and token) and its entry
//! (number and hash). A batch is the first entries of the inbox when prepare ran, numbered in
//! order, and nothing but a human's edit moves an entry up; so an inbox entry is the archived
//! entry `n` of an interrupted batch when it sits at or above position `n`, in the batch's
//! order, with the same hash and capture date. Never the content alone: the same text
//! captured again on a later day has another date, and one captured again later sits below.
//!
//! A batch the manifest knows (completed or aborted) or whose commit git holds is not
//! interrupted. What is found becomes the open ingest again, its archive step done, so that
//! finalize completes it: the entries leave the inbox, and nothing is archived twice.

use super::IngestError;
use crate::archive;
use crate::clock::Now;
use crate::git;
use crate::inbox::{Hints, Inbox};
use crate::manifest::{BatchEntry, Manifest, Outcome, Step};
use crate::runstate::OpenIngest;
use crate::vault::Vault;
use std::collections::{BTreeMap, BTreeSet};

/// The interrupted batch whose archived entries are still in `inbox`, if there is one.
pub(super) fn interrupted(
    vault: &Vault,
    manifest: &Manifest,
    inbox: &Inbox,
    now: &Now,
) -> Result<Option<OpenIngest>, IngestError> {
    if inbox.entries.is_empty() {
        return Ok(None);
    }
    // An entry can only have been archived to the file of its capture date.
    let dates: BTreeSet<String> = inbox
        .entries
        .iter()
        .map(|e| e.capture_date.to_string())
        .collect();
    let mut batches: BTreeMap<(i64, String), Vec<(archive::Marker, String)>> = BTreeMap::new();
    for date in dates {
        for m in archive::markers_of(&vault.root, &date)? {
            batches
                .entry((m.ingest, m.token.clone()))
                .or_default()
                .push((m, date.clone()));
        }
    }
    // The latest ingests first: an interrupted batch is the last one archived.
    for ((id, token), mut blocks) in batches.into_iter().rev() {
        if manifest.knows_ingest_token(&token)?
            || git::head_with_line(&vault.root, &format!("Sparks-Ingest: {id} {token}"))?.is_some()
        {
            continue;
        }
        blocks.sort_by_key(|(m, _)| m.entry);
        let mut entries = Vec::new();
        let mut next = 0;
        for (m, date) in &blocks {
            let above = (m.entry as usize).min(inbox.entries.len());
            let Some(at) = (next..above).find(|&i| {
                let e = &inbox.entries[i];
                e.hash == m.hash && e.capture_date.to_string() == *date
            }) else {
                continue;
            };
            let e = &inbox.entries[at];
            entries.push(BatchEntry {
                id: m.entry,
                capture_date: date.clone(),
                hash: e.hash.clone(),
                content: e.content.clone(),
                hints: serde_json::to_string(&Hints::of(&e.content))
                    .unwrap_or_else(|_| "{}".into()),
                outcome: Some(Outcome::Archive),
            });
            next = at + 1;
        }
        if entries.is_empty() {
            continue;
        }
        return Ok(Some(OpenIngest {
            // The id markers name, unless an ingest of the manifest has it since: finalize,
            // its archive step done, writes no marker again.
            id: manifest.free_ingest_id(id)?,
            token,
            started_at: now.timestamp.clone(),
            remaining: (inbox.entries.len() - entries.len()) as i64,
            step: Some(Step::Archive),
            inbox_rewrite: None,
            entries,
        }));
    }
    Ok(None)
}
