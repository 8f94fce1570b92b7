//! Who a commit is by, and when, found where the git CLI finds them (the original committed
//! with it): for the author, `GIT_AUTHOR_NAME` / `GIT_AUTHOR_EMAIL` first, then the
//! configuration's `author.name` / `author.email`, then `user.name` / `user.email`, and for
//! the e-mail last the `EMAIL` variable; the committer alike with `GIT_COMMITTER_*` and
//! `committer.*`. `GIT_AUTHOR_DATE` / `GIT_COMMITTER_DATE` set the dates, in any of git's
//! formats: its internal `@<unix seconds> <+hhmm>`, RFC 2822 or ISO 8601.
//!
//! Unlike git, nothing is guessed from the system's user and host names: git itself refuses
//! the guess in most containers (`root@host.(none)`), and a commit signed with one is hard to
//! take back. Pure: the environment and the configuration come in as lookups (`src/git.rs`
//! reads them with libgit2).

use crate::failure::{Action, Advice, Hint};
use chrono::{DateTime, FixedOffset, Local, NaiveDateTime, TimeZone};

/// The two identities of a commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Who wrote the change.
    Author,
    /// Who committed it.
    Committer,
}

impl Role {
    /// `author` or `committer`, as in git's configuration keys.
    pub fn name(self) -> &'static str {
        match self {
            Role::Author => "author",
            Role::Committer => "committer",
        }
    }

    fn var(self, what: &str) -> String {
        format!("GIT_{}_{what}", self.name().to_ascii_uppercase())
    }
}

/// A resolved identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ident {
    /// The name, as git would write it.
    pub name: String,
    /// The e-mail address.
    pub email: String,
    /// Seconds since the epoch and the offset in minutes, when a date variable set them;
    /// `None` means now.
    pub when: Option<(i64, i32)>,
}

/// No identity could be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdentError {
    /// No source gives a name or an e-mail address.
    #[error("no {} identity: no {what} in {sources}", role.name())]
    Missing {
        /// Author or committer.
        role: Role,
        /// `name` or `email`.
        what: &'static str,
        /// Where it looked, in order.
        sources: String,
    },
    /// A variable is set but holds nothing usable (git refuses an empty identity too).
    #[error("{var} is set but empty")]
    Empty {
        /// The variable.
        var: String,
    },
    /// A date variable holds no date git accepts.
    #[error("{var}={value:?} is not a date git accepts")]
    BadDate {
        /// The variable.
        var: String,
        /// Its value.
        value: String,
    },
}

impl Hint for IdentError {
    /// What the user can do about it.
    fn hint(&self) -> Option<Advice> {
        Some(match self {
            IdentError::Missing { .. } | IdentError::Empty { .. } => {
                Advice::run(Action::SetIdentity)
            }
            IdentError::BadDate { .. } => Advice::say(
                "give RFC 2822 (`Thu, 07 Apr 2005 22:13:13 +0200`), ISO 8601 \
                 (`2005-04-07T22:13:13`, with an optional offset) or `@<unix seconds> <+hhmm>`",
            ),
        })
    }
}

/// A value as git writes it into a commit: `<`, `>` and line breaks removed, surrounding
/// white space trimmed.
fn clean(value: &str) -> String {
    value
        .chars()
        .filter(|c| !matches!(c, '<' | '>' | '\n' | '\r'))
        .collect::<String>()
        .trim()
        .to_string()
}

/// The identity of `role`: `env` reads an environment variable, `config` a git configuration
/// key (both `None` when unset).
pub fn resolve(
    role: Role,
    env: &dyn Fn(&str) -> Option<String>,
    config: &dyn Fn(&str) -> Option<String>,
) -> Result<Ident, IdentError> {
    let find = |what: &'static str, last_env: Option<&str>| {
        let var = role.var(&what.to_ascii_uppercase());
        let keys = [format!("{}.{what}", role.name()), format!("user.{what}")];
        let found = match env(&var) {
            Some(v) => Some((v, var.clone())),
            None => keys
                .iter()
                .find_map(|k| config(k).map(|v| (v, k.clone())))
                .or_else(|| last_env.and_then(|e| env(e).map(|v| (v, e.to_string())))),
        };
        let Some((value, source)) = found else {
            let mut sources = vec![var, keys[0].clone(), keys[1].clone()];
            sources.extend(last_env.map(str::to_string));
            let last = sources.pop().unwrap_or_default();
            return Err(IdentError::Missing {
                role,
                what,
                sources: format!("{} or {last}", sources.join(", ")),
            });
        };
        let value = clean(&value);
        if value.is_empty() {
            return Err(IdentError::Empty { var: source });
        }
        Ok(value)
    };
    let name = find("name", None)?;
    let email = find("email", Some("EMAIL"))?;
    let date_var = role.var("DATE");
    let when = match env(&date_var) {
        Some(value) => Some(
            parse_date(&value, &local_offset).ok_or(IdentError::BadDate {
                var: date_var,
                value,
            })?,
        ),
        None => None,
    };
    Ok(Ident { name, email, when })
}

