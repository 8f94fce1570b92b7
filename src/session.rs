//! Where an operation runs: the vault it finds and the one clock reading it uses. Both front
//! ends open a session the same way (`--vault`/`SPARKS_VAULT`, else the vault holding the
//! working directory), and an operation opens the manifest through it: this is the one place
//! the vault and the manifest are opened.

use crate::clock::Now;
use crate::manifest::{Manifest, ManifestError};
use crate::progress::Listener;
use crate::vault::{MANIFEST, Vault, VaultError};
use chrono::NaiveDate;
use std::path::{Path, PathBuf};

/// How to find the vault and which day it is; one per process (the CLI) or server (MCP).
#[derive(Debug, Clone, Default)]
pub struct Site {
    /// `--vault` / `SPARKS_VAULT`; `None`: the vault containing the working directory.
    pub vault: Option<PathBuf>,
    /// A pinned date (`SPARKS_TODAY`), for tests.
    pub today: Option<NaiveDate>,
}

/// One operation's vault and clock.
#[derive(Debug)]
pub struct Session {
    /// The vault.
    pub vault: Vault,
    /// The clock, read once.
    pub now: Now,
    /// Who hears the progress of long operations: silent unless the CLI draws a bar.
    pub progress: Listener,
}

impl Site {
    /// Read the clock, for an operation that needs no vault.
    pub fn now(&self) -> Now {
        Now::read(self.today)
    }

    /// The vault: the one named, or the one containing the working directory.
    pub fn vault(&self) -> Result<Vault, VaultError> {
        match &self.vault {
            Some(p) => Vault::open(p),
            None => Vault::discover(Path::new(".")),
        }
    }

    /// Find the vault and read the clock.
    pub fn open(&self) -> Result<Session, VaultError> {
        Ok(Session {
            vault: self.vault()?,
            now: self.now(),
            progress: Listener::default(),
        })
    }
}

impl Session {
    /// The vault's manifest, opened (and migrated) for this operation.
    pub fn manifest(&self) -> Result<Manifest, ManifestError> {
        let mut m = Manifest::open(&self.vault.path(MANIFEST))?;
        m.listen(self.progress.clone());
        Ok(m)
    }
}
