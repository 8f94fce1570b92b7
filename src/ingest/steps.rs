//! The steps of finalize, each safe to run again: archive blocks carry markers so none is
//! appended twice, the inbox rewrite removes only entries still present (and recognises a
//! rewrite it already made), and a commit is recognised by its trailer.

use super::error::failed;
use super::provenance;
use super::{FinalizeFailed, IngestError, REWRITE_ATTEMPTS, match_entries, read_inbox};
use crate::archive::{self, Item};
use crate::clock::Now;
use crate::collections::{ALL, Collection, regen};
use crate::fault;
use crate::fsio;
use crate::fsio::FileError;
use crate::git::Commit;
use crate::inbox::Inbox;
use crate::manifest::{BatchEntry, Manifest, Outcome, Step};
use crate::progress::Progress;
use crate::runstate::{self, RunDir};
use crate::scan::{self, ScanIssue};
use crate::vault::{INBOX, Vault};

/// One finalize run's context.
pub(super) struct Run<'a> {
    pub(super) vault: &'a Vault,
    pub(super) now: &'a Now,
    /// Who hears how the scans, the checks and the writing go.
    pub(super) progress: &'a dyn Progress,
    pub(super) id: i64,
    pub(super) token: String,
    pub(super) done: Vec<Step>,
    pub(super) warnings: Vec<String>,
}

impl Run<'_> {
    pub(super) fn fail(&self, error: IngestError) -> FinalizeFailed {
        failed(self.id, &self.done, error)
    }

    /// The strict gate: refuse the batch if it adds lint issues to the pages it touched,
    /// before anything is decided or written (the ingest stays open).
    pub(super) fn gate(&self, manifest: &mut Manifest) -> Result<(), IngestError> {
        scan::refresh(
            self.vault,
            manifest,
            self.now,
            &mut crate::scan::Freshness::Scan,
            self.progress,
        )?;
        // Without a snapshot (an ingest opened by an earlier sparks) there is nothing to
        // compare with; finalize warns.
        let Some(changes) = manifest.page_changes(self.id)? else {
            return Ok(());
        };
        let issues =
            provenance::lint_delta(self.vault, manifest, self.id, &changes, self.progress)?;
        match issues.is_empty() {
            true => Ok(()),
            false => Err(IngestError::Strict {
                ingest: self.id,
                issues,
            }),
        }
    }

    /// Decide, once, what happens to each entry, and record it.
    pub(super) fn plan(
        &mut self,
        manifest: &mut Manifest,
        keep: &[u32],
    ) -> Result<(), IngestError> {
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
        RunDir::of(&self.vault.root).record_plan(self.id, &plan)?;
        manifest.record_plan(self.id, &plan)?;
        fault::reached(Step::Plan.fault_point());
        self.done.push(Step::Plan);
        Ok(())
    }

    pub(super) fn archive(&self, entries: &[&BatchEntry]) -> Result<Vec<String>, IngestError> {
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
    /// `recorded` is the rewrite an interrupted run was about to make: if the inbox now starts
    /// with its result (and no longer with what it replaced), it was made, and whatever
    /// follows was captured since, so nothing is removed again.
    pub(super) fn clear_inbox(
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
            RunDir::of(&self.vault.root).record_inbox_rewrite(
                self.id,
                &fingerprint(&bytes),
                &fingerprint(&new),
            )?;
            manifest.record_inbox_rewrite(
                self.id,
                (&bytes, &new),
                (&fingerprint(&bytes), &fingerprint(&new)),
            )?;
            let replaced = fsio::replace_if_unchanged(&path, &bytes, &new).map_err(|source| {
                IngestError::Io(FileError::at("replace", path.clone())(source))
            })?;
            if replaced {
                return Ok(inbox.entries.len() - remove.len());
            }
        }
        Err(IngestError::InboxBusy)
    }

    pub(super) fn count_inbox(&self) -> Result<usize, IngestError> {
        match read_inbox(self.vault)? {
            Some(b) => Ok(Inbox::parse(&b, self.now.today)?.entries.len()),
            None => Ok(0),
        }
    }

    pub(super) fn scan(&self, manifest: &mut Manifest) -> Result<Vec<ScanIssue>, IngestError> {
        let report = scan::rescan(self.vault, manifest, self.now, self.progress)?;
        Ok(report.errors)
    }

    /// Regenerate the collections `batch` feeds, and those whose other sources changed since
    /// the last completed ingest (pages the agent wrote, files dropped into raw/), so that the
    /// commit includes them; record the pages written in the manifest. Returns the other collections
    /// whose pages were rewritten.
    pub(super) fn regen(
        &self,
        manifest: &mut Manifest,
        batch: &[Collection],
    ) -> Result<Vec<Collection>, IngestError> {
        let affected = crate::collections::affected::affected(self.vault, manifest)
            .map_err(regen::RegenError::from)?;
        let chosen: Vec<Collection> = ALL
            .into_iter()
            .filter(|c| batch.contains(c) || affected.affected.contains(&c.name()))
            .collect();
        let written = write_pages(self.vault, manifest, self.now, &chosen, self.progress)?;
        Ok(written.into_iter().filter(|c| !batch.contains(c)).collect())
    }

    pub(super) fn commit(
        &self,
        archived: usize,
        message: Option<&str>,
    ) -> Result<Commit, IngestError> {
        if !self.vault.config.git.auto_commit {
            return Ok(Commit::Skipped(
                "auto_commit is false in sparks.toml".into(),
            ));
        }
        let trailer = format!("Sparks-Ingest: {} {}", self.id, self.token);
        let subject = match message {
            Some(m) if !m.trim().is_empty() => m.trim().to_string(),
            _ => format!(
                "ingest: {archived} {}",
                if archived == 1 { "entry" } else { "entries" }
            ),
        };
        Ok(runstate::commit(
            &self.vault.root,
            &format!("{subject}\n\n{trailer}\n"),
            None,
            Some(&trailer),
        )?)
    }
}

/// Regenerate the pages of `chosen` and rescan if any was written (`progress` hearing how it
/// goes); returns those written.
pub(super) fn write_pages(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
    chosen: &[Collection],
    progress: &dyn Progress,
) -> Result<Vec<Collection>, IngestError> {
    let outcomes = regen::write_pages(vault, manifest, now, chosen, false, progress)?;
    let written: Vec<Collection> = outcomes
        .iter()
        .filter(|o| o.status == regen::Status::Written)
        .map(|o| o.name)
        .collect();
    // The scan step has just seen every other file: record the pages written, not the whole
    // vault again.
    let paths: Vec<String> = written.iter().map(|c| c.output()).collect();
    if !paths.is_empty() {
        scan::scan_paths(vault, manifest, &paths, now.ns, progress)?;
    }
    Ok(written)
}

/// `<len>:<blake3>` of some bytes.
pub(super) fn fingerprint(bytes: &[u8]) -> String {
    format!("{}:{}", bytes.len(), blake3::hash(bytes).to_hex())
}

/// Whether `bytes` starts with the content a [`fingerprint`] describes.
pub(super) fn starts_with(bytes: &[u8], print: &str) -> bool {
    let Some((len, _)) = print.split_once(':') else {
        return false;
    };
    let Ok(len) = len.parse::<usize>() else {
        return false;
    };
    bytes.len() >= len && fingerprint(&bytes[..len]) == print
}
