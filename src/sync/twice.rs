//! The same capture ingested on two devices: each prepared it before syncing, so each archived
//! it in an ingest of its own and wrote pages for it. The merged archive keeps it once (this
//! device's block), the log keeps both ingests' blocks, and the sync names the capture and both
//! ingests' pages for the agent to reconcile.
//!
//! A capture is known to be the same one only when the common inbox held it and both sides
//! took it out: two captures with the same words made on two devices are two captures, and both
//! stay. So the number of blocks of one content hash the merge may drop is the number of inbox
//! entries of that hash both sides removed ([`budget`]).

use crate::git::history;
use crate::inbox::Inbox;
use crate::sync::rules::Twice;
use chrono::NaiveDate;
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;

/// How many captures of each content hash both sides took out of their common inbox, read from
/// the three versions of the inbox (the common ancestor's, this side's, the other's).
pub fn budget(versions: &history::Versions, today: NaiveDate) -> HashMap<String, usize> {
    let counts = |bytes: &Option<Vec<u8>>| -> Option<HashMap<String, usize>> {
        let inbox = Inbox::parse(bytes.as_deref().unwrap_or_default(), today).ok()?;
        let mut n = HashMap::new();
        for e in &inbox.entries {
            *n.entry(e.hash.clone()).or_insert(0) += 1;
        }
        Some(n)
    };
    let [base, ours, theirs] = versions;
    let (Some(base), Some(ours), Some(theirs)) = (counts(base), counts(ours), counts(theirs))
    else {
        return HashMap::new();
    };
    base.into_iter()
        .filter_map(|(hash, n)| {
            let left = ours
                .get(&hash)
                .copied()
                .unwrap_or(0)
                .max(theirs.get(&hash).copied().unwrap_or(0));
            (n > left).then(|| (hash, n - left))
        })
        .collect()
}

/// A capture both devices ingested, as a sync reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IngestedTwice {
    /// The first line of the capture.
    pub entry: String,
    /// The archive file that keeps it once (vault-relative).
    pub archive: String,
    /// The two ingests: this device's first, then the other's.
    pub ingests: Vec<IngestOf>,
}

/// One device's ingest of a capture both ingested.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IngestOf {
    /// `this` or `other`.
    pub device: &'static str,
    /// The ingest's number on that device.
    pub ingest: i64,
    /// Its token (in its archive marker and its commit's trailer).
    pub token: String,
    /// The pages its commit wrote (vault-relative, under `wiki/`; the log, the index and the
    /// collections aside).
    pub pages: Vec<String>,
}

/// The report of each capture `found` names, with each ingest's pages read from its commit.
pub fn describe(
    vault_root: &Path,
    theirs: &str,
    found: &[(String, Twice)],
) -> Result<Vec<IngestedTwice>, crate::git::GitError> {
    let mut out = Vec::new();
    for (archive, t) in found {
        let ours = history::ingest_pages(vault_root, None, theirs, &t.ours.1)?;
        let other = history::ingest_pages(vault_root, Some(theirs), theirs, &t.theirs.1)?;
        out.push(IngestedTwice {
            entry: t.first_line.clone(),
            archive: archive.clone(),
            ingests: vec![
                IngestOf {
                    device: "this",
                    ingest: t.ours.0,
                    token: t.ours.1.clone(),
                    pages: ours,
                },
                IngestOf {
                    device: "other",
                    ingest: t.theirs.0,
                    token: t.theirs.1.clone(),
                    pages: other,
                },
            ],
        });
    }
    Ok(out)
}
