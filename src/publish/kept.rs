//! What each published page gave the site's listings — its title, description and words for
//! the search — kept between publishes into a folder, in the vault's run-time folder beside the
//! [`Memory`](super::out::Memory): a page whose file did not change is not read or counted
//! again to be listed, so that one page changed in a large site costs about one page.
//!
//! Each page's piece of `llms-full.txt` is kept too — its length and hash: the pieces of the
//! pages kept follow one another in the last `llms-full.txt` as the pages do here, so that a
//! page whose files are kept has its piece copied from there ([`Full`]), checked by its hash,
//! rather than its Markdown read back.
//!
//! One file, its pages in path order (the order a publish makes them in), read as the publish
//! walks the pages and written anew beside it as it goes, then put in place: neither is ever
//! held whole. It is only a cache: a page counts only for the same file (by its hash) under
//! the same site key (the file's header); a file that is missing, of another key or cut short
//! gives what it can, and the rest is read from the pages.
//!
//! The format: a header line (`FORMAT`), the site key; then per page its path, its file's hash,
//! its title, description, excerpt and words ([`search::Counted::parts`]) and its piece of
//! `llms-full.txt` (length and hash, [`Piece`]), each a little-endian `u32` length and the
//! bytes.

use super::search;
use crate::file_error::FileError;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// The first bytes of the file: a file of another format is not read.
const FORMAT: &[u8] = b"kept pages of a published site, format 2\n";

/// What a page gave the listings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Given {
    /// Its description, for llms.txt and the feed.
    pub description: String,
    /// What the search holds of it.
    pub counted: search::Counted,
}

/// A page's piece of `llms-full.txt`: where it starts, its length, the hash of its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    /// Where it starts in the file (the pieces of the pages before it, kept or not, added up).
    pub at: u64,
    /// Its length in bytes.
    pub len: u64,
    /// The start of the blake3 hash of its bytes.
    pub hash: [u8; 16],
}

impl Piece {
    /// The piece of `bytes` found at `at`.
    pub fn of(at: u64, bytes: &[u8]) -> Piece {
        let mut hash = [0; 16];
        hash.copy_from_slice(&blake3::hash(bytes).as_bytes()[..16]);
        Piece {
            at,
            len: bytes.len() as u64,
            hash,
        }
    }

    /// Its length and hash, as kept.
    fn to_bytes(self) -> [u8; 24] {
        let mut b = [0; 24];
        b[..8].copy_from_slice(&self.len.to_le_bytes());
        b[8..].copy_from_slice(&self.hash);
        b
    }

    /// The piece kept as `bytes`, found at `at`.
    fn from_bytes(at: u64, bytes: &[u8]) -> Option<Piece> {
        let len = u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?);
        let hash = bytes.get(8..24)?.try_into().ok()?;
        Some(Piece { at, len, hash })
    }
}

/// The pages kept by the last publish, read in path order.
pub struct Kept {
    reader: Option<BufReader<std::fs::File>>,
    /// The next page in the file, read ahead: (path, hash, what it gave, its piece).
    next: Option<(String, String, Given, Piece)>,
    /// Where the next page's piece starts.
    at: u64,
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kept")
            .field("next", &self.next.as_ref().map(|n| &n.0))
            .finish()
    }
}

impl Kept {
    /// Where the vault at `vault` keeps the pages published into `out` (beside the memory).
    pub fn path(vault: &Path, out: &Path) -> PathBuf {
        super::out::Memory::path(vault, out).with_extension("pages")
    }

    /// The pages kept at `path` under the site key `site`, the first page's piece of
    /// `llms-full.txt` starting at `start` (after its heading): none when there is no such file
    /// or it was kept under another key.
    pub fn open(path: &Path, site: &str, start: u64) -> Kept {
        let mut kept = Kept {
            reader: None,
            next: None,
            at: start,
        };
        let Ok(file) = crate::fsio::open_nofollow(path) else {
            return kept;
        };
        let mut reader = BufReader::with_capacity(1 << 16, file);
        let mut format = vec![0; FORMAT.len()];
        let same = reader.read_exact(&mut format).is_ok()
            && format == FORMAT
            && field(&mut reader).is_some_and(|k| k == site.as_bytes());
        if same {
            kept.reader = Some(reader);
            kept.advance();
        }
        kept
    }

