//! The agent contract: our own text, compiled into the binary. `sparks describe` prints it and
//! `sparks init --agent` installs it as `CLAUDE.md`, `AGENTS.md` or `GEMINI.md`; [`installed`]
//! tells whether those files still hold it.

use serde::Serialize;
use std::path::Path;

/// The whole contract, byte for byte as `sparks describe` prints it.
pub const CONTRACT: &str = include_str!("../contract/CONTRACT.md");

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
            "sparks done",
            "## Revision",
        ] {
            assert!(CONTRACT.contains(needle), "contract lacks {needle:?}");
        }
    }
}
