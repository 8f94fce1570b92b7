//! `inbox.md`: the capture file. A header, then captures separated by lines of exactly `---`
//! (LF or CRLF). A `---` inside a fenced code block is content. An entry may start with a
//! `YYYY-MM-DD` line, its capture date; otherwise it was captured today.
//!
//! Parsing keeps the byte range of every chunk, so that finalize can remove exactly the
//! archived entries and leave every other byte of the file as the human wrote it. (The file
//! runs past 400 lines only with its tests; the parser is one idea.)

mod append;
pub mod hints;
mod restore;

pub use append::{CaptureTextError, capture_text};
pub use hints::Hints;

use chrono::NaiveDate;
use std::ops::Range;

/// A parsed inbox.
#[derive(Debug, Clone)]
pub struct Inbox {
    /// The captures, in file order (blank and date-only chunks are not entries).
    pub entries: Vec<Entry>,
    /// Every chunk after the first separator, entries or not.
    chunks: Vec<Chunk>,
    /// The header and the first separator line, as bytes of the file.
    head: Range<usize>,
    /// The line ending of the first separator (`\n` or `\r\n`).
    newline: &'static str,
    /// Things worth telling the user that do not stop the parse.
    pub warnings: Vec<String>,
}

/// One capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The capture date: the entry's date line, or today.
    pub capture_date: NaiveDate,
    /// The content, trimmed, with LF line endings and without the date line.
    pub content: String,
    /// blake3 of the content, hex.
    pub hash: String,
    /// The 1-based line of the entry's first content line.
    pub line: usize,
    /// Whether the entry has a date line of its own.
    pub dated: bool,
    /// Its chunk.
    chunk: usize,
}

#[derive(Debug, Clone)]
struct Chunk {
    /// The separator line that opens the chunk; `None` for the chunk right after the header.
    sep: Option<Range<usize>>,
    /// The 1-based line of the chunk's first body line.
    first_line: usize,
    /// The chunk's lines after the separator.
    body: Range<usize>,
}

/// The inbox cannot be parsed; nothing is changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InboxError {
    /// A byte sequence is not UTF-8.
    #[error("inbox.md line {line} is not valid UTF-8; save the file as UTF-8 and try again")]
    InvalidUtf8 {
        /// The 1-based line.
        line: usize,
    },
    /// Text but no separator: every capture would be taken for the header.
    #[error(
        "inbox.md has text but no `---` separator line, so nothing in it can be told apart from \
         the header; put a line `---` after the header and one between captures"
    )]
    NoSeparator,
}

/// A new `inbox.md`: what `init` writes, and `capture` when the file is missing.
pub const SEED: &str = "# Inbox\n\n\
Capture anything below the line: thoughts, links, quotes, tasks. Separate captures with a\n\
line holding only three dashes. A capture may start with a YYYY-MM-DD line, its capture date;\n\
otherwise it is dated the day it is ingested.\n\n\
When you are ready, ask your agent to run `sparks ingest --prepare` and process the entries.\n\n\
---\n\n";

/// The blake3 hash of an entry's content, as recorded and compared by ingest.
pub fn hash(content: &str) -> String {
    blake3::hash(content.as_bytes()).to_hex().to_string()
}

