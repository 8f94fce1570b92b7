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

    /// Only `--page` reads the pages, as they are now: a running watcher is asked to vouch
    /// for them then alone.
    fn refresh(&self) -> Refresh {
        match self.page {
            Some(_) => Refresh::Within,
            None => Refresh::No,
        }
    }

    fn run(self, s: &Session) -> Result<IngestList, Failure> {
        let mut manifest = s.manifest()?;
        crate::ingest::travel::import(&s.vault, &mut manifest)?;
        // `--page` resolves a name against the pages as they are now.
        if self.page.is_some() {
            let mut fresh = s.fresh;
            crate::scan::refresh(&s.vault, &mut manifest, &s.now, &mut fresh, &*s.progress)?;
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
    id: IngestRef,
}

impl ShowIngest {
    /// Ingest `id`: its id here (1 or more) or its token.
    pub fn new(id: IngestRef) -> Result<ShowIngest, Failure> {
        id.check()?;
        Ok(ShowIngest { id })
    }
}

/// An ingest as a request names it: its id on this device, or its token, the same on every
/// device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IngestRef {
    /// Its id here.
    Id(i64),
    /// Its token.
    Token(String),
}

impl From<i64> for IngestRef {
    fn from(id: i64) -> IngestRef {
        IngestRef::Id(id)
    }
}

impl std::str::FromStr for IngestRef {
    type Err = String;

    fn from_str(s: &str) -> Result<IngestRef, String> {
        let s = s.trim();
        match s.parse::<i64>() {
            Ok(id) => Ok(IngestRef::Id(id)),
            Err(_) if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric()) => {
                Ok(IngestRef::Token(s.to_string()))
            }
            Err(_) => Err(format!(
                "{s:?} is no ingest: give its id (a whole number from 1) or its token"
            )),
        }
    }
}

impl std::fmt::Display for IngestRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IngestRef::Id(id) => write!(f, "{id}"),
            IngestRef::Token(t) => f.write_str(t),
        }
    }
}

impl IngestRef {
    fn check(&self) -> Result<(), Failure> {
        match self {
            IngestRef::Id(id) => positive(*id),
            IngestRef::Token(_) => Ok(()),
        }
    }

    /// Its id here.
    fn resolve(&self, manifest: &crate::manifest::Manifest) -> Result<i64, Failure> {
        match self {
            IngestRef::Id(id) => Ok(*id),
            IngestRef::Token(t) => manifest
                .ingest_by_token(t)
                .map_err(crate::ingest::IngestError::from)?
                .ok_or_else(|| Failure::from(crate::ingest::IngestError::UnknownToken(t.clone()))),
        }
    }
}

impl Request for ShowIngest {
    type Report = IngestDetail;

    fn writes(&self) -> bool {
        false
    }

    fn run(self, s: &Session) -> Result<IngestDetail, Failure> {
        let mut manifest = s.manifest()?;
        crate::ingest::travel::import(&s.vault, &mut manifest)?;
        let id = self.id.resolve(&manifest)?;
        Ok(crate::ingest::history::show(&manifest, id)?)
    }
}

impl Report for IngestDetail {}

/// `ingest --revert ID [--dry-run]`: take a finalized ingest back.
#[derive(Debug, Clone)]
pub struct Revert {
    ingest: IngestRef,
    dry_run: bool,
}

impl Revert {
    /// Revert ingest `id` (its id here, 1 or more, or its token); with `dry_run`, only say
    /// what would be done.
    pub fn new(id: IngestRef, dry_run: bool) -> Result<Revert, Failure> {
        id.check()?;
        Ok(Revert {
            ingest: id,
            dry_run,
        })
    }
}

impl Request for Revert {
    type Report = Reverted;

    fn writes(&self) -> bool {
        !self.dry_run
    }

    /// The same revert completes its own interrupted run (named by its id here).
    fn resumes(&self, unfinished: &Journaled) -> bool {
        match &self.ingest {
            IngestRef::Id(id) => crate::ingest::revert::is_revert_of(unfinished, *id),
            IngestRef::Token(_) => false,
        }
    }

    fn run(self, s: &Session) -> Result<Reverted, Failure> {
        let mut manifest = s.manifest()?;
        crate::ingest::travel::import(&s.vault, &mut manifest)?;
        let ingest = self.ingest.resolve(&manifest)?;
        Ok(crate::ingest::revert(
            &s.vault,
            &mut manifest,
            &s.now,
            RevertOptions {
                ingest,
                dry_run: self.dry_run,
            },
            &*s.progress,
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
