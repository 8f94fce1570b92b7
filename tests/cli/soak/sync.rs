//! The sync soak (issue 37): two devices share a bare repository. Each round captures on one
//! device or the other, now and then ingests on the first (the device whose agent ingests),
//! and syncs a device chosen at random, SIGKILLed at a random moment, disturbed and rerun until
//! it succeeds. The devices then sync in turn until they stand on one commit, and every
//! capture ever written on either must be in the inbox or archived, once.

use super::Soak;
use super::captures::{Census, Ledger};
use super::finalize::agent_writes;
use crate::harness::TestVault;
use crate::sync::{Devices, head};

#[test]
fn two_devices_syncing_killed_at_random_lose_and_double_no_capture() {
    let mut soak = Soak::new("sync");
    let d = Devices::new();
    let mut ledger = Ledger::default();
    for round in 0..soak.rounds {
        let n = soak.rng.between(1, 2) as usize;
        let here = if soak.rng.one_in(2) { &d.a } else { &d.b };
        ledger.capture(here, &mut soak.rng, &Census::take(here), n);
        if soak.rng.one_in(3) {
            ingest(&mut soak, &d.a, round);
        }
        let v = if soak.rng.one_in(2) { &d.a } else { &d.b };
        let first = soak.kill_at_random(v, &["sync"]);
        soak.disturb(v, round);
        soak.settle(v, round, &first, || false, || once(v));
        soak.leftovers(v, round);
        if let Err(why) = converge(&d) {
            soak.note(round, format!("the devices did not converge: {why}"));
        }
        soak.count(round, ledger.check(&Census::take(&d.a)));
    }
    soak.report();
}

/// One sync: `Err(stderr)` when it fails.
fn once(v: &TestVault) -> Result<(), String> {
    let r = v.run(&["sync"]);
    match r.code {
        Some(0) => Ok(()),
        _ => Err(r.stderr),
    }
}

/// The agent's ingest on `v`: prepare, a page per entry, finalize (not killed here: the
/// finalize soak does that).
fn ingest(soak: &mut Soak, v: &TestVault, round: usize) {
    let batch = v.run(&["ingest", "--prepare", "--limit", "3"]);
    if !matches!(batch.code, Some(0 | 3)) {
        soak.stuck_at(round, "ingest --prepare", &batch.stderr);
        return;
    }
    if batch.json()["ingest_id"].is_null() {
        return;
    }
    agent_writes(v, &batch.json());
    let f = v.run(&["ingest", "--finalize"]);
    if f.code != Some(0) {
        soak.stuck_at(round, "ingest --finalize", &f.stderr);
    }
}

/// Sync A, B, A until both stand on one commit (a few turns at most).
fn converge(d: &Devices) -> Result<(), String> {
    for _ in 0..3 {
        for v in [&d.a, &d.b, &d.a] {
            once(v)?;
        }
        if head(&d.a, &d.a.root) == head(&d.b, &d.b.root) {
            return Ok(());
        }
    }
    Err(format!(
        "A at {}, B at {}",
        head(&d.a, &d.a.root),
        head(&d.b, &d.b.root)
    ))
}
