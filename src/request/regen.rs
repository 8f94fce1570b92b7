//! `collections regen`: regenerate collection pages.

use super::{Report, Request};
use crate::collections::regen::{RegenReport, RegenRequest};
use crate::failure::Failure;
use crate::session::Session;

/// `collections regen` of the named collections, all of them, or (neither) the affected ones.
#[derive(Debug, Clone)]
pub struct Regen(RegenRequest);

impl Regen {
    /// Names, or all; both at once is a usage error.
    pub fn new(names: Vec<String>, all: bool, dry_run: bool) -> Result<Regen, Failure> {
        if all && !names.is_empty() {
            return Err(Failure::usage("names and all cannot be combined"));
        }
        Ok(Regen(RegenRequest {
            names,
            all,
            dry_run,
            commit: true,
        }))
    }
}

impl Request for Regen {
    type Report = RegenReport;

    fn writes(&self) -> bool {
        !self.0.dry_run
    }

    fn run(self, s: &Session) -> Result<RegenReport, Failure> {
        let mut manifest = s.manifest()?;
        let mut fresh = s.fresh;
        Ok(crate::collections::regen::regen(
            &s.vault,
            &mut manifest,
            &s.now,
            &self.0,
            &mut fresh,
            &*s.progress,
        )?)
    }
}

impl Report for RegenReport {}
