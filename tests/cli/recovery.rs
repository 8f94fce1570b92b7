//! What a killed or interrupted Sparks leaves behind, and how the next run deals with it: git's
//! lock files from a commit it was making, the staged files of its atomic writes; Ctrl-C and
//! SIGTERM during a command (and during `serve` and `view`, which end cleanly). The records of
//! unfinished operations outliving the manifest are tested with each operation's faults
//! (`faults.rs`, `fault_matrix.rs`, `provenance.rs`).

use crate::harness::{TestVault, git, sealed_record};
#[cfg(unix)]
use std::io::{BufRead, BufReader};
use std::path::Path;
#[cfg(unix)]
use std::process::{Child, Stdio};
use std::time::{Duration, SystemTime};

/// A git vault with an ingest open and the agent's page written: finalize's commit is next.
fn ready_to_commit() -> TestVault {
    let v = TestVault::new();
    crate::harness::commit_all(&v);
    v.capture(&["2026-04-10\nalpha", "2026-04-11\nbravo"]);
    v.run(&["ingest", "--prepare"]).ok();
    v.page(
        "wiki/concepts/Alpha.md",
        "Alpha",
        "From the inbox. Two. Three.",
    );
    v
}

fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .expect("the clock")
        .as_nanos()
}

/// What a Sparks killed inside libgit2's commit leaves: its record of the commit, naming a
/// process (`owner`) and when it started, and git's lock files from that moment.
fn leave_a_killed_commit(v: &TestVault, owner: &str, started_ns: u128, locks: &[&str]) {
    std::fs::create_dir_all(v.path(".sparks")).expect(".sparks");
    let record = format!(r#"{{"owner":"{owner}","pid":4242,"started_ns":{started_ns}}}"#);
    std::fs::write(
        v.path(".sparks/commit.json"),
        sealed_record(v, "commit.json", &record),
    )
    .expect("commit.json");
    for lock in locks {
        std::fs::write(v.path(lock), "").expect("a lock file");
    }
}

fn branch(v: &TestVault) -> String {
    git(v, &v.root, &["symbolic-ref", "--short", "HEAD"])
        .trim()
        .to_string()
}

#[test]
fn lock_files_a_killed_sparks_commit_left_are_cleared_and_the_commit_made() {
    let v = ready_to_commit();
    let ref_lock = format!(".git/refs/heads/{}.lock", branch(&v));
    leave_a_killed_commit(&v, "4242xgone", now_ns(), &[".git/index.lock", &ref_lock]);
    let f = v.run(&["ingest", "--finalize", "--json"]).ok().json();
    assert!(f["commit"].is_string(), "{f}");
    for lock in [".git/index.lock", ref_lock.as_str()] {
        assert!(!v.path(lock).exists(), "{lock} is cleared");
    }
    assert!(!v.path(".sparks/commit.json").exists(), "the record goes");
    assert_eq!(git(&v, &v.root, &["status", "--porcelain"]), "");
    let subject = git(&v, &v.root, &["log", "-1", "--format=%s"]);
    assert_eq!(subject.trim(), "ingest: 2 entries");
}

/// A lock file nothing proves a killed Sparks left (no record; a record of a process still
/// alive; a file older than the recorded commit) is another program's: finalize stops naming
/// it, stays resumable, and completes once it is gone.
#[test]
fn a_lock_file_no_killed_sparks_commit_accounts_for_is_named_and_finalize_resumes() {
    let cases: [(&str, Option<(&str, u128)>); 3] = [
        ("no record", None),
        ("a living owner", Some(("7xliving", now_ns()))),
        (
            "an older file",
            Some(("4242xgone", now_ns() + 3_600_000_000_000)),
        ),
    ];
    for (case, record) in cases {
        let v = ready_to_commit();
        // The test process holds the life lock, as a Sparks at work does.
        let _held = record.filter(|(o, _)| *o == "7xliving").map(|_| {
            std::fs::create_dir_all(v.path(".sparks/live")).expect("live");
            let f = std::fs::File::create(v.path(".sparks/live/7xliving")).expect("a life");
            f.lock().expect("its lock");
            f
        });
        match record {
            Some((owner, at)) => leave_a_killed_commit(&v, owner, at, &[".git/index.lock"]),
            None => leave_a_killed_commit(&v, "", 0, &[".git/index.lock"]),
        }
        if record.is_none() {
            std::fs::remove_file(v.path(".sparks/commit.json")).expect("no record");
        }
        let r = v.run(&["ingest", "--finalize"]).code(1);
        assert!(
            r.stderr
                .contains("git's lock file .git/index.lock is in the way"),
            "{case}: {}",
            r.stderr
        );
        assert!(
            r.stderr
                .contains("remove that lock file and run the command again"),
            "{case}: {}",
            r.stderr
        );
        assert!(v.path(".git/index.lock").exists(), "{case}: left alone");
        let open = v.run(&["ingest", "--status"]).ok().json();
        assert_eq!(open["step"], "regen", "{case}: resumable: {open}");
        std::fs::remove_file(v.path(".git/index.lock")).expect("the user removes it");
        let f = v.run(&["ingest", "--finalize", "--json"]).ok().json();
        assert_eq!(
            (f["resumed"].clone(), f["archived"].clone()),
            (true.into(), 2.into())
        );
        assert!(f["commit"].is_string(), "{case}: {f}");
    }
}

/// A lock file in a repository above the vault is named as the user finds it from the vault.
#[test]
fn a_lock_file_above_the_vault_is_named_from_the_vault() {
    let v = TestVault::new();
    let top = v.dir.path();
    git(&v, top, &["init", "-q"]);
    git(&v, top, &["config", "user.name", "Test"]);
    git(&v, top, &["config", "user.email", "test@example.com"]);
    v.capture(&["a capture"]);
    v.run(&["ingest", "--prepare"]).ok();
    std::fs::write(top.join(".git/index.lock"), "").expect("lock");
    let r = v.run(&["ingest", "--finalize"]).code(1);
    assert!(
        r.stderr.contains("git's lock file ../.git/index.lock"),
        "{}",
        r.stderr
    );
}

fn staged(dir: &Path, name: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, "half a page").expect("a staged file");
    p
}

