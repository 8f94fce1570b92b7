//! `lint`: the health checks, after bringing the manifest up to date.

use super::{Ending, Refresh, Report, Request};
use crate::failure::{Failure, Hint};
use crate::lint::{Holding, LintReport};
use crate::session::Session;

/// `lint`, of the named checks (all when none), applying the safe fixes first with `fix`.
#[derive(Debug, Clone)]
pub struct Lint {
    checks: Vec<crate::lint::Check>,
    fix: bool,
    holding: Holding,
}

impl Lint {
    /// The checks by name; a name that is no check is a usage error that says the nearest.
    pub fn new(checks: &[String], fix: bool) -> Result<Lint, Failure> {
        let checks = crate::lint::select(checks).map_err(|e| {
            let hint = e.hint();
            let mut f = Failure::usage(e.to_string());
            f.hint = hint;
            f
        })?;
        Ok(Lint {
            checks,
            fix,
            holding: Holding::Whole,
        })
    }

    /// The report holds its issues as `holding` says (every issue, by default: a reply that
    /// is one message holds them anyway).
    pub fn holding(self, holding: Holding) -> Lint {
        Lint { holding, ..self }
    }
}

impl Request for Lint {
    type Report = LintReport;

    fn writes(&self) -> bool {
        self.fix
    }

    fn refresh(&self) -> Refresh {
        Refresh::Within
    }

    fn run(self, s: &Session) -> Result<LintReport, Failure> {
        let mut fresh = s.fresh;
        let asked = crate::lint::Asked {
            checks: &self.checks,
            fix: self.fix,
            holding: self.holding,
        };
        Ok(crate::lint::run(
            &s.vault,
            s.manifest()?,
            asked,
            &s.now,
            &mut fresh,
            &*s.progress,
        )?)
    }
}

impl Report for LintReport {
    fn word(&mut self, word: crate::failure::Wording) {
        LintReport::word(self, word);
    }

    /// Issues are problems (exit 1), in text and JSON alike; notes are not.
    fn ending(&self) -> Ending {
        match self.total() {
            0 => Ending::Done,
            _ => Ending::Problems,
        }
    }
}
