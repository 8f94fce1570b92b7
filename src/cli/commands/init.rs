//! `sparks init`: create or repair a vault.

use crate::cli::{Ctx, exit::Exit, output};
use crate::contract::Agent;
use crate::init::{InitRequest, init};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// Create a vault, or add whatever is missing from one
///
/// Creates sparks.toml, inbox.md, raw/ and wiki/ with their folders, wiki/index.md,
/// wiki/log.md, wiki/collections/Tasks.md, a .gitignore for sparks.db* and the manifest.
/// Nothing that exists is changed, so running it twice is safe.
///
/// Example: sparks init notes --agent claude
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The vault directory, created if missing
    #[arg(default_value = ".")]
    path: PathBuf,

    /// Also install the agent contract as this agent's instruction file
    #[arg(long, value_enum)]
    agent: Option<AgentName>,

    /// Replace an existing instruction file with the current contract
    #[arg(long, requires = "agent")]
    force: bool,

    /// Print the result as JSON
    #[arg(long)]
    pub(in crate::cli) json: bool,
}

/// The agents whose instruction files `init` can write.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum AgentName {
    /// Claude Code (CLAUDE.md)
    Claude,
    /// Codex CLI (AGENTS.md)
    Codex,
    /// Gemini CLI (GEMINI.md)
    Gemini,
    /// Any agent that reads AGENTS.md
    Generic,
}

impl From<AgentName> for Agent {
    fn from(a: AgentName) -> Agent {
        match a {
            AgentName::Claude => Agent::Claude,
            AgentName::Codex => Agent::Codex,
            AgentName::Gemini => Agent::Gemini,
            AgentName::Generic => Agent::Generic,
        }
    }
}

/// Run `init`.
pub fn run(ctx: &Ctx, args: InitArgs) -> anyhow::Result<Exit> {
    let now = ctx.now();
    let report = init(&InitRequest {
        root: args.path,
        agent: args.agent.map(Agent::from),
        force: args.force,
        today: now.today.to_string(),
        now_ns: now.ns,
    })
    .map_err(crate::failure::Failure::from)?;
    if args.json {
        output::json(&report)?;
        return Ok(Exit::Success);
    }
    let root = report.vault_root.display();
    let mut lines = vec![if report.created {
        format!("Created a Sparks vault at {root}")
    } else if report.paths_created.is_empty() {
        format!("Vault at {root} is complete; nothing to do")
    } else {
        format!("Repaired the vault at {root}")
    }];
    lines.extend(
        report
            .paths_created
            .iter()
            .map(|p| format!("  created {p}")),
    );
    if let Some(f) = &report.agent_file {
        lines.push(match f.action {
            "written" => format!("  wrote {} (the contract, for {})", f.file, f.agent),
            "replaced" => format!("  replaced {} with the current contract", f.file),
            "unchanged" => format!("  {} already holds the current contract", f.file),
            _ => format!(
                "  kept {}: it differs from the current contract (pass --force to replace it)",
                f.file
            ),
        });
    }
    output::report(lines)?;
    Ok(Exit::Success)
}
