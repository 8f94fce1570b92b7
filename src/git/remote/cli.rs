//! The `git` executable carrying a transfer: the command with this device's settings and
//! bounds (a connect timeout, a transfer that says nothing for a while stopped), its progress
//! told, its words read for a timeout.

use super::{Upstream, over_ssh, redact};
use crate::fsio::FileError;
use crate::git::GitError;
use crate::git::merge::repo;
use crate::git::run::{self, Stopped};
use crate::progress::Progress;
use std::path::PathBuf;
use std::process::Command;

pub(super) fn remote_has_branch_cli(up: &Upstream) -> Result<bool, GitError> {
    let out = run_git(
        up,
        &[
            "ls-remote",
            "--heads",
            &up.remote,
            &format!("refs/heads/{}", up.remote_branch),
        ],
        &crate::progress::Silent,
    )?;
    Ok(!out.trim().is_empty())
}

/// Seconds an ssh connection (the banner exchange included) may take, and an https transfer
/// may move no byte, before it fails: well inside [`run::STALL`], so that their own message,
/// which says what timed out, is the one given.
pub(super) const CONNECT_SECS: u32 = 20;

/// `git` in the work tree, never prompting (a sync runs unattended), with a timeout where the
/// transport has one and the user has set none (http's low-speed limit; ssh's connect timeout
/// and keep-alive, unless the user gives git an ssh command of their own).
pub(super) fn git_command(up: &Upstream) -> Command {
    let mut c = Command::new("git");
    c.arg("-C").arg(&up.workdir).env("GIT_TERMINAL_PROMPT", "0");
    let config = repo(&up.workdir)
        .ok()
        .and_then(|r| r.config().and_then(|mut c| c.snapshot()).ok());
    let set = |key: &str, env: &str| {
        std::env::var_os(env).is_some() || config.as_ref().is_some_and(|c| c.get_entry(key).is_ok())
    };
    if !set("http.lowSpeedLimit", "GIT_HTTP_LOW_SPEED_LIMIT")
        && !set("http.lowSpeedTime", "GIT_HTTP_LOW_SPEED_TIME")
    {
        c.env("GIT_HTTP_LOW_SPEED_LIMIT", "1")
            .env("GIT_HTTP_LOW_SPEED_TIME", CONNECT_SECS.to_string());
    }
    if over_ssh(&up.url)
        && !set("core.sshCommand", "GIT_SSH_COMMAND")
        && std::env::var_os("GIT_SSH").is_none()
    {
        c.env(
            "GIT_SSH_COMMAND",
            format!(
                "ssh -o ConnectTimeout={CONNECT_SECS} -o ServerAliveInterval=10 \
                 -o ServerAliveCountMax=3"
            ),
        );
    }
    c
}

/// A `git` run that failed: what it printed on stdout, and the error.
pub(super) struct Failed {
    pub(super) stdout: String,
    pub(super) error: GitError,
}

impl From<Failed> for GitError {
    fn from(f: Failed) -> GitError {
        f.error
    }
}

/// Run `git args` in the work tree, its progress told to `progress`; its stdout. A transfer
/// that stalls is stopped ([`run::STALL`]), except over ssh, which may be asking at the
/// terminal (see [`super::run`]).
pub(super) fn run_git(
    up: &Upstream,
    args: &[&str],
    progress: &dyn Progress,
) -> Result<String, Failed> {
    let action = if args[0] == "push" {
        "push to"
    } else {
        "fetch from"
    };
    let mut cmd = git_command(up);
    cmd.args(args);
    let stall = (!over_ssh(&up.url)).then_some(run::STALL);
    let failed = |error| Failed {
        stdout: String::new(),
        error,
    };
    let ran = run::run(cmd, stall, progress).map_err(|stopped| match stopped {
        Stopped::Spawn(source) => failed(GitError::Io(FileError::at("run", PathBuf::from("git"))(
            source,
        ))),
        Stopped::Stalled(after) => failed(GitError::TimedOut {
            action,
            remote: up.remote.clone(),
            url: up.url.clone(),
            why: format!(
                "nothing came from the remote for {} seconds",
                after.as_secs()
            ),
        }),
    })?;
    if !ran.status.success() {
        let why = redact(ran.stderr.trim());
        let (remote, url) = (up.remote.clone(), up.url.clone());
        let error = if timed_out(&why) {
            GitError::TimedOut {
                action,
                remote,
                url,
                why,
            }
        } else {
            GitError::Transfer {
                action,
                remote,
                url,
                why,
            }
        };
        return Err(Failed {
            stdout: ran.stdout,
            error,
        });
    }
    Ok(ran.stdout)
}

/// Whether git's words say a connection timed out (ssh's connect timeout, curl's low-speed
/// limit or its own connect timeout).
pub(super) fn timed_out(why: &str) -> bool {
    let w = why.to_ascii_lowercase();
    w.contains("timed out") || w.contains("operation too slow")
}
