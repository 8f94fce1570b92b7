//! The output folder and what a publish knows of it. In the folder, the record
//! (`.sparks-publish.json`) of every file it wrote there with its hash, and the redirects it
//! keeps — nothing a reader of the site may not know. In the vault's run-time folder, what it
//! read to make them ([`Memory`]): every page with the hash of its file and what its
//! frontmatter said, published or not, and the links between them. A file is written only
//! when its bytes differ from what the record says is there (or it is missing); a file the
//! record lists that this publish did not make again is removed; a file the record does not
//! list is never touched. Each file is replaced atomically (written beside, then renamed), not
//! made durable: the site is derived, and the next publish writes what a crash lost, since the
//! record is saved last.

use super::record::{Files, Made};
pub use super::record::{Record, Short};
use super::staging::Staging;
use crate::file_error::FileError;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The record's file name in the output folder; a folder holding it is a published site,
/// which a scan of the vault passes by.
pub const RECORD: &str = crate::vault::PUBLISHED_MARK;

/// What a publish read to make a folder's files, kept in the vault's run-time folder (it names
/// pages that are not published): the next publish into that folder makes again only what
/// changed.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Memory {
    /// What every page depends on besides the pages (the version of Sparks, the vault's name,
    /// the configuration, the base address): another value re-renders every page.
    pub site: String,
    /// The files read, by vault path: the hash of each as the manifest knew it and, for a page,
    /// whether it was published.
    pub sources: BTreeMap<String, Source>,
    /// The links between the pages and files read (indexes into `sources`' keys in order):
    /// linking page, target, whether it embeds.
    pub links: Vec<(u32, u32, bool)>,
}

impl Memory {
    /// Where the vault at `vault` keeps what was read to publish into `out`.
    pub fn path(vault: &Path, out: &Path) -> PathBuf {
        let id = blake3::hash(out.to_string_lossy().as_bytes()).to_hex();
        vault
            .join(crate::vault::RUN_DIR)
            .join("publish")
            .join(format!("{}.json", &id[..16]))
    }

    /// What was kept at `path`; nothing (all made again) when there is none or it is unreadable.
    pub fn load(path: &Path) -> Memory {
        crate::fsio::open_nofollow(path)
            .ok()
            .and_then(|f| serde_json::from_reader(std::io::BufReader::new(f)).ok())
            .unwrap_or_default()
    }

    /// Keep it at `path`.
    pub fn save(&self, path: &Path) -> Result<(), FileError> {
        let dir = path.parent().unwrap_or(Path::new("."));
        fs_err::create_dir_all(dir).map_err(FileError::at("create", dir))?;
        let tmp = tempfile::Builder::new()
            .prefix(&leftover_prefix(path))
            .tempfile_in(dir)
            .map_err(FileError::at("create a temporary file in", dir))?;
        write_json(tmp, path, self)
    }
}

/// How the temporary files beside the file at `path` in the vault's run-time folder begin
/// (the memory's and the kept pages', which share its stem): a killed publish leaves them, the
/// next one into the same folder removes them ([`clear_leftovers`]).
pub fn leftover_prefix(path: &Path) -> String {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    format!(".{stem}.")
}

/// Remove what a killed publish left beside the file at `path` ([`leftover_prefix`]).
pub fn clear_leftovers(path: &Path) {
    let (Some(dir), prefix) = (path.parent(), leftover_prefix(path)) else {
        return;
    };
    let Ok(entries) = fs_err::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = fs_err::remove_file(e.path());
        }
    }
}

/// A file a publish read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// The hash of its content, as the manifest knew it.
    pub hash: Short,
    /// For a page, what its frontmatter's `publish:` said (`None`: nothing).
    pub says: Option<bool>,
    /// For a page, what is wrong with its `publish:` (its line, when one is concerned), warned
    /// of at every publish, not only the one that read it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<(Option<usize>, String)>,
    /// Whether it was published (a page) or copied (an attachment).
    pub shown: bool,
    /// A page's title as shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// For a page, the hash of what the pages near it show of it (its title, type, tags,
    /// aliases, headings and block ids): a change of its file that leaves this as it was
    /// makes again only the pages embedding it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub face: Option<Short>,
}

