//! The `git` executable at work on a transfer: never prompting (a sync runs unattended), its
//! progress reported as it goes, and stopped when it stalls.
//!
//! A stall is measured by what git says: with `--progress` it reports every second while
//! objects move, so [`STALL`] without a byte on stdout or stderr means nothing is moving, and
//! an unreachable host or one that accepts and never answers ends there. Git is then asked to
//! stop (SIGTERM: it removes its lock files as it goes) and killed if it has not after
//! [`GRACE`]. Its output goes through pipes read on two threads; a helper it started that
//! outlives it (an ssh `ControlPersist` master) may hold them open, so once git has exited they
//! are read for a moment more, not to their end. An ssh transfer is not stopped this way: ssh
//! may be asking at the terminal (a host key to confirm, a passphrase), which says nothing on
//! these pipes; ssh's own timeouts bound it instead (see `remote`'s `git_command`).

use crate::progress::{Phase, Progress};
use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long a transfer may say nothing before it is taken for stalled.
pub const STALL: Duration = Duration::from_secs(25);

/// How long git is given to stop once asked (on unix: elsewhere it is killed at once, there
/// being no SIGTERM to ask with).
#[cfg(unix)]
const GRACE: Duration = Duration::from_secs(3);

/// How long git's pipes are read after it exited (see the module's comment).
const DRAIN: Duration = Duration::from_millis(500);

/// What a finished `git` run left.
#[derive(Debug)]
pub struct Ran {
    /// How it ended.
    pub status: ExitStatus,
    /// What it printed on stdout.
    pub stdout: String,
    /// What it printed on stderr, progress left out (see [`said`]).
    pub stderr: String,
}

/// A `git` run that did not finish.
#[derive(Debug)]
pub enum Stopped {
    /// It could not be started.
    Spawn(std::io::Error),
    /// It said nothing for this long and was stopped.
    Stalled(Duration),
}

/// Which pipe a chunk came from.
#[derive(Clone, Copy)]
enum Pipe {
    Out,
    Err,
}

/// Run `cmd` to its end, or until it has said nothing for `stall` (`None`: never stopped),
/// reporting its progress to `progress`.
pub fn run(
    mut cmd: Command,
    stall: Option<Duration>,
    progress: &dyn Progress,
) -> Result<Ran, Stopped> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(Stopped::Spawn)?;
    let (tx, rx) = mpsc::channel::<(Pipe, Vec<u8>)>();
    if let Some(out) = child.stdout.take() {
        pump(out, Pipe::Out, tx.clone());
    }
    if let Some(err) = child.stderr.take() {
        pump(err, Pipe::Err, tx.clone());
    }
    drop(tx);
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut meter = Meter::default();
    let mut last = Instant::now();
    let mut exited: Option<(ExitStatus, Instant)> = None;
    let status = loop {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok((Pipe::Out, bytes)) => {
                stdout.extend_from_slice(&bytes);
                last = Instant::now();
            }
            Ok((Pipe::Err, bytes)) => {
                meter.feed(&bytes, progress);
                stderr.extend_from_slice(&bytes);
                last = Instant::now();
            }
            // Both pipes are closed: git has exited, or is about to.
            Err(RecvTimeoutError::Disconnected) => match exited {
                Some((status, _)) => break status,
                None => break wait(&mut child, stall, last)?,
            },
            Err(RecvTimeoutError::Timeout) => {}
        }
        match exited {
            Some((status, at)) if at.elapsed() >= DRAIN => break status,
            Some(_) => {}
            None => match child.try_wait() {
                Ok(Some(status)) => exited = Some((status, Instant::now())),
                Ok(None) => {
                    if let Some(limit) = stall
                        && last.elapsed() >= limit
                    {
                        stop(&mut child);
                        return Err(Stopped::Stalled(limit));
                    }
                }
                Err(e) => return Err(Stopped::Spawn(e)),
            },
        }
    };
    Ok(Ran {
        status,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: said(&String::from_utf8_lossy(&stderr)),
    })
}

/// Read `from` on a thread of its own, sending what comes to `to`, until its end.
fn pump(mut from: impl Read + Send + 'static, pipe: Pipe, to: mpsc::Sender<(Pipe, Vec<u8>)>) {
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 8192];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if to.send((pipe, buf[..n].to_vec())).is_err() {
                        break;
                    }
                }
            }
        }
    });
}