    /// What the page at `path` gave when its file had the hash `hash`, and its piece of the
    /// last `llms-full.txt`, if it is kept; the pages before `path` are passed by (ask in path
    /// order).
    pub fn take(&mut self, path: &str, hash: &str) -> Option<(Given, Piece)> {
        while self.next.as_ref().is_some_and(|n| n.0.as_str() < path) {
            self.advance();
        }
        if self
            .next
            .as_ref()
            .is_some_and(|n| n.0 == path && n.1 == hash)
        {
            let given = self.next.take().map(|n| (n.2, n.3));
            self.advance();
            return given;
        }
        None
    }

    /// Read the next page (none at the end, or where the file stops making sense).
    fn advance(&mut self) {
        self.next = self.reader.as_mut().and_then(|r| {
            let mut text = || field(r).and_then(|b| String::from_utf8(b).ok());
            let (path, hash, title) = (text()?, text()?, text()?);
            let (description, excerpt) = (text()?, text()?);
            let words = field(r)?;
            let piece = Piece::from_bytes(self.at, &field(r)?)?;
            let url = super::urls::page(&path);
            let counted = search::Counted::from_parts(url, title, excerpt, words);
            let given = Given {
                description,
                counted,
            };
            Some((path, hash, given, piece))
        });
        match &self.next {
            Some(n) => self.at += n.3.len,
            None => self.reader = None,
        }
    }
}

/// The last `llms-full.txt`, read forward for the pieces of the pages kept.
pub struct Full {
    reader: BufReader<std::fs::File>,
    /// Where the reader is.
    at: u64,
}

impl std::fmt::Debug for Full {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Full").field("at", &self.at).finish()
    }
}

impl Full {
    /// The file at `path`, if it can be opened.
    pub fn open(path: &Path) -> Option<Full> {
        let file = crate::fsio::open_nofollow(path).ok()?;
        Some(Full {
            reader: BufReader::with_capacity(1 << 16, file),
            at: 0,
        })
    }

    /// The bytes of `piece`, when the file holds them (its hash says so).
    pub fn piece(&mut self, piece: &Piece) -> Option<Vec<u8>> {
        let skip = i64::try_from(piece.at.checked_sub(self.at)?).ok()?;
        self.reader.seek_relative(skip).ok()?;
        self.at = piece.at;
        let mut bytes = Vec::new();
        (&mut self.reader)
            .take(piece.len)
            .read_to_end(&mut bytes)
            .ok()?;
        self.at += bytes.len() as u64;
        (Piece::of(piece.at, &bytes) == *piece).then_some(bytes)
    }
}

/// One field: its length, then its bytes (none at the end or when cut short).
fn field(r: &mut impl Read) -> Option<Vec<u8>> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len).ok()?;
    let len = u32::from_le_bytes(len) as usize;
    let mut bytes = Vec::new();
    r.take(len as u64).read_to_end(&mut bytes).ok()?;
    (bytes.len() == len).then_some(bytes)
}

/// The pages this publish gives, written as it goes beside where they are kept, and put in
/// place at the end ([`Keeping::finish`]).
pub struct Keeping {
    path: PathBuf,
    /// Where it is staged (none on a dry run, which keeps nothing).
    tmp: Option<BufWriter<tempfile::NamedTempFile>>,
}

impl std::fmt::Debug for Keeping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keeping").field("path", &self.path).finish()
    }
}

