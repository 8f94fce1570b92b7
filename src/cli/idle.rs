//! A command that runs for hours (`watch`, `serve`, `view`) gives freed memory back while it
//! idles.
//!
//! The binary's allocator (mimalloc, chosen in `main.rs`) returns the pages a burst freed to the
//! system only at its next call after a delay: a watcher that applied a burst and then waits for
//! the next event makes no call, and kept them (at 100,000 pages it idled at 86 MB after its
//! first scan, against 36 MB with the delay at zero; BENCHMARKS "The watcher's memory"). The
//! allocator reads the delay from the environment when the process starts, and setting it from
//! Rust would need unsafe code, which this crate forbids. So a long-running command that finds
//! the variable unset starts itself again with it set, once: the same process (an `exec` keeps
//! its id, its arguments, its standard streams and its parent), before it has done anything. A
//! variable the user set is left as it is.

/// The allocator's option: how long (ms) freed memory waits before it goes back to the system.
pub const PURGE_DELAY: &str = "MIMALLOC_PURGE_DELAY";

/// Start this process again with [`PURGE_DELAY`] at zero, unless it is set. Returns only when
/// it is set already or the new start failed (the command then runs as it is).
pub fn give_back_freed_memory() {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        if std::env::var_os(PURGE_DELAY).is_some() {
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
        // `exec` returns only if it failed (the binary deleted or replaced since it started).
        let _ = again.args(args).env(PURGE_DELAY, "0").exec();
    }
}
