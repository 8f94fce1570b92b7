//! The fuzz targets' short form for `make test`: every committed seed in `fuzz/corpus/<target>/`
//! goes through the same checks the cargo-fuzz targets make (`fuzz/checks.rs`), on the stable
//! toolchain, so that neither the seeds nor the checks can rot. `make fuzz` runs the long form.

// Test code may touch the disk through `std::fs`: a failing test names its line.
#![allow(clippy::disallowed_methods)]

#[path = "../fuzz/checks.rs"]
mod checks;

use std::path::Path;

#[test]
fn every_seed_passes_its_targets_checks() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let mut failures = Vec::new();
    for (target, check) in checks::TARGETS {
        let dir = root.join(target);
        let mut seeds: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        seeds.sort();
        assert!(
            seeds.len() >= 15,
            "{target}: only {} seeds in {}",
            seeds.len(),
            dir.display()
        );
        for seed in seeds {
            let bytes = std::fs::read(&seed).unwrap_or_else(|e| panic!("{}: {e}", seed.display()));
            if std::panic::catch_unwind(|| check(&bytes)).is_err() {
                failures.push(seed.display().to_string());
            }
        }
    }
    assert!(
        failures.is_empty(),
        "seeds failing their checks: {failures:#?}"
    );
}
