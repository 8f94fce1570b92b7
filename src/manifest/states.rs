//! The states the manifest stores as words: a link's resolution, a page's frontmatter, an
//! ingest's status. Each is an enum everywhere but here, at the SQL edge, where it is read
//! and written as the word the schema's `CHECK` admits (and serialised as the same word).

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

/// A word that names none of a stored state's values.
#[derive(Debug, thiserror::Error)]
#[error("{word:?} is no {what}")]
pub struct UnknownState {
    /// What it should have named.
    pub what: &'static str,
    /// The word.
    pub word: String,
}

/// A stored state: its variants, each with its word; `as_str`, `FromStr`, the SQL and serde
/// conversions, all by that word.
macro_rules! stored_state {
    ($(#[$meta:meta])* $name:ident, $what:literal { $($(#[$vmeta:meta])* $variant:ident = $word:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            /// Every value, in the schema's order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// The word stored.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $word,)+
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = UnknownState;

            fn from_str(s: &str) -> std::result::Result<$name, UnknownState> {
                $name::ALL
                    .iter()
                    .copied()
                    .find(|v| v.as_str() == s)
                    .ok_or_else(|| UnknownState { what: $what, word: s.to_string() })
            }
        }

        impl ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                Ok(ToSqlOutput::from(self.as_str()))
            }
        }

        impl FromSql for $name {
            fn column_result(value: ValueRef<'_>) -> FromSqlResult<$name> {
                value
                    .as_str()?
                    .parse()
                    .map_err(|e| FromSqlError::Other(Box::new(e)))
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<$name, D::Error> {
                let word = String::deserialize(d)?;
                word.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

stored_state! {
    /// How a link resolved (`links.status`).
    LinkStatus, "link status" {
        /// Not resolved yet: the scan resolves it before it commits.
        Pending = "pending",
        /// To one page or file.
        Resolved = "resolved",
        /// To nothing.
        Broken = "broken",
        /// To several pages equally.
        Ambiguous = "ambiguous",
    }
}

stored_state! {
    /// What a page's frontmatter block is (`pages.frontmatter`).
    FrontmatterState, "frontmatter state" {
        /// A block that reads.
        Valid = "ok",
        /// No block.
        Missing = "none",
        /// A block that does not read.
        Invalid = "invalid",
    }
}

stored_state! {
    /// Where an ingest stands in its table (`ingests.status`); whether it was reverted since
    /// is its provenance's.
    IngestStatus, "ingest status" {
        /// Prepared, not finalized yet.
        Open = "open",
        /// Finalized.
        Completed = "completed",
        /// Closed without archiving.
        Aborted = "aborted",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each state's words: the schema's `CHECK`, in its order.
    fn words<T: Copy>(all: &[T], as_str: fn(T) -> &'static str) -> Vec<&'static str> {
        all.iter().map(|v| as_str(*v)).collect()
    }

    #[test]
    fn each_state_reads_back_the_word_it_stores() {
        fn round_trip<T>(all: &[T], as_str: fn(T) -> &'static str)
        where
            T: Copy + PartialEq + std::fmt::Debug + std::str::FromStr + serde::Serialize,
        {
            for v in all {
                let word = as_str(*v);
                assert_eq!(word.parse::<T>().ok(), Some(*v), "{word}");
                assert_eq!(serde_json::to_string(v).unwrap(), format!("{word:?}"));
            }
            assert!("reverted".parse::<T>().is_err());
            assert!("".parse::<T>().is_err());
        }
        round_trip(LinkStatus::ALL, LinkStatus::as_str);
        round_trip(FrontmatterState::ALL, FrontmatterState::as_str);
        round_trip(IngestStatus::ALL, IngestStatus::as_str);
        assert_eq!(
            words(LinkStatus::ALL, LinkStatus::as_str),
            ["pending", "resolved", "broken", "ambiguous"]
        );
        assert_eq!(
            words(FrontmatterState::ALL, FrontmatterState::as_str),
            ["ok", "none", "invalid"]
        );
        assert_eq!(
            words(IngestStatus::ALL, IngestStatus::as_str),
            ["open", "completed", "aborted"]
        );
        let e = "Open".parse::<IngestStatus>().unwrap_err();
        assert_eq!(e.to_string(), "\"Open\" is no ingest status");
    }

    #[test]
    fn each_state_goes_through_sqlite_as_its_word() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        for v in LinkStatus::ALL {
            let (word, back): (String, LinkStatus) = conn
                .query_row("SELECT ?1, ?1", [v], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap();
            assert_eq!((word.as_str(), back), (v.as_str(), *v));
        }
        let bad = conn.query_row("SELECT 'ok?'", [], |r| r.get::<_, FrontmatterState>(0));
        assert!(bad.is_err());
    }
}
