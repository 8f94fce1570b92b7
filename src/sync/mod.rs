//! `sparks sync`: one vault on several devices, over git. A sync commits this device's
//! changes, fetches the remote branch, merges it (a fast-forward when this side has nothing
//! new), brings the manifest up to date, regenerates what the merge made stale, commits the
//! merge and pushes; a push the remote refuses because it moved meanwhile is fetched and
//! merged again, a few times at most, never forced. Two devices that sync in turn end on one
//! commit: a sync with nothing new on either side commits nothing and changes no file.
//!
//! The merge is Sparks' own ([`crate::git::merge`] on trees, [`resolve`] for each path both
//! sides changed): the inbox, the archive, the log, `Tasks.md` and the index merge by what
//! their lines mean ([`rules`]); other collections are regenerated from the merged vault; any
//! other file both sides changed in overlapping lines keeps this device's text in place and
//! gets the other's beside it as a conflict copy. No file ever gets conflict markers, and a sync
//! refuses to build on those a plain git command left (`plain.rs`).
//!
//! A merge under way is recorded in `.sparks/sync.json` before the work tree changes, so a
//! rerun after a kill finishes that merge rather than committing the half-merged files as
//! local changes. The fault steps are `sync.commit`, `sync.merge` and `sync.push`.

pub mod driver;
mod plain;
mod report;
pub mod resolve;
pub mod rules;
pub mod settings;
pub mod twice;

pub use report::{ConflictCopy, SyncReport};

use crate::clock::Now;
use crate::collections::regen::{self, RegenError};
use crate::failure::{Action, Advice};
use crate::git::merge::{self as gitmerge, Relation};
use crate::git::remote::{self, Pushed, Upstream};
use crate::git::{self, Commit, GitError, worktree};
use crate::index::{self, IndexError};
use crate::lock::VaultLock;
use crate::manifest::{Manifest, ManifestError};
use crate::progress::Progress;
use crate::runstate::{self, RunDir, RunStateError, SyncMerge};
use crate::scan::{self, ScanError};
use crate::vault::Vault;
use std::path::PathBuf;

/// How many times a sync fetches and merges again when its push is refused.
const ROUNDS: usize = 3;

/// The trailer of a sync's merge commit: the other side's commit it merged.
fn trailer(theirs: &str) -> String {
    format!("Sparks-Sync: {theirs}")
}

/// What the sync is asked to do.
#[derive(Debug, Clone, Default)]
pub struct SyncOptions {
    /// The remote (`--remote`; else this device's `[sync] remote`, the upstream's, `origin`).
    pub remote: Option<String>,
    /// Fetch and say what would happen; change nothing local.
    pub dry_run: bool,
    /// `remote` was named by the person at this device (the command line), so naming the
    /// remote `sparks.toml` names accepts that setting here ([`settings`]).
    pub accept_remote: bool,
}

