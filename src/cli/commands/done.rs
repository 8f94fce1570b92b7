//! `sparks done`: complete an open task.

use crate::cli::{Ctx, exit::Exit, output};
use crate::request;
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

/// Run `done`.
pub fn run(ctx: &Ctx, args: DoneArgs) -> anyhow::Result<Exit> {
    let result = ctx.run(request::Done {
        query: args.query.join(" "),
    })?;
    output::print(&result, args.json, |result| {
        match result {
            Done::Completed { task, .. } => {
                output::report([format!("Done: {} (line {})", task.text, task.line)])?
            }
            Done::Ambiguous {
                candidates,
                matches,
            } => {
                // The original's wording, with each candidate's line.
                let mut lines = vec!["Ambiguous — multiple open tasks match:".to_string()];
                lines.extend(
                    candidates
                        .iter()
                        .map(|t| format!("  - {} (line {})", t.text, t.line)),
                );
                if *matches > candidates.len() {
                    lines.push(format!("  … and {} more", matches - candidates.len()));
                }
                output::lines(lines)?;
                output::error(
                    &format!(
                        "the query matches {}; add words to pick one",
                        output::count(*matches, "task", "tasks")
                    ),
                    None,
                );
            }
            Done::AlreadyDone { task } => {
                output::write(&format!(
                    "Already done: {} (line {})\n",
                    task.text, task.line
                ))?;
                output::error("that task is already done; nothing was changed", None);
            }
            Done::NotFound { query } => {
                output::write(&format!("No open task matching \"{query}\".\n"))?;
                output::error("no open task matches", None);
            }
        }
        Ok(())
    })
}
