//! The hand-append soak (issue 48): a thread appends 10 to 40 captures, 2 to 8 ms apart, to
//! one device's `inbox.md` or the other's, as an editor or a phone app does (open, read,
//! append, close), each with a token of its own, while the two devices sync in turn (one time
//! in three an ingest of the whole inbox before a sync) until the appends are over. No kill.
//! A sync (or a finalize) that stops because a file kept changing under it is counted, not a
//! fault: it keeps the user's text, and a later one completes. Then the devices sync to rest,
//! and both are checked: every capture appended in the inbox or archived exactly once, no
//! conflict marker, no staged file, no git lock.

use super::tokens::{Failed, NAMES, Pages, Tokens, append_by_hand, at_rest, device, ingest};
use super::{Rng, Soak};
use crate::harness::TestVault;
use crate::sync::Devices;
use std::collections::BTreeMap;
use std::time::Duration;

#[test]
fn captures_appended_by_hand_while_two_devices_sync_are_each_kept_once() {
    let mut soak = Soak::new("appends");
    let d = Devices::new();
    let mut tokens = Tokens::default();
    let (mut syncs, mut stopped, mut appended, mut finalizes_stopped) = (0, 0, 0, 0);
    // A device whose ingest is open, its finalize stopped by the appends.
    let mut open = None;
    // What stopped syncs and finalizes said (the vault's path left out), how many times.
    let mut said: BTreeMap<String, usize> = BTreeMap::new();
    for round in 0..soak.rounds {
        soak.moment = "no kill".to_string();
        // 10 to 40 captures, 2 to 8 ms apart: a round of appends lasts about as long as a
        // sync or two, and the inbox stays the size a person's does between ingests.
        let appends = soak.rng.between(10, 40) as usize;
        let appender = {
            let inboxes = [d.a.path("inbox.md"), d.b.path("inbox.md")];
            let mut rng = Rng::new(soak.rng.next());
            std::thread::spawn(move || {
                let mut texts = Vec::new();
                for n in 0..appends {
                    let i = rng.between(0, 1) as usize;
                    let text = format!("[h{round}.{n}] appended by hand on {}", NAMES[i]);
                    append_by_hand(&inboxes[i], &text);
                    texts.push(text);
                    std::thread::sleep(Duration::from_millis(rng.between(2, 8)));
                }
                texts
            })
        };
        // The devices sync in turn until the appends are over (a sync at least).
        let mut i = soak.rng.between(0, 1) as usize;
        loop {
            let v = device(&d, i);
            if open.is_none() && soak.rng.one_in(3) {
                match ingest(v, 0, Pages::One) {
                    Ok(entries) if !entries.is_empty() => tokens.ingested(i, &entries),
                    Ok(_) => {}
                    Err(Failed::Prepare(r)) => {
                        soak.stuck_at(round, &format!("a prepare on {}", NAMES[i]), &r.stderr)
                    }
                    Err(Failed::Finalize(r)) => {
                        // The inbox kept changing under it: it resumes once the appends stop.
                        finalizes_stopped += 1;
                        *said.entry(first_line(v, &r.stderr)).or_default() += 1;
                        open = Some(i);
                    }
                }
            }
            let r = v.run(&["sync"]);
            syncs += 1;
            if r.code != Some(0) {
                stopped += 1;
                *said.entry(first_line(v, &r.stderr)).or_default() += 1;
            }
            i = 1 - i;
            if appender.is_finished() {
                break;
            }
        }
        let texts = appender.join().expect("the appender");
        if let Some(i) = open.take() {
            let f = device(&d, i).run(&["ingest", "--finalize"]);
            match f.code {
                Some(0) => tokens.ingested(i, &[]),
                _ => {
                    soak.stuck_at(round, &format!("finalize on {}", NAMES[i]), &f.stderr);
                    device(&d, i).run(&["ingest", "--abort"]);
                }
            }
        }
        appended += texts.len();
        for t in texts {
            tokens.captured(t);
        }
        at_rest(&mut soak, &d, &tokens, round);
    }
    println!(
        "soak appends: captures appended by hand {appended}, syncs while appending {syncs}, \
         stopped {stopped}, ingests {} (finalizes stopped, and resumed after the appends, \
         {finalizes_stopped})",
        tokens.ingests()
    );
    for (what, n) in &said {
        println!("  stopped {n}x: {what}");
    }
    soak.report();
}

/// The first line of what a command on `v` said, with the vault's path left out, so that the
/// same failure on either device reads the same.
fn first_line(v: &TestVault, stderr: &str) -> String {
    let line = stderr.lines().next().unwrap_or_default();
    line.replace(&v.root.display().to_string(), "VAULT")
}
