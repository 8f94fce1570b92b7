//! `publish`: the wiki as a static website and llms.txt.

use super::{Refresh, Report, Request};
use crate::failure::Failure;
use crate::session::Session;
use std::path::PathBuf;

/// `publish` into a folder (the vault's `site/` when none is given; a relative one is taken
/// from the vault's root).
#[derive(Debug, Clone)]
pub struct Publish {
    out: Option<PathBuf>,
    all: bool,
    base_url: Option<String>,
    dry_run: bool,
}

impl Publish {
    /// Publish into `out`, every page but those saying `publish: false` when `all`, links
    /// under `base_url` when given; write nothing when `dry_run`.
    pub fn new(
        out: Option<PathBuf>,
        all: bool,
        base_url: Option<String>,
        dry_run: bool,
    ) -> Publish {
        Publish {
            out,
            all,
            base_url,
            dry_run,
        }
    }
}

impl Request for Publish {
    type Report = crate::publish::Report;

    fn writes(&self) -> bool {
        false
    }

    fn refresh(&self) -> Refresh {
        Refresh::First
    }

    fn run(self, s: &Session) -> Result<Self::Report, Failure> {
        let root = &s.vault.root;
        let out = match self.out {
            None => root.join(crate::publish::DEFAULT_OUT),
            Some(p) if p.is_relative() => root.join(p),
            Some(p) => p,
        };
        let manifest = s.manifest()?;
        let options = crate::publish::Options {
            out,
            all: self.all,
            base_url: self.base_url,
            dry_run: self.dry_run,
        };
        Ok(crate::publish::publish(&s.vault, &manifest, &options)?)
    }
}

impl Report for crate::publish::Report {}
