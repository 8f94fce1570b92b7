//! The command line: the only layer that parses arguments, prints, and chooses exit codes.
//! Each command lives in `commands/`, turns its arguments into a plain request, calls one
//! core function and renders the report it gets back.

pub mod commands;
pub mod exit;
pub mod hint;
mod interrupt;
pub mod number;
pub mod output;
pub mod progress;
mod signals;
mod watching;

use crate::clock::Now;
use crate::failure::Failure;
use crate::request::{Ending, Report as _, Request};
use crate::scan::Freshness;
use crate::session::Place;
use anyhow::Context as _;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use exit::Exit;
use output::ColorChoice;
use std::io::IsTerminal;
use std::path::PathBuf;

/// `version 0.1.0 (abc1234)`: the version and the commit it was built from (`unknown` outside
/// a git checkout; see build.rs). clap prints it after the name, so `--version` says
/// `sparks version 0.1.0 (abc1234)`, in the original's form.
const VERSION: &str = concat!(
    "version ",
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("SPARKS_COMMIT"),
    ")"
);

/// The heading of the options every command takes, listed after a command's own.
const GLOBAL: &str = "Global options";

/// A knowledge-base runtime for AI agents.
///
/// A human captures into inbox.md; an agent writes the wiki; sparks does the plumbing: the
/// two-phase ingest, the manifest of pages and links, tasks and git commits. Run
/// `sparks describe` for the contract agents follow.
#[derive(Debug, Parser)]
#[command(
    name = "sparks",
    version = VERSION,
    max_term_width = 100,
    after_long_help = "Colour (--color): colour decorates the error, warning and hint prefixes on \
    stderr and the labels, check names and outcomes of human text on stdout; the words say the \
    same without it. auto: each stream when it is a terminal and NO_COLOR is not set; always: \
    even into a pipe or a file. JSON is never coloured.\n\n\
    Examples:\n  sparks init notes --agent claude\n  sparks ingest --prepare\n  \
    sparks lint --json\n  sparks completions bash > ~/.local/share/bash-completion/completions/sparks\n\n\
    Data goes to stdout, everything else to stderr. Exit codes: 0 success, 1 problems found or \
    a failure, 2 usage error, 3 another ingest is already open."
)]
pub struct Cli {
    /// Use the vault at PATH instead of finding one from the working directory
    #[arg(
        long,
        global = true,
        env = "SPARKS_VAULT",
        value_name = "PATH",
        help_heading = GLOBAL
    )]
    vault: Option<PathBuf>,

    /// Accepted for the original's scripts; scan always lists the files it could not read
    #[arg(short, long, global = true, help_heading = GLOBAL)]
    verbose: bool,

    /// Print only data and errors: no warnings, status lines or reports of what was done
    #[arg(
        short,
        long,
        global = true,
        conflicts_with = "verbose",
        help_heading = GLOBAL
    )]
    quiet: bool,

    /// Answer from the manifest as it is: no scan first, no watcher asked (for scripts that run
    /// many lookups in a row)
    #[arg(long, global = true, help_heading = GLOBAL)]
    no_refresh: bool,

    // One line here: `sparks --help` says the rest once, not every command's help.
    /// Colour human output: auto, always or never (see `sparks --help`)
    #[arg(
        long,
        global = true,
        value_enum,
        value_name = "WHEN",
        default_value_t = ColorChoice::Auto,
        hide_possible_values = true,
        help_heading = GLOBAL
    )]
    color: ColorChoice,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Init(commands::init::InitArgs),
    Describe(commands::describe::DescribeArgs),
    Scan(commands::scan::ScanArgs),
    Status(commands::status::StatusArgs),
    Ingest(commands::ingest::IngestArgs),
    Capture(commands::capture::CaptureArgs),
    Lint(commands::lint::LintArgs),
    Fmt(commands::fmt::FmtArgs),
    Mv(commands::mv::MvArgs),
    Merge(commands::merge::MergeArgs),
    Query(commands::query::QueryArgs),
    Search(commands::search::SearchArgs),
    Related(commands::related::RelatedArgs),
    Publish(commands::publish::PublishArgs),
    Index(commands::index::IndexArgs),
    Affected(commands::affected::AffectedArgs),
    Tasks(commands::tasks::TasksArgs),
    Brief(commands::brief::BriefArgs),
    Collections(commands::collections::CollectionsArgs),
    Done(commands::done::DoneArgs),
    Serve(commands::serve::ServeArgs),
    View(commands::view::ViewArgs),
    Watch(commands::watch::WatchArgs),
    Sync(commands::sync::SyncArgs),
    #[command(hide = true)]
    MergeDriver(commands::merge_driver::MergeDriverArgs),
    #[command(alias = "completion")]
    Completions(commands::completions::CompletionsArgs),
}

