//! Fuzz target `links`: the properties of `checks::check_links` (see `fuzz/checks.rs`).
#![no_main]
// libfuzzer-sys's `fuzz_target!` writes its crash files with `std::fs`, in code this crate
// does not write; clippy.toml's ban is for Sparks' own I/O.
#![allow(clippy::disallowed_methods)]

#[path = "../checks.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check_links(data));
