//! The two-device soak (issue 48): two devices, clones of one bare repository, each round do 1
//! to 4 random things (`capture`, `tasks add`, `done`, an ingest, a capture appended to
//! `inbox.md` by hand; one round in two all on one device; either device ingests when it likes,
//! so a capture both hold is at times ingested on both before they sync), then sync: the busy
//! device and then the other, or one at random and one time in two the other after it. Each
//! sync is SIGKILLed at a random moment: half the time counted from its start (the window of
//! [`Soak::kill_at_random`]), half from the moment it records a fast-forward or a merge, so
//! that kills land inside their writes too. Between the kill and the rerun the killed device
//! does 0 to 3 more things: each must succeed or be refused (exit 1, naming `sparks sync`)
//! while the sync is unfinished; a refused one is done again, with the same text, once the
//! rerun has completed the sync. One round in three (and the last) the devices sync to rest,
//! and both are checked ([`super::tokens`]): every capture made anywhere in the inbox or
//! archived exactly once, every task added or done still so, no conflict marker in any file;
//! after each sync, no staged file and no git lock left. `SPARKS_SOAK_TRACE=1` prints each step
//! as it is done.

use super::Soak;
use super::tokens::{Failed, NAMES, Pages, Tokens, append_by_hand, at_rest, device, ingest};
use crate::harness::TestVault;
use crate::sync::Devices;

/// The longest delay of a kill counted from the sync's record: a debug build's fast-forward or
/// merge writes, regenerates and commits in about that.
const CUED_MS: u64 = 40;

/// One thing a device does.
#[derive(Debug, Clone)]
enum Op {
    /// `sparks capture TEXT`.
    Capture(String),
    /// TEXT appended to `inbox.md` by hand.
    Append(String),
    /// `sparks tasks add --section Garden --text TEXT`.
    Add(String),
    /// `sparks done TEXT`.
    Done(String),
    /// `ingest --prepare --limit N` (N 1 to 3), a page per entry, `ingest --finalize`.
    Ingest,
}

/// How an [`Op`] ended.
enum Outcome {
    Done,
    /// Exit 1 naming `sparks sync`: an unfinished sync stops it.
    Refused,
    /// Anything else: what it said.
    Failed(String),
}

/// The soak's state beyond [`Soak`]: what was written, and where the kills landed.
struct Run {
    d: Devices,
    tokens: Tokens,
    /// Kills that left a fast-forward recorded as under way.
    in_forward: usize,
    /// Kills that left a merge recorded as under way.
    in_merge: usize,
    /// Things done between a kill and its rerun, and of them those refused.
    between: usize,
    refused: usize,
    /// `SPARKS_SOAK_TRACE` set: print each thing done, as it is done.
    trace: bool,
}

#[test]
fn two_devices_killed_anywhere_in_sync_with_commands_between_lose_and_double_nothing() {
    let mut soak = Soak::new("devices");
    let mut run = Run {
        d: Devices::new(),
        tokens: Tokens::default(),
        in_forward: 0,
        in_merge: 0,
        between: 0,
        refused: 0,
        trace: std::env::var_os("SPARKS_SOAK_TRACE").is_some(),
    };
    for round in 0..soak.rounds {
        // One round in two everything is done on one device, so that the other, with nothing
        // of its own to merge (unless it did something after a kill), takes it by a
        // fast-forward.
        let only = soak.rng.one_in(2).then(|| soak.rng.between(0, 1) as usize);
        for _ in 0..soak.rng.between(1, 4) {
            let i = only.unwrap_or_else(|| soak.rng.between(0, 1) as usize);
            let op = run.choose(&mut soak, i);
            let why = match run.apply(&mut soak, i, &op) {
                Outcome::Done => continue,
                Outcome::Refused => "refused, with no sync unfinished".to_string(),
                Outcome::Failed(why) => why,
            };
            soak.stuck_at(round, &format!("{op:?} on {}", NAMES[i]), &why);
        }
        // The busy device syncs first, then the other; else one at random, one time in two
        // the other after it.
        let i = only.unwrap_or_else(|| soak.rng.between(0, 1) as usize);
        run.killed_sync(&mut soak, i, round);
        if only.is_some() || soak.rng.one_in(2) {
            run.killed_sync(&mut soak, 1 - i, round);
        }
        if soak.rng.one_in(3) || round + 1 == soak.rounds {
            run.check(&mut soak, round);
        }
    }
    let tasks = run.tokens.tasks();
    println!(
        "soak devices: captures {}, tasks added {} (done {}), ingests {} (captures ingested \
         on both devices {}); kills inside a \
         fast-forward {}, inside a merge {}; things done between a kill and its rerun {}, \
         refused {} (each done again after the sync)",
        run.tokens.captures(),
        tasks.0,
        tasks.1,
        run.tokens.ingests(),
        run.tokens.ingested_on_both(),
        run.in_forward,
        run.in_merge,
        run.between,
        run.refused
    );
    soak.report();
}

impl Run {
    /// Something for device `i` to do: a capture (by command or by hand), a task added or
    /// completed, or an ingest.
    fn choose(&mut self, soak: &mut Soak, i: usize) -> Op {
        let v = device(&self.d, i);
        match soak.rng.between(0, 9) {
            0..=2 => Op::Capture(self.tokens.capture_text(i, "captured")),
            3 | 4 => Op::Append(self.tokens.capture_text(i, "appended by hand")),
            5 | 6 => Op::Add(self.tokens.task_text()),
            7 => {
                let open = self.tokens.open_tasks(v);
                match open.is_empty() {
                    true => Op::Add(self.tokens.task_text()),
                    false => {
                        Op::Done(open[soak.rng.between(0, open.len() as u64 - 1) as usize].clone())
                    }
                }
            }
            _ => Op::Ingest,
        }
    }

