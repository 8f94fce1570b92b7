//! A command that runs for hours (`watch`, `serve`, `view`) gives back to the system what a
//! burst of work freed, in this process: the one module that calls the allocators' C
//! functions, and so the one module where unsafe code is allowed (`tests/architecture.rs`
//! fails if another file allows it).
//!
//! Two allocators keep what a burst freed. The binary's own (mimalloc, chosen in `main.rs`)
//! returns pages to the system only at its next call after a delay (10 ms): a watcher that
//! applied a burst and waits for the next event makes no call, and kept them (at 100,000
//! pages it idled at 86 MB after its first scan, against 36 MB with the delay at zero).
//! [`for_long_running`] sets that delay to zero. The C allocator, which SQLite's page cache
//! comes from, gives each thread that allocates an arena of its own: the first scan's cache
//! stayed in one and each later burst's filled another (17 MB each after a storm of 1,500
//! pages: 57 MB idling, 40 MB with one arena; BENCHMARKS.md "The watcher's memory"), and
//! keeps freed pages below its top. On glibc, [`for_long_running`] gives every thread the one
//! arena and [`give_back`], called after each burst the watcher applies, returns the free
//! pages of it.
//!
//! Nothing goes through the environment: a program the command starts (git, a browser for
//! `view --open`) runs with the allocators' defaults, and a user's own `GLIBC_TUNABLES`
//! (another tunable) changes nothing here. mimalloc's own variable, `MIMALLOC_PURGE_DELAY`,
//! is obeyed when the user sets it. A short command (lint, scan) keeps the allocators'
//! defaults: it exits before the memory would matter, and a delay spares it work; a publish of
//! a large site, which holds hundreds of megabytes while a page of megabytes frees and makes as
//! much again, gives back at once ([`give_back_at_once`]).

#![allow(unsafe_code)]

/// mimalloc's option `mi_option_purge_delay`: its place in `mi_option_e` (`mimalloc.h`, v2),
/// which libmimalloc-sys names only by its legacy neighbours.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Tune this process's allocators for a command that runs for hours. Call it once, at start,
/// before any thread is spawned (glibc fixes a thread's arena when the thread first allocates).
pub fn for_long_running() {
    give_back_at_once();
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `mallopt` takes two integers and changes glibc's malloc parameters under
        // its own lock; M_ARENA_MAX is one of them (since glibc 2.10), 1 a valid value. It
        // returns 0 on a failure, which leaves the defaults: nothing to undo.
        unsafe { libc::mallopt(libc::M_ARENA_MAX, 1) };
    }
}

/// Have mimalloc return what this process frees at once, not after its delay (unless
/// `MIMALLOC_PURGE_DELAY` says otherwise): for a command that runs for hours, or one that holds
/// hundreds of megabytes while it frees and makes as much again (a publish of a large site:
/// 349 → 299 MB at 100,000 pages). Any time, from any thread.
pub fn give_back_at_once() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: `mi_option_set` writes one integer of mimalloc's option table (an atomic
        // store); any option number below `_mi_option_last` is valid, and 15 is the purge
        // delay (the unit test below reads its default).
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0) };
    }
}

/// Return to the system what the C allocator holds free (SQLite's page cache of a burst's
/// connection, closed). Cheap when there is little: call it after each burst of work.
pub fn give_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `malloc_trim` takes an integer (the bytes to keep at the heap's top) and
        // walks each arena under its lock, releasing whole free pages; it touches no memory of
        // ours and is safe from any thread.
        unsafe { libc::malloc_trim(0) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_purge_delay_is_the_option_of_that_number() {
        // Its default is 10 ms, unless the variable says otherwise; no neighbour of 15 in
        // `mi_option_e` defaults to 10 but `arena_purge_mult`, far from it.
        let want = std::env::var("MIMALLOC_PURGE_DELAY")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(10);
        // SAFETY: reads one integer of mimalloc's option table.
        let got = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(got, want);
    }
}