/// The sync could not complete. What it did before the error stays done (a local commit, a
/// fetch); a rerun goes on from there.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    /// An ingest is open: its batch would be merged under the agent.
    #[error("ingest {id} is open: a sync now would change the inbox under its batch")]
    IngestOpen {
        /// The open ingest.
        id: i64,
    },
    /// Git refused or failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The remote kept moving: every push was refused.
    #[error("the remote {remote} kept moving: {ROUNDS} pushes were refused (last: {why})")]
    Refused {
        /// The remote.
        remote: String,
        /// What it said last.
        why: String,
    },
    /// Locking the vault failed.
    #[error("cannot lock the vault at {}: {source}", path.display())]
    Lock {
        /// The vault.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The run-time record of the merge could not be read or written.
    #[error(transparent)]
    RunState(#[from] RunStateError),
    /// The manifest could not be read.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// Bringing the manifest up to date failed.
    #[error(transparent)]
    Scan(#[from] ScanError),
    /// Regenerating a collection failed.
    #[error(transparent)]
    Regen(#[from] RegenError),
    /// Rebuilding the index failed.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// The merge driver could not be installed.
    #[error(transparent)]
    Driver(#[from] driver::DriverError),
}

impl crate::failure::Hint for SyncError {
    fn hint(&self) -> Option<Advice> {
        match self {
            SyncError::IngestOpen { .. } => Some(
                Advice::run(Action::Finalize)
                    .then(", or ")
                    .then_run(Action::Abort)
                    .then(", then ")
                    .then_run(Action::Sync),
            ),
            SyncError::Git(e) => e.hint(),
            SyncError::Refused { .. } => Some(
                Advice::say("in a moment, ")
                    .then_run(Action::Sync)
                    .then(": nothing is lost, the next sync merges what came in"),
            ),
            SyncError::RunState(e) => e.hint(),
            SyncError::Scan(e) => e.hint(),
            SyncError::Regen(e) => e.hint(),
            SyncError::Index(e) => e.hint(),
            SyncError::Driver(e) => crate::failure::Hint::hint(e),
            SyncError::Lock { .. } | SyncError::Manifest(_) => None,
        }
    }
}

/// Sync the vault with its remote, `progress` hearing how the transfers and scans go.
pub fn sync(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
    opts: &SyncOptions,
    progress: &dyn Progress,
) -> Result<SyncReport, SyncError> {
    let root = &vault.root;
    let _lock = VaultLock::acquire(root).map_err(|source| SyncError::Lock {
        path: root.clone(),
        source,
    })?;
    if let Some(open) = manifest.open_ingest_row()? {
        return Err(SyncError::IngestOpen { id: open.id });
    }
    plain::refuse_unfinished(root)?;
    // This device's settings, never those a commit brought.
    let applied = settings::applied(vault, opts)?;
    let up = remote::upstream(root, applied.remote.as_deref(), applied.transport)?;
    plain::refuse_marked(root, &up)?;
    let mut report = SyncReport::new(&up, opts.dry_run);
    report.not_applied = applied.not_applied;
    let mut s = Syncing {
        vault,
        manifest,
        now,
        progress,
        up: &up,
        run: RunDir::of(root),
        report: &mut report,
        // A remote named for this call only (`--remote`, an agent's `remote`) never becomes
        // the branch's upstream: later syncs and plain git go on where they went.
        track: opts.remote.is_none(),
    };
    if opts.dry_run {
        s.preview()?;
    } else {
        s.run()?;
    }
    Ok(report)
}

/// One sync at work.
struct Syncing<'a> {
    vault: &'a Vault,
    manifest: &'a mut Manifest,
    now: &'a Now,
    /// Who hears how the transfers and scans go.
    progress: &'a dyn Progress,
    up: &'a Upstream,
    run: RunDir,
    report: &'a mut SyncReport,
    /// Make the remote the branch's upstream if it has none.
    track: bool,
}

impl Syncing<'_> {
    fn run(&mut self) -> Result<(), SyncError> {
        let root = &self.vault.root;
        // A fast-forward or a merge a killed sync left under way: finish it, then go on (what
        // was written since the kill is merged into it, not overwritten).
        match self.run.sync_merge()? {
            Some(rec) if rec.forward.is_some() => self.forward(rec)?,
            Some(merge) => self.finish(merge)?,
            None => {}
        }
        let message = "sparks sync: changes on this device";
        let (made, left_out) = runstate::guarded(root, || git::commit_vault_noting(root, message))?;
        if let Commit::Made { sha, paths } = made {
            self.report.committed = Some(report::Committed {
                sha,
                files: paths.len(),
            });
        }
        self.report.leave_out(left_out);
        crate::fault::reached("sync.commit");
        let mut why = String::new();
        let progress = self.progress;
        for round in 1..=ROUNDS {
            self.report.rounds = round;
            let theirs = runstate::guarded(root, || remote::fetch(root, self.up, progress))?;
            if let Some(t) = &theirs {
                self.bring_in(t)?;
            }
            if round == 1 {
                self.install_driver()?;
            }
            let ahead = gitmerge::ahead(root, theirs.as_deref())?;
            if ahead == 0 {
                if theirs.is_some() {
                    self.track()?;
                }
                return Ok(());
            }
            // A push to a repository on this disk writes its refs there too.
            let also: Vec<PathBuf> = remote::local_git_dir(self.up).into_iter().collect();
            let push = || remote::push(root, self.up, progress);
            match runstate::guarded_also(root, &also, push)? {
                Pushed::Done => {
                    self.report.outgoing = ahead;
                    self.report.pushed = true;
                    self.track()?;
                    crate::fault::reached("sync.push");
                    return Ok(());
                }
                Pushed::Refused(w) => why = w,
            }
        }
        Err(SyncError::Refused {
            remote: self.up.remote.clone(),
            why,
        })
    }

    /// As `git push -u`: the remote branch made the upstream of a branch that has none, so
    /// that a plain `git pull` or `git push` goes where the sync goes.
    fn track(&self) -> Result<(), SyncError> {
        let root = &self.vault.root;
        if self.track && remote::lacks_upstream(root, self.up)? {
            runstate::guarded(root, || remote::set_upstream(root, self.up))?;
        }
        Ok(())
    }

    /// Register the merge driver here, so that a `git pull` between syncs merges Sparks' files
    /// by the same rules; `.gitattributes` (which the other devices get) committed when it
    /// changed. After the fetch: the other side's attributes are already here.
    fn install_driver(&mut self) -> Result<(), SyncError> {
        if driver::install(self.vault)? {
            let message = "sparks sync: route Sparks' files to its merge driver";
            let only = [".gitattributes".to_string()];
            runstate::commit(&self.vault.root, message, Some(&only), None)?;
            self.report.attributes = true;
        }
        Ok(())
    }

    /// Take in the fetched commit `theirs`: nothing when this side has it, a fast-forward
    /// when this side has nothing new, else a merge.
    fn bring_in(&mut self, theirs: &str) -> Result<(), SyncError> {
        let root = &self.vault.root;
        match gitmerge::relation(root, theirs)? {
            Relation::UpToDate => Ok(()),
            Relation::Behind => {
                self.incoming(theirs)?;
                let ff = gitmerge::plan_forward(root, theirs)?;
                self.report.add_refused(&ff.refused, self.up, root);
                let rec = SyncMerge {
                    theirs: theirs.to_string(),
                    tree: ff.tree,
                    changed: ff.paths,
                    checked_out: false,
                    copies: Vec::new(),
                    merged: Vec::new(),
                    from: ff.from,
                    forward: Some(ff.head),
                    started_at: self.now.timestamp.clone(),
                };
                // Recorded before the first file is written: a kill from here on is finished
                // by the rerun.
                self.run.sync_merging(&rec)?;
                self.forward(rec)
            }
            Relation::Diverged => {
                self.incoming(theirs)?;
                let merge = self.plan(theirs)?;
                self.run.sync_merging(&merge)?;
                let written = self.write(&merge)?;
                crate::fault::reached("sync.merge");
                let merge = SyncMerge {
                    checked_out: true,
                    ..merge
                };
                self.run.sync_merging(&merge)?;
                self.note_written(&written);
                self.finish(merge)
            }
        }
    }

    /// Finish a fast-forward recorded in `rec`: its files written (each whole; one written
    /// since the sync began is merged, not overwritten), then the branch moved, then the record
    /// removed.
    fn forward(&mut self, rec: SyncMerge) -> Result<(), SyncError> {
        let root = &self.vault.root;
        let head = rec.forward.clone().unwrap_or_default();
        let now = gitmerge::head(root)?;
        let from = rec.from.as_ref().map(|(commit, _)| commit.clone());
        if now.as_deref() == Some(head.as_str()) {
            // Moved before a kill; only the record was left.
            return Ok(self.run.sync_merged()?);
        }
        if now != from {
            // The branch moved by other hands since (a commit or a pull by hand): the files
            // written so far are changes of this device's, which the local commit takes.
            return Ok(self.run.sync_merged()?);
        }
        // The files and the branch under one record of git work: a kill between the two
        // leaves a lock the rerun clears, as after a kill inside either.
        let written = runstate::guarded(root, || {
            let written = self.write_unguarded(&rec)?;
            crate::fault::reached("sync.forward");
            gitmerge::move_head(root, &head)?;
            Ok(written)
        })?;
        self.run.sync_merged()?;
        self.report.fast_forward = true;
        self.report.add_changed(&rec.changed, self.up, root);
        self.note_written(&written);
        self.report
            .add_brought(&rec.changed, self.up, root, |p| p.exists());
        // The files the fast-forward wrote, not the vault: a file changed by hand is for the
        // next command's refresh to find, as it would be without a sync.
        scan::scan_paths(
            self.vault,
            self.manifest,
            &rec.changed,
            self.now.ns,
            self.progress,
        )?;
        Ok(())
    }

    /// Write the recorded tree's version of the recorded paths into the work tree (see
    /// [`crate::git::worktree::write_paths`]).
    fn write(&mut self, rec: &SyncMerge) -> Result<worktree::Written, SyncError> {
        let root = &self.vault.root;
        Ok(runstate::guarded(root, || self.write_unguarded(rec))?)
    }

    /// [`Self::write`], inside a record of git work the caller holds.
    fn write_unguarded(&self, rec: &SyncMerge) -> Result<worktree::Written, GitError> {
        let today = self.now.today.to_string();
        let prefix = report::prefix(self.up, &self.vault.root);
        let mut resolver = |both: &gitmerge::Both<'_>| resolve::resolve(&prefix, both, &today);
        let from = rec.from.as_ref().map(|(_, tree)| tree.as_str());
        worktree::write_paths(
            &self.vault.root,
            from,
            &rec.tree,
            &rec.changed,
            &mut resolver,
            &mut || crate::fault::reached("sync.write"),
        )
    }

    /// Report what the work tree's writes merged or copied (files written since the sync began).
    fn note_written(&mut self, written: &worktree::Written) {
        let root = &self.vault.root;
        let copies = written.copies.clone();
        let merged = written.merged.clone();
        let note = SyncMerge {
            theirs: String::new(),
            tree: String::new(),
            changed: Vec::new(),
            checked_out: true,
            copies,
            merged,
            from: None,
            forward: None,
            started_at: String::new(),
        };
        self.report.add_merged(&note, self.up, root);
    }

    /// The merge of `theirs` into HEAD, computed (objects written, nothing else).
    fn plan(&mut self, theirs: &str) -> Result<SyncMerge, SyncError> {
        let root = &self.vault.root;
        let today = self.now.today.to_string();
        let prefix = report::prefix(self.up, root);
        // The captures both sides took from their common inbox: where both archived one, the
        // merged archive keeps it once.
        let inbox = format!("{prefix}{}", crate::vault::INBOX);
        let versions = crate::git::history::versions(root, theirs, &inbox)?;
        let mut budget = twice::budget(&versions, self.now.today);
        let mut found = Vec::new();
        let mut resolver = |both: &gitmerge::Both<'_>| {
            let rel = both.path.strip_prefix(prefix.as_str()).unwrap_or(both.path);
            if !budget.is_empty()
                && rules::rule(rel) == rules::Rule::Archive
                && let (Some(Ok(ours)), Some(Ok(other))) = (
                    both.ours.map(std::str::from_utf8),
                    both.theirs.map(std::str::from_utf8),
                )
            {
                let base = both.base.and_then(|b| std::str::from_utf8(b).ok());
                let (merged, twice) = rules::archive_once(base, ours, other, &mut budget);
                found.extend(twice.into_iter().map(|t| (rel.to_string(), t)));
                return gitmerge::Resolution::Merged(merged.into_bytes());
            }
            resolve::resolve(&prefix, both, &today)
        };
        let m = gitmerge::merge(root, theirs, &mut resolver)?;
        self.report.add_refused(&m.refused, self.up, root);
        let twice = twice::describe(root, theirs, &found)?;
        self.report.ingested_twice.extend(twice);
        Ok(SyncMerge {
            theirs: theirs.to_string(),
            tree: m.tree,
            changed: m.changed,
            checked_out: false,
            copies: m.copies,
            merged: m.merged,
            from: gitmerge::head(root)?.map(|c| (c, m.ours)),
            forward: None,
            started_at: self.now.timestamp.clone(),
        })
    }

    /// Finish a merge whose tree is (or, after a kill, partly is) in the work tree: the
    /// manifest brought up to date, stale pages regenerated, the merge committed.
    fn finish(&mut self, merge: SyncMerge) -> Result<(), SyncError> {
        let root = &self.vault.root;
        let line = trailer(&merge.theirs);
        if git::head_with_line(root, &line)?.is_some() {
            // Committed before a kill; only the record was left.
            self.run.sync_merged()?;
            return Ok(());
        }
        if !merge.checked_out {
            let written = self.write(&merge)?;
            self.note_written(&written);
        }
        scan::refresh(
            self.vault,
            self.manifest,
            self.now,
            &mut crate::scan::Freshness::Scan,
            self.progress,
        )?;
        let regenerated = self.regenerate()?;
        let subject = format!(
            "sparks sync: merge {}/{}",
            self.up.remote, self.up.remote_branch
        );
        let message = format!("{subject}\n\n{line}");
        let sha = runstate::guarded(root, || {
            gitmerge::commit_merge(root, &message, &merge.tree, &merge.theirs)
        })?;
        self.run.sync_merged()?;
        self.report.merge = Some(sha);
        self.report.add_changed(&merge.changed, self.up, root);
        self.report.add_merged(&merge, self.up, root);
        self.report
            .add_brought(&merge.changed, self.up, root, |p| p.exists());
        self.report.regenerated = regenerated;
        Ok(())
    }

    /// The generated pages made again from the merged vault: the collections (Tasks is the
    /// live list, merged by task, never regenerated) and the index. The vault-relative paths
    /// written.
    fn regenerate(&mut self) -> Result<Vec<String>, SyncError> {
        // The pages the merged vault has, and those whose sources changed: a collection no
        // device has made yet is not made by a sync either.
        let affected = crate::collections::affected::affected(self.vault, self.manifest)
            .map_err(RegenError::from)?;
        let chosen: Vec<_> = crate::collections::ALL
            .into_iter()
            .filter(|c| {
                self.vault.path(&c.output()).exists() || affected.affected.contains(&c.name())
            })
            .collect();
        let mut written: Vec<String> = regen::write_pages(
            self.vault,
            self.manifest,
            self.now,
            &chosen,
            false,
            self.progress,
        )?
        .into_iter()
        .filter(|o| o.status == regen::Status::Written)
        .map(|o| o.path)
        .collect();
        // The pages written, recorded (the index lists them); the index records its own.
        if !written.is_empty() {
            scan::scan_paths(
                self.vault,
                self.manifest,
                &written,
                self.now.ns,
                self.progress,
            )?;
        }
        let index = index::rebuild(self.vault, self.manifest, self.now, self.progress)?;
        written.extend(index.diff.iter().map(|d| d.path.clone()));
        written.sort();
        written.dedup();
        Ok(written)
    }

    /// Note what `theirs` brings: its commits' subjects.
    fn incoming(&mut self, theirs: &str) -> Result<(), SyncError> {
        let (subjects, n) = gitmerge::incoming(&self.vault.root, theirs, report::SUBJECTS)?;
        self.report.incoming.commits += n;
        self.report.incoming.subjects.extend(subjects);
        Ok(())
    }

    /// `--dry-run`: fetch, and say what a sync would do.
    fn preview(&mut self) -> Result<(), SyncError> {
        let root = &self.vault.root;
        if let Some(pending) = git::pending(root)? {
            self.report.would_commit = pending.paths.len();
            self.report.leave_out(pending.left_out);
        }
        let progress = self.progress;
        let theirs = runstate::guarded(root, || remote::fetch(root, self.up, progress))?;
        if let Some(t) = &theirs {
            match gitmerge::relation(root, t)? {
                Relation::UpToDate => {}
                Relation::Behind => {
                    self.incoming(t)?;
                    self.report.fast_forward = true;
                    let paths = gitmerge::paths_between(root, t)?;
                    self.report.add_changed(&paths, self.up, root);
                    // A copy not here yet is one the fast-forward would bring.
                    self.report
                        .add_brought(&paths, self.up, root, |p| !p.exists());
                }
                Relation::Diverged => {
                    self.incoming(t)?;
                    let merge = self.plan(t)?;
                    self.report.add_changed(&merge.changed, self.up, root);
                    self.report.add_merged(&merge, self.up, root);
                    self.report
                        .add_brought(&merge.changed, self.up, root, |p| !p.exists());
                }
            }
        }
        self.report.outgoing = gitmerge::ahead(root, theirs.as_deref())?;
        Ok(())
    }
}
