//! `brief`: the last N days of activity.

use super::{Refresh, Report, Request};
use crate::failure::Failure;
use crate::session::Session;

/// `brief` over a window of calendar days ending today.
#[derive(Debug, Clone)]
pub struct Brief {
    days: u32,
    holding: crate::brief::Holding,
}

impl Brief {
    /// The window: 7 days when `None` or 0 or less (the original's rule); more than ten years
    /// is a usage error.
    pub fn new(days: Option<i64>) -> Result<Brief, Failure> {
        let days = crate::brief::window_days(days.unwrap_or(0))
            .map_err(|e| Failure::usage(format!("days: {e}")))?;
        Ok(Brief {
            days,
            holding: crate::brief::Holding::Whole,
        })
    }

    /// The brief holds its lists as `holding` says (all of them, by default: a reply that is
    /// one message holds them anyway).
    pub fn holding(self, holding: crate::brief::Holding) -> Brief {
        Brief { holding, ..self }
    }
}

impl Request for Brief {
    type Report = crate::brief::Brief;

    fn writes(&self) -> bool {
        false
    }

    fn refresh(&self) -> Refresh {
        Refresh::Within
    }

    fn run(self, s: &Session) -> Result<Self::Report, Failure> {
        let mut fresh = s.fresh;
        Ok(crate::brief::brief(
            &s.vault,
            s.manifest()?,
            &s.now,
            self.days,
            self.holding,
            &mut fresh,
            &*s.progress,
        )?)
    }
}

impl Report for crate::brief::Brief {}
