//! How a vault's transfers behave: a remote that never answers, a remote path that is not
//! there, and the progress of a long transfer on a terminal.

use crate::harness::{TODAY, TestVault, finish, git, on_terminal};
use crate::sync::Devices;
use std::time::{Duration, Instant};

/// A loopback port that accepts every connection and never answers (a host that is up but
/// whose git server hangs, or a firewall that swallows the connection).
fn silent_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in listener.incoming() {
            held.push(conn);
        }
    });
    port
}

/// Whether `program` is on PATH.
fn on_path(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("-V")
        .output()
        .is_ok()
}

/// A remote that never answers: over http (the `git` executable), `git://` and ssh, a sync
/// fails within 30 seconds (40 allowed for a slow machine), naming the remote and saying it
/// timed out; what this device had changed is committed, nothing is lost.
#[test]
fn a_remote_that_never_answers_fails_within_30_seconds() {
    let port = silent_port();
    let mut urls = vec![
        format!("http://127.0.0.1:{port}/vault.git"),
        format!("git://127.0.0.1:{port}/vault.git"),
    ];
    if on_path("ssh") {
        urls.push(format!("ssh://git@127.0.0.1:{port}/vault.git"));
    }
    // All at once: each waits out its timeout.
    let runs: Vec<_> = urls
        .into_iter()
        .map(|url| {
            std::thread::spawn(move || {
                let v = TestVault::new();
                crate::harness::commit_all(&v);
                git(&v, &v.root, &["remote", "add", "origin", &url]);
                v.page("wiki/concepts/Alpha.md", "Alpha", "Made before the sync.");
                let started = Instant::now();
                let child = v
                    .cmd(&["sync"])
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap();
                let run = finish(child, &url);
                let took = started.elapsed();
                let subject = git(&v, &v.root, &["log", "-1", "--format=%s"]);
                (url, took, run, subject)
            })
        })
        .collect();
    for handle in runs {
        let (url, took, run, subject) = handle.join().unwrap();
        assert!(took < Duration::from_secs(40), "{url}: {took:?}");
        assert_eq!(run.code, Some(1), "{url}: {run:?}");
        assert!(
            run.stderr.contains("origin")
                && run.stderr.contains(&url)
                && run.stderr.contains("timed out"),
            "{url}: the error names the remote and the timeout: {}",
            run.stderr
        );
        assert!(run.stderr.contains("hint:"), "{url}: {}", run.stderr);
        assert_eq!(
            subject.trim(),
            "sparks sync: changes on this device",
            "{url}"
        );
    }
}

/// A remote that is a path on this disk which is not there (a drive not connected) is said to
/// be that, by libgit2's transfers and the `git` executable's alike, as a path or `file://`.
#[test]
fn a_remote_path_that_does_not_exist_is_said_so() {
    for (scheme, cli) in [("", false), ("file://", false), ("", true)] {
        let v = TestVault::new();
        if cli {
            let config = v.read("sparks.toml");
            v.write("sparks.toml", format!("{config}\n[sync]\ngit_cli = true\n"));
        }
        crate::harness::commit_all(&v);
        let gone = v.dir.path().join("usb/vault.git");
        let url = format!("{scheme}{}", gone.display());
        git(&v, &v.root, &["remote", "add", "origin", &url]);
        let run = v.run(&["sync"]).code(1);
        assert!(
            run.stderr.contains(&format!(
                "cannot fetch from origin: the path {} does not exist",
                gone.display()
            )),
            "{url} (git executable: {cli}): {}",
            run.stderr
        );
        assert!(!run.stderr.contains("unsupported URL"), "{}", run.stderr);
        assert!(
            run.stderr.contains("hint: connect the disk"),
            "{}",
            run.stderr
        );
    }
}

/// Many objects to move: `n` pages on `v`.
fn many_pages(v: &TestVault, who: &str, n: usize) {
    for i in 0..n {
        v.page(
            &format!("wiki/concepts/{who} {i}.md"),
            &format!("{who} {i}"),
            &format!("Page {i} of {who}, written on {TODAY}."),
        );
    }
}

/// A long transfer shows its objects moving on a terminal: received by a fetch, sent by a
/// push, through libgit2 and through the `git` executable; never with `--json`.
#[test]
fn a_transfer_shows_its_progress_on_a_terminal() {
    let d = Devices::new();
    let delay = [("SPARKS_PROGRESS_DELAY_MS", "0")];
    many_pages(&d.a, "A", 300);
    let shown = on_terminal(&d.a.root, &d.a.home(), "sync", &delay);
    assert!(shown.contains("sending: objects"), "{shown:?}");
    let shown = on_terminal(&d.b.root, &d.b.home(), "sync", &delay);
    assert!(shown.contains("receiving: objects"), "{shown:?}");
    // The same through the `git` executable, on B.
    let config = d.b.read("sparks.toml");
    d.b.write("sparks.toml", format!("{config}\n[sync]\ngit_cli = true\n"));
    many_pages(&d.b, "B", 300);
    let shown = on_terminal(&d.b.root, &d.b.home(), "sync", &delay);
    assert!(shown.contains("via git"), "{shown:?}");
    assert!(shown.contains("sending: objects"), "{shown:?}");
    many_pages(&d.a, "C", 300);
    let shown = on_terminal(&d.a.root, &d.a.home(), "sync --json", &delay);
    assert!(!shown.contains("objects"), "no bar with --json: {shown:?}");
    let shown = on_terminal(&d.b.root, &d.b.home(), "sync", &delay);
    assert!(shown.contains("via git"), "{shown:?}");
    assert!(shown.contains("receiving: objects"), "{shown:?}");
}
