//! A command that runs for hours (`watch`, `serve`, `view`) gives freed memory back while it
//! idles.
//!
//! Two allocators keep what a burst freed. The binary's own (mimalloc, chosen in `main.rs`)
//! returns pages to the system only at its next call after a delay: a watcher that applied a
//! burst and waits for the next event makes no call, and kept them (at 100,000 pages it idled
//! at 86 MB after its first scan, against 36 MB with the delay at zero). The C allocator, which
//! SQLite's page cache comes from, gives each thread that allocates an arena of its own: the
//! first scan's cache stayed in one and each later burst's filled another (17 MB each after a
//! storm of 1,500 pages; 57 MB idling, 40 MB with one arena; BENCHMARKS "The watcher's memory").
//! Both read their settings from the environment when the process starts, and setting them from
//! Rust would need unsafe code, which this crate forbids. So a long-running command that finds
//! them unset starts itself again with them set, once: the same process (an `exec` keeps its
//! id, its arguments, its standard streams and its parent), before it has done anything: 6–9 ms
//! more at start (an MCP client's first answer), once per process that runs for hours. What
//! the user set is left as it is; elsewhere than glibc the second is ignored. A program the
//! command starts (git, a browser for `view --open`) inherits both, to no harm: they tune only
//! when memory goes back, never what a program computes.

/// The settings, each with the value a long-running command gives it when unset: mimalloc's
/// delay (ms) before freed memory goes back to the system, and glibc's arenas (one, shared).
/// Unix only: Windows has no `exec` that keeps the process (its id, its console), so there a
/// long-running command keeps what mimalloc holds until its next allocation gives it back.
#[cfg(unix)]
pub const SETTINGS: [(&str, &str); 2] = [
    ("MIMALLOC_PURGE_DELAY", "0"),
    ("GLIBC_TUNABLES", "glibc.malloc.arena_max=1"),
];

/// Start this process again with the [`SETTINGS`] it lacks. Returns only when it lacks none,
/// or the new start failed (the command then runs as it is).
pub fn give_back_freed_memory() {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let missing: Vec<_> = SETTINGS
            .iter()
            .filter(|(name, _)| std::env::var_os(name).is_none())
            .collect();
        if missing.is_empty() {
            return;
        }
        let Ok(exe) = std::env::current_exe() else {
            return;
        };
        let mut args = std::env::args_os();
        let mut again = std::process::Command::new(exe);
        if let Some(name) = args.next() {
            again.arg0(name);
        }
        again.args(args);
        for (name, value) in missing {
            again.env(name, value);
        }
        // `exec` returns only if it failed (the binary deleted or replaced since it started).
        let _ = again.exec();
    }
}