/// Staged files (`.sparks-<tag>-XXXXXX.tmp`) of a process that is gone are swept by the next
/// scan; those of a process at work (its life lock held), and young ones without a tag, stay.
/// None is ever a vault file.
#[test]
fn staged_files_of_a_dead_sparks_are_swept_and_a_living_one_s_kept() {
    let v = TestVault::new();
    v.page("wiki/concepts/A.md", "A", "Alpha. Two. Three.");
    let dir = v.path("wiki/concepts");
    let dead = staged(&dir, ".sparks-4242xgone-abcdef.tmp");
    let living = staged(&dir, ".sparks-7xliving-ghijkl.tmp");
    let young = staged(&dir, ".sparks-mnopqr.tmp");
    let old = staged(&v.root, ".sparks-stuvwx.tmp");
    let two_hours_ago = SystemTime::now() - Duration::from_secs(2 * 3600);
    std::fs::File::options()
        .write(true)
        .open(&old)
        .expect("open")
        .set_modified(two_hours_ago)
        .expect("age it");
    std::fs::create_dir_all(v.path(".sparks/live")).expect("live");
    let life = std::fs::File::create(v.path(".sparks/live/7xliving")).expect("a life");
    life.lock().expect("its lock");

    let scan = v.run(&["scan", "--json"]).ok().json();
    assert!(!dead.exists(), "a dead process's staged file is swept");
    assert!(!old.exists(), "an old untagged one is swept");
    assert!(living.exists(), "a living process's is kept");
    assert!(young.exists(), "a young untagged one is kept");
    let files = v.run(&["status", "--json"]).ok().json()["files"]["tracked"].clone();
    let listed = crate::harness::rows(&v, "SELECT path FROM files WHERE path LIKE '%.tmp'");
    assert!(listed.is_empty(), "{listed:?} (scan: {scan})");
    assert!(files.as_u64().is_some_and(|n| n > 0));

    // A command that writes in the directory sweeps it too once the writer is gone.
    drop(life);
    v.run(&["mv", "A", "Alpha"]).ok();
    assert!(!living.exists(), "swept once its writer is gone");
}

