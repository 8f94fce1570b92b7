//! A watcher's changes, followed from another process: what `view` uses when the vault's
//! watcher runs elsewhere.

use super::record::{self, Applied, WatchState};
use super::{Listener, Note};
use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};
use std::path::{Path, PathBuf};

/// A watcher's changes, followed from another process: what `view` uses when the vault's
/// watcher runs elsewhere. It watches `.sparks/` for the watcher's account (`watch.json`) and
/// tells each applied change it has not told yet; when changes were missed (the account keeps
/// the last few), or another watcher started, it tells one change with `more` set.
#[derive(Debug)]
pub struct Follower {
    _backend: RecommendedWatcher,
}

/// Follow the changes the watcher of the vault at `root` applies. `None` where file events
/// are not available (the follower's owner then goes without).
pub fn follow(root: &Path, mut listen: Listener) -> Option<Follower> {
    let run = root.join(crate::runstate::DIR);
    let account = run.join(record::STATE);
    let mut seen = record::running(root).map(|s| (s.since, s.recent.last().map_or(0, |a| a.seq)));
    let handler = move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        if !event.paths.iter().any(|p| p == &account) {
            return;
        }
        let Some(state) = record::running(&account_root(&account)) else {
            return;
        };
        for applied in news(&mut seen, &state) {
            listen(Note::Applied(applied));
        }
    };
    let mut w = RecommendedWatcher::new(handler, notify::Config::default()).ok()?;
    w.watch(&run, RecursiveMode::NonRecursive).ok()?;
    Some(Follower { _backend: w })
}

/// The vault root of a watcher's account file (`<root>/.sparks/watch.json`).
fn account_root(account: &Path) -> PathBuf {
    account
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The changes in `state` not told yet, given what was (`seen`: the watcher's start and the
/// last change told); `seen` moves on.
fn news(seen: &mut Option<(String, u64)>, state: &WatchState) -> Vec<Applied> {
    let last = state.recent.last().map_or(0, |a| a.seq);
    let told = match seen {
        Some((since, told)) if *since == state.since => *told,
        // Another watcher: its changes are news, whatever their numbers.
        _ => 0,
    };
    *seen = Some((state.since.clone(), last));
    let fresh: Vec<Applied> = state
        .recent
        .iter()
        .filter(|a| a.seq > told)
        .cloned()
        .collect();
    let missed = fresh.first().is_some_and(|a| a.seq > told + 1) && told > 0;
    match missed {
        false => fresh,
        true => fresh
            .last()
            .map(|a| Applied {
                more: true,
                ..a.clone()
            })
            .into_iter()
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::watch::Mode;

    fn applied(seq: u64) -> Applied {
        Applied {
            seq,
            at: String::new(),
            paths: vec![format!("wiki/{seq}.md")],
            more: false,
        }
    }

    fn state(since: &str, seqs: std::ops::RangeInclusive<u64>) -> WatchState {
        WatchState {
            pid: 1,
            since: since.into(),
            mode: Mode::Native,
            last_event: None,
            recent: seqs.map(applied).collect(),
        }
    }

    #[test]
    fn a_follower_tells_each_change_once_and_a_gap_as_more() {
        let mut seen = Some(("a".to_string(), 2));
        let told = news(&mut seen, &state("a", 1..=4));
        assert_eq!(told, [applied(3), applied(4)]);
        assert!(news(&mut seen, &state("a", 1..=4)).is_empty());
        let gap = news(&mut seen, &state("a", 10..=12));
        assert_eq!(gap.len(), 1);
        assert!(gap[0].more, "changes 5 to 9 were missed");
        let restarted = news(&mut seen, &state("b", 1..=1));
        assert_eq!(restarted, [applied(1)]);
    }
}
