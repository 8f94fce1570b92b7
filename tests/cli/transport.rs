//! How a vault gets onto several devices and how its transfers behave: the README's set-up run
//! as written on a new vault, the upstream a first sync sets, a remote that never answers, a
//! remote path that is not there, and the progress of a long transfer on a terminal.

#[cfg(target_os = "linux")]
use crate::filters::terminal;
#[cfg(target_os = "linux")]
use crate::harness::{TODAY, on_terminal};
use crate::harness::{TestVault, command, finish, git, git_output};
use crate::snapshot;
use crate::sync::Devices;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The commands of README's two set-up blocks ("Several devices"): the first device's, then
/// each other device's.
fn readme_set_up() -> (Vec<String>, Vec<String>) {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let section = readme
        .split_once("## Several devices")
        .expect("README has a \"Several devices\" section")
        .1;
    let set_up = section.split_once("**Set-up**").expect("its set-up").1;
    let mut blocks = set_up.split("```sh\n").skip(1).map(|b| {
        b.split_once("```")
            .expect("a closed block")
            .0
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect::<Vec<_>>()
    });
    let first = blocks.next().expect("the first device's commands");
    let other = blocks.next().expect("the other devices' commands");
    (first, other)
}

/// Run one line of the README in `cwd` (changed by `cd`), `URL` standing for `url`, as a person
/// whose git configuration is `home`'s would; it must succeed.
fn run_line(line: &str, cwd: &mut PathBuf, home: &Path, url: &str) {
    let words: Vec<String> = line
        .split_whitespace()
        .map(|w| {
            if w == "URL" {
                url.to_string()
            } else {
                w.into()
            }
        })
        .collect();
    let out = match words[0].as_str() {
        "cd" => {
            *cwd = cwd.join(&words[1]);
            return;
        }
        "git" => std::process::Command::new("git")
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
            .current_dir(&*cwd)
            .args(&words[1..])
            .output()
            .expect("run git"),
        "sparks" => command(cwd, home)
            .args(&words[1..])
            .output()
            .expect("run sparks"),
        other => panic!("README's set-up runs {other:?}: only git, sparks and cd are known"),
    };
    assert!(
        out.status.success(),
        "README's `{line}` failed in {}:\n{}{}",
        cwd.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A person's global git configuration in `v`'s HOME: an identity, and `branch` as git's
/// default branch name.
fn person(v: &TestVault, name: &str, branch: &str) {
    for (key, value) in [
        ("user.name", name.to_string()),
        ("user.email", format!("{name}@example.com")),
        ("init.defaultBranch", branch.to_string()),
    ] {
        git(v, v.dir.path(), &["config", "--global", key, &value]);
    }
}

/// README's set-up, run word for word on a new vault by someone whose git names its default
/// branch `master`: the first sync commits and pushes that branch and makes it track the
/// remote's, so plain `git push` and `git pull` work on it; the clone on the other device is
/// the vault, and the two exchange changes both through sync and through plain git.
#[test]
fn the_readme_set_up_works_on_a_new_vault_whatever_the_default_branch() {
    let (first, other) = readme_set_up();
    let a = TestVault::new();
    person(&a, "a", "master");
    let hub = tempfile::tempdir().unwrap();
    let bare = hub.path().join("vault.git");
    git(&a, hub.path(), &["init", "-q", "--bare", "vault.git"]);
    let url = bare.to_str().unwrap();
    let mut cwd = a.root.clone();
    for line in &first {
        run_line(line, &mut cwd, &a.home(), url);
    }
    assert_eq!(
        git(&a, &a.root, &["branch", "--show-current"]).trim(),
        "master"
    );
    assert_eq!(
        git(&a, &a.root, &["status", "-sb"]).lines().next(),
        Some("## master...origin/master"),
        "the branch tracks the remote's and is not ahead of it"
    );
    assert_eq!(
        git(&a, &a.root, &["config", "branch.master.merge"]).trim(),
        "refs/heads/master"
    );
    // The other device.
    let b = TestVault::empty();
    person(&b, "b", "master");
    let mut cwd = b.dir.path().to_path_buf();
    for line in &other {
        run_line(line, &mut cwd, &b.home(), url);
    }
    assert_eq!(cwd, b.root, "the README's clone is where it then works");
    assert_eq!(b.read("sparks.toml"), a.read("sparks.toml"));
    // B captures and syncs; a plain `git pull` on A brings it, with no remote or branch named.
    b.run(&["capture", "from the second device"]).ok();
    b.run(&["sync"]).ok();
    git(&a, &a.root, &["pull", "-q"]);
    assert!(a.read("inbox.md").contains("from the second device"));
    // A commits by hand and pushes with a plain `git push`; B's sync brings it.
    a.page("wiki/concepts/Alpha.md", "Alpha", "From A.");
    git(&a, &a.root, &["add", "-A"]);
    git(&a, &a.root, &["commit", "-qm", "by hand"]);
    git(&a, &a.root, &["push", "-q"]);
    b.run(&["sync"]).ok();
    assert!(b.path("wiki/concepts/Alpha.md").exists());
}

/// A branch with no upstream gets the remote of its first sync as upstream; a remote named for
/// one sync (`--remote`) neither becomes it nor replaces it: later syncs and plain git go on
/// where they went.
#[test]
fn the_first_sync_sets_the_upstream_and_a_named_remote_never_does() {
    let d = Devices::new();
    git(&d.a, &d.a.root, &["branch", "--unset-upstream"]);
    let backup = d.hub.path().join("backup.git");
    git(
        &d.a,
        d.hub.path(),
        &["init", "-q", "--bare", "-b", "main", "backup.git"],
    );
    git(
        &d.a,
        &d.a.root,
        &["remote", "add", "backup", backup.to_str().unwrap()],
    );
    let upstream = |v: &TestVault| {
        git_output(v, &v.root, &["config", "--get-regexp", "^branch\\.main\\."])
            .stdout
            .iter()
            .map(|&b| b as char)
            .collect::<String>()
    };
    d.a.page("wiki/concepts/Alpha.md", "Alpha", "From A.");
    d.a.run(&["sync", "--remote", "backup"]).ok();
    assert_eq!(
        upstream(&d.a),
        "",
        "a remote named for one sync is not the upstream"
    );
    assert_eq!(
        git(&d.a, &backup, &["rev-parse", "main"]),
        git(&d.a, &d.a.root, &["rev-parse", "HEAD"]),
        "pushed to the remote named"
    );
    d.a.page("wiki/concepts/Beta.md", "Beta", "From A.");
    d.a.run(&["sync"]).ok();
    let origin = "branch.main.remote origin\nbranch.main.merge refs/heads/main\n";
    assert_eq!(upstream(&d.a), origin);
    d.a.page("wiki/concepts/Gamma.md", "Gamma", "From A.");
    d.a.run(&["sync", "--remote", "backup"]).ok();
    assert_eq!(upstream(&d.a), origin);
}

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
    insta::allow_duplicates! {
        for handle in runs {
            let (url, took, run, subject) = handle.join().unwrap();
            assert!(took < Duration::from_secs(40), "{url}: {took:?}");
            assert_eq!(run.code, Some(1), "{url}: {run:?}");
            // The error names the remote (its URL stands as `[URL]`) and the timeout; what
            // the transport said of it (`[WHY]`, on one line or several) is its own.
            let said = run.stderr.replace(&url, "[URL]");
            let (error, why) = said.split_once("timed out: ").unwrap_or((&said, ""));
            let hint = why.find("\nhint: ").map_or("", |at| &why[at..]);
            insta::assert_snapshot!(format!("{error}timed out: [WHY]{hint}"), @r"
            error: cannot fetch from origin ([URL]): timed out: [WHY]
            hint: check this device's network and that the remote's host is up; nothing is lost: run `sparks sync` once it answers
            ");
            assert_eq!(
                subject.trim(),
                "sparks sync: changes on this device",
                "{url}"
            );
        }
    }
}

/// A remote that is a path on this disk which is not there (a drive not connected) is said to
/// be that, by libgit2's transfers and the `git` executable's alike, as a path or `file://`.
#[test]
fn a_remote_path_that_does_not_exist_is_said_so() {
    insta::allow_duplicates! {
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
            snapshot!(v, run.stderr, @r"
            error: cannot fetch from origin: the path [TMP]/usb/vault.git does not exist
            hint: connect the disk the remote is on, or point the remote at the repository's path (in git's configuration of this repository)
            ");
        }
    }
}

/// Many objects to move: `n` pages on `v`.
#[cfg(target_os = "linux")]
fn many_pages(v: &TestVault, who: &str, n: usize) {
    for i in 0..n {
        v.page(
            &format!("wiki/concepts/{who} {i}.md"),
            &format!("{who} {i}"),
            &format!("Page {i} of {who}, written on {TODAY}."),
        );
    }
}

/// What a terminal showed of `sparks sync` on `v` ([`terminal`]), the commits it names
/// (abbreviated) standing as `[SHA]`.
#[cfg(target_os = "linux")]
fn shown_sync(v: &TestVault, env: &[(&str, &str)]) -> String {
    let mut shown = terminal(&on_terminal(&v.root, &v.home(), "sync", env));
    for sha in git(v, &v.root, &["log", "--all", "--format=%h", "-10"]).lines() {
        shown = shown.replace(sha, "[SHA]");
    }
    shown
}

/// A long transfer shows its objects moving on a terminal: received by a fetch, sent by a
/// push, through libgit2 and through the `git` executable; never with `--json`.
#[cfg(target_os = "linux")]
#[test]
fn a_transfer_shows_its_progress_on_a_terminal() {
    let d = Devices::new();
    let delay = [("SPARKS_PROGRESS_DELAY_MS", "0")];
    many_pages(&d.a, "A", 300);
    let sync = |v: &TestVault| shown_sync(v, &delay);
    snapshot!(d.a, sync(&d.a), @r"
    [bar] sending: objects …/304
    synced with origin (origin/main, via libgit2)
      committed 300 files on this device ([SHA])
      out: 1 commit pushed
    ");
    snapshot!(d.b, sync(&d.b), @r"
    [bar] receiving: objects …/304
    [bar] reading: files …/300
    [bar] resolving links: targets …/0
    [bar] indexing: files …/300
    synced with origin (origin/main, via libgit2)
      in: 1 commit (fast-forward), 300 files changed
        sparks sync: changes on this device
    ");
    // The same through the `git` executable, on B.
    let config = d.b.read("sparks.toml");
    d.b.write("sparks.toml", format!("{config}\n[sync]\ngit_cli = true\n"));
    many_pages(&d.b, "B", 300);
    snapshot!(d.b, sync(&d.b), @r"
    [bar] sending: objects …/305
    synced with origin (origin/main, via git)
      committed 301 files on this device ([SHA])
      out: 1 commit pushed
    ");
    many_pages(&d.a, "C", 300);
    let shown = on_terminal(&d.a.root, &d.a.home(), "sync --json", &delay);
    assert!(!shown.contains("objects"), "no bar with --json: {shown:?}");
    snapshot!(d.b, sync(&d.b), @r"
    [bar] receiving: objects …/312
    [bar] reading: files …/303
    [bar] resolving links: targets …/904
    [bar] indexing: files …/304
    synced with origin (origin/main, via git)
      in: 2 commits (fast-forward), 303 files changed
        sparks sync: merge origin/main
        sparks sync: changes on this device
    ");
}
