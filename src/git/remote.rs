//! The remote a sync talks to, and the two transfers: fetching its branch and pushing ours.
//! libgit2 carries a remote on this disk (a path, `file://`); the `git` executable carries
//! every remote over a network (`git://`, ssh and https, with the user's ssh agent, keys and
//! credential helpers, exactly as `git fetch` would), or every transfer when asked
//! (`[sync] git_cli = true`, as cargo's `net.git-fetch-with-cli`). A network transfer must not
//! hang a sync: libgit2's own timeouts can only be set through an `unsafe` call (this crate
//! forbids them), while the `git` executable can be bounded from outside ([`super::run`]: a
//! transfer that says nothing for a while is stopped; ssh's connect timeout). With
//! `[sync] git_cli = false` libgit2 carries a `git://` remote too, unbounded. No transfer ever
//! forces: a push the remote refuses is reported as refused. A sync's first push makes the
//! remote branch the local branch's upstream when it has none ([`set_upstream`]), as
//! `git push -u` does, so that a plain `git pull` or `git push` works from then on.

mod cli;

use super::GitError;
use super::merge::{git_error, repo};
use crate::progress::{Phase, Progress};
use cli::{Failed, remote_has_branch_cli, run_git, timed_out};
use std::path::{Path, PathBuf};

/// Where a sync fetches from and pushes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upstream {
    /// The remote's name (`origin`).
    pub remote: String,
    /// Its URL, as configured, with any credentials in it hidden ([`redact`]): it is shown in
    /// reports and errors, never used to reach the remote (the transfers name the remote).
    pub url: String,
    /// The local branch (`main`).
    pub branch: String,
    /// The branch on the remote it goes with (its upstream's, else the same name).
    pub remote_branch: String,
    /// The `git` executable carries the transfers.
    pub cli: bool,
    /// The repository's work tree, where the `git` executable runs.
    pub workdir: PathBuf,
}

impl Upstream {
    /// The remote-tracking ref the fetch updates.
    pub fn tracking_ref(&self) -> String {
        format!("refs/remotes/{}/{}", self.remote, self.remote_branch)
    }

    /// How the transfers go, for the report: `libgit2` or `git`.
    pub fn transport(&self) -> &'static str {
        if self.cli { "git" } else { "libgit2" }
    }
}

/// How the transfers are carried (`[sync] git_cli`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Transport {
    /// libgit2 for a remote on this disk, the `git` executable over a network.
    #[default]
    Auto,
    /// Always the `git` executable.
    Cli,
    /// Always libgit2 (a remote this build cannot reach fails, saying so).
    Libgit2,
}

/// Whether a push went through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pushed {
    /// The remote branch is now ours.
    Done,
    /// The remote refused (its branch moved since the fetch, or a hook said no): why.
    Refused(String),
}

/// The remote of the vault's repository to sync with: `remote` when given, else the current
/// branch's upstream remote, else `origin`.
pub fn upstream(
    vault_root: &Path,
    remote: Option<&str>,
    transport: Transport,
) -> Result<Upstream, GitError> {
    let git = git_error(vault_root);
    let repo = repo(vault_root)?;
    let workdir = super::merge::workdir(&repo).map_err(&git)?;
    let head = repo.find_reference("HEAD").map_err(&git)?;
    let Some(branch_ref) = head.symbolic_target().ok().flatten().map(str::to_string) else {
        return Err(GitError::Detached {
            vault: vault_root.to_path_buf(),
        });
    };
    let branch = branch_ref
        .strip_prefix("refs/heads/")
        .unwrap_or(&branch_ref)
        .to_string();
    let config = repo.config().and_then(|mut c| c.snapshot()).map_err(&git)?;
    let configured = config
        .get_string(&format!("branch.{branch}.remote"))
        .ok()
        .filter(|r| r != ".");
    let name = remote
        .map(str::to_string)
        .or(configured.clone())
        .unwrap_or_else(|| "origin".into());
    let found = match repo.find_remote(&name) {
        Ok(r) => r,
        Err(e)
            if e.code() == git2::ErrorCode::NotFound || e.class() == git2::ErrorClass::Config =>
        {
            return Err(GitError::NoRemote {
                vault: vault_root.to_path_buf(),
                remote: name,
            });
        }
        Err(e) => return Err(git(e)),
    };
    let configured_url = found.url().unwrap_or_default();
    // The upstream's branch name when the upstream is this remote.
    let remote_branch = match (
        &configured,
        config.get_string(&format!("branch.{branch}.merge")),
    ) {
        (Some(r), Ok(m)) if *r == name => m.strip_prefix("refs/heads/").unwrap_or(&m).to_string(),
        _ => branch.clone(),
    };
    let cli = match transport {
        Transport::Cli => true,
        Transport::Libgit2 => false,
        Transport::Auto => !libgit2_reaches(configured_url),
    };
    Ok(Upstream {
        remote: name,
        url: redact(configured_url),
        branch,
        remote_branch,
        cli,
        workdir,
    })
}

