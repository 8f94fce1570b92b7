//! `sync`: the vault merged with its remote, over git.

use super::{Report, Request};
use crate::failure::Failure;
use crate::session::Session;
use crate::sync::{SyncOptions, SyncReport};

/// `sync`: with `remote` (else the configured or upstream one), or only saying what it would
/// do.
#[derive(Debug, Clone)]
pub struct SyncVault {
    options: SyncOptions,
}

impl SyncVault {
    /// A sync with this remote (none: the configured one), for real or as a dry run.
    pub fn new(remote: Option<String>, dry_run: bool) -> Result<SyncVault, Failure> {
        if let Some(r) = &remote
            && (r.trim().is_empty() || r.starts_with('-'))
        {
            return Err(Failure::usage(format!(
                "remote {r:?} is not a remote's name"
            )));
        }
        Ok(SyncVault {
            options: SyncOptions {
                remote,
                dry_run,
                accept_remote: false,
            },
        })
    }

    /// The same sync, asked for by the person at this device (the command line): naming the
    /// remote `sparks.toml` names accepts that setting here. Not for an agent's call, which
    /// must not redirect the device's next syncs.
    pub fn from_this_device(mut self) -> SyncVault {
        self.options.accept_remote = true;
        self
    }
}

impl Request for SyncVault {
    type Report = SyncReport;

    fn writes(&self) -> bool {
        !self.options.dry_run
    }

    fn finishes_sync(&self) -> bool {
        true
    }

    fn run(self, s: &Session) -> Result<SyncReport, Failure> {
        let mut manifest = s.manifest()?;
        Ok(crate::sync::sync(
            &s.vault,
            &mut manifest,
            &s.now,
            &self.options,
            &*s.progress,
        )?)
    }
}

impl Report for SyncReport {
    fn word(&mut self, word: crate::failure::Wording) {
        SyncReport::word(self, word);
    }
}