/// Spawn `args` paused after `step` (the fault hook's pause mode), and wait until it says so.
#[cfg(unix)]
fn paused_at(v: &TestVault, args: &[&str], step: &str) -> (Child, std::thread::JoinHandle<String>) {
    let mut child = v
        .cmd(args)
        .env("SPARKS_FAULT_AT", step)
        .env("SPARKS_FAULT_MODE", "pause")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sparks");
    let (tx, rx) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.starts_with("sparks: paused after step") {
                let _ = tx.send(());
            }
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    rx.recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("{args:?} never paused at {step}"));
    (child, reader)
}

#[cfg(unix)]
fn signal(child: &Child, name: &str) {
    let sent = std::process::Command::new("kill")
        .args([format!("-{name}"), child.id().to_string()])
        .status()
        .expect("kill");
    assert!(sent.success());
}

/// How `child` ended (its exit code; `None` when a signal ended it). Unlike
/// `harness::finish`, it keeps the child's stdin open while it waits: `serve` must end on the
/// signal, not on its client going away.
#[cfg(unix)]
fn ended(mut child: Child) -> Option<i32> {
    let started = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status.code();
        }
        assert!(started.elapsed() < Duration::from_secs(60), "still running");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_during_a_command_says_what_stopped_and_what_resumes_it() {
    let v = TestVault::new();
    v.page("wiki/concepts/A.md", "A", "Alpha. Two. Three.")
        .page("wiki/concepts/B.md", "B", "Links [[A]].");
    let (child, stderr) = paused_at(&v, &["mv", "A", "Apple"], "mv.scan");
    signal(&child, "INT");
    assert_eq!(ended(child), Some(130));
    let said = stderr.join().expect("stderr");
    assert!(
        said.contains(
            "`sparks mv A Apple` stopped (SIGINT) after write; run `sparks mv A Apple` again to \
             complete it"
        ),
        "{said}"
    );
    let done = v.run(&["mv", "A", "Apple", "--json"]).ok().json();
    assert_eq!(done["resumed"], true, "{done}");
    assert!(v.read("wiki/concepts/B.md").contains("[[Apple]]"));

    v.capture(&["one", "two"]);
    v.run(&["ingest", "--prepare"]).ok();
    let (child, stderr) = paused_at(&v, &["ingest", "--finalize"], "finalize.inbox");
    signal(&child, "TERM");
    assert_eq!(ended(child), Some(143));
    let said = stderr.join().expect("stderr");
    assert!(
        said.contains(
            "finalize of ingest 1 stopped (SIGTERM) after archive; run `sparks ingest \
             --finalize` again to complete it"
        ),
        "{said}"
    );
    v.run(&["ingest", "--finalize"]).ok();

    // A command with no record to resume says that nothing is half-written.
    let (child, stderr) = paused_at(
        &v,
        &["tasks", "add", "--section", "S", "--text", "t"],
        "tasks.write",
    );
    signal(&child, "INT");
    assert_eq!(ended(child), Some(130));
    let said = stderr.join().expect("stderr");
    assert!(
        said.contains(
            "`sparks tasks add --section S --text t` stopped (SIGINT); nothing is left half-written"
        ),
        "{said}"
    );
}

/// `serve` ends cleanly (exit 0) when asked to stop, before a client said hello or while one
/// is connected (`view` is tested in `view.rs`).
#[cfg(unix)]
#[test]
fn serve_ends_cleanly_when_asked_to_stop() {
    let v = TestVault::new();
    for name in ["TERM", "INT"] {
        let serve = v
            .cmd(&["serve"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("serve");
        std::thread::sleep(Duration::from_millis(300));
        signal(&serve, name);
        // Its stdin stays open (the client has not gone away) until `ended` lets go of it.
        assert_eq!(ended(serve), Some(0), "serve on SIG{name}");
    }
}
