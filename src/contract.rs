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
    /// Other names `sparks describe` takes for it (what an agent may look for it under).
    pub aliases: &'static [&'static str],
    /// What it holds, in one line.
    pub summary: &'static str,
    /// Its text.
    pub text: &'static str,
}

/// The topics of the reference, in the order `sparks describe --topics` lists them.
pub const TOPICS: &[Topic] = &[
    Topic {
        name: "ingest",
        aliases: &[],
        summary: "the ingest in full: prepare's JSON, an open batch, finalize's guarantees, --strict, history and revert",
        text: include_str!("../contract/topics/ingest.md"),
    },
    Topic {
        name: "commands",
        aliases: &[],
        summary: "every command and flag an agent uses: status, scan, query, search, lint, fmt, index, brief, regen",
        text: include_str!("../contract/topics/commands.md"),
    },
    Topic {
        name: "links",
        aliases: &[],
        summary: "link syntax and resolution, heading matching, renaming with mv and merging with merge",
        text: include_str!("../contract/topics/links.md"),
    },
    Topic {
        name: "tasks",
        aliases: &[],
        summary: "Tasks.md, tasks add, tasks list and how done picks a task",
        text: include_str!("../contract/topics/tasks.md"),
    },
    Topic {
        name: "collections",
        aliases: &[],
        summary: "the seven generated pages and what feeds each",
        text: include_str!("../contract/topics/collections.md"),
    },
    Topic {
        name: "exit-codes",
        aliases: &[],
        summary: "exit codes, and errors as JSON under --json",
        text: include_str!("../contract/topics/exit-codes.md"),
    },
    Topic {
        name: "git",
        aliases: &[],
        summary: "when sparks commits, with whose identity, and what a commit holds",
        text: include_str!("../contract/topics/git.md"),
    },
    Topic {
        name: "devices",
        aliases: &["sync", "capture"],
        summary: "several devices: sync, capture, what travels, conflict copies, the merge driver",
        text: include_str!("../contract/topics/devices.md"),
    },
    Topic {
        name: "config",
        aliases: &[],
        summary: "every sparks.toml key, its default and meaning",
        text: include_str!("../contract/topics/config.md"),
    },
    Topic {
        name: "model",
        aliases: &["licence", "license", "notice"],
        summary: "the embedding model compiled in for search by meaning, and its MIT notice",
        // The model's notice itself follows the topic's text, verbatim (`embed::NOTICE`).
        text: concat!(
            include_str!("../contract/topics/model.md"),
            include_str!("../model/potion-base-8M/LICENSE")
        ),
    },
    Topic {
        name: "template",
        aliases: &[],
        summary: "the instruction a human pastes to an agent",
        text: include_str!("../contract/topics/template.md"),
    },
];

/// The topic called `name`, or that has `name` among its aliases.
pub fn topic(name: &str) -> Option<&'static Topic> {
    TOPICS
        .iter()
        .find(|t| t.name == name || t.aliases.contains(&name))
}

/// The topic called `name` (or by an alias), or an error that lists the topics.
pub fn find(name: &str) -> Result<&'static Topic, UnknownTopic> {
    topic(name).ok_or_else(|| UnknownTopic(name.to_string()))
}

/// A topic was asked for that the reference does not have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("there is no topic called {0:?} (topics: {names})", names = topic_names().join(", "))]
pub struct UnknownTopic(pub String);

impl crate::failure::Hint for UnknownTopic {
    fn hint(&self) -> Option<crate::failure::Advice> {
        None
    }
}

/// The topics' names, in the order `sparks describe --topics` lists them (aliases left out).
pub fn topic_names() -> Vec<&'static str> {
    TOPICS.iter().map(|t| t.name).collect()
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
    fn the_model_topic_ships_the_models_notice_verbatim() {
        let model = topic("licence").expect("the model topic, by an alias");
        assert!(model.text.ends_with(crate::embed::NOTICE));
        assert!(model.text.contains("MIT License") && model.text.contains("MinishLab"));
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

    #[test]
    fn aliases_find_their_topic_and_an_unknown_topic_names_them_all() {
        assert_eq!(topic("sync").map(|t| t.name), Some("devices"));
        assert_eq!(find("capture").map(|t| t.name), Ok("devices"));
        assert_eq!(find("git").map(|t| t.name), Ok("git"));
        // No alias is also a name, or an alias of two topics.
        let mut names: Vec<&str> = TOPICS
            .iter()
            .flat_map(|t| std::iter::once(t.name).chain(t.aliases.iter().copied()))
            .collect();
        let all = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all, "{names:?}");
        let err = find("synk").unwrap_err().to_string();
        assert_eq!(
            err,
            "there is no topic called \"synk\" (topics: ingest, commands, links, tasks, \
             collections, exit-codes, git, devices, config, model, template)"
        );
    }
}
