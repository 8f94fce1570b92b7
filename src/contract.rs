//! The agent contract: our own text, compiled into the binary. `sparks describe` prints it and
//! `sparks init --agent` installs it as `CLAUDE.md`, `AGENTS.md` or `GEMINI.md`.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract_covers_what_agents_rely_on() {
        for needle in [
            "sparks ingest --prepare",
            "sparks ingest --finalize",
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
