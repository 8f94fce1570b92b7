//! Random-kill soaks (issue 33, item 6): a command that rewrites the vault (`ingest
//! --finalize`, `mv`, `merge`, `ingest --revert`; `publish`, its site) is started, SIGKILLed at a random moment, the
//! vault is disturbed (nothing, `scan`, `scan --rebuild`, or the manifest deleted), and the
//! command is run again until it succeeds. After every round the vault is checked: nothing
//! lost, nothing duplicated, nothing stuck, no staged file and no git lock left.
//!
//! This file owns what the soaks share: the seeded choices, the kill, the disturbance, the
//! reruns and the figures. Each soak (one file under `soak/`) owns its set-up and its
//! invariant. A soak runs `SPARKS_SOAK_ROUNDS` rounds (a few in `make test`, 200 in `make
//! stress`), prints one line of figures and fails unless lost, duplicated, stuck, files with
//! conflict markers, staged files left and git locks left are all 0. `SPARKS_SOAK_SEED`
//! replays a run's choices (delays, disturbances, batch sizes); where a kill lands also depends
//! on how fast the machine is.

mod appends;
mod captures;
mod devices;
mod finalize;
mod merge;
mod mv;
mod publish;
mod referrers;
mod revert;
mod sync;
mod tokens;

use crate::harness::{Run, TestVault, delete_manifest, finish, number_from_env};
use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

/// Rounds of each soak in `make test` (unless `SPARKS_SOAK_ROUNDS` says otherwise): about 12 s
/// for the four with the debug binary, one at a time.
const ROUNDS: usize = 8;

/// How many times a killed command is run again before it counts as stuck.
const RERUNS: usize = 5;

/// The window a command is first killed in, unless `SPARKS_SOAK_MAX_DELAY_MS` sets a fixed
/// one. The window follows how long the soak's command takes: a quarter longer each time a
/// kill lands in its last tenth with the command still running, down to a fifth over a run
/// that ended on its own. So kills land in every step, the commit included (the issue's
/// 100 ms reach the writes of `mv` and `merge` only early).
const MAX_DELAY_MS: u64 = 100;

/// How many notes (what was lost, duplicated, stuck or left, and where) a soak prints at the
/// most.
const NOTES_SHOWN: usize = 40;

/// A small xorshift64* generator, so that a seed replays a soak's choices.
pub struct Rng(u64);

impl Rng {
    /// A generator whose state is `seed` mixed (splitmix64), so that no seed gives the
    /// all-zero state xorshift never leaves.
    fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)) | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number from `lo` to `hi`, both included.
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }

    /// True one time in `n`.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }
}

/// What is done to the vault between the kill and the rerun, each with equal odds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disturbance {
    Nothing,
    Scan,
    Rebuild,
    DeleteManifest,
}

impl Disturbance {
    /// Whether the manifest the killed command used is gone (`scan --rebuild` sets it aside).
    pub fn forgets_manifest(self) -> bool {
        matches!(self, Disturbance::Rebuild | Disturbance::DeleteManifest)
    }

    fn name(self) -> &'static str {
        match self {
            Disturbance::Nothing => "nothing",
            Disturbance::Scan => "scan",
            Disturbance::Rebuild => "scan --rebuild",
            Disturbance::DeleteManifest => "rm sparks.db*",
        }
    }
}

/// How a round's command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// It succeeded, at the first run or a rerun (or had completed before it was killed).
    Done,
    /// It did not succeed after [`RERUNS`] reruns, nor once more with git's locks removed.
    Stuck,
}

/// What a check found wrong: lost or duplicated, how many (links, captures, pages), and what.
pub struct Finding {
    lost: bool,
    /// Findings with the same key are counted once over the whole soak (a capture archived
    /// twice stays so in every later round).
    key: String,
    count: usize,
    what: String,
}

impl Finding {
    pub fn lost(key: impl Into<String>, count: usize, what: impl Into<String>) -> Finding {
        Finding {
            lost: true,
            key: key.into(),
            count,
            what: what.into(),
        }
    }

    pub fn duplicated(key: impl Into<String>, count: usize, what: impl Into<String>) -> Finding {
        Finding {
            lost: false,
            key: key.into(),
            count,
            what: what.into(),
        }
    }
}

