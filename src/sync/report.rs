//! What a sync did (or, with `--dry-run`, would do): its JSON keys are a public contract.

use super::settings::NotApplied;
use crate::failure::{Action, Advice, Wording};
use crate::git::remote::Upstream;
use crate::runstate::SyncMerge;
use serde::Serialize;
use std::path::Path;

/// The most commit subjects a report lists.
pub const SUBJECTS: usize = 20;

/// What a sync did.
#[derive(Debug, Clone, Serialize)]
pub struct SyncReport {
    /// The remote's name.
    pub remote: String,
    /// Its URL.
    pub url: String,
    /// The local branch.
    pub branch: String,
    /// The remote's branch.
    pub remote_branch: String,
    /// `libgit2` or `git` (the executable).
    pub transport: &'static str,
    /// Nothing local was changed: this says what a sync would do.
    pub dry_run: bool,
    /// The commit of this device's changes, when there were any.
    pub committed: Option<Committed>,
    /// With `--dry-run`: how many of the vault's files a sync would commit first.
    pub would_commit: usize,
    /// What came in from the remote.
    pub incoming: Incoming,
    /// The branch moved to the remote's commit (this side had nothing new).
    pub fast_forward: bool,
    /// The merge commit, when both sides had new commits.
    pub merge: Option<String>,
    /// Vault-relative files the remote's changes changed here.
    pub changed: Vec<String>,
    /// Vault-relative files both sides changed that Sparks merged by their meaning (the
    /// inbox, the archive, the log, Tasks, the index) or by lines.
    pub merged: Vec<String>,
    /// Generated pages made again from the merged vault.
    pub regenerated: Vec<String>,
    /// Conflict copies: those this sync made (files both sides changed in overlapping lines:
    /// this device's text stayed, the other's is in the copy), then those the remote's
    /// commits brought (another device's sync made them; `brought`).
    pub conflicts: Vec<ConflictCopy>,
    /// Files the remote sent that were not taken, this device's version kept: run-time
    /// state (`.sparks/`, the manifest), symbolic links, submodules. A remote is not trusted.
    pub refused: Vec<Refused>,
    /// Captures both devices ingested (each prepared them before syncing): the merged archive
    /// keeps each once, the log keeps both ingests' blocks, and the agent reconciles the pages
    /// both ingests wrote.
    pub ingested_twice: Vec<crate::sync::twice::IngestedTwice>,
    /// Commits this side had that the remote lacked (pushed, or with `--dry-run` to push).
    pub outgoing: usize,
    /// Whether they were pushed.
    pub pushed: bool,
    /// Whether `.gitattributes` got the lines that route Sparks' files to its merge driver
    /// (committed on their own; each device's first sync of a repository does it).
    pub attributes: bool,
    /// Fetch-merge-push rounds (more than one when the remote moved during the sync).
    pub rounds: usize,
    /// The `[sync]` values in `sparks.toml` this device does not apply: they came with a
    /// commit, not as an edit here ([`settings`](super::settings)).
    pub not_applied: Vec<NotApplied>,
    /// Vault-relative paths of new files this device's commit left out (with `--dry-run`:
    /// would leave out): git does not track them and they are not the vault's own, so they do
    /// not travel until the user adds them to git.
    pub not_committed: Vec<String>,
    /// How to have such a file committed, in the words of the front end (`null` when none
    /// was left out).
    pub not_committed_hint: Option<String>,
    /// The same, for the front end to word.
    #[serde(skip)]
    pub not_committed_advice: Option<Advice>,
}

/// The commit of this device's changes.
#[derive(Debug, Clone, Serialize)]
pub struct Committed {
    /// Its id.
    pub sha: String,
    /// How many files it holds.
    pub files: usize,
}

/// The remote's new commits.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Incoming {
    /// How many.
    pub commits: usize,
    /// Their subjects, newest first (at most [`SUBJECTS`]).
    pub subjects: Vec<String>,
}

/// A file the remote sent that was not taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refused {
    /// The file, vault-relative.
    pub path: String,
    /// Why.
    pub why: String,
}

/// A conflict copy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConflictCopy {
    /// The file both sides changed (made here: this device's text).
    pub path: String,
    /// The version kept beside it (made here: the other device's text).
    pub copy: String,
    /// The copy came with the remote's commits: another device's sync made it, keeping its
    /// own text in `path` and the version it did not keep (this device's, when the two
    /// devices' changes met) in `copy`.
    pub brought: bool,
}

