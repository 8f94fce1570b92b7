//! The checks, by name: the names are what `--check` takes, the JSON says and MCP's schema
//! lists, so they are declared once, here, with the enum.

use serde::{Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

macro_rules! checks {
    ($($(#[$doc:meta])* $variant:ident = $name:literal,)*) => {
        /// A lint check.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Check {
            $($(#[$doc])* $variant,)*
        }

        impl Check {
            /// Every check, in report order (by name).
            pub const ALL: &'static [Check] = &[$(Check::$variant,)*];

            /// The check's name (`broken-links`).
            pub fn name(self) -> &'static str {
                match self {
                    $(Check::$variant => $name,)*
                }
            }
        }

        /// Every check's name, in report order.
        pub const CHECKS: &[&str] = &[$($name,)*];
    };
}

checks! {
    /// A link that could mean several pages.
    AmbiguousLinks = "ambiguous-links",
    /// `[[T#^id]]` with no such block.
    BrokenBlocks = "broken-blocks",
    /// `[[T#Heading]]` with no such heading.
    BrokenHeadings = "broken-headings",
    /// A link that matches no page or file.
    BrokenLinks = "broken-links",
    /// A file holding git's conflict markers (`<<<<<<<`, `=======`, `>>>>>>>`).
    ConflictMarkers = "conflict-markers",
    /// A source that does not exist.
    DeadSources = "dead-sources",
    /// An alias claimed by several pages.
    DuplicateAliases = "duplicate-aliases",
    /// A title claimed by several pages.
    DuplicateTitles = "duplicate-titles",
    /// A frontmatter value that breaks the schema.
    InvalidFrontmatter = "invalid-frontmatter",
    /// `![[x.png]]` of a file that does not exist.
    MissingEmbeds = "missing-embeds",
    /// No frontmatter, or a required key missing.
    MissingFrontmatter = "missing-frontmatter",
    /// Two pages that say nearly the same thing (meaning and titles).
    NearDuplicates = "near-duplicates",
    /// A page no other page links to.
    Orphans = "orphans",
    /// A page older than one of its sources.
    StalePages = "stale-pages",
    /// A conflict copy a sync left beside a file, until it is reconciled and deleted.
    SyncConflicts = "sync-conflicts",
    /// A page with too few sentences of prose.
    ThinPages = "thin-pages",
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoSuchCheck(pub String);

impl FromStr for Check {
    type Err = NoSuchCheck;

    fn from_str(s: &str) -> Result<Check, NoSuchCheck> {
        Check::ALL
            .iter()
            .copied()
            .find(|c| c.name() == s)
            .ok_or_else(|| NoSuchCheck(s.to_string()))
    }
}

impl Serialize for Check {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_report_order() {
        for c in Check::ALL {
            assert_eq!(c.name().parse::<Check>(), Ok(*c));
            assert_eq!(serde_json::to_string(c).unwrap(), format!("\"{c}\""));
        }
        let mut sorted = CHECKS.to_vec();
        sorted.sort();
        assert_eq!(sorted, CHECKS, "the report order is the names' order");
        assert!("orphan".parse::<Check>().is_err());
    }
}
