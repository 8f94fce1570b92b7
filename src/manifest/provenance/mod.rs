//! What each ingest did to the wiki: the snapshot of its pages prepare records, the contents
//! git cannot give back, and the lint issues before the batch (`snapshot.rs`); the pages
//! finalize finds created, changed or deleted since (`changes.rs`); what it records of them
//! and of the issues the batch added, which history and revert read (`record.rs`).

mod changes;
mod record;
mod snapshot;
#[cfg(test)]
mod tests;

pub use snapshot::Snapshot;
pub(super) use snapshot::write_snapshot;

/// What an ingest did to a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PageAction {
    /// The page did not exist before the batch.
    Created,
    /// The page's content changed.
    Changed,
    /// The page existed before the batch and does not after.
    Deleted,
}

impl PageAction {
    /// The name stored and printed.
    pub fn as_str(self) -> &'static str {
        match self {
            PageAction::Created => "created",
            PageAction::Changed => "changed",
            PageAction::Deleted => "deleted",
        }
    }

    pub(super) fn parse(s: &str) -> Option<PageAction> {
        [
            PageAction::Created,
            PageAction::Changed,
            PageAction::Deleted,
        ]
        .into_iter()
        .find(|a| a.as_str() == s)
    }
}

/// A page an ingest touched, as finalize found it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PageChange {
    /// Vault-relative path.
    pub path: String,
    /// What happened to it.
    pub action: PageAction,
    /// Its hash before the batch (`None`: it did not exist).
    pub before_hash: Option<String>,
    /// Its hash after the batch (`None`: it was deleted).
    pub after_hash: Option<String>,
}
