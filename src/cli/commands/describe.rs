//! `sparks describe`: print the agent contract.

use crate::cli::{Ctx, exit::Exit, output};
use crate::contract::CONTRACT;
use clap::Args;

/// Print the agent contract: what agents do, what sparks does, and how they meet
///
/// The same text `sparks init --agent` installs as CLAUDE.md, AGENTS.md or GEMINI.md. Works
/// outside a vault.
///
/// Example: sparks describe > AGENTS.md
#[derive(Debug, Args)]
pub struct DescribeArgs {}

/// Run `describe`.
pub fn run(_ctx: &Ctx, _args: DescribeArgs) -> anyhow::Result<Exit> {
    output::write(CONTRACT)?;
    Ok(Exit::Success)
}