impl Command {
    /// Whether the command prints its data as JSON: a failure is then JSON on stdout too, where
    /// the data would have gone.
    fn json(&self) -> bool {
        match self {
            Command::Init(a) => a.json,
            Command::Scan(a) => a.json,
            Command::Status(a) => a.json,
            Command::Ingest(a) => a.json(),
            Command::Capture(a) => a.json,
            Command::Sync(a) => a.json,
            Command::Lint(a) => a.json,
            Command::Fmt(a) => a.json,
            Command::Mv(a) => a.json,
            Command::Merge(a) => a.json,
            Command::Query(a) => a.json,
            Command::Search(a) => a.json,
            Command::Related(a) => a.json,
            Command::Publish(a) => a.json,
            Command::Index(a) => a.json,
            Command::Affected(a) => a.json,
            Command::Tasks(a) => a.json(),
            Command::Brief(a) => a.json,
            Command::Collections(a) => a.json(),
            Command::Done(a) => a.json,
            Command::Watch(a) => a.json,
            Command::Describe(_)
            | Command::Serve(_)
            | Command::View(_)
            | Command::MergeDriver(_)
            | Command::Completions(_) => false,
        }
    }
}

/// What every command gets besides its own arguments.
pub struct Ctx {
    place: Place,
    verbose: bool,
    /// Whether a long operation may draw a progress bar: stderr is a terminal and `-q` was
    /// not given.
    progress: bool,
}

impl Ctx {
    /// Find the vault, read the clock, and run an operation there.
    pub fn run<R: Request>(&self, request: R) -> Result<R::Report, Failure> {
        let session = self.place.open()?;
        let mut report = crate::request::run(request, session)?;
        report.word(hint::command_line);
        Ok(report)
    }

    /// [`Ctx::run`] an operation that may take long (a scan, regen, index, lint, fmt, ingest or
    /// rename of a large vault), with a progress bar on stderr when it runs past half a second; none for
    /// `--json` (`json`), `-q` or a stderr that is no terminal. The bar is gone when this
    /// returns, before the command prints anything.
    pub fn run_showing<R: Request>(&self, request: R, json: bool) -> Result<R::Report, Failure> {
        if !self.progress || json {
            return self.run(request);
        }
        let mut session = self.place.open()?;
        let bar = std::sync::Arc::new(progress::Bar::new());
        session.progress = crate::progress::Listener(bar.clone());
        let result = crate::request::run(request, session);
        bar.clear();
        let mut report = result?;
        report.word(hint::command_line);
        Ok(report)
    }

    /// Where operations find the vault, which day it is and how fresh the manifest must be.
    pub fn place(&self) -> &Place {
        &self.place
    }

    /// A clock reading, for a command that runs no operation on a vault.
    pub fn now(&self) -> Now {
        self.place.now()
    }

    /// Whether `-v` was given.
    pub fn verbose(&self) -> bool {
        self.verbose
    }
}

impl From<Ending> for Exit {
    fn from(e: Ending) -> Exit {
        match e {
            Ending::Done => Exit::Success,
            Ending::Problems => Exit::Problems,
            Ending::IngestOpen => Exit::IngestOpen,
        }
    }
}

