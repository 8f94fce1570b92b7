//! `capture`: one entry appended to the inbox.

use super::{Report, Request};
use crate::capture::Captured;
use crate::failure::Failure;
use crate::session::Session;
use chrono::NaiveDate;

/// `capture`: `text` as one inbox entry, with its capture date when given.
#[derive(Debug, Clone)]
pub struct Capture {
    text: String,
    date: Option<NaiveDate>,
}

impl Capture {
    /// A capture; empty text, a separator line in it or a date that is not `YYYY-MM-DD` is a
    /// usage error.
    pub fn new(text: String, date: Option<&str>) -> Result<Capture, Failure> {
        if let Err(e) = crate::inbox::capture_text(&text) {
            return Err(Failure::usage(e.to_string()));
        }
        let date = match date.map(str::trim) {
            None => None,
            Some(d) => Some(
                NaiveDate::parse_from_str(d, "%Y-%m-%d")
                    .map_err(|_| Failure::usage(format!("date {d:?} is not a YYYY-MM-DD date")))?,
            ),
        };
        Ok(Capture { text, date })
    }
}

impl Request for Capture {
    type Report = Captured;

    fn writes(&self) -> bool {
        true
    }

    fn run(self, s: &Session) -> Result<Captured, Failure> {
        let mut manifest = s.manifest()?;
        Ok(crate::capture::capture(
            &s.vault,
            &mut manifest,
            &self.text,
            self.date,
            &s.now,
        )?)
    }
}

impl Report for Captured {}
