//! `sparks tasks`: manage wiki/collections/Tasks.md.

use crate::cli::{Ctx, exit::Exit, output};
use crate::request;
use clap::{Args, Subcommand};

/// Manage the task list in wiki/collections/Tasks.md
///
/// `sparks tasks add` adds an open task; `sparks done` completes one.
///
/// Example: sparks tasks add --section "[[Sparks]]" --text "Write the fuzz targets"
#[derive(Debug, Args)]
pub struct TasksArgs {
    #[command(subcommand)]
    command: TasksCommand,
}

#[derive(Debug, Subcommand)]
enum TasksCommand {
    Add(AddArgs),
}

/// Add an open task under a section, creating the section if needed
///
/// An identical open task in that section is not added twice. Sections match
/// case-insensitively.
///
/// Example: sparks tasks add --section "[[Sparks]]" --text "Write the fuzz targets"
#[derive(Debug, Args)]
struct AddArgs {
    /// The section heading (without ##)
    #[arg(long)]
    section: String,

    /// The task, one line
    #[arg(long)]
    text: String,

    /// Print the result as JSON
    #[arg(long)]
    json: bool,
}

/// Run `tasks`.
pub fn run(ctx: &Ctx, args: TasksArgs) -> anyhow::Result<Exit> {
    let TasksCommand::Add(add) = args.command;
    let a = ctx.run(request::TasksAdd {
        section: add.section,
        text: add.text,
    })?;
    if add.json {
        output::json(&a)?;
        return Ok(Exit::Success);
    }
    let mut lines = Vec::new();
    if a.section_created {
        lines.push(format!("Created section \"{}\".", a.section));
    }
    lines.push(if a.already_open {
        format!(
            "Already open: {} (line {} under {})",
            a.text, a.line, a.section
        )
    } else {
        format!("Added: {} (line {} under {})", a.text, a.line, a.section)
    });
    output::report(lines)?;
    Ok(Exit::Success)
}
