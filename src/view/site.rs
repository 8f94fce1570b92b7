//! The vault being served ([`Site`]), the answer every route returns ([`Reply`]), and the
//! manifest as one request finds it ([`Db`]): read-only, never created or migrated here, and
//! read afresh by every request, so that a scan shows on the next refresh. The connections are
//! kept between requests ([`Pool`]): SQLite begins each read where the last write left the
//! file and keeps the pages it read while nothing was written, and beside each kept connection
//! the viewer keeps what was counted on it ([`Counted`]: backlink totals, the graph's ranking)
//! until the manifest changes, so a hub page's thousands of backlinks are not counted again on
//! the next visit. A connection is
//! kept only for the file it was opened on: a manifest deleted and made again (`rm sparks.db;
//! sparks scan`) or migrated is opened anew.

use super::html::{Layout, notice};
use crate::manifest::{Counted, Manifest};
use crate::render::html::esc;
use crate::vault::MANIFEST;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The vault being shown.
#[derive(Debug, Clone)]
pub struct Site {
    /// The vault root.
    pub root: PathBuf,
    /// Its display name.
    pub name: String,
    /// Whether its pages reload themselves on a change (the viewer watches the vault).
    pub live: bool,
    pool: Arc<Pool>,
}

/// The most connections kept between requests (as many as requests run at once, usually one).
const KEPT: usize = 4;

/// Manifest connections between requests, each with the identity of the file it was opened on
/// and what was counted on it.
#[derive(Debug, Default)]
struct Pool {
    idle: Mutex<Vec<(FileId, Manifest, Counted)>>,
}

impl Pool {
    /// The idle connections (a request that panicked holding the lock left them usable).
    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<(FileId, Manifest, Counted)>> {
        self.idle.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What tells one manifest file from another made at the same path: its device and inode. A
/// new file cannot take the inode of one a kept connection still holds open.
type FileId = (u64, u64);

/// The identity of the file at `path`; `None` where the platform gives none (then nothing is
/// kept).
fn file_id(path: &Path) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        fs_err::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// A connection lent to one request; it goes back to the pool when the request is done.
pub struct Lease {
    manifest: Option<Manifest>,
    /// What was counted on it, kept with it.
    counted: Counted,
    /// The file it was opened on, when it may be kept.
    keep: Option<FileId>,
    pool: Arc<Pool>,
}

impl std::ops::Deref for Lease {
    type Target = Manifest;

    fn deref(&self) -> &Manifest {
        self.manifest
            .as_ref()
            .expect("a lease holds its manifest until dropped")
    }
}

impl Lease {
    /// What was counted on this connection while the manifest stayed as it is, for the
    /// manifest's methods that count ([`Manifest::backlinks`], [`Manifest::graph_most_linked`]).
    pub fn counted(&self) -> &Counted {
        &self.counted
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let (Some(m), Some(id)) = (self.manifest.take(), self.keep) {
            let mut idle = self.pool.idle();
            if idle.len() < KEPT {
                idle.push((id, m, std::mem::take(&mut self.counted)));
            }
        }
    }
}

/// An HTTP answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// Status code.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
    /// Extra headers.
    pub headers: Vec<(&'static str, String)>,
}

impl Reply {
    /// An HTML page.
    pub fn html(status: u16, body: String) -> Reply {
        Reply {
            status,
            content_type: "text/html; charset=utf-8",
            body: body.into_bytes(),
            headers: Vec::new(),
        }
    }

    /// A permanent redirect.
    pub fn redirect(location: String) -> Reply {
        Reply {
            status: 308,
            content_type: "text/plain; charset=utf-8",
            body: format!("see {location}\n").into_bytes(),
            headers: vec![("location", location)],
        }
    }
}

/// The manifest as a request finds it.
pub enum Db {
    /// Open.
    Open(Lease),
    /// There is no `sparks.db` yet.
    Missing,
    /// It could not be opened.
    Failed(String),
}

impl Db {
    /// The manifest, if open.
    pub fn get(&self) -> Option<&Manifest> {
        self.lease().map(|l| &**l)
    }

    /// The manifest with what was counted on it, if open.
    pub fn lease(&self) -> Option<&Lease> {
        match self {
            Db::Open(l) => Some(l),
            _ => None,
        }
    }

    /// A notice saying why there is no manifest, if there is none.
    pub fn notice(&self) -> String {
        match self {
            Db::Open(_) => String::new(),
            Db::Missing => notice(
                "warn",
                "There is no manifest yet: run <code>sparks scan</code> to list pages, tags and backlinks.",
            ),
            Db::Failed(e) => notice(
                "warn",
                &format!("The manifest could not be read: {}", esc(e)),
            ),
        }
    }
}

impl Site {
    /// The site of the vault at `root`, shown as `name`.
    pub fn new(root: PathBuf, name: String) -> Site {
        Site {
            root,
            name,
            live: false,
            pool: Arc::default(),
        }
    }

    /// The same site, its pages reloading themselves on a change when `live` (the viewer
    /// watches the vault and serves `GET /events`).
    pub fn with_live(mut self, live: bool) -> Site {
        self.live = live;
        self
    }

    /// The manifest for one request (read-only; never created here): a kept connection to the
    /// file now at its path, else a new one.
    pub fn db(&self) -> Db {
        let path = self.root.join(MANIFEST);
        if !path.exists() {
            self.pool.idle().clear();
            return Db::Missing;
        }
        // Read before opening: a file put in its place after this is never taken for it.
        let id = file_id(&path);
        let kept = {
            let mut idle = self.pool.idle();
            // Connections to a file no longer at the path are closed.
            idle.retain(|(other, _, _)| Some(*other) == id);
            idle.pop()
        };
        if let Some((_, m, counted)) = kept
            && m.still_current()
        {
            return Db::Open(self.lease(m, counted, id));
        }
        match Manifest::open_to_keep(&path) {
            Ok((m, keep)) => Db::Open(self.lease(m, Counted::default(), id.filter(|_| keep))),
            Err(e) => Db::Failed(e.to_string()),
        }
    }

    fn lease(&self, manifest: Manifest, counted: Counted, keep: Option<FileId>) -> Lease {
        Lease {
            manifest: Some(manifest),
            counted,
            keep,
            pool: self.pool.clone(),
        }
    }

    /// A document in the site's layout.
    pub fn layout<'a>(
        &'a self,
        title: Option<&'a str>,
        main: String,
        aside: Option<String>,
    ) -> Layout<'a> {
        Layout {
            vault: &self.name,
            title,
            main,
            aside,
            live: self.live.then(Default::default),
            ..Layout::default()
        }
    }

