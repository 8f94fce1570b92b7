//! Where an operation runs: the vault it finds, the one clock reading it uses and how fresh
//! the manifest must be before it answers ([`Freshness`]). Both front
//! ends open a session the same way (`--vault`/`SPARKS_VAULT`, else the vault holding the
//! working directory), and an operation opens the manifest through it: this is the one place
//! the vault and the manifest are opened, and where the manifest's copy of the run-time
//! state (the open ingest) is brought back to its records in `.sparks/` when they differ.

use crate::clock::Now;
use crate::manifest::{Manifest, ManifestError};
use crate::progress::Listener;
use crate::runstate::RestoreError;
use crate::scan::Freshness;
use crate::vault::{MANIFEST, Vault, VaultError};
use chrono::NaiveDate;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Where operations run: how to find the vault, which day it is and how fresh the manifest
/// must be; one per process (the CLI) or server (MCP).
#[derive(Debug, Clone, Default)]
pub struct Place {
    /// `--vault` / `SPARKS_VAULT`; `None`: the vault containing the working directory.
    pub vault: Option<PathBuf>,
    /// A pinned date (`SPARKS_TODAY`), for tests.
    pub today: Option<NaiveDate>,
    /// How fresh a request that reads needs the manifest: [`Freshness::Once`], or
    /// [`Freshness::AsIs`] for `--no-refresh` (answer from it as it is).
    pub fresh: Freshness,
}

/// One operation's vault and clock.
#[derive(Debug)]
pub struct Session {
    /// The vault.
    pub vault: Vault,
    /// The clock, read once.
    pub now: Now,
    /// Who hears the progress of long operations: silent unless the CLI draws a bar. The
    /// request passes it to the core functions it calls; the manifest carries none.
    pub progress: Listener,
    /// How fresh the manifest must be before the operation answers from it: the front end's
    /// choice ([`Place::fresh`]), which the request layer settles for the request it runs
    /// (`request::run`) and the request passes to the core ([`crate::scan::refresh`]).
    pub fresh: Freshness,
    /// A manifest opened before the operation ran (to read its journal), which the
    /// operation's own [`Session::manifest`] takes instead of opening another.
    kept: Mutex<Option<Manifest>>,
}

/// The manifest could not be opened, or not brought back to the run-time records.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// Opening the manifest failed.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// Restoring its copy of the run-time state failed.
    #[error(transparent)]
    Restore(#[from] RestoreError),
}

impl crate::failure::Hint for SessionError {
    /// What the user can do about it.
    fn hint(&self) -> Option<crate::failure::Advice> {
        match self {
            SessionError::Manifest(e) => e.hint(),
            SessionError::Restore(e) => e.hint(),
        }
    }
}

impl Place {
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
            fresh: self.fresh,
            kept: Mutex::new(None),
        })
    }
}

impl Session {
    /// The vault's manifest, opened (and migrated) for this operation, holding the open
    /// ingest its record in `.sparks/` holds.
    pub fn manifest(&self) -> Result<Manifest, SessionError> {
        if let Some(m) = self.kept.lock().ok().and_then(|mut k| k.take()) {
            return Ok(m);
        }
        let mut m = Manifest::open(&self.vault.path(MANIFEST))?;
        crate::runstate::restore(&self.vault.root, &mut m)?;
        Ok(m)
    }

    /// Keep `m` for the next [`Session::manifest`]: each open reads the schema and each close
    /// checkpoints, a few milliseconds of a short command. The connection carries no policy:
    /// how fresh it is, is [`Session::fresh`].
    pub fn keep(&self, m: Manifest) {
        if let Ok(mut k) = self.kept.lock() {
            *k = Some(m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::meta::LAST_SCAN;

    /// The manifest a session keeps is the one its next `manifest()` returns; the one after
    /// that is opened anew. Told apart by a database deleted in between: the kept
    /// connection still reads it, a new one makes an empty one.
    #[test]
    fn the_next_manifest_is_the_one_kept() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        fs_err::write(dir.path().join("sparks.toml"), "").expect("config");
        let place = Place {
            vault: Some(dir.path().to_path_buf()),
            ..Place::default()
        };
        let s = place.open().expect("a session");
        let mut m = s.manifest().expect("a manifest");
        crate::scan::rescan(&s.vault, &mut m, &s.now, &*s.progress).expect("a scan");
        assert!(m.meta(LAST_SCAN).expect("meta").is_some());
        s.keep(m);
        for f in ["sparks.db", "sparks.db-wal", "sparks.db-shm"] {
            let _ = fs_err::remove_file(dir.path().join(f));
        }
        let kept = s.manifest().expect("the kept manifest");
        assert!(kept.meta(LAST_SCAN).expect("meta").is_some());
        drop(kept);
        let fresh = s.manifest().expect("a new manifest");
        assert_eq!(fresh.meta(LAST_SCAN).expect("meta"), None);
    }
}
