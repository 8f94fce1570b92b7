//! Pages that keep themselves current. While the viewer watches the vault, `GET /events` is a
//! stream of server-sent events, one `change` per change the watcher applies, naming the files
//! it touched and the pages those files now link to ([`Change`]); every page loads
//! [`SCRIPT`] from the viewer's own origin, which reloads it when a change touches what it
//! shows ([`super::html::Shown`] tells it what that is). The stream itself is served in the
//! parent module (it is the one place that speaks HTTP); what an event says is decided here,
//! over plain values.

use super::site::Site;
use crate::watch::Applied;
use serde::Serialize;

/// The script every page of a watching viewer loads, embedded in the binary.
pub const SCRIPT: &str = include_str!("assets/live.js");

/// What one `change` event tells the open pages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// The watcher's count of the change (0 when changes were missed).
    pub seq: u64,
    /// The vault-relative files whose content changed, appeared or went.
    pub paths: Vec<String>,
    /// Set when more files changed than `paths` names, or changes were missed: every page
    /// reloads.
    pub more: bool,
    /// The pages the changed files link to now: their backlinks may have grown.
    pub links: Vec<String>,
}

impl Change {
    /// What `applied` means for the open pages, with the links as the manifest has them now
    /// (the watcher applied the change before telling it). A manifest that cannot be read
    /// makes it a change of everything.
    pub fn of(site: &Site, applied: &Applied) -> Change {
        let links = match site.db().get() {
            Some(m) => m.link_targets(&applied.paths).ok(),
            None => Some(Vec::new()),
        };
        Change {
            seq: applied.seq,
            paths: applied.paths.clone(),
            more: applied.more || links.is_none(),
            links: links.unwrap_or_default(),
        }
    }

    /// Changes went by unheard (this page's stream fell behind): every page reloads.
    pub fn missed() -> Change {
        Change {
            seq: 0,
            paths: Vec::new(),
            more: true,
            links: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_names_the_pages_its_files_link_to_now() {
        let dir = crate::view::site::scanned_vault(&[
            ("wiki/A.md", "See [[B]] and [[A]].\n"),
            ("wiki/B.md", "# B\n"),
        ]);
        let site = Site::new(dir.path().to_path_buf(), "v".into());
        let applied = Applied {
            seq: 3,
            at: "2026-12-05T00:00:00Z".into(),
            paths: vec!["wiki/A.md".into()],
            more: false,
        };
        let change = Change::of(&site, &applied);
        assert_eq!(
            change.links,
            ["wiki/B.md"],
            "a page's link to itself is left out"
        );
        assert!(!change.more);
        assert_eq!(change.seq, 3);
        assert!(Change::missed().more);
    }
}
