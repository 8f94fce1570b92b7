//! Numbers on the command line. A value that is not one is refused with words a person reads
//! ("a whole number"), not the name of a Rust type or the parser's "invalid digit found in
//! string"; clap puts the flag and the value in front.

use std::num::{IntErrorKind, ParseIntError};
use std::str::FromStr;

fn whole<T: FromStr<Err = ParseIntError>>(s: &str) -> Result<T, String> {
    s.trim().parse::<T>().map_err(|e| match e.kind() {
        IntErrorKind::PosOverflow => "the number is too large".to_string(),
        _ => "expected a whole number (0, 1, 2, …)".to_string(),
    })
}

/// A count or limit: a whole number, 0 or more.
pub fn count(s: &str) -> Result<usize, String> {
    whole(s)
}

/// An entry id of a batch: a whole number.
pub fn id(s: &str) -> Result<u32, String> {
    whole(s)
}

/// An ingest: its id here (a whole number from 1) or its token, the same on every device.
pub fn ingest(s: &str) -> Result<crate::request::IngestRef, String> {
    match s.trim().parse::<i64>() {
        Ok(_) => whole::<u32>(s).map(|n| crate::request::IngestRef::Id(i64::from(n))),
        Err(_) => s.parse(),
    }
}

/// A number of calendar days: a whole number, negative or not (what a window of them means
/// is the operation's rule, [`crate::request::Brief::new`]).
pub fn days(s: &str) -> Result<i64, String> {
    s.trim()
        .parse()
        .map_err(|_| "expected a whole number of days".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_only_in_plain_words() {
        assert_eq!(count("12"), Ok(12));
        assert_eq!(
            count("abc").unwrap_err(),
            "expected a whole number (0, 1, 2, …)"
        );
        assert_eq!(
            count("-1").unwrap_err(),
            "expected a whole number (0, 1, 2, …)"
        );
        assert_eq!(
            count("1.5").unwrap_err(),
            "expected a whole number (0, 1, 2, …)"
        );
        assert_eq!(
            count("99999999999999999999999").unwrap_err(),
            "the number is too large"
        );
        assert_eq!(days("7"), Ok(7));
        assert_eq!(days("-3"), Ok(-3));
        assert_eq!(days("x").unwrap_err(), "expected a whole number of days");
        assert_eq!(id("4"), Ok(4));
    }
}
