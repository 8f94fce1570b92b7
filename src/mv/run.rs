//! Carrying out a plan from the journal, step by step, so that a run interrupted at any point
//! is completed by the next: `write` (each file, atomically; for `merge` FROM is kept), then
//! for `merge` `delete`, then `scan` (the manifest records the files, and the generated pages
//! that listed the page are regenerated), then `commit`. Each step is recorded when it is done.
//! Before the writes, every file is checked against the plan: it holds its old content (to be
//! written), its new content (written by the interrupted run: not written again), or neither
//! (changed by someone else: a conflict, and nothing is written).

use super::MoveError;
use super::plan::{FileOp, Kind, MoveReport, Plan, hash};
use crate::clock::Now;
use crate::collections::{Collection, regen};
use crate::fault;
use crate::fsio;
use crate::fsio::FileError;
use crate::git::Commit;
use crate::key;
use crate::manifest::Manifest;
use crate::markdown::rewrite;
use crate::par::par_map_on;
use crate::progress::Progress;
use crate::runstate::{self, Journaled, RunDir};
use crate::scan;
use crate::vault::{INDEX, Vault};
use std::io::ErrorKind;

/// The steps of each kind, in order.
fn steps(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Mv => &["write", "scan", "commit"],
        Kind::Merge => &["write", "delete", "scan", "commit"],
    }
}

/// The fault hook's name of a step.
fn fault_name(kind: Kind, step: &str) -> &'static str {
    match (kind, step) {
        (Kind::Mv, "write") => "mv.write",
        (Kind::Mv, "scan") => "mv.scan",
        (Kind::Mv, _) => "mv.commit",
        (Kind::Merge, "write") => "merge.write",
        (Kind::Merge, "delete") => "merge.delete",
        (Kind::Merge, _) => "merge.commit",
    }
}

/// What a file holds, measured against its part of the plan.
enum State {
    /// Its old content, to be rewritten or, for a move or delete, removed. The text is not
    /// kept: a plan may rewrite tens of thousands of files (24,479 for the hub of the
    /// 100,000-page benchmark vault), and each is read again as it is written.
    Pending,
    /// The moved page is written; the old file is still to be removed.
    Unlink,
    /// Done already.
    Done,
    /// Neither old nor new: changed by someone else.
    Conflict(String),
}

/// Carry out `plan` (the operation `journaled`), after the last step it recorded; `progress`
/// hears how its scans and writing go.
pub fn execute(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
    plan: &Plan,
    journaled: &Journaled,
    resumed: bool,
    progress: &dyn Progress,
) -> Result<MoveReport, MoveError> {
    let journal = RunDir::of(&vault.root);
    let done = journaled.step.as_deref();
    let steps = steps(plan.kind);
    let after = |step: &str| {
        let at = steps.iter().position(|s| *s == step).unwrap_or(0);
        done.and_then(|d| steps.iter().position(|s| *s == d))
            .is_some_and(|d| d >= at)
    };
    let mut report = plan.report(Vec::new(), false, resumed);
    if !after("write") {
        write(vault, plan, &journaled.operation, resumed)?;
        journal.journal_step("write")?;
    }
    if plan.kind == Kind::Merge && !after("delete") {
        for f in plan.files.iter().filter(|f| f.new.is_none()) {
            remove(vault, &f.path)?;
            fault::reached(fault_name(plan.kind, "delete"));
        }
        journal.journal_step("delete")?;
    }
    let mut paths: Vec<String> = plan
        .files
        .iter()
        .flat_map(|f| std::iter::once(f.path.clone()).chain(f.to.clone()))
        .collect();
    if !after("scan") {
        scan::scan_paths(vault, manifest, &paths, now.ns, progress)?;
        let written = regenerate(vault, manifest, now, plan, progress)?;
        report.files_changed.extend(written);
        report.files_changed.sort();
        report.files_changed.dedup();
        if plan.kind == Kind::Mv {
            fault::reached(fault_name(plan.kind, "scan"));
        }
        journal.journal_step("scan")?;
    }
    // Every page the regeneration may have written: an interrupted run may have written them.
    paths.extend(generated_outputs(plan));
    (report.commit, report.commit_skipped) = commit(vault, plan, &paths)?;
    fault::reached(fault_name(plan.kind, "commit"));
    journal.journal_done()?;
    Ok(report)
}

