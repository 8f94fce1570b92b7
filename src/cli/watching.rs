//! The watcher `serve` and `view` run for their lifetime unless `--no-watch`: started on a
//! thread of its own, so that neither waits for its first scan (a request meanwhile scans by
//! itself). When the vault's watcher runs in another process they rely on it, and `view`
//! follows the changes it applies.

use crate::cli::output;
use crate::session::Place;
use crate::watch::{self, Applied, Follower, Note, Options, Started, Watcher};
use std::sync::{Arc, Mutex};

/// Who hears each applied change (the viewer's live pages).
pub type OnChange = Arc<dyn Fn(&Applied) + Send + Sync>;

/// The watcher (or the follower of another process's watcher) of a long-running front end;
/// dropping it stops the watcher, applying what is pending.
#[derive(Default)]
pub struct Background {
    slot: Arc<Mutex<Held>>,
}

#[derive(Default)]
enum Held {
    #[default]
    Nothing,
    Own(Watcher),
    Following(#[allow(dead_code)] Follower),
}

/// Start watching the vault of `place` in the background, or follow the watcher that runs.
/// `who` names the front end in messages. Problems are warnings: the front end runs either way.
pub fn start(place: &Place, who: &'static str, on_change: Option<OnChange>) -> Background {
    let background = Background::default();
    let slot = background.slot.clone();
    let place = place.clone();
    let spawned = std::thread::Builder::new()
        .name("watch-start".into())
        .spawn(move || {
            let told = on_change.clone();
            let listen = Box::new(move |note: Note| match note {
                Note::Applied(a) => {
                    if let Some(f) = &told {
                        f(&a);
                    }
                }
                Note::Polling(why) => output::warn(&format!(
                    "{who}: {why}: the vault is scanned every few seconds instead"
                )),
                Note::Failed(e) => output::warn(&format!(
                    "{who}: the watcher could not apply a change (tried again with the next): {e}"
                )),
            });
            let held = match watch::start(&place, Options::default(), listen) {
                Ok(Started::Own(w)) => Held::Own(w),
                Ok(Started::Other(_)) => match (on_change, place.vault()) {
                    (Some(f), Ok(vault)) => {
                        let listen = Box::new(move |note: Note| {
                            if let Note::Applied(a) = note {
                                f(&a);
                            }
                        });
                        watch::follow(&vault.root, listen).map_or(Held::Nothing, Held::Following)
                    }
                    _ => Held::Nothing,
                },
                // Outside a vault (a server whose calls name one each) there is nothing to watch.
                Err(watch::WatchError::Vault(_)) => Held::Nothing,
                Err(e) => {
                    output::warn(&format!(
                        "{who}: not watching the vault ({e}); every request scans by itself"
                    ));
                    Held::Nothing
                }
            };
            if let Ok(mut s) = slot.lock() {
                *s = held;
            }
        });
    drop(spawned);
    background
}

impl Drop for Background {
    fn drop(&mut self) {
        if let Ok(mut s) = self.slot.lock()
            && let Held::Own(w) = std::mem::take(&mut *s)
        {
            w.stop();
        }
    }
}