/// The local offset at a local date and time (the offset of a date given without one).
fn local_offset(t: &NaiveDateTime) -> Option<FixedOffset> {
    Local.from_local_datetime(t).earliest().map(|d| *d.offset())
}

/// A date in one of git's formats, as (seconds since the epoch, offset in minutes):
/// `@<seconds> <+hhmm>` (or `<seconds> <+hhmm>`, or `@<seconds>` in UTC), RFC 2822, or ISO
/// 8601 (`T` or a space between date and time, seconds and fractions optional, an offset
/// `Z`, `+hh`, `+hhmm` or `+hh:mm` optional: without one, `local` gives it).
pub fn parse_date(
    s: &str,
    local: &dyn Fn(&NaiveDateTime) -> Option<FixedOffset>,
) -> Option<(i64, i32)> {
    let s = s.trim();
    internal(s)
        .or_else(|| DateTime::parse_from_rfc2822(s).ok().map(split))
        .or_else(|| iso(s, local))
}

fn split(d: DateTime<FixedOffset>) -> (i64, i32) {
    (d.timestamp(), d.offset().local_minus_utc() / 60)
}

/// `@1112911993 +0200`, `1112911993 +0200`, `@1112911993`.
fn internal(s: &str) -> Option<(i64, i32)> {
    let (at, rest) = match s.strip_prefix('@') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (secs, zone) = match rest.split_once(' ') {
        Some((secs, zone)) => (secs, Some(zone.trim())),
        None if at => (rest, None),
        None => return None,
    };
    if secs.is_empty() || !secs.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs: i64 = secs.parse().ok()?;
    let minutes = match zone {
        Some(z) => offset_minutes(z)?,
        None => 0,
    };
    Some((secs, minutes))
}

/// `+0200`, `-05`, `+05:30`, `Z` as minutes east of UTC.
fn offset_minutes(z: &str) -> Option<i32> {
    if z == "Z" || z == "z" {
        return Some(0);
    }
    let (sign, digits) = match z.as_bytes().first()? {
        b'+' => (1, &z[1..]),
        b'-' => (-1, &z[1..]),
        _ => return None,
    };
    let digits = digits.replacen(':', "", 1);
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (h, m) = match digits.len() {
        2 => (digits.parse::<i32>().ok()?, 0),
        4 => (
            digits[..2].parse::<i32>().ok()?,
            digits[2..].parse::<i32>().ok()?,
        ),
        _ => return None,
    };
    (h < 24 && m < 60).then_some(sign * (h * 60 + m))
}