impl Inbox {
    /// Parse the bytes of `inbox.md`; undated entries get `today`.
    pub fn parse(bytes: &[u8], today: NaiveDate) -> Result<Inbox, InboxError> {
        let text = crate::fsio::utf8(bytes).map_err(|line| InboxError::InvalidUtf8 { line })?;
        let mut lines = Vec::new();
        let mut pos = 0;
        for line in text.split_inclusive('\n') {
            lines.push(pos..pos + line.len());
            pos += line.len();
        }
        let content = |r: &Range<usize>| text[r.clone()].trim_end_matches(['\n', '\r']);
        let Some(first) = lines.iter().position(|r| content(r) == "---") else {
            if text.trim().is_empty() {
                return Ok(Inbox::empty(bytes.len()));
            }
            return Err(InboxError::NoSeparator);
        };
        let newline = if text[lines[first].clone()].ends_with("\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        let mut chunks = Vec::new();
        let mut current = Chunk {
            sep: None,
            first_line: first + 2,
            body: lines[first].end..lines[first].end,
        };
        let mut fence: Option<(char, usize)> = None;
        for (n, r) in lines.iter().enumerate().skip(first + 1) {
            let line = content(r);
            if fence.is_none() && line == "---" {
                chunks.push(current);
                current = Chunk {
                    sep: Some(r.clone()),
                    first_line: n + 2,
                    body: r.end..r.end,
                };
                continue;
            }
            fence = next_fence(fence, line);
            current.body.end = r.end;
        }
        chunks.push(current);

        let mut inbox = Inbox {
            entries: Vec::new(),
            chunks: Vec::new(),
            head: 0..lines[first].end,
            newline,
            warnings: Vec::new(),
        };
        for (i, chunk) in chunks.iter().enumerate() {
            if let Some(entry) = parse_entry(
                &text[chunk.body.clone()],
                chunk.first_line,
                i,
                today,
                &mut inbox.warnings,
            ) {
                inbox.entries.push(entry);
            }
        }
        inbox.chunks = chunks;
        Ok(inbox)
    }

    /// The header of `text` (the text this inbox was parsed from): what comes before the first
    /// separator line, which is all of a text without one.
    pub fn header<'t>(&self, text: &'t str) -> &'t str {
        let head = &text[self.head.clone()];
        if self.chunks.is_empty() {
            return head;
        }
        // The head ends with the separator line: `---`, then its line ending if any.
        let sep = head.trim_end_matches(['\n', '\r']);
        sep.strip_suffix("---").unwrap_or(sep)
    }

    fn empty(len: usize) -> Inbox {
        Inbox {
            entries: Vec::new(),
            chunks: Vec::new(),
            head: 0..len,
            newline: "\n",
            warnings: Vec::new(),
        }
    }

    /// The inbox bytes without the given entries (indices into [`Inbox::entries`]). The header,
    /// every other chunk and every line ending stay byte for byte; with no capture left the
    /// file ends with the separator and a blank line, as a new inbox does.
    pub fn without(&self, bytes: &[u8], remove: &[usize]) -> Vec<u8> {
        if remove.is_empty() {
            return bytes.to_vec();
        }
        let removed: std::collections::HashSet<usize> =
            remove.iter().map(|&i| self.entries[i].chunk).collect();
        let mut out = bytes[self.head.clone()].to_vec();
        let mut kept_any = false;
        for (i, chunk) in self.chunks.iter().enumerate() {
            if removed.contains(&i) {
                continue;
            }
            // The first chunk kept follows the header's separator; the others keep their own.
            if kept_any && let Some(sep) = &chunk.sep {
                out.extend_from_slice(&bytes[sep.clone()]);
            }
            out.extend_from_slice(&bytes[chunk.body.clone()]);
            kept_any = true;
        }
        if !out.ends_with(b"\n") {
            out.extend_from_slice(self.newline.as_bytes());
        }
        if !kept_any || out.len() == self.head.end {
            out.extend_from_slice(self.newline.as_bytes());
        }
        out
    }
}

/// The fence state after `line`: CommonMark fences of three or more backticks or tildes.
pub(crate) fn next_fence(fence: Option<(char, usize)>, line: &str) -> Option<(char, usize)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return fence;
    }
    let t = &line[indent..];
    let Some(c) = t.chars().next().filter(|c| *c == '`' || *c == '~') else {
        return fence;
    };
    let run = t.chars().take_while(|&x| x == c).count();
    if run < 3 {
        return fence;
    }
    match fence {
        None if c == '~' || !t[run..].contains('`') => Some((c, run)),
        Some((fc, flen)) if fc == c && run >= flen && t[run..].trim().is_empty() => None,
        other => other,
    }
}

