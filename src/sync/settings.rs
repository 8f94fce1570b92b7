//! Which `[sync]` settings a sync applies. `sparks.toml` travels with the vault, so a commit
//! from the remote could otherwise send this device's next pushes to another of its remotes
//! (`remote`) or change how it reaches them (`git_cli`): data from a clone is content, not
//! configuration. So these two take effect from this device only. The value a device applies
//! is kept in its repository's local git configuration ([`REMOTE_KEY`], [`GIT_CLI_KEY`]),
//! which no fetch changes, and the value in `sparks.toml` becomes it only by an act on this
//! device:
//!
//! - the first sync (nothing kept yet, or the key was removed by hand) takes it as it is;
//! - an edit here: at the start of the sync the work tree's value differs from HEAD's (someone
//!   typed it; the sync then commits it). Not while a merge a killed sync left is under way:
//!   the work tree then holds the other side's files;
//! - a sync from the command line that names the remote `sparks.toml` names (`--remote`). An
//!   agent's call names a remote for that sync only: it must not redirect the next ones.
//!
//! Otherwise a value that differs from the kept one is not applied: the sync uses the kept one
//! and its report says so, with how to accept it.

use super::{SyncError, SyncOptions};
use crate::config::{CONFIG_FILE, Config, SyncSection};
use crate::failure::{Action, Advice, Wording};
use crate::git::{self, remote::Transport};
use crate::runstate::RunDir;
use crate::vault::Vault;
use serde::Serialize;
use std::path::Path;

/// Where a device keeps the `[sync] remote` it applies (empty: none, so the branch's upstream,
/// else `origin`).
pub const REMOTE_KEY: &str = "sparks.syncRemote";
/// Where a device keeps the `[sync] git_cli` it applies (`true`, `false`, empty: unset).
pub const GIT_CLI_KEY: &str = "sparks.syncGitCli";

/// The settings a sync applies, and those of `sparks.toml` it does not.
#[derive(Debug, Clone)]
pub struct Applied {
    /// The remote to sync with (`--remote` first, else this device's `[sync] remote`).
    pub remote: Option<String>,
    /// How the transfers are carried.
    pub transport: Transport,
    /// The values in `sparks.toml` not applied.
    pub not_applied: Vec<NotApplied>,
}

/// A `[sync]` value in `sparks.toml` that this device does not apply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotApplied {
    /// The setting: `[sync] remote` or `[sync] git_cli`.
    pub setting: &'static str,
    /// Its value in `sparks.toml` (`null`: unset there).
    pub value: Option<String>,
    /// The value this device applies instead (`null`: unset, the default).
    pub applied: Option<String>,
    /// What is the matter.
    pub message: String,
    /// How to accept it, in the words of the front end that tells it (empty until it is
    /// worded: [`NotApplied::word`]).
    pub hint: String,
    /// How to accept it, for the front end to word.
    #[serde(skip)]
    pub advice: Advice,
}

impl NotApplied {
    /// Word the hint, the front end's way.
    pub fn word(&mut self, word: Wording) {
        self.hint = self.advice.words(word);
    }
}

/// One setting, as this sync finds it.
struct Setting {
    name: &'static str,
    key: &'static str,
    /// In the work tree's `sparks.toml`.
    here: Option<String>,
    /// In HEAD's; `None` when it cannot tell (a merge under way, a file that does not parse).
    committed: Option<Option<String>>,
    /// Named on the command line for this sync.
    named: bool,
}

