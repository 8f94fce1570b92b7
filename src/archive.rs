//! The raw archive of processed captures: `raw/inbox/YYYY-MM-DD.md`, one file per capture
//! date, each capture a block that starts with `---` (so the file reads like an inbox).
//!
//! Each block carries a marker comment with its ingest, entry and hash. Archiving the same
//! entry of the same ingest again finds its marker and appends nothing, which is what makes a
//! retried finalize safe. The file is append-only in meaning and rewritten atomically.

use crate::fsio;
use crate::vault::ARCHIVE_DIR;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A capture to archive.
#[derive(Debug, Clone)]
pub struct Item<'a> {
    /// The entry's id in its ingest.
    pub entry: u32,
    /// `YYYY-MM-DD`.
    pub capture_date: &'a str,
    /// blake3 of the content.
    pub hash: &'a str,
    /// The content.
    pub content: &'a str,
}

/// What archiving did.
#[derive(Debug, Clone, Default)]
pub struct Archived {
    /// Vault-relative archive files written or already holding the items.
    pub files: Vec<String>,
    /// Blocks appended now.
    pub appended: usize,
    /// Blocks found already archived (a retry).
    pub present: usize,
}

/// Archiving failed.
#[derive(Debug, thiserror::Error)]
#[error("cannot archive to {}: {source}", path.display())]
pub struct ArchiveError {
    /// The archive file or directory.
    pub path: PathBuf,
    /// The cause.
    pub source: std::io::Error,
}

/// The marker line of a block: the ingest (id and token), the entry and its hash.
pub fn marker(ingest: i64, token: &str, entry: u32, hash: &str) -> String {
    format!("<!-- sparks: ingest {ingest} {token} entry {entry} blake3 {hash} -->")
}

/// Whether a vault-relative path is an archive file (`raw/inbox/<name>.md`, not in a
/// subfolder).
pub fn is_archive(path: &str) -> bool {
    path.strip_prefix(ARCHIVE_DIR)
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|name| !name.contains('/') && name.len() > 3 && name.ends_with(".md"))
}

/// The lines of an archive file that hold captures: the `---` separators and the block
/// markers left out.
pub fn capture_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| l.trim() != "---" && !is_marker(l))
}

/// Whether a line is a block marker (readers of the archive skip these).
pub fn is_marker(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("<!-- sparks: ingest ") && t.ends_with("-->")
}

/// What a block's marker says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    /// The ingest's id.
    pub ingest: i64,
    /// The ingest's token.
    pub token: String,
    /// The entry's id in its batch.
    pub entry: u32,
    /// blake3 of the entry's content.
    pub hash: String,
}

/// The fields of a marker line ([`marker`]), if it is one.
pub fn parse_marker(line: &str) -> Option<Marker> {
    let inner = line
        .trim()
        .strip_prefix("<!-- sparks: ingest ")?
        .strip_suffix("-->")?;
    let mut words = inner.split_whitespace();
    let ingest = words.next()?.parse().ok()?;
    let token = words.next()?.to_string();
    let entry = match (words.next()?, words.next()?) {
        ("entry", n) => n.parse().ok()?,
        _ => return None,
    };
    let hash = match (words.next()?, words.next()?) {
        ("blake3", h) => h.to_string(),
        _ => return None,
    };
    words.next().is_none().then_some(Marker {
        ingest,
        token,
        entry,
        hash,
    })
}

/// The markers of the archive file of capture date `date` (none when there is no file).
pub fn markers_of(root: &Path, date: &str) -> Result<Vec<Marker>, ArchiveError> {
    let path = root.join(ARCHIVE_DIR).join(format!("{date}.md"));
    let bytes = fsio::read_if_exists(&path)
        .map_err(|source| ArchiveError {
            path: path.clone(),
            source,
        })?
        .unwrap_or_default();
    Ok(String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(parse_marker)
        .collect())
}

/// The archive files a batch with these capture dates writes, vault-relative, in order.
pub fn files_for<'a>(dates: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let dates: std::collections::BTreeSet<&str> = dates.into_iter().collect();
    dates
        .into_iter()
        .map(|d| format!("{ARCHIVE_DIR}/{d}.md"))
        .collect()
}