/// How many files are written at once: a write waits on its fsync, and the disk serves many
/// at a time (the journal commits them together), so this is more than the cores.
const WRITERS: usize = 16;

/// How many files make one batch of parallel writes. The fault hook runs between batches, so
/// that an abort never cuts a write in half (no temporary file is left behind).
const BATCH: usize = 256;

/// Check every file against the plan, then write those still to be written: the first file
/// alone (the moved page, for `mv`), then the others in parallel batches.
fn write(
    vault: &Vault,
    plan: &Plan,
    operation: &crate::operation::Operation,
    resumed: bool,
) -> Result<(), MoveError> {
    let mut states = Vec::with_capacity(plan.files.len());
    let mut conflicts = Vec::new();
    // A first run that fails before it writes (a file it cannot read, a first write the file
    // system refuses: a name too long, a full disk) leaves nothing behind: no journal to hold
    // every later write until it is completed, which it may never be.
    let give_up = |e: MoveError| -> MoveError {
        // The error that stopped it is the one to tell: a journal that cannot be removed stays,
        // and the next write says how to complete it or give it up.
        if !resumed {
            let _ = RunDir::of(&vault.root).journal_done();
        }
        e
    };
    for (f, s) in plan
        .files
        .iter()
        .zip(par_map_on(&plan.files, WRITERS, 32, |f| state(vault, f)))
    {
        match s.map_err(give_up)? {
            State::Conflict(p) => conflicts.push(p),
            // Deletions are the `delete` step's.
            State::Pending if f.new.is_none() => {}
            State::Done => {}
            s => states.push((f, s)),
        }
    }
    if !conflicts.is_empty() {
        // A first run that finds a file changed in the moment since it planned has written
        // nothing: it leaves nothing behind.
        if !resumed {
            RunDir::of(&vault.root).journal_done()?;
        }
        return Err(MoveError::Conflict {
            operation: operation.clone(),
            paths: conflicts,
            kept: resumed,
        });
    }
    let step = fault_name(plan.kind, "write");
    let mut rest = states.as_slice();
    let mut size = 1;
    let mut wrote = false;
    while !rest.is_empty() {
        let (batch, tail) = rest.split_at(size.min(rest.len()));
        let done = par_map_on(batch, WRITERS, 2, |(f, s)| apply(vault, f, s));
        for ((f, _), done) in batch.iter().zip(done) {
            let done = match done {
                Ok(done) => done,
                // The first write failed and left its file as it was: nothing is written.
                Err(e) if !wrote && matches!(state(vault, f), Ok(State::Pending)) => {
                    return Err(give_up(e));
                }
                Err(e) => return Err(e),
            };
            wrote = true;
            if !done {
                return Err(MoveError::Conflict {
                    operation: operation.clone(),
                    paths: vec![f.path.clone()],
                    kept: true,
                });
            }
            fault::reached(step);
        }
        rest = tail;
        size = BATCH;
    }
    Ok(())
}

/// Write one file of the plan (or remove the moved page's old file); `false` when the file
/// changed between the check and the write (nothing written).
fn apply(vault: &Vault, f: &FileOp, s: &State) -> Result<bool, MoveError> {
    if matches!(s, State::Unlink) {
        remove(vault, &f.path)?;
        return Ok(true);
    }
    let Some(old) = read(vault, &f.path)?
        .filter(|b| hash(b) == f.old)
        .and_then(|b| String::from_utf8(b).ok())
    else {
        return Ok(false);
    };
    let new = rewrite::apply(&old, &f.edits);
    // The edits must give the content the plan was made for; if not, the file is left as it
    // is, reported as a conflict.
    if Some(hash(new.as_bytes())) != f.new {
        return Ok(false);
    }
    let Some(to) = &f.to else {
        let file = vault.path(&f.path);
        return fsio::replace_if_unchanged(&file, old.as_bytes(), new.as_bytes())
            .map_err(|e| io("write", &file, e));
    };
    let target = vault.path(to);
    if let Some(dir) = target.parent() {
        fs_err::create_dir_all(dir).map_err(|e| io("create", dir, e))?;
    }
    fsio::write_atomic(&target, new.as_bytes()).map_err(|e| io("write", &target, e))?;
    // The old file goes, unless it is the new one: a rename that changes only the case is one
    // file where names fold case, and it holds the new content now.
    if let Some(bytes) = read(vault, &f.path)?
        && hash(&bytes) == f.old
    {
        remove(vault, &f.path)?;
    }
    Ok(true)
}

