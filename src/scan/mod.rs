//! `scan`: bring the manifest up to date with the files of the vault.
//!
//! Change detection works like git's index: a file is read again when its size, mtime, ctime
//! or inode differ from the stored ones, or when its mtime is not older than the filesystem
//! clock at the time it was last read (a "racy" file could have changed within the same clock
//! tick). Only files whose content hash changed are parsed again. Everything is written in one
//! transaction. A file or directory that cannot be read is reported, and what the manifest knew
//! about it is left as it was: an unreadable directory never marks its files deleted.
//!
//! The pieces: `walk` lists the vault's files with their metadata, `read` reads, hashes and
//! parses the ones that changed on reader threads, `report` is what a scan returns. This file
//! decides what to read and stores the results in one transaction.

mod fresh;
mod kind;
pub mod meaning;
mod read;
mod report;
mod walk;

pub use fresh::{Freshness, refresh};
pub use kind::{is_page, is_wiki_markdown};
pub use report::{ScanIssue, ScanOptions, ScanReport, Seen, Touched};
pub use walk::stat_of;

use crate::fsio;
use crate::manifest::{
    Content, Dirty, FileRow, FileRows, Manifest, ManifestError, ScanTx, Stat, Text, meta::LAST_SCAN,
};
use crate::progress::{Phase, Progress};
use crate::vault::{MANIFEST, Vault};
use read::{Changed, Read, Searchable, large_text, read_streaming};
use std::path::{Path, PathBuf};
use std::time::Instant;
use walk::{Found, FoundList, walk, walked};

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

impl crate::failure::Hint for ScanError {
    /// What the user can do about it.
    fn hint(&self) -> Option<crate::failure::Advice> {
        match self {
            ScanError::Manifest(m) => m.hint(),
            ScanError::Root { .. } | ScanError::SetAside(_) => None,
        }
    }
}

/// Scan the vault into the manifest. `now_ns` is the wall clock (for "changed since");
/// `progress` hears how the scan goes.
pub fn scan(
    vault: &Vault,
    manifest: &mut Manifest,
    opts: ScanOptions,
    now_rfc3339: &str,
    now_ns: i64,
    progress: &dyn Progress,
) -> Result<ScanReport, ScanError> {
    let started = Instant::now();
    let root = &vault.root;
    fsio::read_dir(root).map_err(|source| ScanError::Root {
        path: root.clone(),
        source,
    })?;
    let (live, _) = manifest.file_tally()?;
    // The walk (a stat per file, in the kernel) and reading the stored rows (in SQLite) take
    // about as long as each other when little changed, and need nothing from each other: the
    // rows are read on this thread while another walks.
    let (walked, known) = std::thread::scope(|threads| {
        let walker = threads.spawn(|| walk(root, progress, live as usize));
        let known = manifest.file_rows();
        (walker.join(), known)
    });
    let walk::Walked {
        found,
        errors,
        unreadable,
        staged,
    } = walked.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    let known = known?;
    // Staged files a killed Sparks left are never vault files: they go, unless their writer
    // is still at work.
    let run_dir = vault.root.join(crate::vault::RUN_DIR);
    for (path, name) in staged {
        if crate::life::abandoned(&run_dir, &path, &name) {
            let _ = fs_err::remove_file(&path);
        }
    }
    // A cold or full scan touches most keys: resolving every target at once is cheaper, and
    // needs no record of which keys changed.
    let empty = known.is_empty();
    let all = opts.full || empty;
    let gone = |path: &str, row: &FileRow| !row.deleted && !under_any(path, &unreadable);
    let work = Work {
        found,
        known,
        errors,
        full: opts.full,
        all,
        empty,
        // Only a scan of every file says how old the manifest is.
        last_scan: Some(now_rfc3339),
    };
    let mut report = store(vault, manifest, work, gone, now_ns, progress)?;
    crate::fault::reached("scan.commit");
    report.timed(started);
    Ok(report)
}

