//! Fuzz target `links`: the properties of `checks::check_links` (see `fuzz/checks.rs`).
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check_links(data));