/// What went wrong with the output folder.
#[derive(Debug, thiserror::Error)]
pub enum OutError {
    /// A file could not be read, written or removed.
    #[error(transparent)]
    File(#[from] FileError),
    /// A file is in the way that no publish wrote.
    #[error("{}: a file that no publish wrote is where the site has one; move it away, or publish into another folder", path.display())]
    Foreign {
        /// The file.
        path: PathBuf,
    },
    /// The record is not one a publish wrote.
    #[error("{}: not a record of a published site ({message}); remove it to publish afresh", path.display())]
    Record {
        /// The record's path.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
}

/// A file [`Out::write`] made: its path in the folder, the hash of its bytes, and whether it
/// was written (else it was there as made).
#[derive(Debug)]
pub struct Put {
    rel: String,
    hash: Short,
    wrote: bool,
}

/// How many of the folders written to last an [`Out`] knows are there.
const DIRS_KNOWN: usize = 4;

/// The output folder, while a publish writes it.
#[derive(Debug)]
pub struct Out {
    root: PathBuf,
    dry_run: bool,
    /// What the record said before this publish.
    pub old: Record,
    /// The files made by this publish, with their hashes, and whether each was written (not
    /// already there as made).
    made: Made,
    /// How many files made were already there as made.
    pub skipped: usize,
    /// The folders files were written to last, known to be there (a page's two files are in
    /// two folders; every folder of a large site held at once was 11 MB at 100,000 pages).
    dirs: Vec<PathBuf>,
    /// Where its files are staged.
    staging: Staging,
}

impl Out {
    /// The folder at `root`, its record read (none: a folder never published to, marked as
    /// a site at once with an empty record, so that a scan meanwhile passes it by).
    pub fn open(root: &Path, dry_run: bool) -> Result<Out, OutError> {
        let path = root.join(RECORD);
        let (mut staging, placed) = Staging::open(root, dry_run)?;
        let file = crate::fsio::if_exists(crate::fsio::open_nofollow(&path))
            .map_err(FileError::at("read", &path))?;
        let mut old = match file {
            None if dry_run => Record::default(),
            None => {
                let empty = Record::default();
                write_json(staging.file()?, &path, &empty)?;
                empty
            }
            Some(f) => serde_json::from_reader(std::io::BufReader::new(f)).map_err(|e| {
                OutError::Record {
                    path: path.clone(),
                    message: e.to_string(),
                }
            })?,
        };
        // What a publish killed before its record put in place is a publish's file (of bytes
        // unknown): recorded now, so that a second kill does not lose it.
        let unknown: Vec<String> = placed
            .into_iter()
            .filter(|rel| !old.files.contains(rel))
            .collect();
        if !unknown.is_empty() {
            let known: Vec<(String, Short)> = (old.files.iter())
                .map(|(rel, hash)| (rel.to_string(), hash))
                .collect();
            let unknown = unknown.into_iter().map(|rel| (rel, Short::UNKNOWN));
            old.files = Files::of(known.into_iter().chain(unknown));
            if !dry_run {
                write_json(staging.file()?, &path, &old)?;
            }
        }
        staging.begin(dry_run)?;
        Ok(Out {
            staging,
            root: root.to_path_buf(),
            dry_run,
            old,
            made: Made::default(),
            skipped: 0,
            dirs: Default::default(),
        })
    }

    /// Whether the file `rel` is there as the record says it was written.
    pub fn is_current(&self, rel: &str) -> bool {
        self.old.files.contains(rel) && self.root.join(rel).is_file()
    }

    /// The text of the file `rel` as it is in the folder, if it can be read.
    pub fn read(&self, rel: &str) -> Option<String> {
        fs_err::read_to_string(self.root.join(rel)).ok()
    }

    /// Make the file `rel` hold `bytes`: written when it differs from what is there.
    pub fn put(&mut self, rel: &str, bytes: &[u8]) -> Result<(), OutError> {
        let put = self.write(rel, bytes)?;
        self.record(put);
        Ok(())
    }

    /// Write the file `rel` when its bytes differ from what is there, without recording it
    /// ([`Out::record`]): what a thread making pages may do beside others.
    pub fn write(&self, rel: &str, bytes: &[u8]) -> Result<Put, OutError> {
        let hash = Short::of(bytes);
        let path = self.root.join(rel);
        if self.old.files.get(rel) == Some(hash) && path.is_file() {
            return Ok(Put {
                rel: rel.to_string(),
                hash,
                wrote: false,
            });
        }
        // A file of someone else's is never replaced; one holding these very bytes is taken as
        // this publish's (a publish stopped before it saved its record wrote it).
        if !self.old.files.contains(rel) && path.exists() {
            let same = crate::fsio::read(&path).is_ok_and(|b| b == bytes);
            if !same {
                return Err(OutError::Foreign { path });
            }
        }
        if !self.dry_run {
            let dir = path.parent().unwrap_or(Path::new("."));
            if !self.dirs.iter().any(|d| d == dir) && !dir.is_dir() {
                fs_err::create_dir_all(dir).map_err(FileError::at("create", dir))?;
            }
            if !self.old.files.contains(rel) {
                self.staging.placing(rel)?;
            }
            stage(self.staging.file()?, &path, bytes)?;
        }
        Ok(Put {
            rel: rel.to_string(),
            hash,
            wrote: true,
        })
    }

    /// Record a file [`Out::write`] made.
    pub fn record(&mut self, put: Put) {
        if put.wrote {
            if let Some(dir) = self.root.join(&put.rel).parent()
                && !self.dirs.iter().any(|d| d == dir)
            {
                if self.dirs.len() == DIRS_KNOWN {
                    self.dirs.remove(0);
                }
                self.dirs.push(dir.to_path_buf());
            }
        } else {
            self.skipped += 1;
        }
        self.made.push(&put.rel, put.hash, put.wrote);
    }

    /// The files written (not already there as made), in the order written.
    pub fn written(&self) -> Vec<String> {
        self.made.written().map(str::to_string).collect()
    }

    /// Keep the file `rel` as the last publish wrote it (what it shows did not change).
    /// `false`, keeping nothing, when it is not there as written: it must be made again.
    pub fn keep(&mut self, rel: &str) -> bool {
        let current = self.is_current(rel);
        if current {
            self.keep_current(rel);
        }
        current
    }

    /// Keep the file `rel`, which [`Out::is_current`] found there as written in this publish.
    pub fn keep_current(&mut self, rel: &str) {
        if let Some(hash) = self.old.files.get(rel) {
            self.made.push(rel, hash, false);
            self.skipped += 1;
        }
    }

    /// Keep every file the last publish wrote, when each is still there (`false`, keeping
    /// nothing, when one is not: everything must be made).
    pub fn keep_all(&mut self) -> bool {
        if self.old.files.is_empty()
            || !self
                .old
                .files
                .iter()
                .all(|(f, _)| self.root.join(f).is_file())
        {
            return false;
        }
        // Moved, not copied (a large site lists hundreds of thousands): nothing else is made,
        // so nothing is compared with the record again.
        self.made = Made::kept(std::mem::take(&mut self.old.files));
        self.skipped = self.made.len();
        true
    }

    /// Remove what the last publish wrote and this one did not make, then save the record of
    /// this one: the files removed, in order.
    pub fn finish(mut self, mut record: Record) -> Result<Vec<String>, OutError> {
        let made = std::mem::take(&mut self.made).into_files();
        let gone: Vec<String> = (self.old.files.iter())
            .filter(|(f, _)| !made.contains(f))
            .map(|(f, _)| f.to_string())
            .collect();
        if self.dry_run {
            return Ok(gone);
        }
        let mut dirs = BTreeSet::new();
        for rel in &gone {
            let path = self.root.join(rel);
            match fs_err::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(FileError::at("remove", path)(e).into()),
            }
            let mut dir = Path::new(rel).parent();
            while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
                dirs.insert(d.to_path_buf());
                dir = d.parent();
            }
        }
        // Deepest first; a folder that still holds anything (a file of someone else's) stays.
        for d in dirs.iter().rev() {
            let _ = fs_err::remove_dir(self.root.join(d));
        }
        record.files = made;
        write_json(self.staging.file()?, &self.root.join(RECORD), &record)?;
        self.staging.finish()?;
        Ok(gone)
    }
}