/// Bring the manifest up to date for these vault-relative files only, after a command wrote
/// them: no walk, so the cost is that of the files, not of the vault. A path that no longer
/// exists is marked deleted. `progress` hears how it goes.
pub fn scan_paths(
    vault: &Vault,
    manifest: &mut Manifest,
    paths: &[String],
    now_ns: i64,
    progress: &dyn Progress,
) -> Result<ScanReport, ScanError> {
    let started = Instant::now();
    let mut found = FoundList::default();
    let mut errors = Vec::new();
    // Only what the walk would find: a scan of these paths must agree with a scan of all.
    let mut unique: Vec<&String> = paths.iter().filter(|p| walked(p)).collect();
    unique.sort();
    unique.dedup();
    for rel in unique {
        match fsio::if_exists(fsio::symlink_metadata(&vault.root.join(rel))) {
            Ok(Some(meta)) if meta.is_file() => found.push(rel, None, stat_of(&meta)),
            Ok(_) => {}
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
        empty: false,
        last_scan: None,
    };
    let mut report = store(vault, manifest, work, gone, now_ns, progress)?;
    report.timed(started);
    Ok(report)
}

/// What a scan is to store: the files found (all of the vault's, or the ones asked for), the
/// rows the manifest holds for them, and the errors met finding them.
struct Work<'a> {
    found: FoundList,
    known: FileRows,
    errors: Vec<ScanIssue>,
    /// Read every found file, whatever its metadata says.
    full: bool,
    /// Resolve every link target afresh.
    all: bool,
    /// The manifest holds no file yet: fill it in bulk.
    empty: bool,
    /// The time to record as the last scan's, for a scan of the whole vault.
    last_scan: Option<&'a str>,
}

/// Read what changed of `work.found` and write it in one transaction; mark deleted the known
/// rows not found for which `gone` says so; `progress` hears how it goes.
fn store(
    vault: &Vault,
    manifest: &mut Manifest,
    work: Work<'_>,
    gone: impl Fn(&str, &FileRow) -> bool,
    now_ns: i64,
    progress: &dyn Progress,
) -> Result<ScanReport, ScanError> {
    let root = &vault.root;
    let clock_ns = fs_clock(root).unwrap_or(now_ns);
    let Work {
        found,
        known,
        mut errors,
        full,
        all,
        empty,
        last_scan,
    } = work;
    let (to_read, skipped, live_found) = sort_out(&found, &known, full);
    if !to_read.is_empty() {
        progress.phase(Phase::Reading, Some(to_read.len() as u64));
    }
    let mut tx = manifest.scan_tx(progress)?;
    if empty {
        tx.fill_empty()?;
    }
    let mut dirty = Dirty::new();
    let (mut hashed, mut changed, mut embedded) = (0, 0, 0);
    let mut touched = Touched::default();
    let mut vanished = std::collections::HashSet::new();
    // Readers hash and parse in parallel while this thread writes, in walk order, with a
    // bounded number of files in flight: memory does not grow with the vault.
    read_streaming(root, &found, &to_read, &known, |i, read| {
        let f = found.get(i);
        progress.advance(1);
        match read {
            Read::Same(markers) => {
                hashed += 1;
                tx.touch(f.rel, f.stat, clock_ns, markers)?;
            }
            Read::Changed(new) => {
                hashed += 1;
                changed += 1;
                embedded += new.meaning.len();
                touched.add(f.rel);
                let at = (clock_ns, now_ns);
                store_changed(&tx, root, f, new, at, &mut dirty, &mut errors)?;
                if all {
                    dirty.clear();
                }
            }
            Read::Failed(error) => errors.push(ScanIssue {
                path: f.rel.to_string(),
                error,
            }),
            Read::Vanished => {
                vanished.insert(i);
            }
        }
        Ok(())
    })?;
    let mut deleted = 0;
    for path in missing(&found, live_found, &vanished, &known, gone) {
        tx.delete(path, now_ns, &mut dirty)?;
        deleted += 1;
        touched.add(path);
    }
    let walked = found.len();
    // What the walk found is not needed any more: free it before resolution loads its tables.
    drop(found);
    drop(known);
    let resolved = tx.resolve(&dirty, all)?;
    if let Some(at) = last_scan {
        tx.set_meta(LAST_SCAN, at)?;
    }
    // Every row is written (a first scan's indexes still set aside); nothing is committed.
    crate::fault::reached("scan.rows");
    let committed = tx.commit()?;
    manifest.settle_scan(committed)?;
    errors.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(ScanReport {
        vault_root: root.clone(),
        walked,
        hashed,
        changed,
        skipped,
        deleted,
        resolved,
        embedded,
        errors,
        duration_ms: 0,
        duration_ns: 0,
        set_aside: Vec::new(),
        history_kept: None,
        warnings: Vec::new(),
        touched,
    })
}

