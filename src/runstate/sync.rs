//! The record of a sync whose merge is under way (`sync.json`): written before the merged tree
//! goes into the work tree, removed once the merge is committed. A rerun that finds it
//! finishes that merge instead of committing the half-merged work tree as local changes.

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
