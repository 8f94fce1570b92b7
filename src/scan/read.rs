//! Reading what changed: reader threads read, hash and parse the files while the caller
//! stores the results in walk order, with a bounded number of files in flight. A page is
//! parsed here; the text search indexes is cut here.

use super::ScanError;
use super::walk::Found;
use crate::fsio;
use crate::manifest::{FileRow, FileRows};
use crate::markdown::{Block, Document};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What reading a file produced.
// Most reads of a rescan are `Same`; the vector of results lives for one scan only.
#[allow(clippy::large_enum_variant)]
pub(super) enum Read {
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

/// Files read ahead of the writer, at most.
const IN_FLIGHT: usize = 64;

/// Read, hash and parse the files `found[which[..]]` on reader threads, handing each result to
/// `store` on this thread in the order of `which`. Stops at the first error `store` returns.
pub(super) fn read_streaming(
    root: &Path,
    found: &[Found],
    which: &[usize],
    known: &FileRows,
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
    let bytes = match fsio::read_if_exists(&path) {
        Ok(Some(b)) => b,
        Ok(None) => return Read::Vanished,
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
        return Some(crate::markdown::frontmatter::body(text).0.to_string());
    }
    // An archive's block markers and separators are no text of the captures.
    if crate::archive::is_archive(rel) {
        return Some(
            crate::archive::capture_lines(text)
                .collect::<Vec<_>>()
                .join("\n"),
        );
    }
    Some(text.to_string())
}

/// Whether a vault-relative path is a wiki page: Markdown under `wiki/`.
pub fn is_page(rel: &str) -> bool {
    rel.starts_with("wiki/") && rel.len() > 8 && rel[rel.len() - 3..].eq_ignore_ascii_case(".md")
}

fn parse_page(bytes: &[u8]) -> Document {
    match fsio::utf8(bytes) {
        Ok(text) => Document::parse(text),
        Err(line) => {
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
}