/// A file of the output folder written as it grows (`llms-full.txt` of a large site), hashed
/// on the way: it replaces the file only if it differs ([`Out::put_stream`]).
pub struct Stream {
    rel: String,
    path: PathBuf,
    hasher: blake3::Hasher,
    /// How many bytes were written.
    pub len: u64,
    /// Where it is staged (none on a dry run, which only hashes).
    tmp: Option<std::io::BufWriter<tempfile::NamedTempFile>>,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream").field("rel", &self.rel).finish()
    }
}

impl std::io::Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.hasher.update(buf);
        self.len += buf.len() as u64;
        if let Some(tmp) = &mut self.tmp {
            tmp.write_all(buf)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.tmp.as_mut().map_or(Ok(()), |t| t.flush())
    }
}

impl Stream {
    /// The error of writing it.
    pub fn error(&self, e: std::io::Error) -> FileError {
        FileError::at("write", self.path.clone())(e)
    }
}

impl Out {
    /// Begin the file `rel`, to be written as it grows and then put ([`Out::put_stream`]).
    pub fn stream(&self, rel: &str) -> Result<Stream, OutError> {
        let path = self.root.join(rel);
        let tmp = match self.dry_run {
            true => None,
            false => {
                let dir = path.parent().unwrap_or(Path::new("."));
                fs_err::create_dir_all(dir).map_err(FileError::at("create", dir))?;
                Some(std::io::BufWriter::new(self.staging.file()?))
            }
        };
        Ok(Stream {
            rel: rel.to_string(),
            path,
            hasher: blake3::Hasher::new(),
            len: 0,
            tmp,
        })
    }

