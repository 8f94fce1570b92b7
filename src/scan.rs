//! `scan`: bring the manifest up to date with the files of the vault.
//!
//! Change detection works like git's index: a file is read again when its size, mtime, ctime
//! or inode differ from the stored ones, or when its mtime is not older than the filesystem
//! clock at the time it was last read (a "racy" file could have changed within the same clock
//! tick). Only files whose content hash changed are parsed again. Everything is written in one
//! transaction. A file or directory that cannot be read is reported, and what the manifest knew
//! about it is left as it was: an unreadable directory never marks its files deleted.

use crate::manifest::{Content, Dirty, FileRow, Manifest, ManifestError, Stat, meta::LAST_SCAN};
use crate::markdown::{Block, Document};
use crate::vault::{MANIFEST, Vault, relative};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// What to scan.
#[derive(Debug, Clone, Copy, Default)]
pub struct ScanOptions {
    /// Read every file, whatever its metadata says.
    pub full: bool,
}

/// What a scan did.
#[derive(Debug, Clone, Serialize)]
pub struct ScanReport {
    /// The vault root.
    pub vault_root: PathBuf,
    /// Files visited.
    pub walked: usize,
    /// Files read and hashed.
    pub hashed: usize,
    /// Of those, files whose content was new or different.
    pub changed: usize,
    /// Files skipped because their metadata was unchanged.
    pub skipped: usize,
    /// Files marked deleted.
    pub deleted: usize,
    /// Link targets resolved again.
    pub resolved: usize,
    /// Files and directories that could not be read.
    pub errors: Vec<ScanIssue>,
    /// Wall time, in milliseconds.
    pub duration_ms: u64,
    /// Wall time, in nanoseconds (the original's key).
    pub duration_ns: u64,
    /// With `--rebuild`: where the old manifest's files were moved.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<PathBuf>,
}

/// A file or directory the scan could not read.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ScanIssue {
    /// Vault-relative path.
    pub path: String,
    /// What went wrong.
    pub error: String,
}

/// The scan could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// The vault root itself cannot be listed.
    #[error("cannot read the vault root {}: {source}", path.display())]
    Root {
        /// The root.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The manifest failed.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// `--rebuild` could not move the old manifest aside.
    #[error("cannot set the old manifest aside: {0}")]
    SetAside(std::io::Error),
}

impl ScanError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            ScanError::Manifest(m) => m.hint(),
            ScanError::Root { .. } | ScanError::SetAside(_) => None,
        }
    }
}

/// A file found by the walk.
struct Found {
    rel: String,
    // The path as found, when `rel` (lossy for a name that is not UTF-8) cannot give it back.
    raw: Option<PathBuf>,
    stat: Stat,
}

/// What reading a file produced.
// Most reads of a rescan are `Same`; the vector of results lives for one scan only.
#[allow(clippy::large_enum_variant)]
enum Read {
    /// Same content as stored.
    Same,
    /// New or different content (with the parsed page, for wiki Markdown).
    Changed {
        hash: String,
        doc: Option<Document>,
        text: Option<String>,
    },
    /// It could not be read.
    Failed(String),
    /// It was removed between the walk and the read: as if the walk had not found it.
    Vanished,
}

/// Scan the vault into the manifest. `now_ns` is the wall clock (for "changed since").
pub fn scan(
    vault: &Vault,
    manifest: &mut Manifest,
    opts: ScanOptions,
    now_rfc3339: &str,
    now_ns: i64,
) -> Result<ScanReport, ScanError> {
    let started = Instant::now();
    let root = &vault.root;
    std::fs::read_dir(root).map_err(|source| ScanError::Root {
        path: root.clone(),
        source,
    })?;
    let (found, errors, unreadable) = walk(root);
    let known = manifest.file_rows()?;
    // A cold or full scan touches most keys: resolving every target at once is cheaper, and
    // needs no record of which keys changed.
    let all = opts.full || known.is_empty();
    let gone = |path: &str, row: &FileRow| !row.deleted && !under_any(path, &unreadable);
    let work = Work {
        found,
        known,
        errors,
        full: opts.full,
        all,
        // Only a scan of every file says how old the manifest is.
        last_scan: Some(now_rfc3339),
    };
    let mut report = store(vault, manifest, work, gone, now_ns)?;
    crate::fault::reached("scan.commit");
    report.timed(started);
    Ok(report)
}