/// What `f`'s files hold now, against the plan.
fn state(vault: &Vault, f: &FileOp) -> Result<State, MoveError> {
    let here = read(vault, &f.path)?;
    let is = |b: &Option<Vec<u8>>, h: &str| b.as_deref().is_some_and(|b| hash(b) == h);
    Ok(match (&f.new, &f.to) {
        (None, _) if here.is_none() => State::Done,
        (None, _) if is(&here, &f.old) => State::Pending,
        (Some(new), None) if is(&here, new) => State::Done,
        (Some(_), None) if is(&here, &f.old) => State::Pending,
        (Some(new), Some(to)) => {
            // A rename that changes only the case is one file where names fold case.
            let same_file = key::key(to) == key::key(&f.path);
            let there = match same_file && is(&here, &f.old) {
                true => None,
                false => read(vault, to)?,
            };
            match (
                is(&here, &f.old),
                here.is_none(),
                there.is_none(),
                is(&there, new),
            ) {
                (true, _, true, _) => State::Pending,
                (true, _, _, true) => State::Unlink,
                (_, true, _, true) => State::Done,
                (_, _, false, false) => State::Conflict(to.clone()),
                _ => State::Conflict(f.path.clone()),
            }
        }
        _ => State::Conflict(f.path.clone()),
    })
}

/// A file's bytes, `None` when it does not exist.
fn read(vault: &Vault, path: &str) -> Result<Option<Vec<u8>>, MoveError> {
    match fsio::read(&vault.path(path)) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io("read", &vault.path(path), e)),
    }
}

fn remove(vault: &Vault, path: &str) -> Result<(), MoveError> {
    match fs_err::remove_file(vault.path(path)) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io("remove", &vault.path(path), e)),
    }
}

fn io(action: &'static str, path: &std::path::Path, source: std::io::Error) -> MoveError {
    MoveError::Io(FileError::at(action, path.to_path_buf())(source))
}

/// Regenerate the collections and the index the plan names; the pages written.
fn regenerate(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
    plan: &Plan,
    progress: &dyn Progress,
) -> Result<Vec<String>, MoveError> {
    let chosen: Vec<Collection> = plan
        .collections
        .iter()
        .filter_map(|n| Collection::from_name(n))
        .collect();
    let mut written: Vec<String> =
        regen::write_pages(vault, manifest, now, &chosen, false, progress)?
            .into_iter()
            .filter(|o| o.status == regen::Status::Written)
            .map(|o| o.path)
            .collect();
    if !written.is_empty() {
        scan::scan_paths(vault, manifest, &written, now.ns, progress)?;
    }
    if plan.index && vault.path(INDEX).exists() {
        let report = crate::index::rebuild(vault, manifest, now, progress)?;
        written.extend(report.diff.into_iter().map(|d| d.path));
    }
    Ok(written)
}

/// The pages regeneration may write for this plan.
fn generated_outputs(plan: &Plan) -> Vec<String> {
    let mut out: Vec<String> = plan
        .collections
        .iter()
        .filter_map(|n| Collection::from_name(n))
        .map(|c| c.output())
        .collect();
    if plan.index {
        out.push(INDEX.to_string());
        out.extend(crate::index::GROUPS.iter().map(|g| g.shard()));
    }
    out
}

/// The one scoped commit, or why there is none. A rerun finds the commit an interrupted run
/// made by its trailer.
fn commit(
    vault: &Vault,
    plan: &Plan,
    paths: &[String],
) -> Result<(Option<String>, Option<String>), MoveError> {
    if !vault.config.git.auto_commit {
        return Ok((None, Some("auto_commit is false in sparks.toml".into())));
    }
    let trailer = plan.trailer();
    let message = format!("{}\n\n{trailer}\n", plan.subject());
    Ok(
        match runstate::commit(&vault.root, &message, Some(paths), Some(&trailer))? {
            Commit::Made { sha, .. } => (Some(sha), None),
            Commit::Skipped(reason) => (None, Some(reason)),
        },
    )
}
