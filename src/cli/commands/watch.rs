//! `sparks watch`: keep the manifest current from file system events until stopped.

use crate::cli::signals::Stops;
use crate::cli::{Ctx, exit::Exit, output};
use crate::failure::Failure;
use crate::watch::{self, Applied, Note, Options, Started};
use clap::Args;

/// Keep the manifest current from file system events, until Ctrl-C
///
/// While it runs, every command answers from a manifest it vouches for, without a scan of its
/// own (sparks serve and sparks view run one by themselves unless --no-watch). A burst of
/// changes (an editor's save, a git checkout of thousands of files) is applied as one scan, and
/// one line says what changed (with --json, one object a line: seq, at, paths, more). Where the
/// system gives no file events, or its limit of watches is reached, it scans at an interval
/// instead and says so once. One watcher per vault: a second one exits 1, naming the first's
/// process id. Ctrl-C or SIGTERM ends it with exit 0 (Ctrl-C alone on Windows).
///
/// Example: sparks watch --vault ~/notes &
#[derive(Debug, Args)]
pub struct WatchArgs {
    /// One JSON object a line per applied change
    #[arg(long)]
    pub json: bool,

    /// Scan at an interval instead of following file events (network drives, WSL's /mnt/c)
    #[arg(long)]
    poll: bool,
}

/// Run `watch`.
pub fn run(ctx: &Ctx, args: WatchArgs) -> anyhow::Result<Exit> {
    // Taken before the watcher starts: a signal during its first scan ends it cleanly too.
    let stops = Stops::catch()?;
    let json = args.json;
    let listen = Box::new(move |note: Note| match note {
        Note::Applied(a) => {
            let _ = match json {
                true => serde_json::to_string(&a)
                    .map_err(anyhow::Error::from)
                    .and_then(|line| output::write(&format!("{line}\n"))),
                false => output::lines([applied_line(&a)]),
            };
        }
        Note::Polling(why) => output::warn(&format!(
            "{why}: scanning the vault every few seconds instead of following file events"
        )),
        Note::Failed(e) => output::warn(&format!(
            "applying a change failed (tried again with the next one; commands scan by \
             themselves meanwhile): {e}"
        )),
    });
    if let Ok(vault) = ctx.place().vault() {
        let _ = crate::sync::driver::ensure(&vault);
    }
    let options = Options { poll: args.poll };
    let watcher = match watch::start(ctx.place(), options, listen).map_err(Failure::from)? {
        Started::Own(w) => w,
        Started::Other(pid) => {
            let who = pid.map(|p| format!(" (pid {p})")).unwrap_or_default();
            return Err(Failure {
                message: format!("another `sparks watch` is watching this vault{who}"),
                causes: Vec::new(),
                hint: Some(
                    "one watcher keeps the manifest current for every command; stop it first \
                     to start another"
                        .into(),
                ),
                usage: false,
            }
            .into());
        }
    };
    output::status(&format!(
        "sparks watch: watching {} ({}); Ctrl-C to stop",
        ctx.place()
            .vault()
            .map(|v| v.root.display().to_string())
            .unwrap_or_default(),
        watcher.state.mode.as_str()
    ));
    stops.wait();
    watcher.stop();
    Ok(Exit::Success)
}

/// One applied change, for a person: the time, then what changed.
fn applied_line(a: &Applied) -> String {
    const SHOWN: usize = 5;
    let time = a.at.get(11..19).unwrap_or(&a.at);
    let total = a.paths.len();
    let mut names: Vec<&str> = a.paths.iter().take(SHOWN).map(String::as_str).collect();
    let rest = total.saturating_sub(SHOWN);
    let more = match (rest, a.more) {
        (_, true) => ", and more".to_string(),
        (0, false) => String::new(),
        (n, false) => format!(", and {n} more"),
    };
    if names.is_empty() {
        names.push("(nothing named)");
    }
    let count = match a.more {
        true => format!("more than {}", output::count(total, "file", "files")),
        false => output::count(total, "file", "files"),
    };
    format!("{time} applied {count}: {}{more}", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_names_a_few_files_and_counts_the_rest() {
        let a = Applied {
            seq: 3,
            at: "2026-12-05T13:40:02+00:00".into(),
            paths: (0..7).map(|i| format!("wiki/p{i}.md")).collect(),
            more: false,
        };
        assert_eq!(
            applied_line(&a),
            "13:40:02 applied 7 files: wiki/p0.md, wiki/p1.md, wiki/p2.md, wiki/p3.md, \
             wiki/p4.md, and 2 more"
        );
    }
}