/// Archive `items` of ingest `ingest` under `root`, skipping blocks already there.
pub fn archive(
    root: &Path,
    ingest: i64,
    token: &str,
    items: &[Item<'_>],
) -> Result<Archived, ArchiveError> {
    let dir = root.join(ARCHIVE_DIR);
    fs_err::create_dir_all(&dir).map_err(|source| ArchiveError {
        path: dir.clone(),
        source,
    })?;
    let mut by_date: BTreeMap<&str, Vec<&Item<'_>>> = BTreeMap::new();
    for item in items {
        by_date.entry(item.capture_date).or_default().push(item);
    }
    let mut report = Archived::default();
    // The files are all in one directory: synced once, after the last rename, before the
    // archive counts as written (finalize clears the inbox only after that).
    let mut renames = fsio::Renames::default();
    for (date, items) in by_date {
        let name = format!("{date}.md");
        let path = dir.join(&name);
        let err = |source| ArchiveError {
            path: path.clone(),
            source,
        };
        let old = match fsio::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(err(e)),
        };
        let text = String::from_utf8_lossy(&old);
        let present: std::collections::HashSet<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| is_marker(l))
            .collect();
        let mut out = old.clone();
        for item in items {
            let mark = marker(ingest, token, item.entry, item.hash);
            if present.contains(mark.as_str()) {
                report.present += 1;
                continue;
            }
            if !out.is_empty() && !out.ends_with(b"\n") {
                out.push(b'\n');
            }
            out.extend_from_slice(format!("---\n{mark}\n{}\n", item.content).as_bytes());
            report.appended += 1;
        }
        if out != old {
            renames.write_atomic(&path, &out).map_err(err)?;
        }
        report.files.push(format!("{ARCHIVE_DIR}/{name}"));
    }
    renames
        .sync()
        .map_err(|source| ArchiveError { path: dir, source })?;
    Ok(report)
}

