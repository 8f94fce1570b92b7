//! The record of a sync whose fast-forward or merge is under way (`sync.json`): written before
//! the first file goes into the work tree, removed once the branch has moved (a fast-forward)
//! or the merge is committed. A rerun that finds it finishes that work instead of committing
//! the half-written work tree as local changes; while it is there, no other command writes.

use super::{Result, RunDir};
use serde::{Deserialize, Serialize};

const RECORD: &str = "sync.json";

/// A merge under way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncMerge {
    /// The other side's commit being merged.
    pub theirs: String,
    /// The merged tree.
    pub tree: String,
    /// The repository-relative paths the merge changes in the work tree.
    pub changed: Vec<String>,
    /// Whether the merged tree is all in the work tree (a kill during the checkout leaves
    /// `false`: the rerun puts those paths in again).
    pub checked_out: bool,
    /// The conflict copies it makes: the path both sides changed, and the copy.
    pub copies: Vec<(String, String)>,
    /// The paths both sides changed that Sparks' rules merged.
    pub merged: Vec<String>,
    /// HEAD's commit and tree when the sync began to write (`None` on an unborn branch): what
    /// each file held before, so that a rerun tells a file written since (a capture made after
    /// a kill) from one the sync has yet to write, and merges it rather than overwrite it.
    #[serde(default)]
    pub from: Option<(String, String)>,
    /// For a fast-forward: the commit the branch moves to once the files are in (`tree` is its
    /// tree). `None`: a merge, committed with both parents.
    #[serde(default)]
    pub forward: Option<String>,
    /// When the sync began (RFC 3339).
    #[serde(default)]
    pub started_at: String,
}

impl RunDir {
    /// The merge a sync left under way, if any.
    pub fn sync_merge(&self) -> Result<Option<SyncMerge>> {
        self.read(RECORD)
    }

    /// Record the merge under way (again, as it moves on).
    pub fn sync_merging(&self, merge: &SyncMerge) -> Result<()> {
        self.write(RECORD, merge)
    }

    /// The merge is committed.
    pub fn sync_merged(&self) -> Result<()> {
        self.remove(RECORD)
    }
}