/// Bring the manifest up to date for these vault-relative files only, after a command wrote
/// them: no walk, so the cost is that of the files, not of the vault. A path that no longer
/// exists is marked deleted.
pub fn scan_paths(
    vault: &Vault,
    manifest: &mut Manifest,
    paths: &[String],
    now_ns: i64,
) -> Result<ScanReport, ScanError> {
    let started = Instant::now();
    let mut found = Vec::new();
    let mut errors = Vec::new();
    // Only what the walk would find: a scan of these paths must agree with a scan of all.
    let mut unique: Vec<&String> = paths.iter().filter(|p| walked(p)).collect();
    unique.sort();
    unique.dedup();
    for rel in unique {
        match std::fs::symlink_metadata(vault.root.join(rel)) {
            Ok(meta) if meta.is_file() => found.push(Found {
                rel: rel.clone(),
                raw: None,
                stat: stat_of(&meta),
            }),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => errors.push(ScanIssue {
                path: rel.clone(),
                error: e.to_string(),
            }),
        }
    }
    let known = manifest.file_rows_of(paths)?;
    let listed: std::collections::HashSet<&str> = paths.iter().map(String::as_str).collect();
    let failed: Vec<String> = errors.iter().map(|e| e.path.clone()).collect();
    let gone = |path: &str, row: &FileRow| {
        !row.deleted && listed.contains(path) && !failed.iter().any(|f| f == path)
    };
    let work = Work {
        found,
        known,
        errors,
        full: false,
        all: false,
        last_scan: None,
    };
    let mut report = store(vault, manifest, work, gone, now_ns)?;
    report.timed(started);
    Ok(report)
}

/// What a command that answers from the manifest says about bringing it up to date first:
/// nothing when all went well (both fields are left out of its JSON then).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Seen {
    /// Files the scan could not read: the answer used what the manifest knew of them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scan_errors: Vec<ScanIssue>,
    /// Set when the manifest could not be written (a read-only vault): the answer is as of
    /// this scan (RFC 3339; `never` without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manifest_as_of: Option<String>,
}

/// The incremental scan a command runs before it answers from the manifest, so that it sees
/// the files as they are now (cheap when nothing changed: a walk and a stat per file). In a
/// vault nobody may write to, the manifest stays as the last scan left it, and the result says
/// so.
pub fn refresh(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &crate::clock::Now,
) -> Result<Seen, ScanError> {
    if manifest.is_read_only() {
        let last = manifest.meta(LAST_SCAN)?;
        return Ok(Seen {
            scan_errors: Vec::new(),
            manifest_as_of: Some(last.unwrap_or_else(|| "never".into())),
        });
    }
    let report = rescan(vault, manifest, now)?;
    Ok(Seen {
        scan_errors: report.errors,
        manifest_as_of: None,
    })
}

/// What a scan is to store: the files found (all of the vault's, or the ones asked for), the
/// rows the manifest holds for them, and the errors met finding them.
struct Work<'a> {
    found: Vec<Found>,
    known: HashMap<String, FileRow>,
    errors: Vec<ScanIssue>,
    /// Read every found file, whatever its metadata says.
    full: bool,
    /// Resolve every link target afresh.
    all: bool,
    /// The time to record as the last scan's, for a scan of the whole vault.
    last_scan: Option<&'a str>,
}