/// Wait for `child`, whose pipes are closed, to exit; stopped like a stalled one if it does not.
fn wait(child: &mut Child, stall: Option<Duration>, last: Instant) -> Result<ExitStatus, Stopped> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) => {}
            Err(e) => return Err(Stopped::Spawn(e)),
        }
        if let Some(limit) = stall
            && last.elapsed() >= limit
        {
            stop(child);
            return Err(Stopped::Stalled(limit));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Ask `child` to stop, and kill it if it has not within [`GRACE`].
fn stop(child: &mut Child) {
    #[cfg(unix)]
    {
        use rustix::process::{Pid, Signal, kill_process};
        if let Some(pid) = i32::try_from(child.id()).ok().and_then(Pid::from_raw) {
            let _ = kill_process(pid, Signal::TERM);
            let asked = Instant::now();
            while asked.elapsed() < GRACE {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Git's progress lines (`Receiving objects:  45% (450/1000)`), told to a [`Progress`].
#[derive(Default)]
struct Meter {
    /// The text of the line not ended yet.
    partial: String,
    /// The phase reported last, and how many of its items.
    at: Option<(Phase, u64)>,
}

impl Meter {
    /// Take in more of git's stderr.
    fn feed(&mut self, bytes: &[u8], progress: &dyn Progress) {
        self.partial.push_str(&String::from_utf8_lossy(bytes));
        // Git rewrites a progress line in place with `\r`, and ends it with `\n`.
        while let Some(end) = self.partial.find(['\r', '\n']) {
            let line: String = self.partial.drain(..=end).collect();
            if let Some((phase, done, total)) = parse(line.trim_end()) {
                let done = match self.at {
                    Some((p, before)) if p == phase => {
                        progress.advance(done.saturating_sub(before));
                        done.max(before)
                    }
                    _ => {
                        progress.phase(phase, Some(total));
                        progress.advance(done);
                        done
                    }
                };
                self.at = Some((phase, done));
            }
        }
    }
}

/// A progress line of the phases a bar shows: the phase, the count done and the total.
fn parse(line: &str) -> Option<(Phase, u64, u64)> {
    let (label, rest) = line.split_once(':')?;
    let phase = match label {
        "Receiving objects" => Phase::Receiving,
        "Writing objects" => Phase::Sending,
        _ => return None,
    };
    let counts = rest.split_once('(')?.1.split_once(')')?.0;
    let (done, total) = counts.split_once('/')?;
    Some((phase, done.trim().parse().ok()?, total.trim().parse().ok()?))
}

/// Git's words in `stderr` without its progress reports: what a failure says.
pub fn said(stderr: &str) -> String {
    stderr
        .lines()
        // A line rewritten in place shows its last state.
        .map(|l| l.rsplit('\r').next().unwrap_or(l).trim_end())
        .filter(|l| !l.is_empty() && !is_progress(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `line` is one of git's progress reports, local or the remote's, or a fetch's report
/// of the refs it updated (`From URL`, then one indented line a ref).
fn is_progress(line: &str) -> bool {
    if line.starts_with("From ") || line.starts_with(' ') {
        return true;
    }
    let line = line.strip_prefix("remote: ").unwrap_or(line);
    line.contains("% (")
        || [
            "Enumerating objects",
            "Counting objects",
            "Compressing objects",
            "Receiving objects",
            "Resolving deltas",
            "Writing objects",
            "Unpacking objects",
            "Delta compression",
            "Total ",
        ]
        .iter()
        .any(|p| line.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Log;

    #[test]
    fn progress_lines_become_phases_and_counts_whatever_the_chunks() {
        let text = "remote: Counting objects:  50% (1/2)\rremote: Counting objects: 100% (2/2), \
                    done.\nReceiving objects:  10% (20/200)\rReceiving objects:  55% (110/200), \
                    1.00 MiB | 2.00 MiB/s\rReceiving objects: 100% (200/200), done.\nResolving \
                    deltas: 100% (3/3), done.\nWriting objects: 100% (4/4), done.\n";
        // Fed in chunks that split lines anywhere, the counts come out the same.
        for size in [1, 7, text.len()] {
            let log = Log::default();
            let mut meter = Meter::default();
            for chunk in text.as_bytes().chunks(size) {
                meter.feed(chunk, &log);
            }
            assert_eq!(
                log.0.into_inner().unwrap(),
                [
                    "receiving Some(200)",
                    "+20",
                    "+90",
                    "+90",
                    "sending Some(4)",
                    "+4"
                ],
                "chunks of {size}"
            );
        }
    }

    #[test]
    fn what_git_said_keeps_its_errors_and_drops_its_progress() {
        let stderr = "remote: Enumerating objects: 3, done.\nremote: Counting objects:  33% \
                      (1/3)\rremote: Counting objects: 100% (3/3), done.\nReceiving objects: \
                      100% (3/3), done.\nremote: Total 3 (delta 0), reused 0 (delta 0)\n\
                      From ../hub\n * branch main -> FETCH_HEAD\n\
                      error: RPC failed; curl 28 Operation too slow\nfatal: early EOF\n";
        assert_eq!(
            said(stderr),
            "error: RPC failed; curl 28 Operation too slow\nfatal: early EOF"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_command_that_says_nothing_is_stopped_after_the_stall() {
        let mut cmd = Command::new("sleep");
        cmd.arg("30");
        let started = Instant::now();
        let stopped = run(
            cmd,
            Some(Duration::from_millis(300)),
            &crate::progress::Silent,
        );
        assert!(matches!(stopped, Err(Stopped::Stalled(_))), "{stopped:?}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
    }

    /// The stall is the time since git last said something, not since it started: a run longer
    /// than the stall, never silent that long, goes to its end.
    #[cfg(unix)]
    #[test]
    fn a_command_that_keeps_talking_is_not_stopped() {
        let mut cmd = Command::new("sh");
        cmd.args([
            "-c",
            "for i in 1 2 3 4 5 6; do echo $i >&2; sleep 0.4; done; echo out",
        ]);
        let ran = run(
            cmd,
            Some(Duration::from_millis(1500)),
            &crate::progress::Silent,
        )
        .unwrap();
        assert!(ran.status.success());
        assert_eq!(ran.stdout, "out\n");
        assert_eq!(ran.stderr, "1\n2\n3\n4\n5\n6");
    }
}