/// One soak: its choices, its figures and its notes.
pub struct Soak {
    name: &'static str,
    seed: u64,
    pub rng: Rng,
    pub rounds: usize,
    started: Instant,
    kills: usize,
    reruns: usize,
    lost: usize,
    duplicated: usize,
    stuck: usize,
    /// Files found holding conflict-marker lines (each counted once however long it stays).
    markers: BTreeSet<String>,
    staged: BTreeSet<String>,
    git_locks: usize,
    counted: HashSet<(bool, String)>,
    notes: Vec<String>,
    max_delay_ms: u64,
    /// Whether `max_delay_ms` grows with the runs seen (no `SPARKS_SOAK_MAX_DELAY_MS`).
    adaptive: bool,
    /// This round's kill and disturbance, told in each of its notes.
    moment: String,
}

impl Soak {
    /// A soak of `SPARKS_SOAK_ROUNDS` rounds ([`ROUNDS`] when unset), seeded by
    /// `SPARKS_SOAK_SEED` or by the clock.
    pub fn new(name: &'static str) -> Soak {
        let seed = match std::env::var("SPARKS_SOAK_SEED") {
            Ok(s) => s
                .parse()
                .unwrap_or_else(|_| panic!("SPARKS_SOAK_SEED={s:?} is not a number")),
            Err(_) => {
                let t = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .expect("the clock is after 1970");
                t.as_nanos() as u64 ^ u64::from(std::process::id()) << 32
            }
        };
        println!("soak {name}: seed {seed}");
        Soak {
            name,
            seed,
            rng: Rng::new(seed),
            rounds: number_from_env("SPARKS_SOAK_ROUNDS", ROUNDS),
            started: Instant::now(),
            kills: 0,
            reruns: 0,
            lost: 0,
            duplicated: 0,
            stuck: 0,
            markers: BTreeSet::new(),
            staged: BTreeSet::new(),
            git_locks: 0,
            counted: HashSet::new(),
            notes: Vec::new(),
            max_delay_ms: number_from_env("SPARKS_SOAK_MAX_DELAY_MS", MAX_DELAY_MS as usize) as u64,
            adaptive: std::env::var_os("SPARKS_SOAK_MAX_DELAY_MS").is_none(),
            moment: String::new(),
        }
    }

    /// Keep a note for the report, with the round's kill and disturbance.
    pub fn note(&mut self, round: usize, text: impl AsRef<str>) {
        let text = text.as_ref();
        self.notes
            .push(format!("round {round} ({}): {text}", self.moment));
    }

    /// Count what a check found, each finding's key once over the soak.
    pub fn count(&mut self, round: usize, findings: Vec<Finding>) {
        for f in findings {
            if !self.counted.insert((f.lost, f.key)) {
                continue;
            }
            let kind = match f.lost {
                true => {
                    self.lost += f.count;
                    "lost"
                }
                false => {
                    self.duplicated += f.count;
                    "duplicated"
                }
            };
            self.note(round, format!("{kind} {}: {}", f.count, f.what));
        }
    }

    /// Start `sparks <args>`, let it run 0 to the window's ms, and SIGKILL it if it is still
    /// running (a kill is counted only then). Its run: exit code `None` when killed.
    pub fn kill_at_random(&mut self, v: &TestVault, args: &[&str]) -> Run {
        let ms = self.rng.between(0, self.max_delay_ms);
        let delay = Duration::from_millis(ms);
        let started = Instant::now();
        let mut child = v.spawn(args);
        // Watched while it runs: a run that ends on its own tells how long the command takes.
        while started.elapsed() < delay && child.try_wait().expect("try_wait").is_none() {
            std::thread::sleep(Duration::from_millis(1));
        }
        if self.adaptive {
            match child.try_wait().expect("try_wait") {
                Some(_) => {
                    let took = started.elapsed().as_millis() as u64;
                    self.max_delay_ms = self.max_delay_ms.min(took + took / 5).max(MAX_DELAY_MS);
                }
                None if ms * 10 >= self.max_delay_ms * 9 => {
                    self.max_delay_ms += self.max_delay_ms / 4;
                }
                None => {}
            }
        }
        self.kill(child, args, format!("after {ms} ms"))
    }

    /// Start `sparks <args>`, wait until the file `cue` exists (a record the command writes
    /// before a step, such as a sync's `.sparks/sync.json` before it writes the work tree),
    /// then 0 to `max_ms` more, and SIGKILL it if it is still running; a run that ends before
    /// the cue appears is not killed. So that kills land inside a step a few ms long, which a
    /// delay counted from the start reaches only now and then. Its run, as
    /// [`Soak::kill_at_random`]'s.
    pub fn kill_after(&mut self, v: &TestVault, args: &[&str], cue: &Path, max_ms: u64) -> Run {
        let ms = self.rng.between(0, max_ms);
        let mut child = v.spawn(args);
        while !cue.exists() && child.try_wait().expect("try_wait").is_none() {
            std::thread::sleep(Duration::from_micros(200));
        }
        let seen = Instant::now();
        let delay = Duration::from_millis(ms);
        while seen.elapsed() < delay && child.try_wait().expect("try_wait").is_none() {
            std::thread::sleep(Duration::from_millis(1));
        }
        let name = cue.file_name().unwrap_or_default().to_string_lossy();
        self.kill(child, args, format!("{ms} ms after {name} appeared"))
    }