/// `2005-04-07T22:13:13`, `2005-04-07 22:13:13.5 +0200`, `2005-04-07T22:13Z`.
fn iso(s: &str, local: &dyn Fn(&NaiveDateTime) -> Option<FixedOffset>) -> Option<(i64, i32)> {
    // The offset, if any, follows the time: the first `Z`, `+` or `-` after the date.
    let date_len = 10.min(s.len());
    let (datetime, zone) = match s.get(date_len..)?.find(['Z', 'z', '+', '-']) {
        Some(i) => (s[..date_len + i].trim_end(), Some(s[date_len + i..].trim())),
        None => (s, None),
    };
    let naive = [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
    ]
    .iter()
    .find_map(|f| NaiveDateTime::parse_from_str(datetime, f).ok())?;
    let offset = match zone {
        Some(z) => FixedOffset::east_opt(offset_minutes(z)? * 60)?,
        None => local(&naive)?,
    };
    let d = offset.from_local_datetime(&naive).single()?;
    Some(split(d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn utc(_: &NaiveDateTime) -> Option<FixedOffset> {
        FixedOffset::east_opt(0)
    }

    fn lookup(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn ident(
        role: Role,
        env: &[(&str, &str)],
        config: &[(&str, &str)],
    ) -> Result<Ident, IdentError> {
        let (env, config) = (lookup(env), lookup(config));
        resolve(role, &|k| env.get(k).cloned(), &|k| config.get(k).cloned())
    }

    #[test]
    fn the_environment_comes_before_the_configuration() {
        let config = [("user.name", "Config"), ("user.email", "c@example.com")];
        let env = [
            ("GIT_AUTHOR_NAME", "Env"),
            ("GIT_AUTHOR_EMAIL", "e@example.com"),
        ];
        let a = ident(Role::Author, &env, &config).unwrap();
        assert_eq!(
            (a.name.as_str(), a.email.as_str()),
            ("Env", "e@example.com")
        );
        let c = ident(Role::Committer, &env, &config).unwrap();
        assert_eq!(
            (c.name.as_str(), c.email.as_str()),
            ("Config", "c@example.com")
        );
    }

    #[test]
    fn role_keys_come_before_user_keys_and_email_falls_back_to_email() {
        let config = [("user.name", "User"), ("committer.name", "Bot")];
        let env = [("EMAIL", "mail@example.com")];
        let c = ident(Role::Committer, &env, &config).unwrap();
        assert_eq!(
            (c.name.as_str(), c.email.as_str()),
            ("Bot", "mail@example.com")
        );
        let with_config = [("user.name", "User"), ("user.email", "u@example.com")];
        let a = ident(Role::Author, &env, &with_config).unwrap();
        assert_eq!(a.email, "u@example.com", "user.email before EMAIL");
    }

    #[test]
    fn nothing_anywhere_names_every_source() {
        let e = ident(Role::Author, &[], &[]).unwrap_err();
        let text = e.to_string();
        assert_eq!(
            text,
            "no author identity: no name in GIT_AUTHOR_NAME, author.name or user.name"
        );
        let e = ident(Role::Author, &[("GIT_AUTHOR_NAME", "A")], &[]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no author identity: no email in GIT_AUTHOR_EMAIL, author.email, user.email or EMAIL"
        );
        let e = ident(
            Role::Author,
            &[("GIT_AUTHOR_NAME", " <> ")],
            &[("user.name", "U")],
        );
        assert_eq!(
            e.unwrap_err(),
            IdentError::Empty {
                var: "GIT_AUTHOR_NAME".into()
            }
        );
    }

    #[test]
    fn angle_brackets_and_line_breaks_are_dropped() {
        let env = [
            ("GIT_AUTHOR_NAME", "A <b>\nC"),
            ("GIT_AUTHOR_EMAIL", "<a@example.com>"),
        ];
        let a = ident(Role::Author, &env, &[]).unwrap();
        assert_eq!(
            (a.name.as_str(), a.email.as_str()),
            ("A bC", "a@example.com")
        );
    }

    #[test]
    fn dates_in_gits_formats() {
        let p = |s: &str| parse_date(s, &utc);
        assert_eq!(p("@1112911993 +0200"), Some((1112911993, 120)));
        assert_eq!(p("1112911993 -0530"), Some((1112911993, -330)));
        assert_eq!(p("@1112911993"), Some((1112911993, 0)));
        assert_eq!(
            p("Thu, 07 Apr 2005 22:13:13 +0200"),
            Some((1112904793, 120))
        );
        assert_eq!(p("2005-04-07T22:13:13"), Some((1112911993, 0)));
        assert_eq!(p("2005-04-07 22:13:13 +0200"), Some((1112904793, 120)));
        assert_eq!(p("2005-04-07T22:13:13+02:00"), Some((1112904793, 120)));
        assert_eq!(p("2005-04-07T22:13:13.25Z"), Some((1112911993, 0)));
        assert_eq!(p("2005-05-26 23:00"), Some((1117148400, 0)));
        for bad in [
            "yesterday",
            "2005-04-07",
            "@",
            "12 +99",
            "2005-13-01T00:00:00",
            "",
            "2005-04-0é",
        ] {
            assert_eq!(p(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_bad_date_names_its_variable() {
        let env = [
            ("GIT_COMMITTER_NAME", "C"),
            ("GIT_COMMITTER_EMAIL", "c@example.com"),
            ("GIT_COMMITTER_DATE", "soon"),
        ];
        let e = ident(Role::Committer, &env, &[]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "GIT_COMMITTER_DATE=\"soon\" is not a date git accepts"
        );
    }
}
