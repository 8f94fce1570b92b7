//! A command that runs for hours gives back what a burst freed, in its own process: the
//! watcher's resident memory after a storm, and nothing of it in the environment of the
//! programs it starts (Linux: `/proc`).

use crate::harness::TestVault;
use crate::view::{Server, fixture, opener};
use crate::watch::{Watch, concept, wait_for};
use serde_json::Value;
use std::time::{Duration, Instant};

/// A page of about 1.2 KB linking another.
fn page(i: usize, to: usize) -> String {
    format!(
        "[[P{to}]] {}",
        "a sentence of several words that fills the page. ".repeat(24)
    ) + &format!("(page {i})")
}

/// `VmRSS` of process `pid`, in KB.
fn rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    // Anonymous memory: what the allocators hold. The binary's own pages (its code, and the
    // embedding model compiled into it, read in as a storm's pages are embedded) are shared,
    // clean and given back by the kernel whenever it needs them.
    let line = status
        .lines()
        .find(|l| l.starts_with("RssAnon:"))
        .expect("an RssAnon line");
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Wait until the watcher has told a change and then nothing for a second.
fn wait_until_quiet(w: &Watch) -> Vec<Value> {
    let mut told = Vec::new();
    wait_for(
        || {
            told.extend(w.applied());
            !told.is_empty()
        },
        "the storm applied",
    );
    let mut quiet_since = Instant::now();
    while quiet_since.elapsed() < Duration::from_secs(1) {
        std::thread::sleep(Duration::from_millis(50));
        let more = w.applied();
        if !more.is_empty() {
            told.extend(more);
            quiet_since = Instant::now();
        }
    }
    told
}

/// After a storm of 3,000 new pages in a new folder (a scan of the whole vault) and a few
/// edits, an idle watcher holds little more anonymous memory than it did after its first scan. Measured in the
/// debug build, 4,000 pages, four runs each: 0.8–2.1 MB more with the give-back (the
/// allocators tuned in process, `src/memory.rs`), 6.7–11.8 MB more without it (neither that
/// nor the restart with variables that came before). The bound, 4.5 MB, is between.
#[test]
fn an_idle_watcher_gives_back_what_a_storm_freed() {
    const PAGES: usize = 4_000;
    const STORM: usize = 3_000;
    let v = TestVault::new();
    for i in 0..PAGES {
        concept(&v, &format!("P{i}"), &page(i, (i * 7) % PAGES));
    }
    v.run(&["scan"]).ok();
    let w = Watch::start(&v, &[]);
    std::thread::sleep(Duration::from_secs(1));
    let started = rss_kb(w.pid());

    for i in 0..STORM {
        v.write(
            &format!("wiki/storm/S{i}.md"),
            format!(
                "---\ntitle: S{i}\ntype: concept\n---\n# S{i}\n\n{}\n",
                page(i, i)
            ),
        );
    }
    wait_until_quiet(&w);
    for i in 0..5 {
        concept(&v, &format!("P{i}"), &format!("edited {}", page(i, i + 1)));
        let path = format!("wiki/concepts/P{i}.md");
        let mut told = Vec::new();
        wait_for(
            || {
                told.extend(w.applied());
                told.iter().any(|a| a["paths"].to_string().contains(&path))
            },
            "an edit applied",
        );
    }
    std::thread::sleep(Duration::from_secs(1));
    let idle = rss_kb(w.pid());
    let grown = idle.saturating_sub(started);
    assert!(
        grown < 4_608,
        "idling {idle} KB after the storm, {started} KB after the first scan: {grown} KB kept"
    );
}

/// Sparks sets no allocator variable for the programs it starts: the browser `view --open`
/// starts sees the environment the user gave, a `GLIBC_TUNABLES` of the user's as it was and
/// no `MIMALLOC_PURGE_DELAY`.
#[test]
fn a_program_the_viewer_starts_inherits_no_allocator_setting() {
    let v = fixture();
    let record = v.dir.path().join("environment.txt");
    let bin = opener(
        &v,
        &format!("env > '{}.part'\nmv '{0}.part' '{0}'", record.display()),
    );
    for tunables in [None, Some("glibc.malloc.check=0")] {
        let _ = std::fs::remove_file(&record);
        let mut cmd = v.cmd(&["view", "--addr", "127.0.0.1:0", "--open"]);
        cmd.env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .env_remove("MIMALLOC_PURGE_DELAY")
            .env_remove("GLIBC_TUNABLES");
        if let Some(t) = tunables {
            cmd.env("GLIBC_TUNABLES", t);
        }
        let s = Server::spawn(cmd);
        wait_for(|| record.exists(), "the opener to record its environment");
        let seen = std::fs::read_to_string(&record).unwrap();
        drop(s);
        let allocators: Vec<&str> = seen
            .lines()
            .filter(|l| l.starts_with("MIMALLOC_") || l.starts_with("GLIBC_TUNABLES="))
            .collect();
        let want: Vec<String> = tunables
            .map(|t| format!("GLIBC_TUNABLES={t}"))
            .into_iter()
            .collect();
        assert_eq!(allocators, want, "the user set {tunables:?}");
    }
}
