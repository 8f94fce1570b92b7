//! The agent contract: our own text, compiled into the binary. `sparks describe` prints it and
//! `sparks init --agent` installs it as `CLAUDE.md`, `AGENTS.md` or `GEMINI.md`; [`installed`]
//! tells whether those files still hold it. The contract holds what an agent needs in every
//! session, small enough to load each time; the reference is in [`TOPICS`], which
//! `sparks describe TOPIC` prints when an agent needs one.

use serde::Serialize;
use std::path::Path;

/// The contract, byte for byte as `sparks describe` prints it and `init --agent` installs it.
pub const CONTRACT: &str = include_str!("../contract/CONTRACT.md");

/// A part of the reference, printed on request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Topic {
    /// The name `sparks describe` takes.
    pub name: &'static str,
    /// What it holds, in one line.
    pub summary: &'static str,
    /// Its text.
    pub text: &'static str,
}

/// The topics of the reference, in the order `sparks describe --topics` lists them.
pub const TOPICS: &[Topic] = &[
    Topic {
        name: "ingest",
        summary: "the ingest in full: prepare's JSON, an open batch, finalize's guarantees, --strict, history and revert",
        text: include_str!("../contract/topics/ingest.md"),
    },
    Topic {
        name: "commands",
        summary: "every command and flag an agent uses: status, scan, query, search, lint, fmt, index, brief, regen",
        text: include_str!("../contract/topics/commands.md"),
    },
    Topic {
        name: "links",
        summary: "link syntax and resolution, heading matching, renaming with mv and merging with merge",
        text: include_str!("../contract/topics/links.md"),
    },
    Topic {
        name: "tasks",
        summary: "Tasks.md, tasks add, tasks list and how done picks a task",
        text: include_str!("../contract/topics/tasks.md"),
    },
    Topic {
        name: "collections",
        summary: "the seven generated pages and what feeds each",
        text: include_str!("../contract/topics/collections.md"),
    },
    Topic {
        name: "exit-codes",
        summary: "exit codes, and errors as JSON under --json",
        text: include_str!("../contract/topics/exit-codes.md"),
    },
    Topic {
        name: "git",
        summary: "when sparks commits, with whose identity, and what a commit holds",
        text: include_str!("../contract/topics/git.md"),
    },
    Topic {
        name: "devices",
        summary: "several devices: sync, capture, what travels, conflict copies, the merge driver",
        text: include_str!("../contract/topics/devices.md"),
    },
    Topic {
        name: "config",
        summary: "every sparks.toml key, its default and meaning",
        text: include_str!("../contract/topics/config.md"),
    },
    Topic {
        name: "template",
        summary: "the instruction a human pastes to an agent",
        text: include_str!("../contract/topics/template.md"),
    },
];

/// The topic called `name`.
pub fn topic(name: &str) -> Option<&'static Topic> {
    TOPICS.iter().find(|t| t.name == name)
}

/// The topics one a line: the name, then its summary (what `sparks describe --topics` prints).
pub fn topic_list() -> String {
    let width = TOPICS.iter().map(|t| t.name.len()).max().unwrap_or(0);
    TOPICS
        .iter()
        .map(|t| format!("{:<width$}  {}\n", t.name, t.summary))
        .collect()
}

/// An agent whose instruction file `init --agent` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// Claude Code: `CLAUDE.md`.
    Claude,
    /// Codex CLI: `AGENTS.md`.
    Codex,
    /// Gemini CLI: `GEMINI.md`.
    Gemini,
    /// Any other agent that reads `AGENTS.md`.
    Generic,
}

impl Agent {
    /// The instruction file this agent reads, at the vault root.
    pub fn file_name(self) -> &'static str {
        match self {
            Agent::Claude => "CLAUDE.md",
            Agent::Codex | Agent::Generic => "AGENTS.md",
            Agent::Gemini => "GEMINI.md",
        }
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Generic => "generic",
        }
    }
}

/// Whether an installed instruction file holds the contract of this binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileState {
    /// Byte for byte the embedded contract.
    Current,
    /// Anything else: an older contract, local edits, or a file that cannot be read.
    Differs,
}

/// An instruction file found at the vault root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Installed {
    /// `CLAUDE.md`, `AGENTS.md` or `GEMINI.md`.
    pub file: &'static str,
    /// How it compares with the embedded contract.
    pub state: FileState,
    /// The agent whose `init --agent` rewrites it.
    #[serde(skip)]
    pub agent: Agent,
}

/// The instruction files present at `root`, in the order CLAUDE.md, AGENTS.md, GEMINI.md,
/// each compared with the contract as `init --agent` compares it (byte for byte, so that
/// `init --agent X --force` always makes it current).
pub fn installed(root: &Path) -> Vec<Installed> {
    [Agent::Claude, Agent::Codex, Agent::Gemini]
        .into_iter()
        .filter_map(|agent| {
            let file = agent.file_name();
            let state = match crate::fsio::read_if_exists(&root.join(file)) {
                Ok(Some(bytes)) if bytes == CONTRACT.as_bytes() => FileState::Current,
                Ok(None) => return None,
                Ok(Some(_)) | Err(_) => FileState::Differs,
            };
            Some(Installed { file, state, agent })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn installed_files_are_compared_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(installed(dir.path()), []);
        fs_err::write(dir.path().join("CLAUDE.md"), CONTRACT).unwrap();
        fs_err::write(
            dir.path().join("GEMINI.md"),
            format!("{CONTRACT}\nMy own rule.\n"),
        )
        .unwrap();
        let found = installed(dir.path());
        let states: Vec<_> = found.iter().map(|f| (f.file, f.state, f.agent)).collect();
        assert_eq!(
            states,
            [
                ("CLAUDE.md", FileState::Current, Agent::Claude),
                ("GEMINI.md", FileState::Differs, Agent::Gemini)
            ]
        );
        assert_eq!(
            serde_json::to_value(&found[1]).unwrap(),
            serde_json::json!({"file": "GEMINI.md", "state": "differs"})
        );
    }

    #[test]
    fn contract_covers_what_agents_rely_on() {
        for needle in [
            "sparks ingest --prepare",
            "sparks ingest --finalize",
            "sparks ingest --finalize --strict",
            "sparks ingest --revert",
            "--keep",
            "already_in_progress",
            "capture_date",
            "raw/",
            "wiki/",
            "AGENTS.md",
            "sparks tasks add",
            "sparks tasks list",
            "sparks done",
            "## Revision",
            "sparks describe TOPIC",
            "sparks describe --topics",
        ] {
            assert!(CONTRACT.contains(needle), "contract lacks {needle:?}");
        }
    }

    #[test]
    fn the_contract_is_small_and_names_every_topic() {
        // The original's contract was 13.7 KB; room is left below that for more rules.
        assert!(CONTRACT.len() <= 12_500, "{} bytes", CONTRACT.len());
        for t in TOPICS {
            assert!(
                CONTRACT.contains(&format!("`{}`", t.name)),
                "the contract does not name the topic {}",
                t.name
            );
            assert!(
                !t.summary.contains('\n') && t.text.starts_with("# "),
                "{}",
                t.name
            );
        }
        let list = topic_list();
        assert_eq!(list.lines().count(), TOPICS.len());
        assert!(list.starts_with("ingest "), "{list}");
        assert_eq!(topic("links").map(|t| t.name), Some("links"));
        assert_eq!(topic("nothing"), None);
    }
}