    /// The themed 404 page. It never says why: a refused path and a missing file look alike.
    pub fn not_found(&self) -> Reply {
        let main = "<h1>Not found</h1>\n<p class=\"lede\">There is no page here. \
                    Try the <a href=\"/\">index</a> or a search.</p>"
            .to_string();
        Reply::html(404, self.layout(Some("Not found"), main, None).render())
    }

    /// A 500 page for a manifest that fails mid-request.
    pub fn failed(&self, what: &str) -> Reply {
        let main = format!(
            "<h1>Something went wrong</h1>\n{}",
            notice("warn", &esc(what))
        );
        Reply::html(500, self.layout(Some("Error"), main, None).render())
    }
}

/// A vault in a temporary directory holding `files` (path, text), scanned into its manifest.
#[cfg(test)]
pub(super) fn scanned_vault(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs_err::write(root.join("sparks.toml"), "").unwrap();
    for (path, text) in files {
        let at = root.join(path);
        fs_err::create_dir_all(at.parent().unwrap()).unwrap();
        fs_err::write(at, text).unwrap();
    }
    let vault = crate::vault::Vault::open(root).unwrap();
    let mut m = Manifest::open(&root.join(MANIFEST)).unwrap();
    let now = crate::clock::Now::read(None);
    crate::scan::rescan(&vault, &mut m, &now, &crate::progress::Silent).unwrap();
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a request counted on a kept connection is there for the next request that takes
    /// it: the pool keeps it beside the connection (told by its debug form, which names the
    /// page counted).
    #[test]
    fn what_was_counted_comes_back_with_its_connection() {
        let see = "See [[Hub]].\n";
        let dir = scanned_vault(&[
            ("wiki/Hub.md", "# Hub\n"),
            ("wiki/A.md", see),
            ("wiki/B.md", see),
            ("wiki/C.md", see),
        ]);
        let site = Site::new(dir.path().to_path_buf(), "v".into());
        {
            let db = site.db();
            let lease = db.lease().expect("a manifest");
            let (shown, total) = lease.backlinks("wiki/Hub.md", 1, lease.counted()).unwrap();
            assert_eq!((shown.len(), total), (1, 3), "counted past the limit");
        }
        let db = site.db();
        let lease = db.lease().expect("the kept manifest");
        let kept = format!("{:?}", lease.counted());
        assert!(kept.contains("wiki/Hub.md"), "{kept}");
    }
}
