//! Reading what changed: reader threads read, hash and parse the files while the caller
//! stores the results in walk order, with a bounded number of files in flight. A page is
//! parsed here; the text search indexes is cut here. A raw text file of
//! [`crate::pieces::HELD_BELOW`] bytes or more is not held: it is hashed and checked as it is read, and the writer reads
//! it again a piece at a time as it indexes it ([`large_text`]), so memory stays bounded
//! whatever the size of a file.

use super::ScanError;
use super::kind::{is_page, is_wiki_markdown};
use super::walk::{Found, FoundList};
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
    /// Same content as stored (and its first conflict marker's line: [`Markers`]).
    Same(Markers),
    /// New or different content.
    Changed(Changed),
    /// It could not be read.
    Failed(String),
    /// It was removed between the walk and the read: as if the walk had not found it.
    Vanished,
}

/// What a new or changed file gives the manifest.
pub(super) struct Changed {
    /// blake3 of its bytes, in hex.
    pub hash: String,
    /// The parsed page, for wiki Markdown.
    pub doc: Option<Document>,
    /// Its text for the search index.
    pub text: Option<Searchable>,
    /// The vectors of its sections, for a page ([`super::meaning`]).
    pub meaning: Vec<(usize, crate::embed::Vector)>,
    /// Its first conflict marker's line.
    pub markers: Markers,
}

/// The line of a file's first conflict marker ([`crate::markers::first`]), 0 when it holds
/// none; `None` for a file too large to hold, which is not checked.
pub(super) type Markers = Option<usize>;

/// Files read ahead of the writer, at most.
const IN_FLIGHT: usize = 64;

/// Read, hash and parse the files `found[which[..]]` on reader threads, handing each result to
/// `store` on this thread in the order of `which`. Stops at the first error `store` returns.
pub(super) fn read_streaming(
    root: &Path,
    found: &FoundList,
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
                    let f = found.get(i);
                    let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        read_one(root, f, known.get(f.rel))
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

/// What a changed file gives the search index.
pub(super) enum Searchable {
    /// Its text, read with it.
    Held(String),
    /// A text file too large to hold: read again a piece at a time as it is indexed.
    Large,
}

/// Whether the stored row says the file holds exactly this content.
fn is_same(row: Option<&FileRow>, hash: blake3::Hash) -> bool {
    row.is_some_and(|r| !r.deleted && r.hash == Some(hash))
}

fn read_one(root: &Path, f: Found<'_>, row: Option<&FileRow>) -> Read {
    let path = f.path(root);
    if f.stat.size >= crate::pieces::HELD_BELOW && searched(f.rel) && !is_wiki_markdown(f.rel) {
        return read_large(&path, row);
    }
    let bytes = match fsio::read_if_exists(&path) {
        Ok(Some(b)) => b,
        Ok(None) => return Read::Vanished,
        Err(e) => return Read::Failed(e.to_string()),
    };
    let hash = blake3::hash(&bytes);
    let markers = Some(crate::markers::first(f.rel, &bytes));
    if is_same(row, hash) {
        return Read::Same(markers);
    }
    let hash = hash.to_hex().to_string();
    let doc = is_page(f.rel).then(|| parse_page(&bytes));
    let text = searchable(f.rel, &bytes);
    // A page is embedded from the whole file, as search cuts its passages. Raw files are found
    // by their words: embedding them too doubled a first scan's time at 100,000 pages.
    let meaning = match (&text, std::str::from_utf8(&bytes)) {
        (Some(_), Ok(whole)) if is_wiki_markdown(f.rel) => {
            let title = match doc.as_ref().map(|d| &d.block) {
                Some(Block::Valid(fm)) => fm.title.as_deref().unwrap_or_default(),
                _ => "",
            };
            super::meaning::meaning(f.rel, whole, title)
        }
        _ => Vec::new(),
    };
    Read::Changed(Changed {
        hash,
        doc,
        text: text.map(Searchable::Held),
        meaning,
        markers,
    })
}

/// Whether a file's text is searched: a file under `wiki/` or `raw/`.
fn searched(rel: &str) -> bool {
    rel.starts_with("wiki/") || rel.starts_with("raw/")
}

/// The text of a file to index for search: a page's body (frontmatter stripped, a conflict
/// copy's too) or a raw
/// text file; nothing for binary files (not UTF-8, or with a NUL) or files outside `wiki/`
/// and `raw/`.
fn searchable(rel: &str, bytes: &[u8]) -> Option<String> {
    if !searched(rel) || bytes.contains(&0) {
        return None;
    }
    let text = std::str::from_utf8(bytes).ok()?;
    if is_wiki_markdown(rel) {
        return Some(crate::markdown::frontmatter::body(text).0.to_string());
    }
    Some(indexed_text(rel, text).into_owned())
}

/// What the index holds of a raw file's text (or of one piece of it, cut at a line end): an
/// archive without its block markers and separators, which are no text of the captures.
pub(super) fn indexed_text<'t>(rel: &str, text: &'t str) -> std::borrow::Cow<'t, str> {
    match crate::archive::is_archive(rel) {
        true => crate::archive::capture_lines(text)
            .collect::<Vec<_>>()
            .join("\n")
            .into(),
        false => text.into(),
    }
}

