//! `fmt`: check, and with `fix` repair, the frontmatter of files on disk.

use super::{Ending, Report, Request};
use crate::failure::Failure;
use crate::fmt::{FmtReport, FmtRequest, Holding};
use crate::session::Session;

/// `fmt` of a file, directory or glob (every wiki page when `None`).
#[derive(Debug, Clone)]
pub struct Fmt {
    target: Option<String>,
    fix: bool,
    holding: Holding,
}

impl Fmt {
    /// Check (the default) or fix `target`; asking for both is a usage error.
    pub fn new(target: Option<String>, fix: bool, check: bool) -> Result<Fmt, Failure> {
        if fix && check {
            return Err(Failure::usage("fix cannot be used with check"));
        }
        Ok(Fmt {
            target,
            fix,
            holding: Holding::Whole,
        })
    }

    /// A check that changes nothing holds its issues as `holding` says (all of them, by
    /// default: a reply that is one message holds them anyway).
    pub fn holding(self, holding: Holding) -> Fmt {
        Fmt { holding, ..self }
    }
}

impl Request for Fmt {
    type Report = FmtReport;

    fn writes(&self) -> bool {
        self.fix
    }

    fn run(self, s: &Session) -> Result<FmtReport, Failure> {
        let mut manifest = s.manifest()?;
        let req = FmtRequest {
            target: self.target,
            fix: self.fix,
            // While an ingest is open, the archive files it will write are no dead sources.
            pending: manifest.pending_archives()?,
            holding: self.holding,
        };
        Ok(crate::fmt::fmt_recorded(
            &s.vault,
            &mut manifest,
            &req,
            s.now.ns,
            &*s.progress,
        )?)
    }
}

impl Report for FmtReport {
    /// Issues left are problems (exit 1).
    fn ending(&self) -> Ending {
        match self.issues.is_empty() {
            true => Ending::Done,
            false => Ending::Problems,
        }
    }
}