/// Take the blocks carrying `markers` out of the archive file `rel` (vault-relative), for
/// `ingest --revert`: the only edit of `raw/` Sparks ever makes, and only of blocks it wrote
/// itself. A block runs from the `---` line before its marker to the next `---` line (a
/// capture never holds one) or the end of the file. A file left empty is deleted. Returns
/// how many blocks were taken out (none when they are gone already: a rerun).
pub fn remove_blocks(root: &Path, rel: &str, markers: &[String]) -> Result<usize, ArchiveError> {
    let path = root.join(rel);
    let err = |source| ArchiveError {
        path: path.clone(),
        source,
    };
    let Some(old) = fsio::read_if_exists(&path).map_err(err)? else {
        return Ok(0);
    };
    let mut lines = Vec::new();
    let mut pos = 0;
    for line in old.split_inclusive(|b| *b == b'\n') {
        lines.push(pos..pos + line.len());
        pos += line.len();
    }
    let text = |i: usize| String::from_utf8_lossy(&old[lines[i].clone()]).into_owned();
    let is_sep = |i: usize| text(i).trim_end_matches(['\n', '\r']) == "---";
    let mut cut = Vec::new();
    for i in 0..lines.len() {
        let t = text(i);
        if !is_marker(&t) || !markers.iter().any(|m| m == t.trim()) {
            continue;
        }
        let start = match i.checked_sub(1) {
            Some(s) if is_sep(s) => s,
            _ => i,
        };
        let end = (i + 1..lines.len())
            .find(|&j| is_sep(j))
            .unwrap_or(lines.len());
        cut.push(lines[start].start..lines.get(end).map_or(old.len(), |r| r.start));
    }
    if cut.is_empty() {
        return Ok(0);
    }
    let mut out = Vec::with_capacity(old.len());
    let mut from = 0;
    for r in &cut {
        out.extend_from_slice(&old[from..r.start]);
        from = r.end;
    }
    out.extend_from_slice(&old[from..]);
    if out.is_empty() {
        fs_err::remove_file(&path).map_err(err)?;
    } else {
        fsio::write_atomic(&path, &out).map_err(err)?;
    }
    Ok(cut.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item<'a>(entry: u32, date: &'a str, content: &'a str, hash: &'a str) -> Item<'a> {
        Item {
            entry,
            capture_date: date,
            hash,
            content,
        }
    }

    #[test]
    fn a_marker_reads_back_as_written() {
        let line = marker(12, "k12", 3, "abc");
        assert_eq!(
            parse_marker(&format!("  {line}\r")),
            Some(Marker {
                ingest: 12,
                token: "k12".into(),
                entry: 3,
                hash: "abc".into(),
            })
        );
        assert_eq!(
            parse_marker("<!-- sparks: ingest 1 k entry x blake3 h -->"),
            None
        );
        assert_eq!(
            parse_marker("<!-- sparks: ingest 1 k entry 1 blake3 h more -->"),
            None
        );
        assert_eq!(parse_marker("<!-- a comment -->"), None);
    }

    #[test]
    fn archives_by_date_and_never_twice() {
        let dir = tempfile::tempdir().unwrap();
        let items = [
            item(1, "2026-04-10", "First", "h1"),
            item(2, "2026-05-01", "Second\nline 2", "h2"),
        ];
        let r = archive(dir.path(), 7, "k7", &items).unwrap();
        assert_eq!((r.appended, r.present), (2, 0));
        assert_eq!(
            r.files,
            ["raw/inbox/2026-04-10.md", "raw/inbox/2026-05-01.md"]
        );
        let r = archive(dir.path(), 7, "k7", &items).unwrap();
        assert_eq!((r.appended, r.present), (0, 2));
        let text = fs_err::read_to_string(dir.path().join("raw/inbox/2026-05-01.md")).unwrap();
        assert_eq!(
            text,
            format!("---\n{}\nSecond\nline 2\n", marker(7, "k7", 2, "h2"))
        );
    }

    #[test]
    fn the_same_text_in_another_ingest_is_archived_again() {
        let dir = tempfile::tempdir().unwrap();
        archive(
            dir.path(),
            1,
            "k1",
            &[item(1, "2026-04-10", "buy milk", "h")],
        )
        .unwrap();
        let r = archive(
            dir.path(),
            2,
            "k2",
            &[item(1, "2026-04-10", "buy milk", "h")],
        )
        .unwrap();
        assert_eq!(r.appended, 1);
        // A rebuilt manifest reuses ingest ids; the token still tells the ingests apart.
        let r = archive(
            dir.path(),
            1,
            "k3",
            &[item(1, "2026-04-10", "buy milk", "h")],
        )
        .unwrap();
        assert_eq!(r.appended, 1);
    }

    #[test]
    fn removing_blocks_gives_back_the_file_before_and_only_once() {
        let dir = tempfile::tempdir().unwrap();
        let rel = "raw/inbox/2026-04-10.md";
        archive(dir.path(), 1, "k1", &[item(1, "2026-04-10", "old", "h0")]).unwrap();
        let before = fs_err::read(dir.path().join(rel)).unwrap();
        let items = [
            item(1, "2026-04-10", "first\nline 2", "h1"),
            item(2, "2026-04-10", "second", "h2"),
        ];
        archive(dir.path(), 2, "k2", &items).unwrap();
        archive(dir.path(), 3, "k3", &[item(1, "2026-04-10", "later", "h3")]).unwrap();
        let markers = [marker(2, "k2", 1, "h1"), marker(2, "k2", 2, "h2")];
        assert_eq!(remove_blocks(dir.path(), rel, &markers).unwrap(), 2);
        assert_eq!(remove_blocks(dir.path(), rel, &markers).unwrap(), 0);
        let mut expected = before;
        expected
            .extend_from_slice(format!("---\n{}\nlater\n", marker(3, "k3", 1, "h3")).as_bytes());
        assert_eq!(fs_err::read(dir.path().join(rel)).unwrap(), expected);
    }

    #[test]
    fn a_file_left_empty_is_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let rel = "raw/inbox/2026-04-10.md";
        archive(dir.path(), 2, "k", &[item(1, "2026-04-10", "only", "h")]).unwrap();
        let n = remove_blocks(dir.path(), rel, &[marker(2, "k", 1, "h")]).unwrap();
        assert_eq!(n, 1);
        assert!(!dir.path().join(rel).exists());
        assert_eq!(
            remove_blocks(dir.path(), rel, &[marker(2, "k", 1, "h")]).unwrap(),
            0
        );
    }

    #[test]
    fn appends_after_a_file_without_final_newline() {
        let dir = tempfile::tempdir().unwrap();
        fs_err::create_dir_all(dir.path().join(ARCHIVE_DIR)).unwrap();
        fs_err::write(dir.path().join("raw/inbox/2026-04-10.md"), "---\nold").unwrap();
        archive(dir.path(), 3, "k", &[item(1, "2026-04-10", "new", "h")]).unwrap();
        let text = fs_err::read_to_string(dir.path().join("raw/inbox/2026-04-10.md")).unwrap();
        assert!(text.starts_with("---\nold\n---\n<!-- sparks:"), "{text}");
        assert!(is_marker(text.lines().nth(3).unwrap()));
    }
}