    /// SIGKILL `child` (`sparks <args>`) if it is still running; count the kill, and tell the
    /// round's moment (`when` the kill was sent).
    fn kill(&mut self, mut child: std::process::Child, args: &[&str], when: String) -> Run {
        // `Child::kill` sends SIGKILL: nothing of the process runs after it.
        let sent = child.try_wait().expect("try_wait").is_none() && child.kill().is_ok();
        let run = finish(child, &format!("{args:?}"));
        // A process that exited between the look and the signal was not killed.
        if sent && run.code.is_none() {
            self.kills += 1;
        }
        self.moment = match run.code {
            None => format!("killed {when}"),
            Some(c) => format!("exited {c} before it was killed {when}"),
        };
        run
    }

    /// Disturb the vault as the kill left it, with one of the four [`Disturbance`]s.
    pub fn disturb(&mut self, v: &TestVault, round: usize) -> Disturbance {
        let d = match self.rng.between(0, 3) {
            0 => Disturbance::Nothing,
            1 => Disturbance::Scan,
            2 => Disturbance::Rebuild,
            _ => Disturbance::DeleteManifest,
        };
        self.moment = format!("{}, then {}", self.moment, d.name());
        let run = match d {
            Disturbance::Nothing => return d,
            Disturbance::Scan => v.run(&["scan"]),
            Disturbance::Rebuild => v.run(&["scan", "--rebuild"]),
            Disturbance::DeleteManifest => {
                delete_manifest(v);
                return d;
            }
        };
        if run.code != Some(0) {
            self.note(round, format!("{} failed: {}", d.name(), run.stderr.trim()));
        }
        d
    }

    /// Bring a killed command to completion: nothing to do if its first run succeeded or
    /// `done_already` (it completed before the kill, so a rerun would be refused); else `once`
    /// (one rerun: `Err(stderr)` while it fails) up to [`RERUNS`] times. A command that never
    /// succeeds is stuck: what it said is noted, and git's locks are removed (and counted) by
    /// hand before it is run once more, so that a stale lock is told from worse.
    pub fn settle(
        &mut self,
        v: &TestVault,
        round: usize,
        first: &Run,
        done_already: impl FnOnce() -> bool,
        mut once: impl FnMut() -> Result<(), String>,
    ) -> Ended {
        if first.code == Some(0) || (first.code.is_none() && done_already()) {
            return Ended::Done;
        }
        let mut last = first.stderr.clone();
        for _ in 0..RERUNS {
            self.reruns += 1;
            match once() {
                Ok(()) => return Ended::Done,
                Err(stderr) => last = stderr,
            }
        }
        self.stuck += 1;
        let locks = self.remove_git_locks(v);
        let again = once();
        self.note(
            round,
            format!(
                "stuck after {RERUNS} reruns: {}; git locks removed: {locks:?}; run once more \
                 after that: {}",
                last.trim(),
                match &again {
                    Ok(()) => "succeeded".to_string(),
                    Err(e) => format!("failed: {}", e.trim()),
                }
            ),
        );
        match again {
            Ok(()) => Ended::Done,
            Err(_) => Ended::Stuck,
        }
    }

    /// A round whose set-up failed, so that its command could not even start: counted as
    /// stuck, with what `what` said.
    pub fn stuck_at(&mut self, round: usize, what: &str, stderr: &str) {
        self.stuck += 1;
        self.moment = "set-up".to_string();
        self.note(round, format!("stuck: {what} failed: {}", stderr.trim()));
    }

    /// At a round's end: remember the staged files left (`.sparks-*.tmp` anywhere outside
    /// `.git`; each counted once however long it stays), and count and remove git's locks.
    pub fn leftovers(&mut self, v: &TestVault, round: usize) {
        let mut new = Vec::new();
        for entry in walkdir::WalkDir::new(&v.root)
            .into_iter()
            .filter_entry(|e| e.file_name() != ".git")
            .flatten()
        {
            let name = entry.file_name().to_string_lossy();
            if name.starts_with(".sparks-") && name.ends_with(".tmp") {
                let rel = entry.path().strip_prefix(&v.root).expect("in the vault");
                // Keyed by the full path: two devices may leave one at the same place.
                if self.staged.insert(entry.path().display().to_string()) {
                    new.push(rel.display().to_string());
                }
            }
        }
        if let Some(first) = new.first() {
            // One note a round: a killed batch of writes leaves a dozen at once.
            self.note(
                round,
                format!("staged files left: {} ({first}, …)", new.len()),
            );
        }
        let locks = self.remove_git_locks(v);
        if !locks.is_empty() {
            self.note(round, format!("git locks left: {locks:?}"));
        }
    }

