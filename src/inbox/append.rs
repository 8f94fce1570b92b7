//! One more capture at the end of the inbox: what `capture` writes. Every byte already in the
//! file stays as it was; the capture gets the file's own line ending.

use super::{Inbox, next_fence};
use chrono::NaiveDate;

/// Why a text cannot be one capture.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CaptureTextError {
    /// Nothing but whitespace.
    #[error("the capture is empty")]
    Empty,
    /// A line of exactly `---` (outside a code block) would end the capture there.
    #[error(
        "line {line} of the capture is `---`, which separates captures in inbox.md: the text would \
         become two captures"
    )]
    Separator {
        /// The 1-based line of the text.
        line: usize,
    },
}

/// The capture `text` as the inbox will hold it: its lines kept, NUL bytes, leading and
/// trailing blank lines, trailing spaces and the first line's leading ones dropped, line
/// endings LF. A NUL byte is no text
/// (git, editors and the search index take a file holding one for binary), and `inbox.md` is a
/// text file every capture shares.
pub fn capture_text(text: &str) -> Result<String, CaptureTextError> {
    let text = text.replace('\0', "");
    let mut lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let first = lines.iter().position(|l| !l.is_empty());
    let last = lines.iter().rposition(|l| !l.is_empty());
    let (Some(first), Some(last)) = (first, last) else {
        return Err(CaptureTextError::Empty);
    };
    // An entry is read without the spaces it starts with: so is the capture, or it would not
    // read back as the entry written.
    lines[first] = lines[first].trim_start();
    let mut fence = None;
    for (n, line) in lines.iter().enumerate().take(last + 1).skip(first) {
        if fence.is_none() && *line == "---" {
            return Err(CaptureTextError::Separator {
                line: n - first + 1,
            });
        }
        fence = next_fence(fence, line);
    }
    Ok(lines[first..=last].join("\n"))
}

impl Inbox {
    /// The inbox `bytes` (which this inbox was parsed from) with one more capture at the end:
    /// `text` (as [`capture_text`] made it), after a `YYYY-MM-DD` line when `date` is given, then
    /// a separator line. A last capture the file does not close with a separator is closed first.
    pub fn with_capture(&self, bytes: &[u8], text: &str, date: Option<NaiveDate>) -> Vec<u8> {
        let nl = self.newline.as_bytes();
        let mut out = bytes.to_vec();
        if !out.is_empty() && !out.ends_with(b"\n") {
            out.extend_from_slice(nl);
        }
        // The header alone (no separator yet) or a last chunk with text in it: a separator
        // first, so that the capture is an entry of its own.
        let open = match self.chunks.last() {
            None => true,
            Some(last) => !bytes[last.body.clone()].iter().all(u8::is_ascii_whitespace),
        };
        if open {
            out.extend_from_slice(b"---");
            out.extend_from_slice(nl);
        }
        if let Some(d) = date {
            out.extend_from_slice(d.format("%Y-%m-%d").to_string().as_bytes());
            out.extend_from_slice(nl);
        }
        for line in text.lines() {
            out.extend_from_slice(line.as_bytes());
            out.extend_from_slice(nl);
        }
        out.extend_from_slice(b"---");
        out.extend_from_slice(nl);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("a date")
    }

    fn appended(before: &str, text: &str, date: Option<&str>) -> String {
        let inbox = Inbox::parse(before.as_bytes(), day("2026-05-01")).expect("an inbox");
        let text = capture_text(text).expect("a capture");
        let bytes = inbox.with_capture(before.as_bytes(), &text, date.map(day));
        String::from_utf8(bytes).expect("UTF-8")
    }

    #[test]
    fn a_capture_is_one_more_entry_and_nothing_else_moves() {
        let before = "# Inbox\n\n---\n\nfirst\n---\n";
        let after = appended(before, "  \nsecond line one\nline two  \n\n", None);
        assert_eq!(after, format!("{before}second line one\nline two\n---\n"));
        let inbox = Inbox::parse(after.as_bytes(), day("2026-05-01")).expect("parses");
        let contents: Vec<&str> = inbox.entries.iter().map(|e| e.content.as_str()).collect();
        assert_eq!(contents, ["first", "second line one\nline two"]);
    }

    #[test]
    fn an_unclosed_last_capture_a_missing_newline_crlf_and_a_date() {
        let after = appended("# Inbox\n---\nopen entry", "new", Some("2026-04-30"));
        assert_eq!(
            after,
            "# Inbox\n---\nopen entry\n---\n2026-04-30\nnew\n---\n"
        );
        let inbox = Inbox::parse(after.as_bytes(), day("2026-05-01")).expect("parses");
        assert_eq!(inbox.entries.len(), 2);
        assert_eq!(inbox.entries[1].capture_date, day("2026-04-30"));
        let crlf = appended("# Inbox\r\n---\r\n", "a\nb", None);
        assert_eq!(crlf, "# Inbox\r\n---\r\na\r\nb\r\n---\r\n");
        let blank = appended("", "x", None);
        assert_eq!(blank, "---\nx\n---\n");
    }

    #[test]
    fn empty_text_and_a_separator_line_are_refused() {
        assert_eq!(capture_text(" \n\t\n"), Err(CaptureTextError::Empty));
        assert_eq!(capture_text("a\0b\n\0").as_deref(), Ok("ab"));
        assert_eq!(capture_text("\0\n\0"), Err(CaptureTextError::Empty));
        assert_eq!(
            capture_text("\n  💡 idea\n  more").as_deref(),
            Ok("💡 idea\n  more")
        );
        assert_eq!(
            capture_text("     ---\nx"),
            Err(CaptureTextError::Separator { line: 1 }),
            "an indented first line is checked as it will be written"
        );
        assert_eq!(
            capture_text("x\n-\0--\ny"),
            Err(CaptureTextError::Separator { line: 2 }),
            "what is checked is what the inbox would hold"
        );
        assert_eq!(
            capture_text("\nabove\n---\nbelow"),
            Err(CaptureTextError::Separator { line: 2 })
        );
        assert_eq!(
            capture_text("```\n---\n```").as_deref(),
            Ok("```\n---\n```"),
            "inside a code block it is content"
        );
    }
}
