//! `sparks serve`: run the MCP server on stdin and stdout.

use crate::cli::{Ctx, exit::Exit, watching};
use crate::mcp;
use anyhow::Context as _;
use clap::Args;

/// Serve the vault's operations to an MCP client over stdin and stdout
///
/// Tools: sparks_status, sparks_scan, sparks_describe, sparks_lint, sparks_affected,
/// sparks_index, sparks_prepare_ingest, sparks_finalize_ingest, sparks_abort_ingest,
/// sparks_ingest_status, sparks_ingest_list, sparks_ingest_show, sparks_revert_ingest,
/// sparks_done, sparks_capture, sparks_tasks_add, sparks_tasks_list, sparks_brief, sparks_query,
/// sparks_search, sparks_related, sparks_fmt, sparks_collections_regen, sparks_move, sparks_merge,
/// sparks_publish, sparks_sync.
/// Each answers with the JSON its command prints with --json. Every call finds the vault as a
/// command does (--vault, SPARKS_VAULT or the
/// working directory). Runs until the client closes stdin.
///
/// It watches the vault while it runs (as sparks watch does; if a watcher runs already, it
/// relies on that one), so that every answer reflects files edited meanwhile without a scan;
/// --no-watch leaves that to each call, which then scans first.
///
/// Example (Claude Code): claude mcp add sparks -- sparks serve --vault ~/notes
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Do not watch the vault: each call that reads scans first instead
    #[arg(long)]
    no_watch: bool,
}

/// Run `serve`.
pub fn run(ctx: &Ctx, args: ServeArgs) -> anyhow::Result<Exit> {
    let _watching = (!args.no_watch).then(|| watching::start(ctx.place(), "serve", None));
    // Each call finds the vault and reads the clock again, as a command does.
    mcp::serve(ctx.place().clone()).context("the MCP server stopped")?;
    Ok(Exit::Success)
}
