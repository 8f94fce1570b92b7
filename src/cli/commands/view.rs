//! `sparks view`: serve the vault as a local, read-only website.

use crate::cli::{Ctx, exit::Exit, output, watching};
use crate::failure::{Advice, Failure};
use crate::view::{self, Options, RequestLog, Site, ViewError};
use clap::Args;
use std::process::{Command, Stdio};
use std::sync::Arc;

/// Serve the vault as a local, read-only website
///
/// Pages, tags, backlinks, raw captures and search in a browser. Files are read on every
/// request; the viewer watches the vault (as sparks watch does, or relying on the watcher that
/// runs), so pages created meanwhile are served and linked, and an open page reloads itself
/// when it, its backlinks or the index change. With --no-watch the manifest is the last scan's.
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

    /// Do not watch the vault: pages show the manifest as the last scan left it
    #[arg(long)]
    no_watch: bool,
}

/// Run `view`.
pub fn run(ctx: &Ctx, args: ViewArgs) -> anyhow::Result<Exit> {
    let vault = ctx.place().vault().map_err(Failure::from)?;
    let _ = crate::sync::driver::ensure(&vault);
    let bound = view::bind(&args.addr, args.allow_remote).map_err(|e| match e {
        // A bad --addr is a usage error (exit 2).
        ViewError::Addr(_) => Failure {
            usage: true,
            ..Failure::from(e)
        },
        // The option that picks another port is the command line's to name.
        ViewError::InUse { .. } => Failure {
            hint: Some(Advice::say(
                "pick another port with --addr HOST:PORT (port 0 picks a free one), \
                 or stop the program that listens there",
            )),
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
    let (changes, _) = tokio::sync::broadcast::channel(64);
    let _watching = (!args.no_watch).then(|| {
        let tell = changes.clone();
        let on_change: watching::OnChange = Arc::new(move |a| {
            // Nobody listening (no page open) is fine.
            let _ = tell.send(a.clone());
        });
        watching::start(ctx.place(), "view", Some(on_change))
    });
    let options = Options {
        allow_remote: args.allow_remote,
        log: Some(Arc::new(log)),
        changes: (!args.no_watch).then_some(changes),
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
