//! `sparks view`: serve the vault as a local, read-only website.

use crate::cli::{Ctx, exit::Exit, output};
use crate::failure::Failure;
use crate::view::{self, Options, RequestLog, Site, ViewError};
use clap::Args;
use std::process::{Command, Stdio};
use std::sync::Arc;

/// Serve the vault as a local, read-only website
///
/// Pages, tags, backlinks, raw captures and search in a browser. Files are read on every
/// request and the manifest is the last scan's: refresh to see edits, scan to update links.
/// Listens on loopback only and answers only to localhost Host headers, unless --allow-remote.
/// Prints the URL on stdout, one line per request on stderr; Ctrl-C stops it.
///
/// Example: sparks view --open
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// Listen on HOST:PORT (port 0 picks a free port)
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:3030")]
    addr: String,

    /// Open the viewer in the system's browser
    #[arg(long)]
    open: bool,

    /// Allow a non-loopback address and any Host header: whoever reaches it reads the vault
    #[arg(long)]
    allow_remote: bool,
}

/// Run `view`.
pub fn run(ctx: &Ctx, args: ViewArgs) -> anyhow::Result<Exit> {
    let vault = ctx.site().vault().map_err(Failure::from)?;
    let bound = view::bind(&args.addr, args.allow_remote).map_err(|e| match e {
        // A bad --addr is a usage error (exit 2).
        ViewError::Addr(_) => Failure {
            usage: true,
            ..Failure::from(e)
        },
        e => Failure::from(e),
    })?;
    if args.allow_remote {
        output::warn(&format!(
            "--allow-remote: any Host header is accepted{}; anyone who can reach {} can read the whole vault",
            if bound.remote {
                " and the address is reachable from other machines"
            } else {
                ""
            },
            bound.local
        ));
    }
    let url = bound.url();
    output::lines([format!("sparks view listening on {url} (Ctrl-C to stop)")])?;
    if args.open {
        open_browser(&url);
    }
    let site = Site::new(vault.root.clone(), vault.name());
    let log = |r: &RequestLog| {
        eprintln!(
            "{} {} {} {}µs",
            r.method,
            r.target,
            r.status,
            r.duration.as_micros()
        );
    };
    let options = Options {
        allow_remote: args.allow_remote,
        log: Some(Arc::new(log)),
    };
    view::serve(bound, site, options).map_err(Failure::from)?;
    Ok(Exit::Success)
}

/// Ask the system to open `url` in a browser. A missing or failing opener is a warning: the
/// viewer runs either way.
fn open_browser(url: &str) {
    let (program, args): (&str, Vec<&str>) = if cfg!(target_os = "macos") {
        ("open", vec![url])
    } else if cfg!(windows) {
        ("cmd", vec!["/c", "start", "", url])
    } else {
        ("xdg-open", vec![url])
    };
    let spawned = Command::new(program)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    match spawned {
        // Reap it whenever it exits; its outcome does not matter.
        Ok(mut child) => {
            std::thread::spawn(move || child.wait());
        }
        Err(e) => output::warn(&format!(
            "could not open a browser ({program}: {e}); open {url} yourself"
        )),
    }
}