/// `text` with the credentials of every URL in it hidden: the user information of a
/// `scheme://user:password@host` URL becomes `***` (a user name may be the token itself, as in
/// `https://TOKEN:x-oauth-basic@host`), and so does a user name without a password except
/// for ssh, where it is a login name (`ssh://git@host`), not a secret (`https://TOKEN@host`
/// is). Every URL Sparks shows comes through here: the remote's, as read from git's
/// configuration, and what git or libgit2 said about a transfer.
pub fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let scheme_start = rest[..at]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |i| i + 1);
        let scheme = &rest[scheme_start..at];
        let authority_start = at + 3;
        let after = &rest[authority_start..];
        let authority_len = after
            .find(|c: char| {
                matches!(c, '/' | '?' | '#' | '\'' | '"' | '<' | '>' | '`') || c.is_whitespace()
            })
            .unwrap_or(after.len());
        let authority = &after[..authority_len];
        out.push_str(&rest[..authority_start]);
        match authority.rfind('@') {
            Some(userinfo_len) => {
                let userinfo = &authority[..userinfo_len];
                let ssh = scheme.to_ascii_lowercase().contains("ssh");
                if userinfo.contains(':') || !ssh {
                    out.push_str("***");
                } else {
                    out.push_str(userinfo);
                }
                out.push_str(&authority[userinfo_len..]);
            }
            None => out.push_str(authority),
        }
        rest = &after[authority_len..];
    }
    out.push_str(rest);
    out
}

/// Whether libgit2 carries `url` when nothing else is asked: a remote on this disk (a path,
/// `file://`). Over a network the `git` executable does, whose transfers can be bounded.
fn libgit2_reaches(url: &str) -> bool {
    local_path(url).is_some()
}

/// The path of a remote on this disk (`file://` or a path, as written: relative to the work
/// tree when relative), or `None` for a network URL.
fn local_path(url: &str) -> Option<PathBuf> {
    if let Some((scheme, rest)) = url.split_once("://") {
        return (scheme == "file").then(|| PathBuf::from(rest));
    }
    // `host:path` and `user@host:path` are ssh (scp-like); a path with a colon before any
    // slash, other than a Windows drive letter, is that form.
    match url.find(':') {
        Some(colon) => {
            let before = &url[..colon];
            (before.contains('/') || (before.len() == 1 && cfg!(windows)))
                .then(|| PathBuf::from(url))
        }
        None => Some(PathBuf::from(url)),
    }
}

/// Whether ssh carries `url` (`ssh://`, `git+ssh://`, or the scp-like `host:path`).
fn over_ssh(url: &str) -> bool {
    match url.split_once("://") {
        Some((scheme, _)) => scheme.contains("ssh"),
        None => local_path(url).is_none(),
    }
}