/// Read what changed of `work.found` and write it in one transaction; mark deleted the known
/// rows not found for which `gone` says so.
fn store(
    vault: &Vault,
    manifest: &mut Manifest,
    work: Work<'_>,
    gone: impl Fn(&str, &FileRow) -> bool,
    now_ns: i64,
) -> Result<ScanReport, ScanError> {
    let root = &vault.root;
    let clock_ns = fs_clock(root).unwrap_or(now_ns);
    let Work {
        found,
        known,
        mut errors,
        full,
        all,
        last_scan,
    } = work;
    let mut to_read = Vec::new();
    let mut skipped = 0;
    for (i, f) in found.iter().enumerate() {
        match known.get(&f.rel) {
            Some(row) if !full && is_clean(row, f.stat) => skipped += 1,
            _ => to_read.push(i),
        }
    }
    let tx = manifest.scan_tx()?;
    let mut dirty = Dirty::new();
    let (mut hashed, mut changed) = (0, 0);
    let mut vanished = std::collections::HashSet::new();
    // Readers hash and parse in parallel while this thread writes, in walk order, with a
    // bounded number of files in flight: memory does not grow with the vault.
    read_streaming(root, &found, &to_read, &known, |i, read| {
        let f = &found[i];
        match read {
            Read::Same => {
                hashed += 1;
                tx.touch(&f.rel, f.stat, clock_ns)?;
            }
            Read::Changed { hash, doc, text } => {
                hashed += 1;
                changed += 1;
                let content = Content {
                    hash: &hash,
                    doc: doc.as_ref(),
                    text: text.as_deref(),
                };
                tx.store(&f.rel, f.stat, content, (clock_ns, now_ns), &mut dirty)?;
                if all {
                    dirty.clear();
                }
            }
            Read::Failed(error) => errors.push(ScanIssue {
                path: f.rel.clone(),
                error,
            }),
            Read::Vanished => {
                vanished.insert(i);
            }
        }
        Ok(())
    })?;
    let seen: std::collections::HashSet<&str> = found
        .iter()
        .enumerate()
        .filter(|(i, _)| !vanished.contains(i))
        .map(|(_, f)| f.rel.as_str())
        .collect();
    let mut deleted = 0;
    for (path, row) in &known {
        if !seen.contains(path.as_str()) && gone(path, row) {
            tx.delete(path, now_ns, &mut dirty)?;
            deleted += 1;
        }
    }
    let walked = found.len();
    // What the walk found is not needed any more: free it before resolution loads its tables.
    drop(seen);
    drop(found);
    drop(known);
    let resolved = tx.resolve(&dirty, all)?;
    if let Some(at) = last_scan {
        tx.set_meta(LAST_SCAN, at)?;
    }
    tx.commit()?;
    errors.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(ScanReport {
        vault_root: root.clone(),
        walked,
        hashed,
        changed,
        skipped,
        deleted,
        resolved,
        errors,
        duration_ms: 0,
        duration_ns: 0,
        set_aside: Vec::new(),
    })
}

impl ScanReport {
    /// Record the wall time since `started`.
    fn timed(&mut self, started: Instant) {
        let elapsed = started.elapsed();
        self.duration_ms = elapsed.as_millis() as u64;
        self.duration_ns = elapsed.as_nanos() as u64;
    }
}

/// The incremental scan a command runs after writing files, at its own clock reading.
pub fn rescan(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &crate::clock::Now,
) -> Result<ScanReport, ScanError> {
    scan(
        vault,
        manifest,
        ScanOptions::default(),
        &now.timestamp,
        now.ns,
    )
}

/// Whether a stored row still describes the file: same metadata, and last read at a clock
/// strictly later than its mtime (otherwise a same-tick edit could hide behind it).
fn is_clean(row: &FileRow, stat: Stat) -> bool {
    !row.deleted && row.stat == stat && stat.mtime_ns < row.clock_ns
}

fn under_any(path: &str, prefixes: &[String]) -> bool {
    prefixes.iter().any(|p| {
        p.is_empty()
            || path == p
            || (path.starts_with(p.as_str()) && path.as_bytes()[p.len()] == b'/')
    })
}

/// The filesystem's own clock: the mtime of a file written now. Comparing mtimes with it,
/// not with the (finer, and ahead) system clock, is what makes the racy check sound.
fn fs_clock(root: &Path) -> std::io::Result<i64> {
    let p = root.join(format!("{MANIFEST}-clock"));
    std::fs::write(&p, b"")?;
    let meta = std::fs::metadata(&p);
    let _ = std::fs::remove_file(&p);
    Ok(stat_of(&meta?).mtime_ns)
}

/// Whether the walk skips this directory entry (never the root itself).
fn skipped_name(name: &str, is_dir: bool, depth: usize) -> bool {
    if depth == 0 {
        return false;
    }
    name.starts_with('.') || (is_dir && name == "node_modules") || name.starts_with(MANIFEST)
}

/// Whether the walk visits a vault-relative file path (no skipped name on the way).
fn walked(rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    !rel.is_empty()
        && parts
            .iter()
            .enumerate()
            .all(|(i, name)| !name.is_empty() && !skipped_name(name, i + 1 < parts.len(), i + 1))
}

