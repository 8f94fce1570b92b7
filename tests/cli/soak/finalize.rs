//! The finalize soak: each round prepares a batch of 1 to 4 entries, plays the agent (a page
//! per entry citing its archive file), captures one more entry while the ingest is open, and
//! kills `ingest --finalize` at a random moment. Finalize is run again until it succeeds; when
//! it answers that no ingest is open, the agent asks for a batch as it would: the interrupted
//! one comes back (exit 3) and is finalized, a new one is released. Every capture ever written
//! must then be in the inbox or archived, once.

use super::captures::{Census, Ledger};
use super::{Ended, Soak};
use crate::harness::{TestVault, commit_all};

#[test]
fn finalize_killed_at_random_loses_and_duplicates_no_capture() {
    let mut soak = Soak::new("finalize");
    let v = TestVault::new();
    commit_all(&v);
    let mut ledger = Ledger::default();
    for round in 0..soak.rounds {
        ledger.top_up(&v, &mut soak.rng, 4);
        let limit = soak.rng.between(1, 4).to_string();
        let prepare = ["ingest", "--prepare", "--limit", &limit];
        let batch = v.run(&prepare);
        if !matches!(batch.code, Some(0 | 3)) {
            soak.stuck_at(round, "ingest --prepare", &batch.stderr);
            unstick(&v);
            continue;
        }
        agent_writes(&v, &batch.json());
        ledger.capture(&v, &mut soak.rng, &Census::take(&v), 1);

        let first = soak.kill_at_random(&v, &["ingest", "--finalize"]);
        soak.disturb(&v, round);
        let ended = soak.settle(&v, round, &first, || false, || finalize_again(&v, &prepare));
        soak.count(round, ledger.check(&Census::take(&v)));
        soak.leftovers(&v, round);
        if ended == Ended::Stuck {
            unstick(&v);
        }
    }
    soak.report();
}

/// The agent's work: one summary page per entry, citing the archive file it goes to.
pub fn agent_writes(v: &TestVault, batch: &serde_json::Value) {
    for entry in batch["entries"].as_array().expect("entries") {
        let hash = &entry["hash"].as_str().expect("hash")[..12];
        let date = entry["capture_date"].as_str().expect("capture_date");
        v.page_citing(
            &format!("wiki/summaries/Note {hash}.md"),
            &format!("Note {hash}"),
            &format!("raw/inbox/{date}.md"),
            &format!("Filed from a capture of {date}. The capture is archived. Nothing else."),
        );
    }
}

/// One rerun of finalize. When no ingest is open (the manifest that knew it is gone, or the
/// killed run had completed), the agent asks for a batch: exit 3 returns the open one, to
/// finalize on the next rerun; a new one is released, since the interrupted one is over.
fn finalize_again(v: &TestVault, prepare: &[&str]) -> Result<(), String> {
    let r = v.run(&["ingest", "--finalize"]);
    if r.code == Some(0) {
        return Ok(());
    }
    if !r.stderr.contains("no ingest is open") {
        return Err(r.stderr);
    }
    let p = v.run(prepare);
    match p.code {
        Some(3) => Err(format!("{}(prepare returned the open batch)", r.stderr)),
        Some(0) if p.json()["ingest_id"].is_i64() => {
            let abort = v.run(&["ingest", "--abort"]);
            match abort.code {
                Some(0) => Ok(()),
                _ => Err(abort.stderr),
            }
        }
        Some(0) => Ok(()),
        _ => Err(p.stderr),
    }
}

/// By hand, so that the next round can go on: release the open ingest or, if finalize has
/// started on it (abort refuses), forget it with the manifest.
fn unstick(v: &TestVault) {
    if v.run(&["ingest", "--abort"]).code != Some(0) {
        crate::harness::delete_manifest(v);
    }
}