fn parse_entry(
    body: &str,
    first_line: usize,
    chunk: usize,
    today: NaiveDate,
    warnings: &mut Vec<String>,
) -> Option<Entry> {
    let lines: Vec<&str> = body.split('\n').map(|l| l.trim_end_matches('\r')).collect();
    let mut start = 0;
    let mut capture_date = today;
    if let Some(i) = lines.iter().position(|l| !l.trim().is_empty()) {
        let candidate = lines[i].trim();
        if looks_like_date(candidate) {
            match NaiveDate::parse_from_str(candidate, "%Y-%m-%d") {
                Ok(d) => {
                    capture_date = d;
                    start = i + 1;
                }
                Err(_) => warnings.push(format!(
                    "inbox.md line {}: {candidate} is not a calendar date; it stays part of the \
                     capture, which is dated today ({today})",
                    first_line + i
                )),
            }
        }
    }
    let joined = lines[start..].join("\n");
    let content = joined.trim();
    if content.is_empty() {
        return None;
    }
    let lead = lines[start..]
        .iter()
        .position(|l| !l.trim().is_empty())
        .unwrap_or(0);
    Some(Entry {
        capture_date,
        hash: hash(content),
        content: content.to_string(),
        line: first_line + start + lead,
        dated: start > 0,
        chunk,
    })
}

