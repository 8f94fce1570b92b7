//! Ctrl-C (SIGINT) and SIGTERM during a command. The command stops at once, as a kill would
//! stop it (every step of every command survives that), and says on one line what stopped and
//! what completes it, read from the run-time records in `.sparks/`: the journal of an
//! interrupted `mv`, `merge` or revert, the open ingest's finalize step. Exit 130 for SIGINT,
//! 143 for SIGTERM, as shells report a process their signal ended. `serve` and `view` handle
//! both themselves and end cleanly. On Windows, Ctrl-C alone is caught (see `signals`).

use crate::cli::output;
use crate::cli::signals::{Stop, Stops};
use crate::runstate::RunDir;
use crate::session::Place;

/// Stop the process on SIGINT or SIGTERM, saying what stopped. `line` is the command line as
/// the user typed it.
pub fn install(place: Place, line: String) {
    let Ok(stops) = Stops::catch() else {
        // Without a handler the signal ends the process as it would any program.
        return;
    };
    let spawned = std::thread::Builder::new()
        .name("interrupt".into())
        .spawn(move || {
            if let Some(stop) = stops.wait() {
                output::error(&stopped(&place, &line, stop), None);
                crate::life::retire();
                std::process::exit(stop.exit().code().into());
            }
        });
    drop(spawned);
}

/// The line said when `line` stops on `stop`.
fn stopped(place: &Place, line: &str, stop: Stop) -> String {
    let name = stop.name();
    let Ok(vault) = place.vault() else {
        return format!("`{line}` stopped ({name})");
    };
    let run = RunDir::of(&vault.root);
    if let Ok(Some(j)) = run.journaled() {
        let after = j.step.map(|s| format!(" after {s}")).unwrap_or_default();
        let command = super::hint::operation(&j.operation);
        return format!(
            "`{command}` stopped ({name}){after}; run `{command}` again to complete it, writing \
             nothing twice"
        );
    }
    if let Ok(Some(open)) = run.open_ingest()
        && let Some(step) = open.step
    {
        return format!(
            "finalize of ingest {} stopped ({name}) after {step}; run `sparks ingest --finalize` \
             again to complete it, archiving nothing twice",
            open.id
        );
    }
    format!(
        "`{line}` stopped ({name}); nothing is left half-written (each file is replaced whole): \
         run it again to finish"
    )
}
