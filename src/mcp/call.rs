//! How one tool call runs: on a blocking thread (the core functions do file and SQLite I/O),
//! with its own reading of the clock and its own vault and manifest, opened for that call
//! only. Calls that may write are serialised by one lock; read-only calls run side by side.

use super::reply;
use crate::clock::Now;
use crate::manifest::{Manifest, ManifestError};
use crate::vault::{MANIFEST, Vault, VaultError};
use chrono::NaiveDate;
use rmcp::model::CallToolResult;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where calls find their vault and which day it is; shared by every call of a server.
#[derive(Debug, Clone, Default)]
pub struct Site {
    /// `--vault` / `SPARKS_VAULT`; `None`: the vault containing the working directory.
    pub vault: Option<PathBuf>,
    /// A pinned date (`SPARKS_TODAY`), for tests.
    pub today: Option<NaiveDate>,
}

/// One call's view: its vault's location and its clock reading.
pub struct Call {
    vault: Option<PathBuf>,
    /// The clock, read once for this call.
    pub now: Now,
}

impl Call {
    /// The vault, found as the CLI finds it.
    pub fn vault(&self) -> Result<Vault, VaultError> {
        match &self.vault {
            Some(p) => Vault::open(p),
            None => Vault::discover(Path::new(".")),
        }
    }

    /// The vault's manifest, opened (and migrated) for this call.
    pub fn manifest(&self, vault: &Vault) -> Result<Manifest, ManifestError> {
        Manifest::open(&vault.path(MANIFEST))
    }
}

/// What a tool body returns: its result, or an error to report as a tool error.
pub type Outcome = anyhow::Result<CallToolResult>;

/// Runs calls: the site, and the lock that serialises the calls that may write.
#[derive(Debug, Clone, Default)]
pub struct Runner {
    site: Site,
    writes: Arc<tokio::sync::Mutex<()>>,
}

impl Runner {
    /// A runner for calls on `site`.
    pub fn new(site: Site) -> Runner {
        Runner {
            site,
            writes: Arc::default(),
        }
    }

    /// Run a call that changes nothing, alongside any other.
    pub async fn read<F>(&self, body: F) -> CallToolResult
    where
        F: FnOnce(&Call) -> Outcome + Send + 'static,
    {
        self.run(false, body).await
    }

    /// Run a call that may write, after every earlier such call has finished.
    pub async fn write<F>(&self, body: F) -> CallToolResult
    where
        F: FnOnce(&Call) -> Outcome + Send + 'static,
    {
        self.run(true, body).await
    }

    /// Wait until no call that may write is running.
    pub async fn idle(&self) {
        drop(self.writes.lock().await);
    }

    /// Run a call, holding the write lock when `writes`.
    pub async fn run<F>(&self, writes: bool, body: F) -> CallToolResult
    where
        F: FnOnce(&Call) -> Outcome + Send + 'static,
    {
        // The guard moves into the blocking task, so that a cancelled request cannot release
        // the lock while its work is still running.
        let guard = match writes {
            true => Some(self.writes.clone().lock_owned().await),
            false => None,
        };
        let site = self.site.clone();
        let task = tokio::task::spawn_blocking(move || {
            let _guard = guard;
            let call = Call {
                vault: site.vault,
                now: Now::read(site.today),
            };
            body(&call)
        });
        match task.await {
            Ok(Ok(result)) => result,
            Ok(Err(err)) => reply::error(&err),
            Err(err) => reply::failure(&format!("the call stopped unexpectedly: {err}")),
        }
    }
}
