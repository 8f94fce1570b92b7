//! `ingest --revert`: take a finalized ingest back. Its entries go back into the inbox (after
//! its header, in their order, with their date lines), their archive blocks come out of
//! `raw/inbox/` (found by their markers: the only edit of `raw/` Sparks makes, and only of
//! blocks it wrote), and every page it created, changed or deleted is put back as it was.
//! Then the collections it fed are regenerated, the manifest rescanned, and the revert
//! committed (`revert: ingest N`).
//!
//! Nothing is written when a page was changed again after the ingest (by a later ingest or by
//! hand): the plan lists each such page and who changed it last. Otherwise the revert is
//! journaled before it writes, and each step (`inbox`, `archive`, `pages`) is recorded as it
//! is done; every step is safe to run again, so the same command completes an interrupted
//! revert without putting an entry back twice. The pieces: `plan` decides what to write,
//! `steps` writes it.

pub mod later;
mod plan;
mod steps;

pub use later::{Later, UndoLater};

use super::IngestError;
use crate::clock::Now;
use crate::collections::Collection;
use crate::fault;
use crate::fsio;
use crate::fsio::FileError;
use crate::git::Commit;
use crate::lock::VaultLock;
use crate::manifest::{Manifest, PageAction};
use crate::operation::Operation;
use crate::runstate::{self, Journaled, RunDir};
use crate::scan;
use crate::vault::Vault;
use plan::Plan;
use serde::Serialize;

/// The journal's name for a revert.
pub const KIND: &str = "revert";

/// The steps a revert records as done, in order.
const STEPS: [&str; 3] = ["inbox", "archive", "pages"];

/// What a revert is asked.
#[derive(Debug, Clone, Copy)]
pub struct RevertOptions {
    /// The ingest.
    pub ingest: i64,
    /// Say what would be done, write nothing.
    pub dry_run: bool,
}

/// An entry put back into the inbox.
#[derive(Debug, Clone, Serialize)]
pub struct PutBack {
    /// Its id in the batch.
    pub id: u32,
    /// `YYYY-MM-DD`, its date line.
    pub capture_date: String,
    /// The first line of the capture.
    pub first_line: String,
    /// The archive file its block is taken out of.
    pub archived_to: String,
}

/// What the revert does to a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Undo {
    /// The ingest created it: it is deleted.
    Delete,
    /// The ingest changed or deleted it: its content before is written back.
    Restore,
}

/// A page the revert puts back.
#[derive(Debug, Clone, Serialize)]
pub struct PageUndo {
    /// Vault-relative path.
    pub path: String,
    /// What the ingest did to it.
    pub action: PageAction,
    /// What the revert does.
    pub undo: Undo,
}

/// A page changed again after the ingest: the revert writes nothing.
#[derive(Debug, Clone, Serialize)]
pub struct Conflict {
    /// Vault-relative path.
    pub path: String,
    /// What the ingest did to it.
    pub action: PageAction,
    /// Who changed it last, in words.
    pub changed_by: String,
    /// The later ingest that changed it last, if one did.
    pub ingest: Option<i64>,
    /// Otherwise the later Sparks command that did (`done`, `mv`, `merge`), when the files
    /// tell it, and how to undo it.
    pub later: Option<Later>,
}

/// What a revert did (or, with `--dry-run` or conflicts, would do).
#[derive(Debug, Clone, Serialize)]
pub struct Reverted {
    /// The ingest.
    pub ingest_id: i64,
    /// True when nothing was written on purpose.
    pub dry_run: bool,
    /// True when the ingest is now reverted.
    pub reverted: bool,
    /// The entries put back into the inbox, in batch order.
    pub entries: Vec<PutBack>,
    /// The archive files their blocks are taken out of.
    pub archive_files: Vec<String>,
    /// The pages put back.
    pub pages: Vec<PageUndo>,
    /// Pages changed again since the ingest (then nothing is written).
    pub conflicts: Vec<Conflict>,
    /// The collections regenerated (with `--dry-run`: those that would be looked at).
    pub regenerated: Vec<Collection>,
    /// The commit made.
    pub commit: Option<String>,
    /// Why no commit was made.
    pub commit_skipped: Option<String>,
    /// True when this run completed an interrupted revert.
    pub resumed: bool,
    /// Things worth knowing that did not stop the command.
    pub warnings: Vec<String>,
}