    /// Do `op` on device `i`, and record what it wrote.
    fn apply(&mut self, soak: &mut Soak, i: usize, op: &Op) -> Outcome {
        let v = device(&self.d, i);
        let r = match op {
            Op::Append(text) => {
                if self.trace {
                    println!("  {} {op:?}", NAMES[i]);
                }
                append_by_hand(&v.path("inbox.md"), text);
                self.tokens.captured(text.clone());
                return Outcome::Done;
            }
            Op::Ingest => return self.ingest(soak, i),
            Op::Capture(text) => v.run(&["capture", text]),
            Op::Add(text) => v.run(&["tasks", "add", "--section", "Garden", "--text", text]),
            Op::Done(text) => v.run(&["done", text]),
        };
        let outcome = match op {
            // Done again after a sync that brought the other device's `done` of it.
            Op::Done(_) if r.code == Some(1) && r.stderr.contains("already done") => Outcome::Done,
            _ => outcome(&r),
        };
        if self.trace {
            println!(
                "  {} {op:?}: exit {:?} {}",
                NAMES[i],
                r.code,
                r.stderr.trim()
            );
        }
        if let Outcome::Done = outcome {
            match op {
                Op::Capture(text) => self.tokens.captured(text.clone()),
                Op::Add(text) => self.tokens.added(text.clone()),
                Op::Done(text) => self.tokens.done(text),
                Op::Append(_) | Op::Ingest => {}
            }
        }
        outcome
    }

    /// Device `i`'s agent ingests: prepare up to 3 entries, a page for each, finalize.
    fn ingest(&mut self, soak: &mut Soak, i: usize) -> Outcome {
        let v = device(&self.d, i);
        match ingest(v, soak.rng.between(1, 3), Pages::Each) {
            Ok(entries) => {
                if self.trace {
                    println!("  {} ingest {entries:?}", NAMES[i]);
                }
                if !entries.is_empty() {
                    self.tokens.ingested(i, &entries);
                }
                Outcome::Done
            }
            Err(Failed::Prepare(r)) => outcome(&r),
            Err(Failed::Finalize(r)) => Outcome::Failed(format!("finalize: {}", r.stderr.trim())),
        }
    }

    /// Sync device `i`, SIGKILLed at a random moment; 0 to 3 things done on it before the
    /// rerun, those refused done again after it; then what the sync left behind counted.
    fn killed_sync(&mut self, soak: &mut Soak, i: usize, round: usize) {
        let v = device(&self.d, i);
        // One time in two the delay counts from the moment the sync records a fast-forward or
        // a merge (before its first write), so that kills land inside those writes often.
        let first = match soak.rng.one_in(2) {
            true => soak.kill_at_random(v, &["sync"]),
            false => soak.kill_after(v, &["sync"], &v.path(".sparks/sync.json"), CUED_MS),
        };
        if self.trace {
            println!("round {round}: {} sync: {}", NAMES[i], soak.moment);
        }
        if first.code.is_none() {
            let status = v.run(&["status", "--json"]);
            let unfinished = match status.code {
                Some(0) => status.json()["unfinished"].clone(),
                _ => serde_json::Value::Null,
            };
            if self.trace {
                println!("  unfinished: {unfinished}");
            }
            match (unfinished["kind"].as_str(), unfinished["step"].as_str()) {
                (Some("sync"), Some("fetch")) => self.in_forward += 1,
                (Some("sync"), _) => self.in_merge += 1,
                _ => {}
            }
        }
        let mut refused = Vec::new();
        for _ in 0..soak.rng.between(0, 3) {
            let op = self.choose(soak, i);
            self.between += 1;
            match self.apply(soak, i, &op) {
                Outcome::Done => {}
                Outcome::Refused => {
                    self.refused += 1;
                    refused.push(op);
                }
                Outcome::Failed(why) => soak.stuck_at(
                    round,
                    &format!("{op:?} on {} after the kill", NAMES[i]),
                    &why,
                ),
            }
        }
        let v = device(&self.d, i);
        let ended = soak.settle(v, round, &first, || false, || once(v));
        if self.trace {
            println!("  {} sync rerun: {ended:?}", NAMES[i]);
        }
        for op in refused {
            match self.apply(soak, i, &op) {
                Outcome::Done => {}
                Outcome::Refused => soak.stuck_at(
                    round,
                    &format!("{op:?} on {}, after the sync", NAMES[i]),
                    "still refused",
                ),
                Outcome::Failed(why) => soak.stuck_at(
                    round,
                    &format!("{op:?} on {}, after the sync", NAMES[i]),
                    &why,
                ),
            }
        }
        soak.leftovers(device(&self.d, i), round);
    }

    /// Sync the devices to rest and check both.
    fn check(&mut self, soak: &mut Soak, round: usize) {
        if self.trace {
            println!("round {round}: to rest");
        }
        at_rest(soak, &self.d, &self.tokens, round);
    }
}

/// How a command ended: done, refused for an unfinished sync, or failed otherwise.
fn outcome(r: &crate::harness::Run) -> Outcome {
    match r.code {
        Some(0) => Outcome::Done,
        Some(1) if r.stderr.contains("sparks sync") => Outcome::Refused,
        _ => Outcome::Failed(format!("exit {:?}: {}", r.code, r.stderr.trim())),
    }
}

/// One sync: `Err(stderr)` when it fails.
fn once(v: &TestVault) -> Result<(), String> {
    let r = v.run(&["sync"]);
    match r.code {
        Some(0) => Ok(()),
        _ => Err(r.stderr),
    }
}