/// A remote on this disk whose path is not there (a drive not connected, a folder moved): said
/// so, rather than as libgit2's "unsupported URL protocol" or git's "does not appear to be a
/// git repository".
fn check_path(up: &Upstream, action: &'static str) -> Result<(), GitError> {
    let Some(path) = local_path(&up.url) else {
        return Ok(());
    };
    let path = if path.is_absolute() {
        path
    } else {
        up.workdir.join(path)
    };
    match fs_err::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(GitError::NoSuchPath {
            action,
            remote: up.remote.clone(),
            path,
        }),
        _ => Ok(()),
    }
}

/// Fetch the remote branch into its remote-tracking ref; its commit id, or `None` when the
/// remote has no such branch (an empty remote). The objects received are told to `progress`.
pub fn fetch(
    vault_root: &Path,
    up: &Upstream,
    progress: &dyn Progress,
) -> Result<Option<String>, GitError> {
    let git = git_error(vault_root);
    check_path(up, "fetch from")?;
    let refspec = format!("+refs/heads/{}:{}", up.remote_branch, up.tracking_ref());
    if up.cli {
        if !remote_has_branch_cli(up)? {
            return Ok(None);
        }
        // Not `--quiet`: it keeps git from asking index-pack for its progress.
        let args = ["fetch", "--no-tags", "--progress"];
        run_git(up, &[&args[..], &[&up.remote, &refspec]].concat(), progress)?;
    } else {
        let repo = repo(vault_root)?;
        let mut remote = repo.find_remote(&up.remote).map_err(&git)?;
        let mut counted = Counted::default();
        let mut opts = git2::FetchOptions::new();
        opts.download_tags(git2::AutotagOption::None);
        let mut callbacks = git2::RemoteCallbacks::new();
        callbacks.transfer_progress(|stats| {
            let (done, total) = (stats.received_objects(), stats.total_objects());
            counted.tell(progress, Phase::Receiving, done, total);
            true
        });
        opts.remote_callbacks(callbacks);
        remote
            .connect_auth(git2::Direction::Fetch, None, None)
            .map_err(|e| transfer(up, "fetch from", e))?;
        let listed = remote
            .list()
            .map_err(|e| transfer(up, "fetch from", e))?
            .iter()
            .any(|h| h.name() == format!("refs/heads/{}", up.remote_branch));
        remote.disconnect().map_err(&git)?;
        if !listed {
            return Ok(None);
        }
        remote
            .fetch(
                &[refspec.as_str()],
                Some(&mut opts),
                Some("sparks sync: fetch"),
            )
            .map_err(|e| transfer(up, "fetch from", e))?;
    }
    let repo = repo(vault_root)?;
    match repo.refname_to_id(&up.tracking_ref()) {
        Ok(id) => Ok(Some(id.to_string())),
        Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
        Err(e) => Err(git(e)),
    }
}

/// Push the branch to the remote branch, never forcing. The objects sent are told to
/// `progress`.
pub fn push(vault_root: &Path, up: &Upstream, progress: &dyn Progress) -> Result<Pushed, GitError> {
    check_path(up, "push to")?;
    let refspec = format!("refs/heads/{}:refs/heads/{}", up.branch, up.remote_branch);
    if up.cli {
        let args = ["push", "--porcelain", "--quiet", "--progress"];
        return match run_git(up, &[&args[..], &[&up.remote, &refspec]].concat(), progress) {
            Ok(_) => Ok(Pushed::Done),
            // `--porcelain`: a refused ref is a line starting with `!`.
            Err(Failed { stdout, error }) => match stdout.lines().find(|l| l.starts_with('!')) {
                Some(line) => Ok(Pushed::Refused(redact(
                    line.rsplit('\t').next().unwrap_or(line).trim(),
                ))),
                None => Err(error),
            },
        };
    }
    let git = git_error(vault_root);
    let repo = repo(vault_root)?;
    let mut remote = repo.find_remote(&up.remote).map_err(&git)?;
    let refused = std::cell::RefCell::new(None::<String>);
    let mut counted = Counted::default();
    let mut callbacks = git2::RemoteCallbacks::new();
    callbacks.push_transfer_progress(|done, total, _| {
        counted.tell(progress, Phase::Sending, done, total);
    });
    callbacks.push_update_reference(|_, status| {
        if let Some(why) = status {
            *refused.borrow_mut() = Some(why.to_string());
        }
        Ok(())
    });
    let mut opts = git2::PushOptions::new();
    opts.remote_callbacks(callbacks);
    match remote.push(&[refspec.as_str()], Some(&mut opts)) {
        Ok(()) => {}
        // libgit2 refuses a non-fast-forward itself, before sending.
        Err(e) if e.code() == git2::ErrorCode::NotFastForward => {
            return Ok(Pushed::Refused(redact(e.message())));
        }
        Err(e) => return Err(transfer(up, "push to", e)),
    }
    drop(opts);
    match refused.into_inner() {
        None => Ok(Pushed::Done),
        // The remote moved since the fetch: fetch and merge again.
        Some(why) if moved(&why) => Ok(Pushed::Refused(redact(&why))),
        // Anything else (a hook said no, a lock in the way) is no reason to merge again.
        Some(why) => Err(GitError::Transfer {
            action: "push to",
            remote: up.remote.clone(),
            url: up.url.clone(),
            why: redact(&why),
        }),
    }
}