/// Store a new or changed file: its text indexed (a file too large to hold read again a piece
/// at a time), its meaning kept; a text not searchable to its end is said in `errors`, never
/// silently.
fn store_changed(
    tx: &ScanTx<'_>,
    root: &Path,
    f: Found<'_>,
    new: Changed,
    at: (i64, i64),
    dirty: &mut Dirty,
    errors: &mut Vec<ScanIssue>,
) -> Result<(), ScanError> {
    let mut failed = None;
    let mut large = match &new.text {
        Some(Searchable::Large) => Some(large_text(&f.path(root), f.rel, &mut failed)),
        _ => None,
    };
    let text = match (&new.text, &mut large) {
        (Some(Searchable::Held(t)), _) => Some(Text::Whole(t)),
        (_, Some(pieces)) => Some(Text::Pieces(pieces)),
        _ => None,
    };
    let content = Content {
        hash: &new.hash,
        doc: new.doc.as_ref(),
        text,
        meaning: &new.meaning,
        markers: new.markers,
    };
    let indexed = tx.store(f.rel, f.stat, content, at, dirty)?;
    drop(large);
    errors.extend(unsearchable(f.rel, failed, indexed.cut, indexed.pieces));
    Ok(())
}

/// The issue of a file whose text is not searchable to its end: reading it for the search
/// index `failed`, or only its first `pieces` were indexed (`cut`).
fn unsearchable(rel: &str, failed: Option<String>, cut: bool, pieces: i64) -> Option<ScanIssue> {
    let error = match failed {
        Some(e) => format!("reading it for the search index failed: {e}"),
        None if cut => format!("only its first {pieces} pieces of text are searchable"),
        None => return None,
    };
    Some(ScanIssue {
        path: rel.to_string(),
        error,
    })
}

/// Which found files to read (by index: their rows are not clean, or every file is read:
/// `full`), how many are skipped as clean, and how many live rows the walk found a file of.
fn sort_out(found: &FoundList, known: &FileRows, full: bool) -> (Vec<usize>, usize, usize) {
    let (mut to_read, mut skipped, mut live_found) = (Vec::new(), 0, 0);
    for (i, f) in found.iter().enumerate() {
        let row = known.get(f.rel);
        live_found += usize::from(row.is_some_and(|r| !r.deleted));
        match row {
            Some(row) if !full && is_clean(row, f.stat) => skipped += 1,
            _ => to_read.push(i),
        }
    }
    (to_read, skipped, live_found)
}

/// The known rows whose file the walk did not find (or found and then saw vanish) and that
/// `gone` says are gone. Only a live row can be gone (`gone` says no to the others): when the
/// walk found the file of every one (`live_found`) and none vanished since, there is nothing
/// to look for.
fn missing<'k>(
    found: &FoundList,
    live_found: usize,
    vanished: &std::collections::HashSet<usize>,
    known: &'k FileRows,
    gone: impl Fn(&str, &FileRow) -> bool,
) -> Vec<&'k str> {
    let live_known = known.values().filter(|r| !r.deleted).count();
    if live_found == live_known && vanished.is_empty() {
        return Vec::new();
    }
    let mut seen: std::collections::HashSet<&str, foldhash::fast::RandomState> =
        std::collections::HashSet::with_capacity_and_hasher(found.len(), Default::default());
    seen.extend(
        found
            .iter()
            .enumerate()
            .filter(|(i, _)| !vanished.contains(i))
            .map(|(_, f)| f.rel),
    );
    known
        .iter()
        .filter(|(path, row)| !seen.contains(*path) && gone(path, row))
        .map(|(path, _)| path)
        .collect()
}

/// Whether a scan would look at the file at this vault-relative path: not hidden, not under a
/// hidden directory or `node_modules`, not the manifest's own (what a watcher ignores).
pub fn watched(rel: &str) -> bool {
    walked(rel)
}

/// The incremental scan a command runs after writing files, at its own clock reading,
/// `progress` hearing how it goes.
pub fn rescan(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &crate::clock::Now,
    progress: &dyn Progress,
) -> Result<ScanReport, ScanError> {
    scan(
        vault,
        manifest,
        ScanOptions::default(),
        &now.timestamp,
        now.ns,
        progress,
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
    fs_err::write(&p, b"")?;
    let meta = fs_err::metadata(&p);
    let _ = fs_err::remove_file(&p);
    Ok(stat_of(&meta?).mtime_ns)
}

#[cfg(test)]
mod tests {
    use super::*;

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
            hash: None,
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