/// The settings this sync applies: each device's own (keeping, when not `dry_run`, what it
/// accepts now).
pub fn applied(vault: &Vault, opts: &SyncOptions) -> Result<Applied, SyncError> {
    let root = &vault.root;
    let here = &vault.config.sync;
    let committed = match RunDir::of(root).sync_merge()? {
        Some(_) => None,
        None => committed(root)?,
    };
    let remote = Setting {
        name: "[sync] remote",
        key: REMOTE_KEY,
        here: here.remote.clone(),
        committed: committed.as_ref().map(|c| c.remote.clone()),
        named: opts.accept_remote && here.remote.is_some() && opts.remote == here.remote,
    };
    let git_cli = Setting {
        name: "[sync] git_cli",
        key: GIT_CLI_KEY,
        here: here.git_cli.map(|b| b.to_string()),
        committed: committed.as_ref().map(|c| c.git_cli.map(|b| b.to_string())),
        named: false,
    };
    let mut not_applied = Vec::new();
    let mut apply = |s: Setting| -> Result<Option<String>, SyncError> {
        let (value, refused) = settle(root, s, opts.dry_run)?;
        not_applied.extend(refused);
        Ok(value)
    };
    let kept_remote = apply(remote)?;
    let transport = match apply(git_cli)?.as_deref() {
        Some("true") => Transport::Cli,
        Some("false") => Transport::Libgit2,
        _ => Transport::Auto,
    };
    Ok(Applied {
        remote: opts.remote.clone().or(kept_remote),
        transport,
        not_applied,
    })
}

/// HEAD's `[sync]`: unset when HEAD has no `sparks.toml`; `None` when it does not parse.
fn committed(root: &Path) -> Result<Option<SyncSection>, SyncError> {
    let Some(bytes) = git::head_file(root, CONFIG_FILE)? else {
        return Ok(Some(SyncSection::default()));
    };
    let parsed = std::str::from_utf8(&bytes)
        .ok()
        .and_then(|text| Config::parse(text).ok());
    Ok(parsed.map(|c| c.sync))
}

/// The value of `s` this device applies, and a note when it is not the one in `sparks.toml`.
fn settle(
    root: &Path,
    s: Setting,
    dry_run: bool,
) -> Result<(Option<String>, Option<NotApplied>), SyncError> {
    let kept = git::local_config(root, s.key)?.map(|v| Some(v).filter(|v| !v.is_empty()));
    let typed = s.committed.as_ref().is_some_and(|c| *c != s.here);
    match kept {
        Some(kept) if kept == s.here => Ok((kept, None)),
        Some(kept) if !typed && !s.named => {
            let note = refused(&s, &kept);
            Ok((kept, Some(note)))
        }
        // The first sync, an edit here, or the remote named here: accepted.
        _ => {
            if !dry_run {
                git::set_local_config(root, &[(s.key, s.here.as_deref().unwrap_or(""))])?;
            }
            Ok((s.here, None))
        }
    }
}

/// The note for a value of `sparks.toml` this device does not apply, keeping `kept`.
fn refused(s: &Setting, kept: &Option<String>) -> NotApplied {
    let short = s.name.trim_start_matches("[sync] ");
    let value = |v: &str| match s.key {
        REMOTE_KEY => format!("{v:?}"),
        _ => v.to_string(),
    };
    let what = match &s.here {
        Some(v) => format!("{} = {} in sparks.toml", s.name, value(v)),
        None => format!("the removal of {} from sparks.toml", s.name),
    };
    let keeps = match (kept, s.key) {
        (Some(v), _) => format!("{short} = {}", value(v)),
        (None, REMOTE_KEY) => format!("{short} unset (the branch's upstream, else origin)"),
        (None, _) => format!("{short} unset (libgit2 where it can, else the git executable)"),
    };
    let remote = match s.key {
        REMOTE_KEY => s.here.clone(),
        _ => None,
    };
    NotApplied {
        setting: s.name,
        value: s.here.clone(),
        applied: kept.clone(),
        message: format!(
            "{what} is not applied: a sync applies only a value edited on this device, and \
             this device keeps {keeps}"
        ),
        hint: String::new(),
        advice: Advice::say("if you trust it, ").then_run(Action::AcceptSetting {
            key: s.key.to_string(),
            remote,
        }),
    }
}
