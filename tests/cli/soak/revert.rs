//! The revert soak: each round ingests a batch of 1 to 3 entries (the agent writes a page per
//! entry and changes the hub page), then `ingest --revert` is killed at a random moment and
//! run again until it succeeds. After each round every entry of the batch is back in the inbox
//! once with its archive block gone, the pages the ingest created are gone, the pages it
//! changed hold their earlier text, and every other capture is where it was. The entries are
//! ingested again in later rounds.
//!
//! A revert needs the manifest's history of the ingest: one killed before it started anything,
//! whose manifest is then deleted or rebuilt, can only answer that there is no such ingest. That
//! is no failure: the round is noted `not started` and the batch stays ingested.

use super::captures::{Census, Ledger, put_back};
use super::finalize::agent_writes;
use super::{Ended, Finding, Soak, unfinished};
use crate::harness::delete_manifest;
use crate::harness::{TestVault, commit_all, files};
use std::collections::BTreeMap;

/// The page every ingest changes.
const HUB: &str = "wiki/concepts/Hub.md";

#[test]
fn revert_killed_at_random_puts_each_entry_and_page_back_once() {
    let mut soak = Soak::new("revert");
    let v = TestVault::new();
    v.page(
        HUB,
        "Hub",
        "The hub lists what was filed. It grows. It shrinks.",
    );
    commit_all(&v);
    let mut ledger = Ledger::default();
    for round in 0..soak.rounds {
        ledger.top_up(&v, &mut soak.rng, 3);
        let limit = soak.rng.between(1, 3).to_string();
        let Some((id, batch, touched)) = ingest(&mut soak, &v, round, &limit) else {
            continue;
        };
        let before = files(&v);

        let args = ["ingest", "--revert", id.as_str()];
        let first = soak.kill_at_random(&v, &args);
        // Whether the killed revert did anything, seen before the manifest can be deleted (a
        // record it was staging in `.sparks/` is not yet a start).
        let vault_files = |v: &TestVault| {
            let mut f = files(v);
            f.retain(|p, _| !p.starts_with(".sparks/"));
            f
        };
        let started = first.code != Some(0) && (unfinished(&v) || vault_files(&v) != before);
        let disturbance = soak.disturb(&v, round);
        let mut not_started = false;
        let ended = soak.settle(
            &v,
            round,
            &first,
            || !unfinished(&v) && reverted(&v, round, &batch, &touched).is_empty(),
            || {
                let r = v.run(&args);
                match r.code {
                    Some(0) => Ok(()),
                    _ if disturbance.forgets_manifest()
                        && !started
                        && r.stderr.contains(&format!("there is no ingest {id}")) =>
                    {
                        not_started = true;
                        Ok(())
                    }
                    // Killed after its commit, with the manifest deleted since: the history
                    // brought back from git knows the revert is done, and the check below
                    // says whether the vault is as it leaves it.
                    _ if r.stderr.contains("it was reverted already") && !unfinished(&v) => Ok(()),
                    _ => Err(r.stderr),
                }
            },
        );
        let mut found = ledger.check(&Census::take(&v));
        if not_started {
            soak.note(round, "not started (the revert was killed before it began)");
        } else if ended == Ended::Done {
            found.extend(reverted(&v, round, &batch, &touched));
        }
        soak.count(round, found);
        soak.leftovers(&v, round);
        if ended == Ended::Stuck {
            restore(&v, &before);
            delete_manifest(&v);
        }
    }
    soak.report();
}

/// The pages an ingest's agent touched, each with its text before (`None`: created).
type Touched = BTreeMap<String, Option<String>>;

/// Prepare a batch of at most `limit` entries, write its pages, change the hub, finalize: the
/// ingest's id, the batch and the pages touched. A failure is counted as stuck and cleared.
fn ingest(
    soak: &mut Soak,
    v: &TestVault,
    round: usize,
    limit: &str,
) -> Option<(String, serde_json::Value, Touched)> {
    let prepared = v.run(&["ingest", "--prepare", "--limit", limit]);
    if prepared.code != Some(0) {
        soak.stuck_at(round, "ingest --prepare", &prepared.stderr);
        delete_manifest(v);
        return None;
    }
    let batch = prepared.json();
    let mut touched = Touched::new();
    for entry in batch["entries"].as_array().expect("entries") {
        let rel = format!(
            "wiki/summaries/Note {}.md",
            &entry["hash"].as_str().expect("hash")[..12]
        );
        let before = std::fs::read_to_string(v.path(&rel)).ok();
        touched.entry(rel).or_insert(before);
    }
    agent_writes(v, &batch);
    let hub = v.read(HUB);
    v.write(HUB, format!("{hub}\nFiled in round {round}.\n"));
    touched.insert(HUB.to_string(), Some(hub));
    let finalized = v.run(&["ingest", "--finalize", "--json"]);
    if finalized.code != Some(0) {
        soak.stuck_at(round, "ingest --finalize", &finalized.stderr);
        delete_manifest(v);
        return None;
    }
    let id = finalized.json()["ingest_id"].to_string();
    Some((id, batch, touched))
}

/// The revert's own invariant: every entry of the batch back in the inbox (the census checks
/// it is there once and no longer archived), every page touched as it was before.
fn reverted(
    v: &TestVault,
    round: usize,
    batch: &serde_json::Value,
    touched: &Touched,
) -> Vec<Finding> {
    let mut out = put_back(&Census::take(v), batch);
    for (rel, before) in touched {
        let now = std::fs::read_to_string(v.path(rel)).ok();
        if now == *before {
            continue;
        }
        let key = format!("{round} {rel}");
        out.push(match before {
            None => Finding::duplicated(
                key,
                1,
                format!("{rel}, created by the ingest, is still there"),
            ),
            Some(_) => Finding::lost(
                key,
                1,
                format!("{rel} does not hold its text before the ingest"),
            ),
        });
    }
    out
}

/// Put every file of the vault back as `before` has it (git's own and the manifest aside).
fn restore(v: &TestVault, before: &BTreeMap<String, Vec<u8>>) {
    for rel in files(v).keys() {
        if !before.contains_key(rel) {
            std::fs::remove_file(v.path(rel)).expect("remove a file the revert wrote");
        }
    }
    for (rel, bytes) in before {
        v.write(rel, bytes);
    }
}
