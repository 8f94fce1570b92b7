//! The report of a lint run, and its issues: held, or read from the manifest as they are
//! written out ([`Issues::Streamed`]), so that a vault with a million findings is linted in the
//! memory of one with none. The JSON lists the issues before their counts, so a streamed
//! report counts them as it writes them; the text gives each check's count before its issues,
//! so its report counts them first ([`Holding::Counted`]).

use super::{Check, Issue, LintError, Note, fix, pipeline};
use crate::failure::Wording;
use crate::manifest::{Manifest, Pages};
use crate::progress::{Progress, Silent};
use crate::scan::Seen;
use crate::vault::Vault;
use serde::ser::{Error as _, SerializeSeq};
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::Mutex;

/// How a lint report holds its issues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holding {
    /// All of them (a reply that is one message, as the MCP server's).
    Whole,
    /// None: they are read from the manifest as they are written, and counted then.
    Streamed,
    /// None, as [`Holding::Streamed`], but counted first (the text tells each check's count
    /// before its issues); held after all when there are at most [`HELD_UPTO`].
    Counted,
}

/// How many issues a counted report holds rather than reading them twice.
pub const HELD_UPTO: usize = 2048;

/// The result of a lint run.
#[derive(Debug)]
pub struct LintReport {
    /// Issues found, by check, path and line.
    pub issues: Issues,
    /// Changes `--fix` made (empty without it).
    pub fixes: Vec<fix::Fix>,
    /// Things worth knowing that are not issues: not counted, no effect on the exit code.
    pub notes: Vec<Note>,
    /// What bringing the manifest up to date first met, when anything.
    pub seen: Seen,
}

/// A report's issues.
#[derive(Debug)]
pub enum Issues {
    /// Every issue, with the counts per check (every check that ran is present).
    Held(Vec<Issue>, BTreeMap<Check, usize>),
    /// Read from the manifest each time they are gone through.
    Streamed(Box<Stream>),
}

/// Issues read from the manifest as they are gone through.
#[derive(Debug)]
pub struct Stream {
    vault: Vault,
    manifest: Manifest,
    checks: Vec<Check>,
    wording: Option<Wording>,
    /// The counts per check, once the issues have been gone through (or counted) whole.
    counted: Mutex<Option<BTreeMap<Check, usize>>>,
}

/// Zero issues of each check in `checks`.
fn zero(checks: &[Check]) -> BTreeMap<Check, usize> {
    checks.iter().map(|c| (*c, 0)).collect()
}

/// Every issue of `checks` on the pages in `scope`, with the counts per check.
pub(super) fn gather(
    vault: &Vault,
    manifest: &Manifest,
    checks: &[Check],
    scope: Pages<'_>,
    progress: &dyn Progress,
) -> Result<(Vec<Issue>, BTreeMap<Check, usize>), LintError> {
    let (mut issues, mut counts) = (Vec::new(), zero(checks));
    pipeline::each(vault, manifest, checks, scope, progress, &mut |i| {
        *counts.entry(i.check).or_default() += 1;
        issues.push(i);
        ControlFlow::Continue(())
    })?;
    Ok((issues, counts))
}

impl Issues {
    /// The issues of `checks` as `holding` says: read from `manifest` when they are gone
    /// through, counted first (`progress` hearing how) or held when few.
    pub fn of(
        vault: &Vault,
        manifest: Manifest,
        checks: &[Check],
        holding: Holding,
        progress: &dyn Progress,
    ) -> Result<Issues, LintError> {
        let counted = match holding {
            Holding::Whole => {
                let (issues, counts) = gather(vault, &manifest, checks, Pages::All, progress)?;
                return Ok(Issues::Held(issues, counts));
            }
            Holding::Streamed => None,
            Holding::Counted => {
                let (mut few, mut counts) = (Some(Vec::new()), zero(checks));
                pipeline::each(vault, &manifest, checks, Pages::All, progress, &mut |i| {
                    *counts.entry(i.check).or_default() += 1;
                    match few.as_mut().filter(|f| f.len() < HELD_UPTO) {
                        Some(f) => f.push(i),
                        None => few = None,
                    }
                    ControlFlow::Continue(())
                })?;
                if let Some(few) = few {
                    return Ok(Issues::Held(few, counts));
                }
                Some(counts)
            }
        };
        Ok(Issues::Streamed(Box::new(Stream {
            vault: vault.clone(),
            manifest,
            checks: checks.to_vec(),
            wording: None,
            counted: Mutex::new(counted),
        })))
    }

