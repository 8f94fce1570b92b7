//! The report of a lint run, and its issues: held, or, for the link checks (whose issues are
//! as many as the links), counted when checked and read from the manifest again as they are
//! written out ([`Issues::Streamed`]), so that a vault with a million broken links is linted
//! in the memory of one with none.

use super::checks::{self, Checked, Context};
use super::{Check, Issue, LintError, Note, fix};
use crate::failure::Wording;
pub use crate::holding::Holding;
use crate::manifest::{Manifest, Pages};
use crate::progress::Progress;
use crate::scan::Seen;
use crate::vault::Vault;
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;
use std::ops::ControlFlow;

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
    /// Those bounded by the pages, with the manifest that the others are read from.
    Streamed(Box<Stream>),
}

/// What the checks found, with the manifest it was found in.
#[derive(Debug)]
pub struct Stream {
    manifest: Manifest,
    checked: Checked,
}

/// Every issue of `checks` on the pages in `scope`, with the counts per check.
pub(super) fn gather(
    vault: &Vault,
    manifest: &Manifest,
    checks: &[Check],
    scope: Pages<'_>,
    progress: &dyn Progress,
) -> Result<(Vec<Issue>, BTreeMap<Check, usize>), LintError> {
    let cx = Context {
        vault,
        manifest,
        checks,
        scope,
        progress,
    };
    let checked = checks::run(&cx)?;
    let mut issues = Vec::new();
    checks::each(manifest, scope, &checked, &mut |i| {
        issues.push(i.clone());
        ControlFlow::Continue(())
    })?;
    let mut counts: BTreeMap<Check, usize> = checks.iter().map(|c| (*c, 0)).collect();
    for i in &issues {
        *counts.entry(i.check).or_default() += 1;
    }
    Ok((issues, counts))
}

impl Issues {
    /// The issues of `checks` on the whole vault, as `holding` says (`progress` hearing how the
    /// checks go); a streamed report keeps `manifest` to read the link checks' issues.
    pub fn of(
        vault: &Vault,
        manifest: Manifest,
        checks: &[Check],
        holding: Holding,
        progress: &dyn Progress,
    ) -> Result<Issues, LintError> {
        if holding == Holding::Whole {
            let (issues, counts) = gather(vault, &manifest, checks, Pages::All, progress)?;
            return Ok(Issues::Held(issues, counts));
        }
        let cx = Context {
            vault,
            manifest: &manifest,
            checks,
            scope: Pages::All,
            progress,
        };
        let checked = checks::run(&cx)?;
        Ok(Issues::Streamed(Box::new(Stream { manifest, checked })))
    }

    /// Give each issue, in report order, until `give` breaks; a streamed report reads the link
    /// checks' from the manifest (and fails as that does).
    pub fn each(&self, give: &mut dyn FnMut(&Issue) -> ControlFlow<()>) -> Result<(), LintError> {
        match self {
            Issues::Held(issues, _) => {
                let _ = issues.iter().try_for_each(give);
                Ok(())
            }
            Issues::Streamed(s) => checks::each(&s.manifest, Pages::All, &s.checked, give),
        }
    }

    /// The issues per check: every check that ran is present.
    pub fn counts(&self) -> BTreeMap<Check, usize> {
        match self {
            Issues::Held(_, counts) => counts.clone(),
            Issues::Streamed(s) => s.checked.counts().clone(),
        }
    }

    /// All issues.
    pub fn total(&self) -> usize {
        match self {
            Issues::Held(_, counts) => counts.values().sum(),
            Issues::Streamed(s) => s.checked.counts().values().sum(),
        }
    }

    /// Word the hint of each issue that has advice, each front end its own way.
    pub fn word(&mut self, word: Wording) {
        match self {
            Issues::Held(issues, _) => {
                for i in issues {
                    if let Some(action) = &i.action {
                        i.hint = word(action);
                    }
                }
            }
            Issues::Streamed(s) => s.checked.word(word),
        }
    }
}

impl Serialize for Issues {
    /// The issues as a list, written as they are read.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let len = match self {
            Issues::Held(issues, _) => Some(issues.len()),
            Issues::Streamed(_) => None,
        };
        crate::holding::list(s, len, |give| self.each(give))
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