impl Keeping {
    /// Begin keeping the pages at `path` under the site key `site`; nothing when `dry_run`.
    pub fn begin(path: &Path, site: &str, dry_run: bool) -> Result<Keeping, FileError> {
        let mut keeping = Keeping {
            path: path.to_path_buf(),
            tmp: None,
        };
        if dry_run {
            return Ok(keeping);
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        fs_err::create_dir_all(dir).map_err(FileError::at("create", dir))?;
        let tmp = tempfile::Builder::new()
            .prefix(&super::out::leftover_prefix(path))
            .tempfile_in(dir)
            .map_err(FileError::at("create a temporary file in", dir))?;
        let mut w = BufWriter::with_capacity(1 << 16, tmp);
        w.write_all(FORMAT).map_err(FileError::at("write", path))?;
        put_field(&mut w, site.as_bytes()).map_err(FileError::at("write", path))?;
        keeping.tmp = Some(w);
        Ok(keeping)
    }

    /// Keep what the page at `path`, its file hashed `hash`, gave, and its piece of the
    /// `llms-full.txt` being written (pages in path order).
    pub fn add(
        &mut self,
        path: &str,
        hash: &str,
        given: &Given,
        piece: Piece,
    ) -> Result<(), FileError> {
        let Some(w) = &mut self.tmp else {
            return Ok(());
        };
        let (title, excerpt, words) = given.counted.parts();
        let fields: [&[u8]; 7] = [
            path.as_bytes(),
            hash.as_bytes(),
            title.as_bytes(),
            given.description.as_bytes(),
            excerpt.as_bytes(),
            words,
            &piece.to_bytes(),
        ];
        for f in fields {
            put_field(w, f).map_err(FileError::at("write", &self.path))?;
        }
        Ok(())
    }

    /// Put the pages kept in place of the last publish's.
    pub fn finish(self) -> Result<(), FileError> {
        let Some(w) = self.tmp else {
            return Ok(());
        };
        let tmp = w
            .into_inner()
            .map_err(|e| FileError::at("write", &self.path)(e.into_error()))?;
        tmp.persist(&self.path)
            .map_err(|e| FileError::at("replace", &self.path)(e.error))?;
        Ok(())
    }
}

/// Write one field: its length, then its bytes.
fn put_field(w: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    w.write_all(&len.to_le_bytes())?;
    w.write_all(&bytes[..len as usize])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the page `wiki/<word>.md` gives.
    fn given(word: &str) -> Given {
        Given {
            description: format!("About {word}."),
            counted: search::Counted::of(&search::Doc {
                url: crate::publish::urls::page(&format!("wiki/{word}.md")),
                title: word.to_string(),
                text: format!("The {word} garden."),
            }),
        }
    }

    /// Keep `pages` (path, hash, what it gave, its piece of llms-full.txt) at `path`.
    fn keep(path: &Path, site: &str, pages: &[(&str, &str, &Given, &[u8])]) {
        let mut k = Keeping::begin(path, site, false).unwrap();
        for (p, h, g, piece) in pages {
            k.add(p, h, g, Piece::of(0, piece)).unwrap();
        }
        k.finish().unwrap();
    }

    #[test]
    fn a_page_is_given_back_for_the_same_file_under_the_same_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.pages");
        let (a, b, c) = (given("a"), given("b"), given("c"));
        keep(
            &path,
            "key",
            &[
                ("wiki/a.md", "ha", &a, b"AA"),
                ("wiki/b.md", "hb", &b, b"BBB"),
                ("wiki/c.md", "hc", &c, b"C"),
            ],
        );
        let mut kept = Kept::open(&path, "key", 0);
        let (back, piece) = kept.take("wiki/a.md", "ha").expect("a kept");
        assert_eq!(back, a);
        assert_eq!(piece, Piece::of(0, b"AA"));
        assert_eq!(kept.take("wiki/b.md", "changed"), None, "another file");
        assert_eq!(kept.take("wiki/bb.md", "hb"), None, "another page");
        let (_, piece) = kept.take("wiki/c.md", "hc").expect("b passed by");
        assert_eq!(piece, Piece::of(5, b"C"), "after the pieces of a and b");
        assert_eq!(kept.take("wiki/d.md", "hd"), None, "past the end");

        assert_eq!(Kept::open(&path, "other", 0).take("wiki/a.md", "ha"), None);
        let none = dir.path().join("none");
        assert_eq!(Kept::open(&none, "key", 0).take("wiki/a.md", "ha"), None);
    }

    #[test]
    fn a_file_cut_short_gives_the_pages_before_the_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.pages");
        let (a, b) = (given("apple"), given("birch"));
        keep(
            &path,
            "key",
            &[("wiki/a.md", "ha", &a, b"A"), ("wiki/b.md", "hb", &b, b"B")],
        );
        let bytes = fs_err::read(&path).unwrap();
        fs_err::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        let mut kept = Kept::open(&path, "key", 0);
        assert!(kept.take("wiki/a.md", "ha").is_some());
        assert_eq!(kept.take("wiki/b.md", "hb"), None);
    }

    #[test]
    fn a_piece_is_read_only_when_its_bytes_are_as_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("llms-full.txt");
        fs_err::write(&path, "onetwothree").unwrap();
        let mut full = Full::open(&path).unwrap();
        assert_eq!(
            full.piece(&Piece::of(3, b"two")).as_deref(),
            Some(&b"two"[..])
        );
        assert_eq!(full.piece(&Piece::of(0, b"one")), None, "behind the reader");
        assert_eq!(full.piece(&Piece::of(6, b"THREE")), None, "other bytes");
        let mut full = Full::open(&path).unwrap();
        assert_eq!(full.piece(&Piece::of(6, b"three!")), None, "past the end");
    }

    #[test]
    fn a_dry_run_keeps_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.pages");
        let mut k = Keeping::begin(&path, "key", true).unwrap();
        k.add("wiki/a.md", "ha", &given("apple"), Piece::of(0, b""))
            .unwrap();
        k.finish().unwrap();
        assert!(!path.exists());
    }
}
