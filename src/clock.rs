//! The clock, read once per command by the CLI and passed in, so that one command sees one
//! "now" and tests can pin the date.

use chrono::{DateTime, Local, NaiveDate, SecondsFormat};

/// One reading of the clock.
#[derive(Debug, Clone)]
pub struct Now {
    /// Today in the user's calendar (the local date).
    pub today: NaiveDate,
    /// The instant, RFC 3339 with the local offset.
    pub timestamp: String,
    /// The instant, ns since the epoch.
    pub ns: i64,
}

impl Now {
    /// Read the local clock; `today` overrides the date (for tests).
    pub fn read(today: Option<NaiveDate>) -> Now {
        let now: DateTime<Local> = Local::now();
        Now {
            today: today.unwrap_or_else(|| now.date_naive()),
            timestamp: now.to_rfc3339_opts(SecondsFormat::Secs, false),
            ns: now.timestamp_nanos_opt().unwrap_or(i64::MAX),
        }
    }
}
