//! An ingest's history and its undo: list, show, revert.

use super::{Ending, Refresh, Report, Request};
use crate::failure::Failure;
use crate::ingest::{IngestDetail, IngestList, RevertOptions, Reverted};
use crate::runstate::Journaled;
use crate::session::Session;

/// `ingest --list [--page PAGE]`: every ingest, newest first, or those that touched a page.
#[derive(Debug, Clone, Default)]
pub struct ListIngests {
    /// Only the ingests that touched this page (a path, title, alias or file name).
    pub page: Option<String>,
}

impl Request for ListIngests {
    type Report = IngestList;

    fn writes(&self) -> bool {
        false
    }

    fn refresh(&self) -> Refresh {
        Refresh::Within
    }

    fn run(self, s: &Session) -> Result<IngestList, Failure> {
        let mut manifest = s.manifest()?;
        // `--page` resolves a name against the pages as they are now.
        if self.page.is_some() {
            crate::scan::refresh(&s.vault, &mut manifest, &s.now)?;
        }
        Ok(crate::ingest::history::list(
            &manifest,
            self.page.as_deref(),
        )?)
    }
}

impl Report for IngestList {}

/// `ingest --show ID`: one ingest in full.
#[derive(Debug, Clone)]
pub struct ShowIngest {
    id: i64,
}

impl ShowIngest {
    /// Ingest `id` (1 or more).
    pub fn new(id: i64) -> Result<ShowIngest, Failure> {
        positive(id)?;
        Ok(ShowIngest { id })
    }
}

impl Request for ShowIngest {
    type Report = IngestDetail;

    fn writes(&self) -> bool {
        false
    }

    fn refresh(&self) -> Refresh {
        Refresh::Within
    }

    fn run(self, s: &Session) -> Result<IngestDetail, Failure> {
        Ok(crate::ingest::history::show(&s.manifest()?, self.id)?)
    }
}

impl Report for IngestDetail {}

/// `ingest --revert ID [--dry-run]`: take a finalized ingest back.
#[derive(Debug, Clone)]
pub struct Revert(RevertOptions);

impl Revert {
    /// Revert ingest `id` (1 or more); with `dry_run`, only say what would be done.
    pub fn new(id: i64, dry_run: bool) -> Result<Revert, Failure> {
        positive(id)?;
        Ok(Revert(RevertOptions {
            ingest: id,
            dry_run,
        }))
    }
}

impl Request for Revert {
    type Report = Reverted;

    fn writes(&self) -> bool {
        !self.0.dry_run
    }

    /// The same revert completes its own interrupted run.
    fn resumes(&self, unfinished: &Journaled) -> bool {
        crate::ingest::revert::is_revert_of(unfinished, self.0.ingest)
    }

    fn run(self, s: &Session) -> Result<Reverted, Failure> {
        let mut manifest = s.manifest()?;
        Ok(crate::ingest::revert(
            &s.vault,
            &mut manifest,
            &s.now,
            self.0,
        )?)
    }
}

impl Report for Reverted {
    /// Pages changed again since the ingest stop the revert: problems (exit 1).
    fn ending(&self) -> Ending {
        match self.conflicts.is_empty() {
            true => Ending::Done,
            false => Ending::Problems,
        }
    }
}

fn positive(id: i64) -> Result<(), Failure> {
    match id {
        1.. => Ok(()),
        _ => Err(Failure::usage(format!(
            "{id} is no ingest id: ids are whole numbers from 1"
        ))),
    }
}
