//! `sparks tasks`: manage wiki/collections/Tasks.md.

use crate::cli::output::{self, Style};
use crate::cli::{Ctx, exit::Exit};
use crate::request;
use crate::tasks::TaskState;
use clap::{ArgGroup, Args, Subcommand};

/// Manage the task list in wiki/collections/Tasks.md
///
/// `sparks tasks add` adds an open task, `sparks tasks list` lists them; `sparks done`
/// completes one.
///
/// Example: sparks tasks add "Write the fuzz targets" --section "[[Sparks]]"
#[derive(Debug, Args)]
pub struct TasksArgs {
    #[command(subcommand)]
    command: TasksCommand,
}

#[derive(Debug, Subcommand)]
enum TasksCommand {
    Add(AddArgs),
    List(ListArgs),
}

impl TasksArgs {
    /// Whether the command prints JSON.
    pub fn json(&self) -> bool {
        match &self.command {
            TasksCommand::Add(a) => a.json,
            TasksCommand::List(l) => l.json,
        }
    }
}

/// Add an open task under a section, creating the section if needed
///
/// The task is TEXT or `--text TEXT` (the original's form), one of the two. An identical open
/// task in that section is not added twice. Sections match case-insensitively.
///
/// Example: sparks tasks add "Write the fuzz targets" --section "[[Sparks]]"
///
/// Example: sparks tasks add --section "[[Sparks]]" --text "Write the fuzz targets"
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("task").required(true).args(["positional", "text"])))]
struct AddArgs {
    /// The task, one line (or give it with --text)
    #[arg(value_name = "TEXT")]
    positional: Option<String>,

    /// The section heading (without ##)
    #[arg(long)]
    section: String,

    /// The task, one line (the same as TEXT)
    #[arg(long, value_name = "TEXT")]
    text: Option<String>,

    /// Print the result as JSON
    #[arg(long)]
    json: bool,
}

/// List the open tasks with their sections and lines
///
/// Each task under the `##` or `###` section it belongs to, with its line in Tasks.md. Prints
/// nothing when there is none (and says so on stderr).
///
/// Example: sparks tasks list --section "[[Sparks]]" --all
#[derive(Debug, Args)]
struct ListArgs {
    /// List done tasks too
    #[arg(long)]
    all: bool,

    /// Only the tasks of this section (matched case-insensitively, without ##)
    #[arg(long, value_name = "S")]
    section: Option<String>,

    /// Print the result as JSON
    #[arg(long)]
    json: bool,
}

/// Run `tasks`.
pub fn run(ctx: &Ctx, args: TasksArgs) -> anyhow::Result<Exit> {
    let add = match args.command {
        TasksCommand::Add(add) => add,
        TasksCommand::List(list) => return run_list(ctx, list),
    };
    let a = ctx.run(request::TasksAdd {
        section: add.section,
        // clap lets through exactly one of the two (the group `task`).
        text: add.positional.or(add.text).unwrap_or_default(),
    })?;
    output::print(&a, add.json, |a| {
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
        Ok(())
    })
}

fn run_list(ctx: &Ctx, args: ListArgs) -> anyhow::Result<Exit> {
    let l = ctx.run(request::TasksList::new(args.all, args.section.clone())?)?;
    if let (Some(asked), None) = (&args.section, &l.section) {
        let known = match l.sections.is_empty() {
            true => "it has none".to_string(),
            false => format!("its sections: {}", l.sections.join(", ")),
        };
        output::warn(&format!("Tasks.md has no section {asked:?} ({known})"));
    }
    output::print(&l, args.json, |l| {
        if l.tasks.is_empty() {
            output::status(match args.all {
                true => "No tasks.",
                false => "No open tasks.",
            });
            return Ok(());
        }
        let mut lines = Vec::new();
        let mut current = None;
        for t in &l.tasks {
            if current != Some(&t.section) {
                lines.push(output::paint(
                    Style::Label,
                    t.section.as_deref().unwrap_or("(no section)"),
                ));
                current = Some(&t.section);
            }
            let mark = match t.state {
                TaskState::Open => "[ ]",
                TaskState::Done => "[x]",
            };
            lines.push(format!("  {mark} {} (line {})", t.text, t.line));
        }
        output::lines(lines)?;
        Ok(())
    })
}
