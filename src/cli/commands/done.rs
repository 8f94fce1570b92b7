//! `sparks done`: complete an open task.

use crate::cli::{Ctx, exit::Exit, output};
use crate::request::{self, Report as _};
use crate::tasks::Done;
use clap::Args;

/// Mark the open task that QUERY names as done
///
/// An exact match wins, then a unique substring match, then a fuzzy match: the query's letters
/// in order in the task (`updrdme` finds "update README"), with a clear winner. When several
/// tasks match, none is completed: the candidates are listed and the exit code is 1. A query
/// that finds only a completed task says it is already done (exit code 1: nothing changed).
///
/// Example: sparks done write fuzz targets
#[derive(Debug, Args)]
pub struct DoneArgs {
    /// Words of the task (joined with spaces)
    #[arg(required = true)]
    query: Vec<String>,

    /// Print the result as JSON
    #[arg(long)]
    pub(in crate::cli) json: bool,
}

/// Run `done`. A query that completes nothing is a failure, told on one stream: on stderr
/// (`error:` and, when ambiguous, the candidates), or under `--json` as the outcome's JSON on
/// stdout (`result` says what happened), the same as the MCP tool's result.
pub fn run(ctx: &Ctx, args: DoneArgs) -> anyhow::Result<Exit> {
    let result = ctx.run(request::Done {
        query: args.query.join(" "),
    })?;
    let (message, details) = match &result {
        Done::Completed { task, .. } => {
            return output::print(&result, args.json, |_| {
                output::report([format!("Done: {} (line {})", task.text, task.line)])
            });
        }
        Done::Ambiguous {
            candidates,
            matches,
        } => {
            let mut lines: Vec<String> = candidates
                .iter()
                .map(|t| format!("  - {} (line {})", t.text, t.line))
                .collect();
            if *matches > candidates.len() {
                lines.push(format!("  … and {} more", matches - candidates.len()));
            }
            (
                format!(
                    "the query matches {}; add words to pick one:",
                    output::count(*matches, "open task", "open tasks")
                ),
                lines,
            )
        }
        Done::AlreadyDone { task } => (
            format!(
                "\"{}\" (line {}) is already done; nothing was changed",
                task.text, task.line
            ),
            Vec::new(),
        ),
        Done::NotFound { query } => (format!("no open task matches \"{query}\""), Vec::new()),
    };
    // Under --json the outcome is the data, as the MCP tool answers it (nothing was completed:
    // exit 1 says so); a person reads the failure on stderr alone.
    match args.json {
        true => output::json(&result)?,
        false => output::error_with(&message, &details, None),
    }
    Ok(result.ending().into())
}
