//! `sparks completions`: print a shell's completion script.

use crate::cli::{Cli, Ctx, exit::Exit, output};
use clap::{Args, CommandFactory};
use clap_complete::Shell;

/// Print the completion script for SHELL on stdout
///
/// Completes commands, flags and their fixed values. Works outside a vault. Load the script
/// from the shell's start-up file, or save it where the shell looks for completions.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  source <(sparks completions bash)           # bash: in ~/.bashrc
  sparks completions zsh > ~/.zfunc/_sparks   # zsh: with fpath+=(~/.zfunc) before compinit
  sparks completions fish > ~/.config/fish/completions/sparks.fish")]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    shell: Shell,
}

/// Run `completions`.
pub fn run(_ctx: &Ctx, args: CompletionsArgs) -> anyhow::Result<Exit> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "sparks", &mut script);
    output::write(&String::from_utf8_lossy(&script))?;
    Ok(Exit::Success)
}
