//! The ingest: prepare, finalize, abort, and the open batch.

use super::{Ending, Report, Request};
use crate::failure::Failure;
use crate::ingest::{Aborted, Batch, FinalizeOptions, Finalized, Prepared};
use crate::session::Session;
use serde::Serialize;

/// `ingest --prepare`: open an ingest of the next batch (or return the open one).
#[derive(Debug, Clone, Default)]
pub struct Prepare {
    /// At most this many entries (`None`: the configured batch size; 0: all).
    pub limit: Option<usize>,
}

/// What prepare answers: a batch, and whether it is one opened earlier.
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct PreparedBatch {
    /// The batch.
    pub batch: Batch,
    #[serde(skip)]
    in_progress: bool,
}

impl Request for Prepare {
    type Report = PreparedBatch;

    fn writes(&self) -> bool {
        true
    }

    fn run(self, s: &Session) -> Result<PreparedBatch, Failure> {
        let mut manifest = s.manifest()?;
        Ok(
            match crate::ingest::prepare(&s.vault, &mut manifest, &s.now, self.limit, &*s.progress)?
            {
                Prepared::Opened(batch) | Prepared::Empty(batch) => PreparedBatch {
                    batch,
                    in_progress: false,
                },
                Prepared::InProgress(batch) => PreparedBatch {
                    batch,
                    in_progress: true,
                },
            },
        )
    }
}

impl Report for PreparedBatch {
    /// Another ingest is open: exit 3, with that ingest's batch as the data.
    fn ending(&self) -> Ending {
        match self.in_progress {
            true => Ending::IngestOpen,
            false => Ending::Done,
        }
    }
}

/// `ingest --status`: the open ingest's batch.
#[derive(Debug, Clone, Default)]
pub struct IngestStatus;

/// The open batch, or `{"ingest_id": null}` when no ingest is open.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum OpenBatch {
    /// The open ingest's batch.
    Open(Batch),
    /// No ingest is open.
    None {
        /// Always `null`.
        ingest_id: Option<i64>,
    },
}

impl Request for IngestStatus {
    type Report = OpenBatch;

    fn writes(&self) -> bool {
        false
    }

    fn run(self, s: &Session) -> Result<OpenBatch, Failure> {
        let manifest = s.manifest()?;
        Ok(
            match crate::ingest::open_batch(&s.vault, &manifest, &s.now)? {
                Some(b) => OpenBatch::Open(b),
                None => OpenBatch::None { ingest_id: None },
            },
        )
    }
}

impl Report for OpenBatch {}

/// `ingest --finalize`: archive the batch, clear it from the inbox, scan, regenerate, commit.
#[derive(Debug, Clone, Default)]
pub struct Finalize(pub FinalizeOptions);

impl Request for Finalize {
    type Report = Finalized;

    fn writes(&self) -> bool {
        true
    }

    fn run(self, s: &Session) -> Result<Finalized, Failure> {
        let mut manifest = s.manifest()?;
        Ok(crate::ingest::finalize(
            &s.vault,
            &mut manifest,
            &s.now,
            &self.0,
            &*s.progress,
        )?)
    }
}

impl Report for Finalized {
    /// Files finalize's scan could not read are problems (exit 1), though the ingest finished.
    fn ending(&self) -> Ending {
        match self.scan_errors.is_empty() {
            true => Ending::Done,
            false => Ending::Problems,
        }
    }
}

/// `ingest --abort`: close the open ingest without archiving.
#[derive(Debug, Clone, Default)]
pub struct Abort;

impl Request for Abort {
    type Report = Aborted;

    fn writes(&self) -> bool {
        true
    }

    fn run(self, s: &Session) -> Result<Aborted, Failure> {
        let mut manifest = s.manifest()?;
        Ok(crate::ingest::abort(&s.vault, &mut manifest, &s.now)?)
    }
}

impl Report for Aborted {}
