//! An operation that rewrites several files (`mv`, `merge`, an ingest's revert) as the journal
//! records it and an error names it: its kind and its arguments, never a command line. Each
//! front end words it its own way: the CLI as the command a person types again, the MCP
//! server as the tool and the arguments to call it with; a message says it in plain words
//! ([`fmt::Display`]).

use serde::{Deserialize, Serialize};
use std::fmt;

/// A multi-file operation and its arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    /// Rename or move `page` to `new`.
    Mv {
        /// The page, as it was named.
        page: String,
        /// The new name or path, as it was given.
        new: String,
        /// Whether the old name is left out of the page's aliases.
        #[serde(default)]
        no_alias: bool,
    },
    /// Merge `from` into `into`.
    Merge {
        /// The page merged away, as it was named.
        from: String,
        /// The page it goes into, as it was named.
        into: String,
    },
    /// Revert ingest `id`.
    Revert {
        /// The ingest.
        id: i64,
    },
    /// An operation an earlier Sparks journaled as the command line that completes it, read
    /// back as it was written.
    Recorded {
        /// The journal's name for it: `mv`, `merge` or `revert`.
        kind: String,
        /// The command line.
        command: String,
    },
}

impl Operation {
    /// The journal's name for it: `mv`, `merge` or `revert`.
    pub fn kind(&self) -> &str {
        match self {
            Operation::Mv { .. } => "mv",
            Operation::Merge { .. } => "merge",
            Operation::Revert { .. } => "revert",
            Operation::Recorded { kind, .. } => kind,
        }
    }
}

impl fmt::Display for Operation {
    /// The operation in plain words, neutral to the front end: `the move of Old to New`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operation::Mv { page, new, .. } => write!(f, "the move of {page:?} to {new:?}"),
            Operation::Merge { from, into } => write!(f, "the merge of {from:?} into {into:?}"),
            Operation::Revert { id } => write!(f, "the revert of ingest {id}"),
            Operation::Recorded { kind, .. } => match kind.as_str() {
                "mv" => f.write_str("a move"),
                "merge" => f.write_str("a merge"),
                "revert" => f.write_str("the revert of an ingest"),
                other => write!(f, "an operation ({other})"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operation_is_said_in_plain_words_and_recorded_as_its_arguments() {
        let mv = Operation::Mv {
            page: "Old Name".into(),
            new: "New".into(),
            no_alias: true,
        };
        assert_eq!(mv.to_string(), "the move of \"Old Name\" to \"New\"");
        assert_eq!(
            serde_json::to_string(&mv).unwrap(),
            r#"{"mv":{"page":"Old Name","new":"New","no_alias":true}}"#
        );
        let back: Operation = serde_json::from_str(r#"{"revert":{"id":3}}"#).unwrap();
        assert_eq!(back, Operation::Revert { id: 3 });
        assert_eq!(back.kind(), "revert");
        assert_eq!(back.to_string(), "the revert of ingest 3");
    }
}