/// Whether a remote's reason for refusing a ref says the ref moved (a push that is no
/// fast-forward), as git's and libgit2's servers word it.
fn moved(why: &str) -> bool {
    let w = why.to_ascii_lowercase();
    [
        "fast-forward",
        "fastforward",
        "fast forward",
        "fetch first",
        "stale info",
    ]
    .iter()
    .any(|m| w.contains(m))
}

/// The git directory of the remote when libgit2 reaches it on this disk (a path or `file://`):
/// a push writes its refs there, so a push killed midway can leave a lock in it.
pub fn local_git_dir(up: &Upstream) -> Option<PathBuf> {
    if up.cli {
        return None;
    }
    let path = match up.url.split_once("://") {
        Some(("file", rest)) => PathBuf::from(rest),
        Some(_) => return None,
        None => PathBuf::from(&up.url),
    };
    let path = if path.is_absolute() {
        path
    } else {
        up.workdir.join(path)
    };
    let dot_git = path.join(".git");
    Some(if dot_git.is_dir() { dot_git } else { path })
}

/// How far a libgit2 transfer has come, told to a [`Progress`] as a phase and its advances.
#[derive(Default)]
struct Counted(Option<u64>);

impl Counted {
    fn tell(&mut self, progress: &dyn Progress, phase: Phase, done: usize, total: usize) {
        let done = done as u64;
        match self.0 {
            None => {
                progress.phase(phase, Some(total as u64));
                progress.advance(done);
            }
            Some(before) => progress.advance(done.saturating_sub(before)),
        }
        self.0 = Some(done.max(self.0.unwrap_or(0)));
    }
}

fn transfer(up: &Upstream, action: &'static str, e: git2::Error) -> GitError {
    let (remote, url, why) = (up.remote.clone(), up.url.clone(), redact(e.message()));
    if timed_out(&why) {
        return GitError::TimedOut {
            action,
            remote,
            url,
            why,
        };
    }
    GitError::Transfer {
        action,
        remote,
        url,
        why,
    }
}

/// Whether the local branch has no upstream yet (what [`set_upstream`] would set): read
/// first, so that a sync whose branch has one writes no record for it.
pub fn lacks_upstream(vault_root: &Path, up: &Upstream) -> Result<bool, GitError> {
    let config = repo(vault_root)?.config().map_err(git_error(vault_root))?;
    Ok(!has_upstream(&config, up))
}

/// Make the remote branch the upstream of the local branch when it has none, as `git push -u`
/// does, so that a plain `git pull` or `git push` goes where the sync goes. An upstream the
/// user set (another remote, another branch) is left as it is. Whether it was set.
pub fn set_upstream(vault_root: &Path, up: &Upstream) -> Result<bool, GitError> {
    let git = git_error(vault_root);
    let config = repo(vault_root)?.config().map_err(&git)?;
    if has_upstream(&config, up) {
        return Ok(false);
    }
    let mut local = config.open_level(git2::ConfigLevel::Local).map_err(&git)?;
    local.set_str(&remote_key(up), &up.remote).map_err(&git)?;
    local
        .set_str(
            &format!("branch.{}.merge", up.branch),
            &format!("refs/heads/{}", up.remote_branch),
        )
        .map_err(&git)?;
    Ok(true)
}