    /// Make the file of `stream` hold what was written to it: put in place when it differs from
    /// what is there, as [`Out::put`] does.
    pub fn put_stream(&mut self, stream: Stream) -> Result<(), OutError> {
        let Stream {
            rel,
            path,
            hasher,
            tmp,
            ..
        } = stream;
        let hash = Short::from(&hasher.finalize());
        let kept = self.old.files.get(&rel) == Some(hash) && path.is_file();
        if kept {
            self.skipped += 1;
        } else {
            if !self.old.files.contains(&rel) && path.exists() {
                let same = crate::fsio::read(&path).is_ok_and(|b| Short::of(&b) == hash);
                if !same {
                    return Err(OutError::Foreign { path });
                }
            }
            if let Some(tmp) = tmp {
                if !self.old.files.contains(&rel) {
                    self.staging.placing(&rel)?;
                }
                let file = tmp
                    .into_inner()
                    .map_err(|e| FileError::at("write", path.clone())(e.into_error()))?;
                file.persist(&path)
                    .map_err(|e| FileError::at("replace", path.clone())(e.error))?;
            }
        }
        let wrote = !kept;
        self.made.push(&rel, hash, wrote);
        Ok(())
    }
}

/// Replace `path` with `value` as JSON atomically (written into `tmp`, then renamed; written
/// as it is serialised: a large site's record is tens of megabytes).
fn write_json(
    tmp: tempfile::NamedTempFile,
    path: &Path,
    value: &impl Serialize,
) -> Result<(), FileError> {
    let mut w = std::io::BufWriter::with_capacity(1 << 16, tmp);
    serde_json::to_writer(&mut w, value)
        .map_err(std::io::Error::from)
        .map_err(FileError::at("write", path))?;
    let tmp = w
        .into_inner()
        .map_err(|e| FileError::at("write", path)(e.into_error()))?;
    tmp.persist(path)
        .map_err(|e| FileError::at("replace", path)(e.error))?;
    Ok(())
}