impl SyncReport {
    /// An empty report for a sync with `up`.
    pub fn new(up: &Upstream, dry_run: bool) -> SyncReport {
        SyncReport {
            remote: up.remote.clone(),
            url: up.url.clone(),
            branch: up.branch.clone(),
            remote_branch: up.remote_branch.clone(),
            transport: up.transport(),
            dry_run,
            committed: None,
            would_commit: 0,
            incoming: Incoming::default(),
            fast_forward: false,
            merge: None,
            changed: Vec::new(),
            merged: Vec::new(),
            regenerated: Vec::new(),
            conflicts: Vec::new(),
            refused: Vec::new(),
            ingested_twice: Vec::new(),
            outgoing: 0,
            pushed: false,
            attributes: false,
            rounds: 0,
            not_applied: Vec::new(),
            not_committed: Vec::new(),
            not_committed_hint: None,
            not_committed_advice: None,
        }
    }

    /// Note the new files a commit of this device's changes leaves out.
    pub(super) fn leave_out(&mut self, left_out: Vec<String>) {
        if left_out.is_empty() {
            return;
        }
        let (path, which) = match left_out.as_slice() {
            [one] => (Some(one.clone()), "it"),
            _ => (None, "one"),
        };
        self.not_committed_advice = Some(
            Advice::say(format!("to have {which} travel with the vault, "))
                .then_run(Action::Track { path })
                .then(", then ")
                .then_run(Action::Sync),
        );
        self.not_committed = left_out;
    }

    /// Word the hints the report carries, the front end's way.
    pub fn word(&mut self, word: Wording) {
        for n in &mut self.not_applied {
            n.word(word);
        }
        self.not_committed_hint = self.not_committed_advice.as_ref().map(|a| a.words(word));
    }

    /// Whether the sync changed nothing on either side.
    pub fn nothing(&self) -> bool {
        self.committed.is_none()
            && self.incoming.commits == 0
            && self.outgoing == 0
            && self.would_commit == 0
    }

    /// Note files the remote's changes changed (repository-relative `paths`).
    pub(super) fn add_changed(&mut self, paths: &[String], up: &Upstream, root: &Path) {
        let prefix = prefix(up, root);
        for p in paths {
            let rel = in_vault(p, &prefix);
            if !self.changed.contains(&rel) {
                self.changed.push(rel);
            }
        }
        self.changed.sort();
    }

    /// Note files the remote sent that were not taken (repository-relative paths).
    pub(super) fn add_refused(&mut self, refused: &[(String, &str)], up: &Upstream, root: &Path) {
        let prefix = prefix(up, root);
        for (p, why) in refused {
            let r = Refused {
                path: in_vault(p, &prefix),
                why: (*why).to_string(),
            };
            if !self.refused.contains(&r) {
                self.refused.push(r);
            }
        }
    }

    /// Note the files a merge merged and copied.
    pub(super) fn add_merged(&mut self, merge: &SyncMerge, up: &Upstream, root: &Path) {
        let prefix = prefix(up, root);
        for p in &merge.merged {
            let rel = in_vault(p, &prefix);
            if !self.merged.contains(&rel) {
                self.merged.push(rel);
            }
        }
        for (path, copy) in &merge.copies {
            let c = ConflictCopy {
                path: in_vault(path, &prefix),
                copy: in_vault(copy, &prefix),
                brought: false,
            };
            if !self.conflicts.contains(&c) {
                self.conflicts.push(c);
            }
        }
    }

    /// Note the conflict copies among the files the remote's changes changed here
    /// (repository-relative `paths`), those `here` says the work tree holds (with `--dry-run`:
    /// would hold): copies another device's sync made, which came with its commits. A copy
    /// this sync made is listed once, as made here.
    pub(super) fn add_brought(
        &mut self,
        paths: &[String],
        up: &Upstream,
        root: &Path,
        here: impl Fn(&Path) -> bool,
    ) {
        let prefix = prefix(up, root);
        for p in paths {
            let rel = in_vault(p, &prefix);
            let Some(copy) = crate::vault::conflict_copy(&rel) else {
                continue;
            };
            if !here(&root.join(&rel)) || self.conflicts.iter().any(|c| c.copy == rel) {
                continue;
            }
            self.conflicts.push(ConflictCopy {
                path: copy.original,
                copy: rel,
                brought: true,
            });
        }
    }
}

/// The vault's directory in the work tree, with a trailing `/` (empty at the top).
pub(super) fn prefix(up: &Upstream, root: &Path) -> String {
    let canon = |p: &Path| fs_err::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    match crate::vault::relative(&canon(&up.workdir), &canon(root)) {
        Some(rel) if !rel.is_empty() => format!("{rel}/"),
        _ => String::new(),
    }
}

/// A repository-relative path as the vault sees it (a path outside the vault stays as it is,
/// prefixed with the work tree's `/`).
fn in_vault(path: &str, prefix: &str) -> String {
    match path.strip_prefix(prefix) {
        Some(rel) => rel.to_string(),
        None => format!("/{path}"),
    }
}