/// Whether git's configuration names a remote for the local branch.
fn has_upstream(config: &git2::Config, up: &Upstream) -> bool {
    config.get_entry(&remote_key(up)).is_ok()
}

/// The key of the local branch's remote (`branch.<name>.remote`).
fn remote_key(up: &Upstream) -> String {
    format!("branch.{}.remote", up.branch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libgit2_carries_remotes_on_this_disk_only() {
        for url in [
            "/srv/git/vault.git",
            "../vault.git",
            "file:///srv/vault.git",
            "./a:b",
        ] {
            assert!(libgit2_reaches(url), "{url}");
            assert!(!over_ssh(url), "{url}");
        }
        for url in [
            "git://127.0.0.1:9418/v.git",
            "https://example.com/v.git",
            "http://127.0.0.1:1/v.git",
        ] {
            assert!(!libgit2_reaches(url), "{url}");
            assert!(!over_ssh(url), "{url}");
        }
        for url in [
            "git@github.com:me/vault.git",
            "host:vault.git",
            "ssh://me@host/v.git",
            "git+ssh://host/v.git",
        ] {
            assert!(!libgit2_reaches(url), "{url}");
            assert!(over_ssh(url), "{url}");
        }
        assert_eq!(
            local_path("file:///srv/v.git"),
            Some(PathBuf::from("/srv/v.git"))
        );
    }

    #[test]
    fn timeouts_are_told_from_other_failures() {
        for why in [
            "ssh: connect to host h port 22: Connection timed out",
            "Connection timed out during banner exchange",
            "fatal: unable to access 'http://h/x/': Operation too slow. Less than 1 bytes/sec",
            "failed to connect to h: Operation timed out",
        ] {
            assert!(timed_out(why), "{why}");
        }
        for why in [
            "fatal: repository 'http://h/x/' not found",
            "Connection refused",
        ] {
            assert!(!timed_out(why), "{why}");
        }
    }

    #[test]
    fn credentials_in_urls_are_hidden_wherever_they_are_in_the_text() {
        for (text, shown) in [
            (
                "https://user:s3cr3t@example.com/v.git",
                "https://***@example.com/v.git",
            ),
            (
                "https://TOKEN@github.com/me/v",
                "https://***@github.com/me/v",
            ),
            (
                "https://TOKEN:x-oauth-basic@github.com/v",
                "https://***@github.com/v",
            ),
            ("ssh://me:pw@host:22/v.git", "ssh://***@host:22/v.git"),
            ("ssh://git@host/v.git", "ssh://git@host/v.git"),
            ("git+ssh://git@host/v.git", "git+ssh://git@host/v.git"),
            // A password with an `@` of its own (git would want it %-encoded; hidden anyway).
            ("http://u:p@ss@h/x", "http://***@h/x"),
            (
                "fatal: unable to access 'http://u:tok@127.0.0.1:1/x.git/': refused",
                "fatal: unable to access 'http://***@127.0.0.1:1/x.git/': refused",
            ),
            (
                "from https://a:b@one/x and https://c:d@two",
                "from https://***@one/x and https://***@two",
            ),
            // Nothing to hide: a path, scp-like ssh, a URL with an `@` in its path.
            ("/srv/git/v.git", "/srv/git/v.git"),
            ("git@github.com:me/v.git", "git@github.com:me/v.git"),
            ("file:///srv/v.git", "file:///srv/v.git"),
            ("https://host/@me/v", "https://host/@me/v"),
            ("no url here: a@b", "no url here: a@b"),
        ] {
            assert_eq!(redact(text), shown, "{text}");
        }
    }
}
