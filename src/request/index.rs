//! `index`: rebuild `wiki/index.md`.

use super::{Refresh, Report, Request};
use crate::failure::Failure;
use crate::index::IndexReport;
use crate::session::Session;

/// `index`; with `dry_run`, work out what would change and write nothing.
#[derive(Debug, Clone, Default)]
pub struct Index {
    /// Write nothing.
    pub dry_run: bool,
}

impl Request for Index {
    type Report = IndexReport;

    fn writes(&self) -> bool {
        !self.dry_run
    }

    fn refresh(&self) -> Refresh {
        Refresh::Within
    }

    fn run(self, s: &Session) -> Result<IndexReport, Failure> {
        let mut manifest = s.manifest()?;
        let mut fresh = s.fresh;
        Ok(crate::index::index(
            &s.vault,
            &mut manifest,
            &s.now,
            self.dry_run,
            &mut fresh,
            &*s.progress,
        )?)
    }
}

impl Report for IndexReport {}