/// Walk the vault: the files found, the errors met, and the vault-relative paths of
/// directories (or files) that could not be read.
fn walk(root: &Path) -> (Vec<Found>, Vec<ScanIssue>, Vec<String>) {
    let mut found = Vec::new();
    let mut errors = Vec::new();
    let mut unreadable = Vec::new();
    let walker = walkdir::WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            !skipped_name(
                &e.file_name().to_string_lossy(),
                e.file_type().is_dir(),
                e.depth(),
            )
        });
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            // Removed between being listed and being read: as if never listed.
            Err(e) if is_gone(&e) => continue,
            Err(e) => {
                let rel = e.path().and_then(|p| relative(root, p)).unwrap_or_default();
                let error = e
                    .io_error()
                    .map_or_else(|| e.to_string(), |io| io.to_string());
                errors.push(ScanIssue {
                    path: if rel.is_empty() {
                        ".".into()
                    } else {
                        rel.clone()
                    },
                    error,
                });
                unreadable.push(rel);
                continue;
            }
        };
        // Symbolic links are not followed: they may leave the vault or form loops.
        if !entry.file_type().is_file() {
            continue;
        }
        let Some(rel) = relative(root, entry.path()) else {
            continue;
        };
        match entry.metadata() {
            Ok(meta) => found.push(Found {
                raw: entry
                    .path()
                    .to_str()
                    .is_none()
                    .then(|| entry.path().to_path_buf()),
                rel,
                stat: stat_of(&meta),
            }),
            Err(e) if is_gone(&e) => {}
            Err(e) => {
                errors.push(ScanIssue {
                    path: rel.clone(),
                    error: e.to_string(),
                });
                unreadable.push(rel);
            }
        }
    }
    (found, errors, unreadable)
}

/// Whether a walk error says the entry no longer exists (a file or folder deleted while the
/// scan ran); the root itself is checked before the walk.
fn is_gone(e: &walkdir::Error) -> bool {
    e.depth() > 0 && e.io_error().map(std::io::Error::kind) == Some(std::io::ErrorKind::NotFound)
}

/// What the scan compares of a file's metadata.
#[cfg(unix)]
pub fn stat_of(meta: &std::fs::Metadata) -> Stat {
    use std::os::unix::fs::MetadataExt;
    Stat {
        size: meta.size(),
        mtime_ns: meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
        ctime_ns: meta.ctime() * 1_000_000_000 + meta.ctime_nsec(),
        inode: meta.ino(),
    }
}

/// What the scan compares of a file's metadata.
#[cfg(not(unix))]
pub fn stat_of(meta: &std::fs::Metadata) -> Stat {
    let ns = |t: std::io::Result<std::time::SystemTime>| {
        t.ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i64)
    };
    Stat {
        size: meta.len(),
        mtime_ns: ns(meta.modified()),
        ctime_ns: ns(meta.created()),
        inode: 0,
    }
}

/// Files read ahead of the writer, at most.
const IN_FLIGHT: usize = 64;

/// Read, hash and parse the files `found[which[..]]` on reader threads, handing each result to
/// `store` on this thread in the order of `which`. Stops at the first error `store` returns.
fn read_streaming(
    root: &Path,
    found: &[Found],
    which: &[usize],
    known: &HashMap<String, FileRow>,
    mut store: impl FnMut(usize, Read) -> Result<(), ScanError>,
) -> Result<(), ScanError> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let (send, recv) = std::sync::mpsc::sync_channel::<(usize, Read)>(IN_FLIGHT);
        for _ in 0..workers {
            let (send, next) = (send.clone(), &next);
            s.spawn(move || {
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = which.get(n) else { break };
                    let f = &found[i];
                    let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        read_one(root, f, known.get(&f.rel))
                    }))
                    .unwrap_or_else(|_| Read::Failed("reading it failed: internal error".into()));
                    // The writer stopped (on an error): nothing more to do.
                    if send.send((n, read)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(send);
        // Workers take positions in order, so out-of-order results are few: hold them until
        // their turn.
        let mut waiting: BTreeMap<usize, Read> = BTreeMap::new();
        let mut turn = 0;
        for (n, read) in recv {
            waiting.insert(n, read);
            while let Some(read) = waiting.remove(&turn) {
                store(which[turn], read)?;
                turn += 1;
            }
        }
        // A reader that died leaves a gap; what it held is reported, not silently skipped.
        for (n, &i) in which.iter().enumerate().skip(turn) {
            let read = waiting
                .remove(&n)
                .unwrap_or_else(|| Read::Failed("the reader thread failed".into()));
            store(i, read)?;
        }
        Ok(())
    })
}

