//! The report of `index`: what it did or would do. Its field names are a public contract (the
//! JSON of `sparks index --json`), so the types stay together here.

use super::Group;
use serde::Serialize;

/// What `index` did, or would do.
#[derive(Debug, Clone, Serialize)]
pub struct IndexReport {
    /// `wiki/index.md`.
    pub path: &'static str,
    /// `wiki/index.md`, absolute (the original's key).
    pub output_path: std::path::PathBuf,
    /// The length of `wiki/index.md` as this run leaves it (or would), in bytes.
    pub bytes: usize,
    /// True when this run changed a file (the index, a shard, or removed a shard).
    pub written: bool,
    /// True when every file already had the content it would be given.
    pub unchanged: bool,
    /// Pages listed.
    pub pages: usize,
    /// Pages listed per section (the original's key).
    #[serde(rename = "pages_by_type")]
    pub by_type: ByType,
    /// Pages listed with a description carried over from the old index.
    pub descriptions_kept: usize,
    /// Pages listed without a description.
    pub descriptions_blank: usize,
    /// Pages that had an entry before and have one now.
    pub kept: usize,
    /// Pages that had no entry before.
    pub added: usize,
    /// Old entries dropped: their link resolves to no page (or to one already listed).
    pub removed: usize,
    /// The per-type pages of a sharded index.
    pub shards: Vec<ShardReport>,
    /// Per-type pages no longer needed, removed (their descriptions and lines carried over).
    pub removed_shards: Vec<String>,
    /// The changed lines of each changed file, as `diff -U0` hunks.
    pub diff: Vec<FileDiff>,
    /// True when nothing was written because `--dry-run` was given.
    pub dry_run: bool,
    /// What bringing the manifest up to date first met, when anything.
    #[serde(flatten)]
    pub seen: crate::scan::Seen,
}

impl IndexReport {
    /// The report, with the absolute path of the index in `vault`.
    pub fn at(mut self, vault: &crate::vault::Vault) -> IndexReport {
        self.output_path = vault.path(self.path);
        self
    }
}

/// Pages per section.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct ByType {
    /// Entities.
    pub entity: usize,
    /// Concepts.
    pub concept: usize,
    /// Summaries.
    pub summary: usize,
    /// Syntheses.
    pub synthesis: usize,
    /// Collections.
    pub collection: usize,
    /// Any other type, or none.
    pub other: usize,
}

impl ByType {
    /// The count of one section.
    pub fn get(&self, g: Group) -> usize {
        match g {
            Group::Entities => self.entity,
            Group::Concepts => self.concept,
            Group::Summaries => self.summary,
            Group::Syntheses => self.synthesis,
            Group::Collections => self.collection,
            Group::Other => self.other,
        }
    }

    pub(super) fn add(&mut self, g: Group) {
        *match g {
            Group::Entities => &mut self.entity,
            Group::Concepts => &mut self.concept,
            Group::Summaries => &mut self.summary,
            Group::Syntheses => &mut self.synthesis,
            Group::Collections => &mut self.collection,
            Group::Other => &mut self.other,
        } += 1;
    }
}

/// One per-type page of a sharded index.
#[derive(Debug, Clone, Serialize)]
pub struct ShardReport {
    /// `wiki/index/Entities.md`.
    pub path: String,
    /// The pages' type (`other` for the rest).
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Pages listed on it.
    pub pages: usize,
    /// True when it already had this content.
    pub unchanged: bool,
}

/// The changed lines of one file.
#[derive(Debug, Clone, Serialize)]
pub struct FileDiff {
    /// Vault-relative path.
    pub path: String,
    /// `@@ -a,b +c,d @@` headers, `-removed` and `+added` lines.
    pub lines: Vec<String>,
}
