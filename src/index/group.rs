//! The sections of the index: the five page types and `Other`, with their headings, shard
//! pages and counts.

use super::SHARD_DIR;

/// A section of the index: one of the five page types, or every other page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Group {
    /// `type: entity`
    Entities,
    /// `type: concept`
    Concepts,
    /// `type: summary`
    Summaries,
    /// `type: synthesis`
    Syntheses,
    /// `type: collection`
    Collections,
    /// Any other type, or none.
    Other,
}

/// The sections, in the order the index writes them.
pub const GROUPS: [Group; 6] = [
    Group::Entities,
    Group::Concepts,
    Group::Summaries,
    Group::Syntheses,
    Group::Collections,
    Group::Other,
];

impl Group {
    /// The section of a page with this `type:` (exact: `Entity` is not a type).
    pub fn of(kind: Option<&str>) -> Group {
        GROUPS
            .into_iter()
            .find(|g| *g != Group::Other && kind == Some(g.kind()))
            .unwrap_or(Group::Other)
    }

    /// The `type:` value, or `other`.
    pub fn kind(self) -> &'static str {
        match self {
            Group::Entities => "entity",
            Group::Concepts => "concept",
            Group::Summaries => "summary",
            Group::Syntheses => "synthesis",
            Group::Collections => "collection",
            Group::Other => "other",
        }
    }

    /// The section heading.
    pub fn heading(self) -> &'static str {
        match self {
            Group::Entities => "Entities",
            Group::Concepts => "Concepts",
            Group::Summaries => "Summaries",
            Group::Syntheses => "Syntheses",
            Group::Collections => "Collections",
            Group::Other => "Other",
        }
    }

    /// The vault-relative path of this section's page in a sharded index.
    pub fn shard(self) -> String {
        format!("{SHARD_DIR}/{}.md", self.heading())
    }

    /// The title of this section's page in a sharded index.
    pub fn shard_title(self) -> String {
        match self {
            Group::Other => "Index of Other Pages".into(),
            g => format!("Index of {}", g.heading()),
        }
    }

    /// `1 entity`, `3 entities`, `2 other`.
    pub fn count(self, n: usize) -> String {
        let plural = match self {
            Group::Entities => "entities",
            Group::Concepts => "concepts",
            Group::Summaries => "summaries",
            Group::Syntheses => "syntheses",
            Group::Collections => "collections",
            Group::Other => "other",
        };
        format!("{n} {}", if n == 1 { self.kind() } else { plural })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_take_exact_types_only() {
        assert_eq!(Group::of(Some("entity")), Group::Entities);
        assert_eq!(Group::of(Some("synthesis")), Group::Syntheses);
        assert_eq!(Group::of(Some("Entity")), Group::Other);
        assert_eq!(Group::of(Some("other")), Group::Other);
        assert_eq!(Group::of(None), Group::Other);
        assert_eq!(Group::Entities.shard(), "wiki/index/Entities.md");
        assert_eq!(Group::Summaries.count(1), "1 summary");
        assert_eq!(Group::Summaries.count(2), "2 summaries");
    }
}