    /// Count the files of `v`'s work tree (`.git`, the manifest and `.sparks` aside) that hold
    /// a conflict-marker line (`<<<<<<< `, `=======`, `>>>>>>> `), each once over the soak;
    /// `device` names the vault in the note.
    pub fn markers(&mut self, v: &TestVault, device: &str, round: usize) {
        for entry in walkdir::WalkDir::new(&v.root)
            .into_iter()
            .filter_entry(|e| e.file_name() != ".git" && e.file_name() != ".sparks")
            .flatten()
        {
            let name = entry.file_name().to_string_lossy();
            if !entry.file_type().is_file() || name.starts_with("sparks.db") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(entry.path()) else {
                continue;
            };
            let marker = text
                .lines()
                .find(|l| l.starts_with("<<<<<<<") || l.starts_with(">>>>>>>") || *l == "=======");
            if let Some(line) = marker
                && self.markers.insert(entry.path().display().to_string())
            {
                let rel = entry.path().strip_prefix(&v.root).expect("in the vault");
                let what = format!("{device}'s {} holds {line:?}", rel.display());
                self.note(round, format!("conflict markers: {what}"));
            }
        }
    }

    /// Remove every `*.lock` file under `.git/`, counting each; their paths.
    fn remove_git_locks(&mut self, v: &TestVault) -> Vec<String> {
        let locks: Vec<_> = walkdir::WalkDir::new(v.path(".git"))
            .into_iter()
            .flatten()
            .filter(|e| {
                e.file_type().is_file() && e.file_name().to_string_lossy().ends_with(".lock")
            })
            .map(|e| e.into_path())
            .collect();
        for l in &locks {
            std::fs::remove_file(l).unwrap_or_else(|e| panic!("remove {}: {e}", l.display()));
        }
        self.git_locks += locks.len();
        locks
            .iter()
            .map(|l| l.strip_prefix(&v.root).unwrap_or(l).display().to_string())
            .collect()
    }

    /// The figures, one line.
    fn figures(&self) -> String {
        format!(
            "soak {}: rounds {}, kills {}, reruns {}, lost {}, duplicated {}, stuck {}, markers \
             {}, staged files left {}, git locks left {}, kill window 0-{} ms, seed {}",
            self.name,
            self.rounds,
            self.kills,
            self.reruns,
            self.lost,
            self.duplicated,
            self.stuck,
            self.markers.len(),
            self.staged.len(),
            self.git_locks,
            self.max_delay_ms,
            self.seed
        )
    }

    /// Print the notes, the time and the figures; fail unless nothing was lost, duplicated,
    /// stuck, marked as a conflict or left behind.
    pub fn report(self) {
        for n in self.notes.iter().take(NOTES_SHOWN) {
            println!("  {n}");
        }
        if self.notes.len() > NOTES_SHOWN {
            println!("  ({} more notes)", self.notes.len() - NOTES_SHOWN);
        }
        let secs = self.started.elapsed().as_secs_f64();
        println!(
            "soak {}: {} rounds in {secs:.1} s ({:.0} ms a round)",
            self.name,
            self.rounds,
            secs * 1000.0 / self.rounds.max(1) as f64
        );
        let figures = self.figures();
        println!("{figures}");
        assert!(
            self.lost == 0
                && self.duplicated == 0
                && self.stuck == 0
                && self.markers.is_empty()
                && self.staged.is_empty()
                && self.git_locks == 0,
            "{figures} (the notes above say where)"
        );
    }
}

/// Whether `sparks status` shows an interrupted `mv`, `merge` or revert (or cannot tell).
pub fn unfinished(v: &TestVault) -> bool {
    let s = v.run(&["status", "--json"]);
    s.code != Some(0) || !s.json()["unfinished"].is_null()
}

/// Run `sparks <args>` once: `Err` with what it said unless it succeeds.
pub fn once(v: &TestVault, args: &[&str]) -> Result<(), String> {
    let r = v.run(args);
    match r.code {
        Some(0) => Ok(()),
        _ => Err(r.stderr),
    }
}
