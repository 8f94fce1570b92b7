//! Fresh answers: read commands see files written by hand without a scan (`--no-refresh`
//! opts out), and `sparks watch` keeps the manifest current so that they need none.

use crate::harness::TestVault;
use crate::snapshot;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// A hand-written concept page (no scan follows it).
pub(crate) fn concept(v: &TestVault, name: &str, body: &str) {
    v.write(
        &format!("wiki/concepts/{name}.md"),
        format!(
            "---\ntitle: {name}\ntype: concept\nmaturity: seed\nsources: [raw/inbox/2026-05-01.md]\n\
             created: 2026-05-01\nupdated: 2026-05-01\n---\n# {name}\n\n{body}\n"
        ),
    );
}

/// The concept pages `query` lists.
fn concepts(v: &TestVault, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["query", "--type", "concept", "--json"];
    args.extend_from_slice(extra);
    let out = v.run(&args).ok().json();
    let mut names: Vec<String> = out["pages"]
        .as_array()
        .unwrap_or_else(|| panic!("query results: {out}"))
        .iter()
        .map(|r| r["path"].as_str().unwrap_or_default().to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn every_read_command_sees_a_page_written_by_hand_and_no_refresh_does_not() {
    let v = TestVault::new();
    v.run(&["scan"]).ok();
    concept(
        &v,
        "Handmade",
        "A page nobody scanned. It has three sentences. Here is one.",
    );
    v.write(
        "wiki/collections/Tasks.md",
        format!(
            "{}- [ ] water the handmade plants\n",
            v.read("wiki/collections/Tasks.md")
        ),
    );

    // --no-refresh: the manifest as the last scan left it.
    assert_eq!(concepts(&v, &["--no-refresh"]), Vec::<String>::new());
    let status = v.run(&["status", "--json", "--no-refresh"]).ok().json();
    assert_eq!(status["pages_by_type"]["concept"], Value::Null, "{status}");
    let hits = v
        .run(&["search", "nobody", "--json", "--no-refresh"])
        .ok()
        .json();
    assert_eq!(hits["total"], 0, "{hits}");

    // Every read command sees it.
    assert_eq!(concepts(&v, &[]), ["wiki/concepts/Handmade.md"]);
    let v2 = TestVault::new();
    v2.run(&["scan"]).ok();
    concept(
        &v2,
        "Handmade",
        "A page nobody scanned. It has three sentences. Here is one.",
    );
    let status = v2.run(&["status", "--json"]).ok().json();
    assert_eq!(status["pages_by_type"]["concept"], 1, "{status}");
    let v3 = TestVault::new();
    v3.run(&["scan"]).ok();
    concept(
        &v3,
        "Handmade",
        "A page nobody scanned. It has three sentences. Here is one.",
    );
    let hits = v3.run(&["search", "nobody", "--json"]).ok().json();
    assert_eq!(hits["total"], 1, "{hits}");
    // An orphan now: lint sees the page.
    let lint = v.run(&["lint", "--json"]).code(1).json();
    assert!(
        lint.to_string().contains("wiki/concepts/Handmade.md"),
        "lint sees the page: {lint}"
    );
    let brief = v.run(&["brief", "--json"]).ok().json();
    assert!(
        brief.to_string().contains("Handmade"),
        "brief sees the page: {brief}"
    );
    // fmt and tasks read the files themselves.
    let tasks = v.run(&["tasks", "list", "--json"]).ok().json();
    assert!(
        tasks.to_string().contains("water the handmade plants"),
        "{tasks}"
    );
    v.write(
        "wiki/concepts/Broken.md",
        "---\ntitle: Broken\n---\n# Broken\n",
    );
    let fmt = v.run(&["fmt", "--check", "--json"]).code(1).json();
    assert!(fmt.to_string().contains("wiki/concepts/Broken.md"), "{fmt}");
}

/// A running `sparks watch --json`, its stdout read line by line.
pub(crate) struct Watch {
    child: Child,
    lines: Receiver<String>,
}

impl Watch {
    pub(crate) fn start(v: &TestVault, extra: &[&str]) -> Watch {
        let mut args = vec!["watch", "--json"];
        args.extend_from_slice(extra);
        let mut child = v
            .cmd(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start sparks watch");
        let out = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let w = Watch { child, lines };
        wait_for(
            || status(v)["watch"]["since"].is_string(),
            "the watcher to start",
        );
        w
    }

    #[cfg(unix)]
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The changes applied so far (one JSON object a line).
    pub(crate) fn applied(&self) -> Vec<Value> {
        self.lines
            .try_iter()
            .map(|l| serde_json::from_str(&l).unwrap_or_else(|e| panic!("a JSON line ({e}): {l}")))
            .collect()
    }

    #[cfg(unix)]
    fn signal(&self, signal: &str) {
        let ok = std::process::Command::new("kill")
            .args([signal, &self.pid().to_string()])
            .status()
            .expect("kill")
            .success();
        assert!(ok, "kill {signal}");
    }

    /// Stop it with `signal` and return its exit code and stderr.
    #[cfg(unix)]
    fn stop(mut self, signal: &str) -> (Option<i32>, String) {
        self.signal(signal);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                let mut err = String::new();
                if let Some(mut e) = self.child.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut e, &mut err);
                }
                return (status.code(), err);
            }
            assert!(Instant::now() < deadline, "the watcher did not stop");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn status(v: &TestVault) -> Value {
    v.run(&["status", "--json", "--no-refresh"]).ok().json()
}

#[track_caller]
pub(crate) fn wait_for(mut done: impl FnMut() -> bool, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

#[cfg(unix)]
#[test]
fn a_watcher_starts_says_so_in_status_stops_on_a_signal_and_is_one_per_vault() {
    let v = TestVault::new();
    assert_eq!(
        status(&v)["watch"],
        serde_json::json!({"running": false, "pid": null, "since": null, "last_event": null, "mode": null})
    );
    let text = v.run(&["status"]).ok().stdout;
    assert!(text.contains("watch: not running"), "{text}");
    let w = Watch::start(&v, &[]);
    let s = status(&v);
    assert_eq!(s["watch"]["running"], true);
    assert_eq!(s["watch"]["pid"], w.pid());
    assert_eq!(s["watch"]["mode"], "native");
    assert_eq!(s["watch"]["last_event"], Value::Null);
    let second = v.run(&["watch"]).code(1);
    assert!(
        second.stderr.contains(&format!("pid {}", w.pid())),
        "the second names the first: {}",
        second.stderr
    );
    concept(&v, "Seen", "Seen by the watcher.");
    wait_for(|| !w.applied().is_empty(), "a change applied");
    let s = status(&v);
    assert!(s["watch"]["last_event"].is_string(), "{s}");
    let text = v.run(&["status", "--no-refresh"]).ok().stdout;
    // The watcher's pid stands as `[PID]`.
    let text = text.replace(&format!("pid {}", w.pid()), "pid [PID]");
    snapshot!(v, text, @r"
    vault: vault ([VAULT])
    schema: v18
    pages: 0 entities, 1 concept, 0 summaries, 0 syntheses, 3 collections
    inbox: 0 entries pending
    manifest: 6 files tracked, 6 changed since last ingest, 0 deleted
    last scan: [TIME]
    watch: running (pid [PID], since [TIME], last change applied [TIME], native)
    ");
    let (code, _) = w.stop("-INT");
    assert_eq!(code, Some(0), "SIGINT ends it cleanly");
    assert_eq!(status(&v)["watch"]["running"], false);
    assert!(!v.path(".sparks/watch.json").exists());
    let w = Watch::start(&v, &[]);
    let (code, _) = w.stop("-TERM");
    assert_eq!(code, Some(0), "SIGTERM too");
}

#[test]
fn a_vouching_watcher_spares_the_scan_and_never_answers_stale() {
    let v = TestVault::new();
    let w = Watch::start(&v, &[]);
    let scanned = status(&v)["last_scan"].clone();
    assert!(scanned.is_string(), "the watcher's first scan");
    // Written and read at once, many times: the reader's cookie comes after the write, so the
    // watcher has applied it before it vouches.
    for i in 0..15 {
        let name = format!("Quick{i}");
        concept(&v, &name, "Read at once.");
        let found = v.run(&["query", "--resolve", &name, "--json"]).ok().json();
        assert_eq!(
            found["resolves_to"],
            format!("wiki/concepts/{name}.md"),
            "round {i}: {found}"
        );
    }
    // No command scanned by itself: the last full scan is still the watcher's first.
    std::thread::sleep(Duration::from_millis(1100));
    v.run(&["status"]).ok();
    assert_eq!(status(&v)["last_scan"], scanned);
    // Without the watcher, a read command scans.
    drop(w);
    std::thread::sleep(Duration::from_millis(1100));
    v.run(&["status"]).ok();
    assert_ne!(status(&v)["last_scan"], scanned);
}

#[cfg(unix)]
#[test]
fn a_killed_watcher_is_never_believed() {
    let v = TestVault::new();
    let w = Watch::start(&v, &[]);
    w.signal("-KILL");
    wait_for(
        || !status(&v)["watch"]["running"].as_bool().unwrap_or(true),
        "the lock to go",
    );
    concept(&v, "AfterDeath", "Written after the watcher died.");
    assert_eq!(concepts(&v, &[]), ["wiki/concepts/AfterDeath.md"]);
    // Its account is still on disk; the lock says it is gone.
    assert!(v.path(".sparks/watch.json").exists());
    assert_eq!(status(&v)["watch"]["pid"], Value::Null);
}

#[test]
fn directories_deleted_and_made_again_and_a_storm_of_files_are_followed() {
    let v = TestVault::new();
    concept(&v, "Before", "Here before.");
    let w = Watch::start(&v, &[]);
    assert_eq!(concepts(&v, &["--no-refresh"]), ["wiki/concepts/Before.md"]);
    std::fs::remove_dir_all(v.path("wiki/concepts")).unwrap();
    wait_for(
        || concepts(&v, &["--no-refresh"]).is_empty(),
        "the deletion",
    );
    std::fs::remove_dir_all(v.path("wiki")).unwrap();
    std::fs::create_dir_all(v.path("wiki/concepts")).unwrap();
    concept(&v, "Again", "In a directory made again.");
    wait_for(
        || concepts(&v, &["--no-refresh"]) == ["wiki/concepts/Again.md"],
        "the page in the re-created directory",
    );
    // A directory made with files in it at once (as a checkout makes them).
    let staged = v.dir.path().join("staged");
    std::fs::create_dir_all(staged.join("deep")).unwrap();
    std::fs::write(
        staged.join("deep/Moved.md"),
        "---\ntitle: Moved\ntype: concept\n---\n# Moved\n",
    )
    .unwrap();
    std::fs::rename(&staged, v.path("wiki/moved-in")).unwrap();
    wait_for(
        || concepts(&v, &["--no-refresh"]).contains(&"wiki/moved-in/deep/Moved.md".to_string()),
        "a directory moved in",
    );
    let _ = w.applied();
    // A storm: 1,500 pages at once are a few bursts, not 1,500 lines.
    let started = Instant::now();
    for i in 0..1500 {
        std::fs::write(
            v.path(&format!("wiki/concepts/Storm{i:04}.md")),
            format!("---\ntitle: Storm{i:04}\ntype: concept\n---\n# Storm {i}\n"),
        )
        .unwrap();
    }
    let storm = || {
        v.run(&[
            "query",
            "--type",
            "concept",
            "--json",
            "--no-refresh",
            "--limit",
            "5",
        ])
        .ok()
        .json()["total"]
            .as_u64()
            .unwrap_or(0)
    };
    wait_for(|| storm() >= 1502, "the storm to settle");
    let settled = started.elapsed();
    // The manifest is committed before the burst's line is printed: the
    // last line may still be on its way when the query sees the pages.
    let named = |bursts: &[Value]| -> usize {
        bursts
            .iter()
            .map(|b| b["paths"].as_array().map_or(0, Vec::len))
            .sum()
    };
    let mut bursts = Vec::new();
    wait_for(
        || {
            bursts.extend(w.applied());
            named(&bursts) >= 1500 || bursts.iter().any(|b| b["more"] == true)
        },
        "the storm's lines",
    );
    assert!(
        bursts.len() <= 40,
        "{} lines for 1,500 files (settled in {settled:?})",
        bursts.len()
    );
}

#[test]
fn what_changed_before_the_watcher_started_is_told_as_one_change() {
    let v = TestVault::new();
    v.run(&["scan"]).ok();
    concept(&v, "Early", "Written before the watcher.");
    let w = Watch::start(&v, &[]);
    let mut told = Vec::new();
    wait_for(
        || {
            told.extend(w.applied());
            !told.is_empty()
        },
        "the first scan's change told",
    );
    let first = &told[0];
    assert_eq!(first["seq"], 1, "{first}");
    assert_eq!(
        first["paths"],
        serde_json::json!(["wiki/concepts/Early.md"]),
        "{first}"
    );
    assert!(status(&v)["watch"]["last_event"].is_string());
}

#[cfg(target_os = "linux")]
#[test]
fn an_idle_watcher_costs_no_cpu() {
    let v = TestVault::new();
    for i in 0..200 {
        concept(&v, &format!("Idle{i}"), "Idle.");
    }
    v.run(&["scan"]).ok();
    let w = Watch::start(&v, &[]);
    std::thread::sleep(Duration::from_millis(300));
    let before = cpu_ticks(w.pid());
    std::thread::sleep(Duration::from_secs(5));
    let used = cpu_ticks(w.pid()) - before;
    // Clock ticks are hundredths of a second: under 0.05 s over 5 s.
    assert!(used < 5, "{used} ticks of CPU over 5 s of idling");
    assert!(w.applied().is_empty(), "nothing changed, nothing applied");
}

/// User and system CPU time of a process, in clock ticks (`/proc/PID/stat`, fields 14 and 15).
#[cfg(target_os = "linux")]
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc stat");
    // The command name (field 2) may hold spaces: count from after its closing parenthesis.
    let rest = &stat[stat.rfind(')').expect("a comm field") + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

#[cfg(unix)]
#[test]
fn polling_keeps_the_manifest_current_and_vouches_for_nothing() {
    let v = TestVault::new();
    let w = Watch::start(&v, &["--poll"]);
    assert_eq!(status(&v)["watch"]["mode"], "polling");
    concept(&v, "Polled", "Found by a scan at an interval.");
    wait_for(
        || concepts(&v, &["--no-refresh"]) == ["wiki/concepts/Polled.md"],
        "the polling scan",
    );
    // A polling watcher vouches for nothing: a reader scans by itself and still sees a page.
    concept(&v, "Unpolled", "Read before the next poll.");
    assert!(concepts(&v, &[]).contains(&"wiki/concepts/Unpolled.md".to_string()));
    let (code, _) = w.stop("-INT");
    assert_eq!(code, Some(0));
}

#[cfg(unix)]
#[test]
fn serve_watches_the_vault_for_its_lifetime_unless_told_not_to() {
    let v = TestVault::new();
    let serve = |extra: &[&str]| {
        let mut args = vec!["serve"];
        args.extend_from_slice(extra);
        v.cmd(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start sparks serve")
    };
    let mut child = serve(&[]);
    let pid = child.id();
    wait_for(
        || status(&v)["watch"]["pid"] == pid && status(&v)["watch"]["since"].is_string(),
        "serve's watcher",
    );
    concept(&v, "ServedLate", "Written while serve watches.");
    wait_for(
        || concepts(&v, &["--no-refresh"]) == ["wiki/concepts/ServedLate.md"],
        "serve's watcher to apply the page",
    );
    // A second front end relies on the running watcher instead of starting one.
    let mut view = v
        .cmd(&["view", "--addr", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start sparks view");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(status(&v)["watch"]["pid"], pid, "still serve's watcher");
    let _ = view.kill();
    let _ = view.wait();
    std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill");
    // Its stdin stays open (`wait` would close it first: a client gone before it said hello).
    let _stdin = child.stdin.take();
    let deadline = Instant::now() + Duration::from_secs(10);
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code();
        }
        assert!(Instant::now() < deadline, "serve did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(code, Some(0), "SIGTERM ends serve cleanly");
    assert_eq!(status(&v)["watch"]["running"], false);

    let mut child = serve(&["--no-watch"]);
    std::thread::sleep(Duration::from_millis(700));
    assert_eq!(status(&v)["watch"]["running"], false, "--no-watch");
    let _ = child.kill();
    let _ = child.wait();
}