    /// Give each issue, in report order, until `give` breaks; a streamed report reads them
    /// from the manifest (and fails as that does).
    pub fn each(&self, give: &mut dyn FnMut(&Issue) -> ControlFlow<()>) -> Result<(), LintError> {
        let s = match self {
            Issues::Held(issues, _) => {
                for i in issues {
                    if give(i).is_break() {
                        break;
                    }
                }
                return Ok(());
            }
            Issues::Streamed(s) => s,
        };
        let (mut counts, mut whole) = (zero(&s.checks), true);
        pipeline::each(
            &s.vault,
            &s.manifest,
            &s.checks,
            Pages::All,
            &Silent,
            &mut |mut i| {
                if let (Some(word), Some(action)) = (s.wording, &i.action) {
                    i.hint = word(action);
                }
                *counts.entry(i.check).or_default() += 1;
                let go = give(&i);
                whole &= go.is_continue();
                go
            },
        )?;
        if whole {
            *s.counted.lock().unwrap_or_else(|e| e.into_inner()) = Some(counts);
        }
        Ok(())
    }

    /// The issues per check: every check that ran is present. A streamed report that has not
    /// been gone through is counted now (a count that fails is none: going through it tells
    /// why).
    pub fn counts(&self) -> BTreeMap<Check, usize> {
        let s = match self {
            Issues::Held(_, counts) => return counts.clone(),
            Issues::Streamed(s) => s,
        };
        if let Some(c) = s.counted.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            return c.clone();
        }
        let _ = self.each(&mut |_| ControlFlow::Continue(()));
        let counted = s.counted.lock().unwrap_or_else(|e| e.into_inner());
        counted.clone().unwrap_or_else(|| zero(&s.checks))
    }

    /// All issues.
    pub fn total(&self) -> usize {
        self.counts().values().sum()
    }

    /// Word the hint of each issue that has advice, each front end its own way (a streamed
    /// report words them as they are read).
    pub fn word(&mut self, word: Wording) {
        match self {
            Issues::Held(issues, _) => {
                for i in issues {
                    if let Some(action) = &i.action {
                        i.hint = word(action);
                    }
                }
            }
            Issues::Streamed(s) => s.wording = Some(word),
        }
    }
}

impl Serialize for Issues {
    /// The issues as a list, written as they are read.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut list = s.serialize_seq(match self {
            Issues::Held(issues, _) => Some(issues.len()),
            Issues::Streamed(_) => None,
        })?;
        let mut failed = None;
        let read = self.each(&mut |i| match list.serialize_element(i) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                failed = Some(e);
                ControlFlow::Break(())
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        read.map_err(S::Error::custom)?;
        list.end()
    }
}

impl Serialize for LintReport {
    /// `issues`, then `counts` and `total` (taken once the issues are written), `fixes`,
    /// `notes` and what the scan met.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        /// The counts, taken when they are written.
        struct Counts<'a>(&'a Issues);
        impl Serialize for Counts<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                self.0.counts().serialize(s)
            }
        }
        /// The total, taken when it is written.
        struct Total<'a>(&'a Issues);
        impl Serialize for Total<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                self.0.total().serialize(s)
            }
        }
        #[derive(Serialize)]
        struct Shown<'a> {
            issues: &'a Issues,
            counts: Counts<'a>,
            total: Total<'a>,
            fixes: &'a [fix::Fix],
            notes: &'a [Note],
            #[serde(flatten)]
            seen: &'a Seen,
        }
        Shown {
            issues: &self.issues,
            counts: Counts(&self.issues),
            total: Total(&self.issues),
            fixes: &self.fixes,
            notes: &self.notes,
            seen: &self.seen,
        }
        .serialize(s)
    }
}

impl LintReport {
    /// Word the hint of each note and of each issue that has advice, each front end its own
    /// way.
    pub fn word(&mut self, word: Wording) {
        for n in &mut self.notes {
            n.hint = word(&n.action);
        }
        self.issues.word(word);
    }

    /// The issues per check: every check that ran is present.
    pub fn counts(&self) -> BTreeMap<Check, usize> {
        self.issues.counts()
    }

    /// All issues.
    pub fn total(&self) -> usize {
        self.issues.total()
    }
}