/// Run the command line and return the process's exit code.
pub fn main() -> std::process::ExitCode {
    // Parsed ahead of clap so that clap's own help and errors follow --color too.
    let color = ColorChoice::from_args(std::env::args_os());
    let mut command = Cli::command().color(color.for_clap());
    let parsed = command
        .try_get_matches_from_mut(std::env::args_os())
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                Exit::Usage
            } else {
                Exit::Success
            };
            let _ = e.print();
            return code.into();
        }
    };
    let json = cli.command.json();
    let ran = run(cli);
    crate::life::retire();
    match ran {
        Ok(exit) => exit.into(),
        Err(err) if is_broken_pipe(&err) => Exit::Success.into(),
        Err(err) => {
            let failure = match err.downcast_ref::<Failure>() {
                Some(f) => f.clone(),
                None => untyped(&err),
            };
            let exit = match failure.usage {
                true => Exit::Usage,
                false => Exit::Problems,
            };
            // Under --json the failure is data too, where the data would have gone, whatever
            // found it (a rule of the arguments the request checks included: `capture` of
            // empty text, exit 2 all the same); only clap's own errors, met before any
            // command runs, are text alone. stderr says it either way, for the person
            // reading it.
            if json {
                let _ = output::json_error(&failure);
            }
            output::error_with(
                &failure.message,
                &failure.details(),
                hint::of(&failure).as_deref(),
            );
            exit.into()
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<Exit> {
    let env = |name: &str| std::env::var_os(name);
    output::configure(output::Settings {
        color: cli.color.enabled(std::io::stderr().is_terminal(), env),
        color_stdout: cli.color.enabled(std::io::stdout().is_terminal(), env),
        quiet: cli.quiet,
    });
    if let Err(e) = crate::fault::validate() {
        output::error(&e.to_string(), None);
        return Ok(Exit::Usage);
    }
    let today = match std::env::var("SPARKS_TODAY") {
        Ok(s) if !s.is_empty() => Some(
            chrono::NaiveDate::parse_from_str(&s, "%Y-%m-%d")
                .with_context(|| format!("SPARKS_TODAY={s:?} is not a YYYY-MM-DD date"))?,
        ),
        _ => None,
    };
    let ctx = Ctx {
        place: Place {
            vault: cli.vault,
            today,
            fresh: match cli.no_refresh {
                true => Freshness::AsIs,
                false => Freshness::Once,
            },
        },
        verbose: cli.verbose,
        progress: std::io::stderr().is_terminal() && !cli.quiet,
    };
    // A long-running front end stops cleanly by itself, and idles without the memory its last
    // burst freed; any other command is interrupted.
    match cli.command {
        Command::Serve(_) | Command::View(_) | Command::Watch(_) => {
            crate::memory::for_long_running()
        }
        _ => interrupt::install(ctx.place.clone(), command_line()),
    }
    use commands::*;
    match cli.command {
        Command::Init(args) => init::run(&ctx, args),
        Command::Describe(args) => describe::run(&ctx, args),
        Command::Scan(args) => scan::run(&ctx, args),
        Command::Status(args) => status::run(&ctx, args),
        Command::Ingest(args) => ingest::run(&ctx, args),
        Command::Capture(args) => capture::run(&ctx, args),
        Command::Lint(args) => lint::run(&ctx, args),
        Command::Fmt(args) => fmt::run(&ctx, args),
        Command::Mv(args) => mv::run(&ctx, args),
        Command::Merge(args) => merge::run(&ctx, args),
        Command::Query(args) => query::run(&ctx, args),
        Command::Search(args) => search::run(&ctx, args),
        Command::Related(args) => related::run(&ctx, args),
        Command::Publish(args) => publish::run(&ctx, args),
        Command::Index(args) => index::run(&ctx, args),
        Command::Affected(args) => affected::run(&ctx, args),
        Command::Tasks(args) => tasks::run(&ctx, args),
        Command::Brief(args) => brief::run(&ctx, args),
        Command::Collections(args) => collections::run(&ctx, args),
        Command::Done(args) => done::run(&ctx, args),
        Command::Serve(args) => serve::run(&ctx, args),
        Command::View(args) => view::run(&ctx, args),
        Command::Watch(args) => watch::run(&ctx, args),
        Command::Sync(args) => sync::run(&ctx, args),
        Command::MergeDriver(args) => merge_driver::run(&ctx, args),
        Command::Completions(args) => completions::run(&ctx, args),
    }
}

/// The command line as typed, for messages: `sparks` and the arguments, quoted where a shell
/// needs it.
fn command_line() -> String {
    let mut words = vec!["sparks".to_string()];
    words.extend(std::env::args().skip(1).map(|a| hint::shell_word(&a)));
    words.join(" ")
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// An error that is no operation's [`Failure`] (writing the output failed, the server
/// stopped) as one: the message and its causes, each said once.
fn untyped(err: &anyhow::Error) -> Failure {
    Failure::of(err.to_string(), err.chain().skip(1).map(|c| c.to_string()))
}
