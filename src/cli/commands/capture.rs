//! `sparks capture`: add one entry to the inbox.

use crate::cli::{Ctx, exit::Exit, output};
use crate::request;
use clap::Args;

/// Add one capture to inbox.md
///
/// The words given, joined by spaces, become one entry at the end of the inbox; with no words
/// (or `-`), standard input does, its lines kept. --date writes the capture-date line. Written
/// under the vault lock and atomically, so a capture racing an ingest's finalize is never lost;
/// empty text is refused (exit 2) and the inbox stays as it was. Once the entry is in the inbox
/// the capture succeeds (exit 0), even if the manifest could not record it: that is a warning
/// (and `warnings` in --json), as capturing again would add the entry twice.
///
/// Example: sparks capture "Read: the Sparks design notes https://example.org/notes"
#[derive(Debug, Args)]
pub struct CaptureArgs {
    /// The text (no words, or `-`: read standard input)
    #[arg(value_name = "TEXT")]
    text: Vec<String>,

    /// The capture date (YYYY-MM-DD), written as the entry's first line
    #[arg(long, value_name = "YYYY-MM-DD")]
    date: Option<String>,

    /// Print what was captured as JSON
    #[arg(long)]
    pub json: bool,
}

/// Run `capture`.
pub fn run(ctx: &Ctx, args: CaptureArgs) -> anyhow::Result<Exit> {
    let text = match args.text.as_slice() {
        [] => super::stdin("the capture")?,
        [dash] if dash == "-" => super::stdin("the capture")?,
        words => words.join(" "),
    };
    let captured = ctx.run(request::Capture::new(text, args.date.as_deref())?)?;
    // Exit 0 all the same: the entry is in the inbox, and a retry would add it twice.
    for w in &captured.warnings {
        output::warn(w);
    }
    output::print(&captured, args.json, |captured| {
        output::report([format!(
            "captured at inbox.md line {} ({}); {} pending",
            captured.line,
            match captured.dated {
                true => format!("dated {}", captured.capture_date),
                false => "undated: the day it is ingested".to_string(),
            },
            output::count(captured.inbox_pending, "entry", "entries")
        )])?;
        Ok(())
    })
}
