//! Text a publish says of every page and needs only at the end — each page's description, its
//! entry in the search's page chunks — put aside in an unnamed temporary file as it is made and
//! read back by where it is ([`Span`]): at 100,000 pages they held 60 MB, now the spans' 12
//! bytes a page. The file has no name, so a killed publish leaves nothing behind.

use crate::file_error::FileError;
use std::cell::RefCell;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Where some bytes put aside are.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Span {
    at: u64,
    len: u32,
}

impl Span {
    /// Whether it holds no bytes.
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

/// Bytes put aside, in a file or (an index built whole, as tests do) in memory.
#[derive(Debug)]
pub struct Spill {
    place: RefCell<Place>,
}

#[derive(Debug)]
enum Place {
    Memory(Vec<u8>),
    File {
        /// The folder the file is in, to name in an error.
        dir: PathBuf,
        writer: BufWriter<std::fs::File>,
        /// How many bytes were put.
        len: u64,
        /// Whether bytes were put since the file was last read (the writer must be flushed).
        unread: bool,
    },
}

impl Default for Spill {
    fn default() -> Spill {
        Spill {
            place: RefCell::new(Place::Memory(Vec::new())),
        }
    }
}

impl Spill {
    /// Put bytes aside in an unnamed file in the folder `dir` (created when missing).
    pub fn in_dir(dir: &Path) -> Result<Spill, FileError> {
        fs_err::create_dir_all(dir).map_err(FileError::at("create", dir))?;
        let file =
            tempfile::tempfile_in(dir).map_err(FileError::at("create a temporary file in", dir))?;
        Ok(Spill {
            place: RefCell::new(Place::File {
                dir: dir.to_path_buf(),
                writer: BufWriter::with_capacity(1 << 16, file),
                len: 0,
                unread: false,
            }),
        })
    }

    /// Put `bytes` aside (at most 4 GB of them, the rest cut: what is put is a description or
    /// a search entry, a few hundred bytes).
    pub fn put(&mut self, bytes: &[u8]) -> Result<Span, FileError> {
        let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
        let bytes = &bytes[..len as usize];
        match self.place.get_mut() {
            Place::Memory(held) => {
                let at = held.len() as u64;
                held.extend_from_slice(bytes);
                Ok(Span { at, len })
            }
            Place::File {
                dir,
                writer,
                len: end,
                unread,
            } => {
                writer
                    .write_all(bytes)
                    .map_err(FileError::at("write a temporary file in", dir.as_path()))?;
                let at = *end;
                *end += u64::from(len);
                *unread = true;
                Ok(Span { at, len })
            }
        }
    }

    /// Append the bytes at `span` to `out`.
    pub fn read(&self, span: Span, out: &mut Vec<u8>) -> Result<(), FileError> {
        if span.is_empty() {
            return Ok(());
        }
        let mut place = self.place.borrow_mut();
        match &mut *place {
            Place::Memory(held) => {
                let start = span.at as usize;
                out.extend_from_slice(&held[start..start + span.len as usize]);
                Ok(())
            }
            Place::File {
                dir,
                writer,
                len,
                unread,
            } => {
                let mut read = || -> std::io::Result<()> {
                    if *unread {
                        writer.flush()?;
                        *unread = false;
                    }
                    let file = writer.get_mut();
                    file.seek(SeekFrom::Start(span.at))?;
                    let before = out.len();
                    file.take(u64::from(span.len)).read_to_end(out)?;
                    // Back to the end, where the next bytes are put.
                    file.seek(SeekFrom::Start(*len))?;
                    match out.len() - before == span.len as usize {
                        true => Ok(()),
                        false => Err(std::io::ErrorKind::UnexpectedEof.into()),
                    }
                };
                read().map_err(FileError::at("read a temporary file in", dir.as_path()))
            }
        }
    }

    /// The text at `span` (bytes put as UTF-8).
    pub fn text(&self, span: Span) -> Result<String, FileError> {
        let mut bytes = Vec::with_capacity(span.len as usize);
        self.read(span, &mut bytes)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(mut spill: Spill) {
        let words = ["", "alder", "birch and cedar", "", "ünïcödé ✓", "dogwood"];
        let spans: Vec<Span> = words
            .iter()
            .map(|w| spill.put(w.as_bytes()).unwrap())
            .collect();
        // Read out of order, and between puts.
        for i in [4, 0, 2, 5, 1, 3] {
            assert_eq!(spill.text(spans[i]).unwrap(), words[i]);
        }
        let late = spill.put(b"elm").unwrap();
        assert_eq!(spill.text(late).unwrap(), "elm");
        assert_eq!(spill.text(spans[2]).unwrap(), "birch and cedar");
        let mut both = Vec::new();
        spill.read(spans[1], &mut both).unwrap();
        spill.read(late, &mut both).unwrap();
        assert_eq!(both, b"alderelm");
    }

    #[test]
    fn what_is_put_aside_is_read_back_by_its_span_in_a_file_and_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        round_trip(Spill::in_dir(&dir.path().join("new")).unwrap());
        round_trip(Spill::default());
        // The file has no name: nothing is left in the folder.
        assert_eq!(fs_err::read_dir(dir.path().join("new")).unwrap().count(), 0);
    }
}