/// A large raw file read a chunk at a time: hashed, and judged text (UTF-8 without a NUL,
/// a character cut between two chunks carried over) without being held.
fn read_large(path: &Path, row: Option<&FileRow>) -> Read {
    use std::io::Read as _;
    let mut file = match fsio::if_exists(fs_err::File::open(path)) {
        Ok(Some(f)) => f,
        Ok(None) => return Read::Vanished,
        Err(e) => return Read::Failed(e.to_string()),
    };
    let mut hasher = blake3::Hasher::new();
    let mut chunk = vec![0; 1 << 20];
    let mut carry: Vec<u8> = Vec::new();
    let mut text = true;
    loop {
        let n = match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Read::Failed(e.to_string()),
        };
        let bytes = &chunk[..n];
        hasher.update(bytes);
        if !text {
            continue;
        }
        carry.extend_from_slice(bytes);
        text = !carry.contains(&0);
        match std::str::from_utf8(&carry) {
            Ok(_) => carry.clear(),
            // A character cut at the end of the chunk: the rest comes with the next.
            Err(e) if e.error_len().is_none() => {
                carry.drain(..e.valid_up_to());
            }
            Err(_) => text = false,
        }
    }
    let hash = hasher.finalize();
    if is_same(row, hash) {
        return Read::Same(None);
    }
    let hash = hash.to_hex().to_string();
    Read::Changed(Changed {
        hash,
        doc: None,
        text: (text && carry.is_empty()).then_some(Searchable::Large),
        // Not held, so not embedded: a file this long is found by its words.
        meaning: Vec::new(),
        markers: None,
    })
}

/// The pieces of a large file's text for the index, read as they are indexed; the first
/// error reading it ends them, and is kept in `failed`.
pub(super) fn large_text<'a>(
    path: &Path,
    rel: &'a str,
    failed: &'a mut Option<String>,
) -> impl Iterator<Item = String> + 'a {
    let reader = match crate::pieces::Reader::open(path, crate::pieces::PIECE) {
        Ok(r) => Some(r),
        Err(e) => {
            *failed = Some(e.to_string());
            None
        }
    };
    reader
        .into_iter()
        .flatten()
        .map_while(move |piece| match piece {
            Ok(p) => Some(indexed_text(rel, &p).into_owned()),
            Err(e) => {
                *failed = Some(e.to_string());
                None
            }
        })
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
        assert!(!is_page("wiki/concepts/A (conflict 2026-05-01).md"));
        assert!(is_wiki_markdown("wiki/concepts/A (conflict 2026-05-01).md"));
    }
}
