//! The lookups that change no file: `status`, `affected`, `search`, `related`.

use super::{Refresh, Report, Request};
use crate::failure::Failure;
use crate::manifest::Scope;
use crate::session::Session;

/// `status`: the vault at a glance, from the manifest as the last scan left it.
#[derive(Debug, Clone, Default)]
pub struct Status;

impl Request for Status {
    type Report = crate::status::Status;

    fn writes(&self) -> bool {
        false
    }

    fn refresh(&self) -> Refresh {
        Refresh::First
    }

    fn run(self, s: &Session) -> Result<Self::Report, Failure> {
        let manifest = s.manifest()?;
        Ok(crate::status::status(&s.vault, &manifest, s.now.today)?)
    }
}

impl Report for crate::status::Status {
    fn word(&mut self, word: crate::failure::Wording) {
        crate::status::Status::word(self, word);
    }
}

/// `affected`: the collections whose sources changed since the last completed ingest (after
/// bringing the manifest up to date).
#[derive(Debug, Clone, Default)]
pub struct Affected;

impl Request for Affected {
    type Report = crate::collections::affected::Affected;

    fn writes(&self) -> bool {
        false
    }

    fn refresh(&self) -> Refresh {
        Refresh::Within
    }

    fn run(self, s: &Session) -> Result<Self::Report, Failure> {
        let mut manifest = s.manifest()?;
        let mut fresh = s.fresh;
        Ok(crate::collections::affected::affected_now(
            &s.vault,
            &mut manifest,
            &s.now,
            &mut fresh,
            &*s.progress,
        )?)
    }
}

impl Report for crate::collections::affected::Affected {}

/// `search`: full-text search of the wiki, the raw files, or both.
#[derive(Debug, Clone)]
pub struct Search(crate::search::Request);

/// Hits shown when no limit is given.
pub const SEARCH_LIMIT: usize = 20;

impl Search {
    /// A search for `query` in `scope` (`wiki` when `None`), filtered by type and tag, ranked
    /// by `mode` (`hybrid` when `None`).
    pub fn new(
        query: String,
        scope: Option<Scope>,
        kind: Option<String>,
        tag: Option<String>,
        limit: Option<usize>,
        mode: Option<crate::search::Mode>,
    ) -> Search {
        Search(crate::search::Request {
            query,
            scope: scope.unwrap_or(Scope::Wiki),
            kind,
            tag,
            limit: limit.unwrap_or(SEARCH_LIMIT),
            mode: mode.unwrap_or_default(),
        })
    }
}

impl Request for Search {
    type Report = crate::search::SearchReport;

    fn writes(&self) -> bool {
        false
    }

    fn refresh(&self) -> Refresh {
        Refresh::First
    }

    fn run(self, s: &Session) -> Result<Self::Report, Failure> {
        let manifest = s.manifest()?;
        Ok(crate::search::search(&s.vault, &manifest, &self.0)?)
    }
}

impl Report for crate::search::SearchReport {}

/// `related`: the pages nearest a page or a text, by meaning, words and links.
#[derive(Debug, Clone)]
pub struct Related(crate::search::related::Request);

impl Related {
    /// The pages related to `about`, at most `limit` ([`crate::search::related::LIMIT`] when
    /// `None`).
    pub fn new(about: crate::search::related::About, limit: Option<usize>) -> Related {
        Related(crate::search::related::Request {
            about,
            limit: limit.unwrap_or(crate::search::related::LIMIT),
        })
    }
}

impl Request for Related {
    type Report = crate::search::related::RelatedReport;

    fn writes(&self) -> bool {
        false
    }

    fn refresh(&self) -> Refresh {
        Refresh::First
    }

    fn run(self, s: &Session) -> Result<Self::Report, Failure> {
        let manifest = s.manifest()?;
        Ok(crate::search::related::related(
            &s.vault, &manifest, &self.0,
        )?)
    }
}

impl Report for crate::search::related::RelatedReport {}
