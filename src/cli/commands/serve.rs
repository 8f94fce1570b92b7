//! `sparks serve`: run the MCP server on stdin and stdout.

use crate::cli::{Ctx, exit::Exit};
use crate::mcp;
use anyhow::Context as _;
use clap::Args;

/// Serve the vault's operations to an MCP client over stdin and stdout
///
/// Tools: sparks_status, sparks_scan, sparks_describe, sparks_lint, sparks_affected,
/// sparks_index, sparks_prepare_ingest, sparks_finalize_ingest, sparks_abort_ingest,
/// sparks_ingest_status, sparks_ingest_list, sparks_ingest_show, sparks_revert_ingest,
/// sparks_done, sparks_tasks_add, sparks_tasks_list, sparks_brief, sparks_query,
/// sparks_search, sparks_fmt, sparks_collections_regen, sparks_move, sparks_merge.
/// Each answers with the JSON its command prints with --json. Nothing is opened before a tool
/// is called; every call finds the vault as a command does (--vault, SPARKS_VAULT or the
/// working directory). Runs until the client closes stdin.
///
/// Example (Claude Code): claude mcp add sparks -- sparks serve --vault ~/notes
#[derive(Debug, Args)]
pub struct ServeArgs {}

/// Run `serve`.
pub fn run(ctx: &Ctx, _args: ServeArgs) -> anyhow::Result<Exit> {
    // Each call finds the vault and reads the clock again, as a command does.
    mcp::serve(ctx.site().clone()).context("the MCP server stopped")?;
    Ok(Exit::Success)
}
