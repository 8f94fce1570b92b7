//! The command line: the only layer that parses arguments, prints, and chooses exit codes.
//! Each command lives in `commands/`, turns its arguments into a plain request, calls one
//! core function and renders the report it gets back.

pub mod commands;
pub mod exit;
pub mod output;

use crate::clock::Now;
use crate::manifest::Manifest;
use crate::vault::{MANIFEST, Vault};
use anyhow::Context as _;
use clap::{Parser, Subcommand};
use exit::Exit;
use std::path::PathBuf;

/// A knowledge-base runtime for AI agents.
///
/// A human captures into inbox.md; an agent writes the wiki; sparks does the plumbing: the
/// two-phase ingest, the manifest of pages and links, tasks and git commits. Run
/// `sparks describe` for the contract agents follow.
#[derive(Debug, Parser)]
#[command(name = "sparks", version, max_term_width = 100)]
pub struct Cli {
    /// Use the vault at PATH instead of finding one from the working directory
    #[arg(long, global = true, env = "SPARKS_VAULT", value_name = "PATH")]
    vault: Option<PathBuf>,

    /// Say more: list every file a scan could not read
    #[arg(short, long, global = true)]
    verbose: bool,

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
    Lint(commands::lint::LintArgs),
    Fmt(commands::fmt::FmtArgs),
    Query(commands::query::QueryArgs),
    Search(commands::search::SearchArgs),
    Index(commands::index::IndexArgs),
    Affected(commands::affected::AffectedArgs),
    Tasks(commands::tasks::TasksArgs),
    Brief(commands::brief::BriefArgs),
    Collections(commands::collections::CollectionsArgs),
    Done(commands::done::DoneArgs),
    Serve(commands::serve::ServeArgs),
    View(commands::view::ViewArgs),
}

/// What every command gets besides its own arguments.
pub struct Ctx {
    vault: Option<PathBuf>,
    verbose: bool,
    now: Now,
}

impl Ctx {
    /// The vault: `--vault`/`SPARKS_VAULT`, or the one containing the working directory.
    pub fn vault(&self) -> anyhow::Result<Vault> {
        Ok(match &self.vault {
            Some(p) => Vault::open(p)?,
            None => Vault::discover(std::path::Path::new("."))?,
        })
    }

    /// The vault's manifest.
    pub fn manifest(&self, vault: &Vault) -> anyhow::Result<Manifest> {
        Ok(Manifest::open(&vault.path(MANIFEST))?)
    }

    /// The clock reading of this command.
    pub fn now(&self) -> &Now {
        &self.now
    }

    /// Whether `-v` was given.
    pub fn verbose(&self) -> bool {
        self.verbose
    }
}

/// Run the command line and return the process's exit code.
pub fn main() -> std::process::ExitCode {
    let cli = match Cli::try_parse() {
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
    match run(cli) {
        Ok(exit) => exit.into(),
        Err(err) if is_broken_pipe(&err) => Exit::Success.into(),
        Err(err) => {
            report(&err);
            Exit::Problems.into()
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<Exit> {
    if let Err(e) = crate::fault::validate() {
        eprintln!("error: {e}");
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
        vault: cli.vault,
        verbose: cli.verbose,
        now: Now::read(today),
    };
    use commands::*;
    match cli.command {
        Command::Init(args) => init::run(&ctx, args),
        Command::Describe(args) => describe::run(&ctx, args),
        Command::Scan(args) => scan::run(&ctx, args),
        Command::Status(args) => status::run(&ctx, args),
        Command::Ingest(args) => ingest::run(&ctx, args),
        Command::Lint(args) => lint::run(&ctx, args),
        Command::Fmt(args) => fmt::run(&ctx, args),
        Command::Query(args) => query::run(&ctx, args),
        Command::Search(args) => search::run(&ctx, args),
        Command::Index(args) => index::run(&ctx, args),
        Command::Affected(args) => affected::run(&ctx, args),
        Command::Tasks(args) => tasks::run(&ctx, args),
        Command::Brief(args) => brief::run(&ctx, args),
        Command::Collections(args) => collections::run(&ctx, args),
        Command::Done(args) => done::run(&ctx, args),
        Command::Serve(args) => serve::run(&ctx, args),
        Command::View(args) => view::run(&ctx, args),
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Print an error once: the message, its causes, and a hint where one helps.
fn report(err: &anyhow::Error) {
    let mut text = format!("error: {err}\n");
    let mut last = err.to_string();
    for cause in err.chain().skip(1) {
        let c = cause.to_string();
        // Many messages already include their cause's text; say each thing once.
        if !last.contains(&c) {
            text.push_str(&format!("  caused by: {c}\n"));
        }
        last = c;
    }
    if let Some(h) = hint(err) {
        text.push_str(&format!("hint: {h}\n"));
    }
    eprint!("{text}");
}

fn hint(err: &anyhow::Error) -> Option<&'static str> {
    use crate::{git::GitError, ingest, manifest::ManifestError, vault::VaultError};
    err.chain().find_map(|e| {
        if let Some(v) = e.downcast_ref::<VaultError>() {
            v.hint()
        } else if let Some(f) = e.downcast_ref::<ingest::FinalizeFailed>() {
            f.error.hint().or(Some(
                "fix the cause and run `sparks ingest --finalize` again: it resumes where it stopped",
            ))
        } else if let Some(i) = e.downcast_ref::<ingest::IngestError>() {
            i.hint()
        } else if let Some(m) = e.downcast_ref::<ManifestError>() {
            m.hint()
        } else if let Some(g) = e.downcast_ref::<GitError>() {
            g.hint()
        } else {
            None
        }
    })
}
