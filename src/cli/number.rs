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

/// A number of calendar days: a whole number from 1 to 3660 (ten years).
pub fn days(s: &str) -> Result<u32, String> {
    const RANGE: std::ops::RangeInclusive<u32> = 1..=3660;
    let fail = || {
        format!(
            "expected a whole number of days from {} to {}",
            RANGE.start(),
            RANGE.end()
        )
    };
    let d: u32 = whole(s).map_err(|_| fail())?;
    if RANGE.contains(&d) {
        Ok(d)
    } else {
        Err(fail())
    }
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
        for bad in ["0", "3661", "x", "-3"] {
            assert_eq!(
                days(bad).unwrap_err(),
                "expected a whole number of days from 1 to 3660"
            );
        }
        assert_eq!(id("4"), Ok(4));
    }
}