/// Replace `path`, whose folder exists, with `bytes` atomically (written into `tmp`, then
/// renamed).
fn stage(mut tmp: tempfile::NamedTempFile, path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    tmp.write_all(bytes)
        .map_err(FileError::at("write", tmp.path().to_path_buf()))?;
    tmp.persist(path)
        .map_err(|e| FileError::at("replace", path)(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_what_changed_removes_what_it_wrote_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut out = Out::open(root, false).unwrap();
        out.put("a/index.html", b"A").unwrap();
        out.put("b/index.html", b"B").unwrap();
        assert_eq!(out.written(), ["a/index.html", "b/index.html"]);
        out.finish(Record::default()).unwrap();
        fs_err::write(root.join("a/mine.txt"), "someone else's").unwrap();

        let mut out = Out::open(root, false).unwrap();
        out.put("a/index.html", b"A").unwrap();
        assert!(out.written().is_empty());
        assert_eq!(out.skipped, 1);
        assert_eq!(out.finish(Record::default()).unwrap(), ["b/index.html"]);
        assert!(!root.join("b").exists(), "an emptied folder goes");
        assert!(
            root.join("a/mine.txt").is_file(),
            "a file it did not write stays"
        );

        let mut out = Out::open(root, false).unwrap();
        assert!(out.keep("a/index.html"));
        assert!(!out.keep("b/index.html"));
        fs_err::remove_file(root.join("a/index.html")).unwrap();
        assert!(
            !Out::open(root, false).unwrap().keep("a/index.html"),
            "a file deleted by hand is made again"
        );
    }

    #[cfg(unix)]
    #[test]
    fn files_are_readable_by_the_web_server() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mut out = Out::open(dir.path(), false).unwrap();
        out.put("a/index.html", b"A").unwrap();
        let mut s = out.stream("llms-full.txt").unwrap();
        std::io::Write::write_all(&mut s, b"full").unwrap();
        out.put_stream(s).unwrap();
        for f in ["a/index.html", "llms-full.txt"] {
            let mode = fs_err::metadata(dir.path().join(f))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o044, 0o044, "{f}: {mode:o}");
        }
    }

    #[test]
    fn a_file_no_publish_wrote_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        fs_err::write(dir.path().join("index.html"), "mine").unwrap();
        let mut out = Out::open(dir.path(), false).unwrap();
        let err = out.put("index.html", b"site").unwrap_err().to_string();
        assert!(err.contains("index.html"), "{err}");
        assert_eq!(
            fs_err::read_to_string(dir.path().join("index.html")).unwrap(),
            "mine"
        );
        out.put("index.html", b"mine").unwrap();
        assert!(
            out.written().contains(&"index.html".to_string()),
            "the same bytes are taken as its own"
        );
    }

    #[test]
    fn a_record_keeps_each_file_s_hash_as_32_hex_digits() {
        let hash = Short::of(b"A");
        let record = Record {
            files: Files::of([("a/index.html".to_string(), hash)]),
            ..Record::default()
        };
        let json = serde_json::to_string(&record).unwrap();
        let hex = &blake3::hash(b"A").to_hex()[..32];
        assert_eq!(
            json,
            format!("{{\"files\":{{\"a/index.html\":\"{hex}\"}},\"redirects\":{{}}}}")
        );
        let back: Record = serde_json::from_str(&json).unwrap();
        assert_eq!(back.files.get("a/index.html"), Some(hash));
        for bad in ["abc", &"g".repeat(32), &hex.to_uppercase()[..31]] {
            let json = format!("{{\"files\":{{\"a\":\"{bad}\"}},\"redirects\":{{}}}}");
            let err = serde_json::from_str::<Record>(&json)
                .unwrap_err()
                .to_string();
            assert!(err.contains("not a file hash"), "{bad}: {err}");
        }
    }

    #[test]
    fn a_record_that_is_not_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        fs_err::write(dir.path().join(RECORD), "not json").unwrap();
        let err = Out::open(dir.path(), false).unwrap_err().to_string();
        assert!(err.contains(RECORD), "{err}");
    }
}