/// Revert ingest `opts.ingest`, or complete its interrupted revert; `progress` hears how its
/// scan and writing go.
pub fn revert(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
    opts: RevertOptions,
    progress: &dyn crate::progress::Progress,
) -> Result<Reverted, IngestError> {
    let id = opts.ingest;
    let _lock = match opts.dry_run {
        true => None,
        false => Some(VaultLock::acquire(&vault.root).map_err(IngestError::Lock)?),
    };
    let journal = RunDir::of(&vault.root);
    let unfinished = journal.journaled()?;
    let resuming = unfinished.as_ref().filter(|j| is_revert_of(j, id)).cloned();
    let plan = match &resuming {
        // The journal alone completes it: the manifest may have been rebuilt or deleted.
        Some(j) => {
            let plan = serde_json::from_str::<Plan>(&journal.journal_plan()?).map_err(|e| {
                not_revertible(
                    id,
                    format!("the plan of {} journaled cannot be read: {e}", j.operation),
                )
            })?;
            if let Err(e) = plan.check_paths(vault) {
                return Err(journal.refuse_journal(format!("its plan: {e}")).into());
            }
            plan
        }
        None => {
            let rec = manifest
                .ingest_record(id)?
                .ok_or(IngestError::UnknownIngest(id))?;
            if let (Some(j), false) = (&unfinished, opts.dry_run) {
                return Err(not_revertible(
                    id,
                    format!(
                        "{} was interrupted and must be completed first",
                        j.operation
                    ),
                ));
            }
            plan::check(manifest, &rec)?;
            Plan::make(vault, manifest, &rec, true)?
        }
    };
    let mut report = plan.report(opts.dry_run, resuming.is_some());
    if resuming.is_some() && opts.dry_run {
        report.warnings.push(format!(
            "the revert of ingest {id} was interrupted; reverting it again (not as a dry run) \
             completes it"
        ));
    }
    if opts.dry_run || !report.conflicts.is_empty() {
        return Ok(report);
    }
    if resuming.is_none() {
        steps::check_inbox(vault, now, &plan)?;
    }
    let first = match &resuming {
        Some(j) => j
            .step
            .as_deref()
            .and_then(|s| STEPS.iter().position(|x| *x == s))
            .map_or(0, |i| i + 1),
        None => {
            let text = serde_json::to_string(&plan)
                .map_err(|e| not_revertible(id, format!("its plan cannot be journaled: {e}")))?;
            let pages: Vec<String> = plan.pages.iter().map(|p| p.change.path.clone()).collect();
            journal.journal(runstate::Entry {
                operation: &Operation::Revert { id },
                request: &serde_json::json!({ "id": id }).to_string(),
                pages: &pages,
                plan: &text,
                started_at: &now.timestamp,
            })?;
            0
        }
    };
    for (i, step) in STEPS.into_iter().enumerate().skip(first) {
        match i {
            0 => steps::put_back(vault, &journal, now, &plan)?,
            1 => steps::unarchive(vault, &plan)?,
            _ => steps::restore_pages(vault, &plan)?,
        }
        fault::reached(match i {
            0 => "revert.inbox",
            1 => "revert.archive",
            _ => "revert.pages",
        });
        journal.journal_step(step)?;
    }
    scan::rescan(vault, manifest, now, progress)?;
    report.regenerated = steps::regen(vault, manifest, now, &plan.collections, progress)?;
    let commit = commit(vault, &plan)?;
    fault::reached("revert.commit");
    let sha = match &commit {
        Commit::Made { sha, .. } => Some(sha.as_str()),
        Commit::Skipped(_) => None,
    };
    manifest.finish_revert(id, &now.timestamp, sha)?;
    journal.journal_done()?;
    match commit {
        Commit::Made { sha, .. } => report.commit = Some(sha),
        Commit::Skipped(reason) => report.commit_skipped = Some(reason),
    }
    report.reverted = true;
    Ok(report)
}

/// Whether the unfinished operation `j` is the revert of ingest `id`.
pub fn is_revert_of(j: &Journaled, id: i64) -> bool {
    j.kind == KIND
        && serde_json::from_str::<serde_json::Value>(&j.request)
            .ok()
            .and_then(|v| v["id"].as_i64())
            == Some(id)
}

/// The content of a file, `None` when there is none.
fn read(vault: &Vault, rel: &str) -> Result<Option<Vec<u8>>, IngestError> {
    let path = vault.path(rel);
    Ok(fsio::read_if_exists(&path).map_err(FileError::at("read", path))?)
}

/// blake3 of some content, hex.
fn hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

fn not_revertible(ingest: i64, why: String) -> IngestError {
    IngestError::NotRevertible { ingest, why }
}

/// Commit what the revert wrote (only those paths), recognising a commit an interrupted run
/// made by its trailer.
fn commit(vault: &Vault, plan: &Plan) -> Result<Commit, IngestError> {
    if !vault.config.git.auto_commit {
        return Ok(Commit::Skipped(
            "auto_commit is false in sparks.toml".into(),
        ));
    }
    let trailer = format!("Sparks-Revert: {} {}", plan.record.id, plan.record.token);
    let message = format!("revert: ingest {}\n\n{trailer}\n", plan.record.id);
    Ok(runstate::commit(
        &vault.root,
        &message,
        Some(&plan.paths()),
        Some(&trailer),
    )?)
}
