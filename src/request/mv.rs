//! `mv` and `merge`: rename, move or merge pages, rewriting every reference.

use super::{Report, Request};
use crate::failure::Failure;
use crate::mv::{MergeRequest, MoveReport, MoveRequest, NewName, Operation};
use crate::runstate::Journaled;
use crate::session::Session;

/// `mv PAGE NEW` or `merge FROM INTO`, checked.
#[derive(Debug, Clone)]
pub struct Reorganise<T>(T);

/// `mv PAGE NEW`.
pub type Mv = Reorganise<MoveRequest>;

/// `merge FROM INTO`.
pub type Merge = Reorganise<MergeRequest>;

impl Reorganise<MoveRequest> {
    /// Move PAGE to NEW (a title, or a path under wiki/ ending in `.md`); a NEW that is
    /// neither is a usage error that says why.
    pub fn new(page: String, new: String, no_alias: bool, dry_run: bool) -> Result<Mv, Failure> {
        if page.trim().is_empty() {
            return Err(Failure::usage(
                "PAGE is empty: give a title, alias, file name or path",
            ));
        }
        NewName::parse(&new).map_err(Failure::usage)?;
        Ok(Reorganise(MoveRequest {
            page,
            new,
            no_alias,
            dry_run,
        }))
    }
}

impl Reorganise<MergeRequest> {
    /// Merge FROM into INTO.
    pub fn new(from: String, into: String, dry_run: bool) -> Result<Merge, Failure> {
        if from.trim().is_empty() || into.trim().is_empty() {
            return Err(Failure::usage(
                "FROM and INTO must each name a page (a title, alias, file name or path)",
            ));
        }
        Ok(Reorganise(MergeRequest {
            from,
            into,
            dry_run,
        }))
    }
}

impl<T: Operation + std::fmt::Debug> Request for Reorganise<T> {
    type Report = MoveReport;

    fn writes(&self) -> bool {
        !self.0.dry_run()
    }

    fn resumes(&self, unfinished: &Journaled) -> bool {
        self.0.is(&unfinished.kind, &unfinished.request)
    }

    fn run(self, s: &Session) -> Result<MoveReport, Failure> {
        let mut manifest = s.manifest()?;
        Ok(self.0.run(&s.vault, &mut manifest, &s.now, &*s.progress)?)
    }
}

impl Report for MoveReport {}