fn looks_like_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 5, 1).unwrap()
    }

    fn entries(text: &str) -> Vec<(String, String)> {
        Inbox::parse(text.as_bytes(), today())
            .unwrap()
            .entries
            .into_iter()
            .map(|e| (e.capture_date.to_string(), e.content))
            .collect()
    }

    fn e(d: &str, c: &str) -> (String, String) {
        (d.to_string(), c.to_string())
    }

    #[test]
    fn splits_and_dates() {
        assert_eq!(
            entries("# Inbox\n---\n2026-04-10\nFirst\n---\nSecond\n"),
            [e("2026-04-10", "First"), e("2026-05-01", "Second")]
        );
        assert_eq!(
            entries("# Inbox\n---\n\n  2026-04-12  \n\nbody\n"),
            [e("2026-04-12", "body")]
        );
        assert_eq!(
            entries("# Inbox\n---\n2026-04-10 standup notes\n"),
            [e("2026-05-01", "2026-04-10 standup notes")]
        );
        assert_eq!(
            entries("# Inbox\n---\nText\n2026-04-10\n"),
            [e("2026-05-01", "Text\n2026-04-10")]
        );
    }

    #[test]
    fn blank_and_date_only_chunks_are_not_entries() {
        assert_eq!(
            entries("# Inbox\n---\n2026-04-10\n---\n   \n---\nreal\n"),
            [e("2026-05-01", "real")]
        );
        assert!(entries("# Inbox\n\n---\n\n").is_empty());
        assert!(entries("").is_empty());
    }

    #[test]
    fn impossible_dates_stay_content_with_a_warning() {
        let inbox = Inbox::parse(b"# Inbox\n---\n2026-13-45\nnote\n", today()).unwrap();
        assert_eq!(inbox.entries[0].content, "2026-13-45\nnote");
        assert_eq!(inbox.entries[0].capture_date, today());
        assert!(inbox.warnings[0].contains("line 3"), "{:?}", inbox.warnings);
        let inbox = Inbox::parse(b"# Inbox\n---\n2026-02-29\nnote\n", today()).unwrap();
        assert_eq!(inbox.entries[0].content, "2026-02-29\nnote");
    }

    #[test]
    fn crlf_and_leading_separator() {
        assert_eq!(
            entries("# Inbox\r\n---\r\nA\r\n---\r\nB\r\n"),
            [e("2026-05-01", "A"), e("2026-05-01", "B")]
        );
        assert_eq!(
            entries("---\nA\n---\nB\n"),
            [e("2026-05-01", "A"), e("2026-05-01", "B")]
        );
    }

    #[test]
    fn separators_inside_fences_are_content() {
        let got =
            entries("# Inbox\n---\nMy note\n```yaml\n---\ntitle: X\n---\n```\nafter\n---\nnext\n");
        assert_eq!(got.len(), 2);
        assert!(got[0].1.contains("title: X") && got[0].1.ends_with("after"));
        assert_eq!(got[1].1, "next");
        let got = entries("# Inbox\n---\n~~~~\n---\n~~~\n---\n~~~~\n---\nnext\n");
        assert_eq!(got.len(), 2, "{got:?}");
    }

    #[test]
    fn the_header_is_what_comes_before_the_first_separator() {
        for (text, header) in [
            ("# Inbox\nnote\n---\nA\n---\nB\n", "# Inbox\nnote\n"),
            ("# Inbox\r\n---\r\nA\r\n", "# Inbox\r\n"),
            ("---\nA\n", ""),
            ("# Inbox\n---", "# Inbox\n"),
            ("\n\n", "\n\n"),
        ] {
            let inbox = Inbox::parse(text.as_bytes(), today()).unwrap();
            assert_eq!(inbox.header(text), header, "{text:?}");
        }
    }

    #[test]
    fn text_without_separator_is_malformed() {
        assert_eq!(
            Inbox::parse(b"idea one\nidea two\n", today()).unwrap_err(),
            InboxError::NoSeparator
        );
    }

    #[test]
    fn invalid_utf8_names_the_line() {
        let err = Inbox::parse(b"# Inbox\n---\nok\ncaf\xe9\n", today()).unwrap_err();
        assert_eq!(err, InboxError::InvalidUtf8 { line: 4 });
    }

    #[test]
    fn hash_ignores_date_line_and_line_endings() {
        let a = Inbox::parse(b"# I\n---\n2026-04-01\nsame\r\ntext\r\n", today()).unwrap();
        let b = Inbox::parse(b"# Other\n---\nsame\ntext\n", today()).unwrap();
        assert_eq!(a.entries[0].hash, b.entries[0].hash);
    }

    fn remove(text: &str, which: &[usize]) -> String {
        let inbox = Inbox::parse(text.as_bytes(), today()).unwrap();
        String::from_utf8(inbox.without(text.as_bytes(), which)).unwrap()
    }

    #[test]
    fn removing_entries_keeps_everything_else() {
        let text = "# Inbox\nheader\n---\n2026-04-10\nFirst\n---\nSecond\n---\nThird\n";
        assert_eq!(
            remove(text, &[0]),
            "# Inbox\nheader\n---\nSecond\n---\nThird\n"
        );
        assert_eq!(
            remove(text, &[1]),
            "# Inbox\nheader\n---\n2026-04-10\nFirst\n---\nThird\n"
        );
        assert_eq!(
            remove(text, &[2]),
            "# Inbox\nheader\n---\n2026-04-10\nFirst\n---\nSecond\n"
        );
        assert_eq!(remove(text, &[0, 1, 2]), "# Inbox\nheader\n---\n\n");
        assert_eq!(remove(text, &[]), text);
    }

    #[test]
    fn removal_keeps_crlf_and_the_seed_shape() {
        assert_eq!(
            remove("# Inbox\r\n---\r\nA\r\n---\r\nB\r\n", &[0]),
            "# Inbox\r\n---\r\nB\r\n"
        );
        assert_eq!(
            remove("# Inbox\r\n---\r\nA\r\n", &[0]),
            "# Inbox\r\n---\r\n\r\n"
        );
        assert_eq!(remove("---\nA\n---\nB", &[0, 1]), "---\n\n");
        assert_eq!(remove("# Inbox\n---\nA", &[0]), "# Inbox\n---\n\n");
    }

    #[test]
    fn removed_then_reparsed_holds_exactly_the_rest() {
        let text = "# Inbox\n---\na\n---\n\n---\nb\n```\n---\n```\n---\nc\n";
        let inbox = Inbox::parse(text.as_bytes(), today()).unwrap();
        assert_eq!(inbox.entries.len(), 3);
        let out = inbox.without(text.as_bytes(), &[1]);
        let again = Inbox::parse(&out, today()).unwrap();
        let contents: Vec<_> = again.entries.iter().map(|e| e.content.as_str()).collect();
        assert_eq!(contents, ["a", "c"]);
    }
}
