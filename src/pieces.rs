//! A long text cut into pieces of at most [`PIECE`] bytes, at line ends where it can: what the
//! search index holds of a file a row at a time, and what a search snippet is cut from, so
//! that neither needs memory in proportion to the file. A file is read a piece at a time
//! ([`Reader`]); a text in memory is cut the same way ([`split`]).

use std::io::{self, Read};
use std::path::Path;

/// The most bytes of one piece.
pub const PIECE: usize = 1 << 20;

/// Files smaller than this are read whole; larger ones a piece at a time ([`Reader`]).
pub const HELD_BELOW: u64 = 4 * PIECE as u64;

/// `text` in pieces of at most `max` bytes (at least one, possibly empty), each ending after
/// a line break where one falls in its second half, else after a space, else at a character
/// boundary.
pub fn split(text: &str, max: usize) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let t = rest?;
        if t.len() <= max {
            rest = None;
            return Some(t);
        }
        let end = cut(t.as_bytes(), max.max(4));
        rest = Some(&t[end..]);
        Some(&t[..end])
    })
}

/// Where to end a piece of `bytes` (longer than `max`): after the last line break in the
/// second half of the first `max` bytes, else after the last space there, else at the last
/// character boundary at or before `max`.
fn cut(bytes: &[u8], max: usize) -> usize {
    let window = &bytes[max / 2..max];
    if let Some(i) = window.iter().rposition(|&b| b == b'\n') {
        return max / 2 + i + 1;
    }
    if let Some(i) = window.iter().rposition(|&b| b == b' ' || b == b'\t') {
        return max / 2 + i + 1;
    }
    // A UTF-8 continuation byte (10xxxxxx) never starts a character.
    (1..=max)
        .rev()
        .find(|&i| i == bytes.len() || bytes[i] & 0xC0 != 0x80)
        .unwrap_or(max)
}

/// A text file read a piece at a time, each cut as [`split`] cuts (bytes that are not UTF-8
/// are replaced, so a file that changed since it was judged text still reads).
pub struct Reader {
    file: io::BufReader<fs_err::File>,
    buf: Vec<u8>,
    max: usize,
    done: bool,
}

impl Reader {
    /// A reader of the file at `path`, in pieces of at most `max` bytes.
    pub fn open(path: &Path, max: usize) -> io::Result<Reader> {
        Ok(Reader {
            file: io::BufReader::new(fs_err::File::open(path)?),
            buf: Vec::with_capacity(max.min(PIECE) + 4),
            max: max.max(4),
            done: false,
        })
    }

    /// The next piece; `None` at the end of the file.
    pub fn next_piece(&mut self) -> io::Result<Option<String>> {
        while !self.done && self.buf.len() <= self.max {
            let want = self.max + 1 - self.buf.len();
            let n = (&mut self.file)
                .take(want as u64)
                .read_to_end(&mut self.buf)?;
            self.done = n == 0;
        }
        if self.buf.is_empty() {
            return Ok(None);
        }
        let end = match self.buf.len() > self.max {
            true => cut(&self.buf, self.max),
            false => self.buf.len(),
        };
        let rest = self.buf.split_off(end);
        let piece = std::mem::replace(&mut self.buf, rest);
        Ok(Some(match String::from_utf8(piece) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        }))
    }
}

impl Iterator for Reader {
    type Item = io::Result<String>;

    fn next(&mut self) -> Option<io::Result<String>> {
        self.next_piece().transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_end_at_lines_then_spaces_then_characters() {
        let text = "one line\ntwo line\nthree\n";
        let got: Vec<&str> = split(text, 12).collect();
        assert_eq!(got, ["one line\n", "two line\n", "three\n"]);
        assert_eq!(
            split("aaaa bbbb cccc", 8).collect::<Vec<_>>(),
            ["aaaa ", "bbbb ", "cccc"]
        );
        let wide = "ééééé";
        let got: Vec<&str> = split(wide, 5).collect();
        assert!(got.iter().all(|p| p.len() <= 5), "{got:?}");
        assert_eq!(got.concat(), wide);
        assert_eq!(split("", 8).collect::<Vec<_>>(), [""]);
    }

    #[test]
    fn a_file_reads_in_the_same_pieces_as_its_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("long.md");
        let text: String = (0..2000)
            .map(|i| format!("line {i} with ü and 字 {}\n", "x".repeat(i % 37)))
            .collect();
        fs_err::write(&path, &text).unwrap();
        let read: Vec<String> = Reader::open(&path, 4096)
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let cut: Vec<&str> = split(&text, 4096).collect();
        assert_eq!(read, cut);
        assert!(read.len() > 10 && read.iter().all(|p| p.len() <= 4096));
        assert_eq!(read.concat(), text);
    }
}
