//! What a burst of file system events asks of the manifest: the files to scan again, or a scan
//! of the whole vault (a directory appeared, went or moved; the kernel dropped events), the
//! top-level directories to start watching, and the readers' cookies seen. Pure: it looks at
//! the events and at whether a path is a directory now, and decides nothing else.

use super::record::COOKIES;
use notify::event::{AccessKind, AccessMode, CreateKind, EventKind, ModifyKind, RemoveKind};
use notify::{Event, EventKind as Kind};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What the events received since the last applied change ask for.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Pending {
    /// Vault-relative files to scan again.
    pub paths: BTreeSet<String>,
    /// Scan the whole vault instead.
    pub full: bool,
    /// Top-level directories that appeared: watch them (recursively).
    pub new_dirs: Vec<PathBuf>,
    /// Readers' cookies seen, to remove once everything before them is applied.
    pub cookies: Vec<PathBuf>,
}

impl Pending {
    /// Whether nothing waits to be applied (cookies aside).
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty() && !self.full && self.new_dirs.is_empty()
    }

    /// Take in one event of the vault at `root`; whether it asks for anything (an event the
    /// scan would ignore, such as a reader opening the manifest, or a cookie, does not, and
    /// must not put off applying what waits).
    pub fn add(&mut self, root: &Path, event: &Event) -> bool {
        let mut asks = false;
        if event.need_rescan() {
            self.full = true;
            asks = true;
        }
        if !changes(&event.kind) {
            return asks;
        }
        for path in &event.paths {
            let Ok(rel) = path.strip_prefix(root) else {
                continue;
            };
            let Some(rel) = rel.to_str() else {
                // A name that is not UTF-8: the scan says what it makes of it.
                self.full = true;
                continue;
            };
            let rel = rel.replace('\\', "/");
            if let Some(name) = rel
                .strip_prefix(crate::runstate::DIR)
                .and_then(|r| r.strip_prefix('/'))
                .and_then(|r| r.strip_prefix(COOKIES))
                .and_then(|r| r.strip_prefix('/'))
            {
                if matches!(event.kind, Kind::Create(_)) && !name.is_empty() {
                    self.cookies.push(path.clone());
                }
                continue;
            }
            if rel.is_empty() || !crate::scan::watched(&rel) {
                continue;
            }
            asks = true;
            let is_dir = path.is_dir();
            if is_dir && !rel.contains('/') && appeared(&event.kind) {
                self.new_dirs.push(path.clone());
            }
            if is_dir || about_a_directory(&event.kind, &rel, path) {
                self.full = true;
            } else {
                self.paths.insert(rel);
            }
        }
        asks
    }
}

/// Whether the event can change what a file holds or whether it exists (opening or reading
/// a file cannot; the scan's own reads are such events).
fn changes(kind: &EventKind) -> bool {
    match kind {
        Kind::Access(AccessKind::Close(AccessMode::Write)) => true,
        Kind::Access(_) => false,
        Kind::Any | Kind::Create(_) | Kind::Modify(_) | Kind::Remove(_) | Kind::Other => true,
    }
}

/// Whether the event makes its path exist (where a new top-level directory is to be watched).
fn appeared(kind: &EventKind) -> bool {
    matches!(
        kind,
        Kind::Create(_) | Kind::Modify(ModifyKind::Name(_)) | Kind::Any | Kind::Other
    )
}

/// Whether an event whose path is no directory now was about one: a directory removed, or a
/// path renamed away that names no file (its files went with it). The scan of the whole vault
/// finds what went; a file's event needs only that file scanned.
fn about_a_directory(kind: &EventKind, rel: &str, path: &Path) -> bool {
    match kind {
        Kind::Create(CreateKind::Folder) | Kind::Remove(RemoveKind::Folder) => true,
        Kind::Remove(RemoveKind::Any | RemoveKind::Other) => !looks_like_a_file(rel),
        Kind::Modify(ModifyKind::Name(_)) => !path.exists() && !looks_like_a_file(rel),
        _ => false,
    }
}

/// Whether a path that no longer exists was a file, by its name: one with an extension.
fn looks_like_a_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name.rfind('.').is_some_and(|i| i > 0 && i + 1 < name.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::RenameMode;

    fn event(kind: EventKind, path: &Path) -> Event {
        Event::new(kind).add_path(path.to_path_buf())
    }

    #[test]
    fn files_are_named_and_reads_ignored() {
        let dir = tempfile::tempdir().expect("dir");
        let root = dir.path();
        let mut p = Pending::default();
        let write = Kind::Access(AccessKind::Close(AccessMode::Write));
        assert!(p.add(root, &event(write, &root.join("wiki/a.md"))));
        let open = Kind::Access(AccessKind::Open(notify::event::AccessMode::Any));
        assert!(!p.add(root, &event(open, &root.join("wiki/b.md"))));
        assert!(
            !p.add(root, &event(open, &root.join("sparks.db"))),
            "a reader"
        );
        assert!(p.add(
            root,
            &event(Kind::Remove(RemoveKind::File), &root.join("inbox.md")),
        ));
        for ignored in [
            ".git/index",
            ".obsidian/app.json",
            "sparks.db-wal",
            "wiki/.a.md.swp",
        ] {
            assert!(
                !p.add(
                    root,
                    &event(Kind::Create(CreateKind::File), &root.join(ignored)),
                ),
                "{ignored} asks for nothing"
            );
        }
        let names: Vec<&str> = p.paths.iter().map(String::as_str).collect();
        assert_eq!(names, ["inbox.md", "wiki/a.md"]);
        assert!(!p.full);
        assert!(p.cookies.is_empty());
    }

    #[test]
    fn directories_ask_for_a_whole_scan_and_new_top_levels_for_a_watch() {
        let dir = tempfile::tempdir().expect("dir");
        let root = dir.path();
        fs_err::create_dir_all(root.join("notes/deep")).expect("dirs");
        let mut p = Pending::default();
        p.add(
            root,
            &event(Kind::Create(CreateKind::Folder), &root.join("notes")),
        );
        assert!(p.full);
        assert_eq!(p.new_dirs, [root.join("notes")]);
        let mut p = Pending::default();
        p.add(
            root,
            &event(Kind::Create(CreateKind::Folder), &root.join("notes/deep")),
        );
        assert!(p.full, "a nested directory is scanned whole too");
        assert!(p.new_dirs.is_empty(), "the recursive watch above covers it");
        let mut p = Pending::default();
        let from = Kind::Modify(ModifyKind::Name(RenameMode::From));
        p.add(root, &event(from, &root.join("wiki/old-folder")));
        assert!(p.full, "a directory renamed away takes its files with it");
        let mut p = Pending::default();
        p.add(root, &event(from, &root.join("wiki/old.md")));
        assert!(!p.full, "a file renamed away is that file gone");
        assert_eq!(p.paths.len(), 1);
        let mut p = Pending::default();
        p.add(
            root,
            &Event::new(Kind::Other).set_flag(notify::event::Flag::Rescan),
        );
        assert!(p.full, "dropped events");
    }

    #[test]
    fn cookies_are_collected_not_scanned() {
        let dir = tempfile::tempdir().expect("dir");
        let root = dir.path();
        let cookie = root.join(".sparks/cookies/12-0");
        let mut p = Pending::default();
        assert!(!p.add(root, &event(Kind::Create(CreateKind::File), &cookie)));
        assert!(!p.add(root, &event(Kind::Remove(RemoveKind::File), &cookie)));
        assert_eq!(p.cookies, [cookie]);
        assert!(p.is_empty());
    }
}