fn read_one(root: &Path, f: &Found, row: Option<&FileRow>) -> Read {
    let path = f.raw.clone().unwrap_or_else(|| root.join(&f.rel));
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Read::Vanished,
        Err(e) => return Read::Failed(e.to_string()),
    };
    let hash = blake3::hash(&bytes).to_hex().to_string();
    if row.is_some_and(|r| !r.deleted && r.hash == hash) {
        return Read::Same;
    }
    let doc = is_page(&f.rel).then(|| parse_page(&bytes));
    let text = searchable(&f.rel, &bytes);
    Read::Changed { hash, doc, text }
}

/// Files larger than this are not indexed for search.
const SEARCH_MAX_BYTES: usize = 4 << 20;

/// The text of a file to index for search: a page's body (frontmatter stripped) or a raw
/// text file; nothing for binary files, large files or files outside `wiki/` and `raw/`.
fn searchable(rel: &str, bytes: &[u8]) -> Option<String> {
    if bytes.len() > SEARCH_MAX_BYTES || !(rel.starts_with("wiki/") || rel.starts_with("raw/")) {
        return None;
    }
    let text = std::str::from_utf8(bytes).ok()?;
    if text.contains('\0') {
        return None;
    }
    if is_page(rel) {
        return Some(crate::markdown::frontmatter::split(text).body.to_string());
    }
    Some(text.to_string())
}

/// Whether a vault-relative path is a wiki page: Markdown under `wiki/`.
pub fn is_page(rel: &str) -> bool {
    rel.starts_with("wiki/") && rel.len() > 8 && rel[rel.len() - 3..].eq_ignore_ascii_case(".md")
}

fn parse_page(bytes: &[u8]) -> Document {
    match std::str::from_utf8(bytes) {
        Ok(text) => Document::parse(text),
        Err(e) => {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            let mut doc = Document::parse(&String::from_utf8_lossy(bytes));
            doc.block = Block::Invalid {
                line,
                message: format!("the file is not valid UTF-8 (line {line})"),
            };
            doc
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_paths() {
        assert!(is_page("wiki/entities/A.md"));
        assert!(is_page("wiki/Notes/Plan.MD"));
        assert!(!is_page("raw/a.md"));
        assert!(!is_page("wiki/a.png"));
        assert!(!is_page("wikipedia.md"));
    }

    #[test]
    fn paths_the_walk_skips_are_never_scanned_alone() {
        assert!(walked("wiki/collections/Tasks.md"));
        assert!(walked("inbox.md"));
        assert!(!walked(".gitignore"));
        assert!(!walked("wiki/.obsidian/app.json"));
        assert!(!walked("raw/node_modules/x.md"));
        assert!(
            walked("raw/node_modules"),
            "only a folder of that name is skipped"
        );
        assert!(!walked("sparks.db-wal"));
        assert!(!walked(""));
    }

    #[test]
    fn prefixes() {
        let p = vec!["wiki/entities".to_string()];
        assert!(under_any("wiki/entities/A.md", &p));
        assert!(!under_any("wiki/entities2/A.md", &p));
        assert!(under_any("x", &["".to_string()]));
    }

    #[test]
    fn racy_rows_are_not_clean() {
        let stat = Stat {
            size: 3,
            mtime_ns: 100,
            ctime_ns: 100,
            inode: 7,
        };
        let row = |clock_ns| FileRow {
            stat,
            hash: String::new(),
            clock_ns,
            deleted: false,
        };
        assert!(is_clean(&row(101), stat));
        assert!(!is_clean(&row(100), stat), "same tick as the read");
        assert!(
            !is_clean(
                &row(101),
                Stat {
                    ctime_ns: 200,
                    ..stat
                }
            ),
            "touch -d changes ctime"
        );
    }
}
