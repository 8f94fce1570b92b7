//! One value on one line, as written: where it starts and ends, how it is quoted, and where
//! a trailing `# comment` begins; and putting a new value in its place.

use super::scalar::Style;
use std::ops::Range;

/// A value on a line, as written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Token {
    /// Nothing (maybe a comment).
    Empty,
    Plain,
    Single,
    Double,
    /// `[…]` or `{…}` closed on the line.
    Flow,
    /// `|` or `>`.
    BlockScalar,
    /// A quote or bracket not closed on the line, or text after a closed one.
    Open,
}

/// A lexed value: its kind, its byte range in the line, and where a `#` comment starts.
pub(super) struct Lexed {
    pub(super) token: Token,
    pub(super) span: Range<usize>,
    pub(super) comment: Option<usize>,
}

impl Lexed {
    /// The comment with the whitespace before it, without the line ending.
    pub(super) fn comment<'l>(&self, line: &'l str) -> &'l str {
        let end = line.trim_end_matches(['\n', '\r']).len();
        self.comment.map_or("", |_| &line[self.span.end..end])
    }

    /// The quoting style of the value.
    pub(super) fn style(&self, line: &str) -> Style {
        match line[self.span.clone()].chars().next() {
            Some('\'') => Style::Single,
            Some('"') => Style::Double,
            _ => Style::Plain,
        }
    }
}

/// Lex the value that starts at byte `from` of `line` (after a key's colon or an item's dash).
pub(super) fn lex(line: &str, from: usize) -> Lexed {
    let end = line.trim_end_matches(['\n', '\r']).len();
    let start = from + (line[from..end].len() - line[from..end].trim_start().len());
    let rest = &line[start..end];
    let comment_after = |at: usize| {
        let tail = &line[at..end];
        let t = tail.trim_start();
        if t.is_empty() {
            Some(None)
        } else if t.starts_with('#') && t.len() < tail.len() {
            Some(Some(at + tail.len() - t.len()))
        } else {
            None
        }
    };
    let closed = |token: Token, close: Option<usize>| match close.map(|c| (c, comment_after(c))) {
        Some((c, Some(comment))) => Lexed {
            token,
            span: start..c,
            comment,
        },
        _ => Lexed {
            token: Token::Open,
            span: start..end,
            comment: None,
        },
    };
    match rest.chars().next() {
        None => Lexed {
            token: Token::Empty,
            span: start..start,
            comment: None,
        },
        Some('#') => Lexed {
            token: Token::Empty,
            span: from..from,
            comment: Some(start),
        },
        Some('\'') => closed(Token::Single, quoted_end(line, start)),
        Some('"') => closed(Token::Double, quoted_end(line, start)),
        Some('[' | '{') => closed(Token::Flow, flow_end(line, start)),
        Some('|' | '>') => {
            let indicator = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let comment = rest.find(" #").map(|i| start + i + 1);
            Lexed {
                token: Token::BlockScalar,
                span: start..start + indicator,
                comment,
            }
        }
        Some(_) => {
            let stop = [" #", "\t#"].iter().filter_map(|p| rest.find(p)).min();
            let value = rest[..stop.unwrap_or(rest.len())].trim_end();
            Lexed {
                token: Token::Plain,
                span: start..start + value.len(),
                comment: stop.map(|i| start + i + 1),
            }
        }
    }
}

/// One past the closing quote of the quoted scalar starting at `start`, if on this line.
pub(super) fn quoted_end(line: &str, start: usize) -> Option<usize> {
    let quote = line[start..].chars().next()?;
    let bytes = line.as_bytes();
    let mut i = start + 1;
    while i < bytes.len() {
        match (quote, bytes[i]) {
            ('"', b'\\') => i += 1,
            ('\'', b'\'') if bytes.get(i + 1) == Some(&b'\'') => i += 1,
            (_, b) if b == quote as u8 => return Some(i + 1),
            (_, b'\n') => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

/// One past the bracket closing the flow collection starting at `start`, if on this line.
pub(super) fn flow_end(line: &str, start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = start;
    let bytes = line.as_bytes();
    while i < bytes.len() {
        match bytes[i] {
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'\'' | b'"' => i = quoted_end(line, i)? - 1,
            b'\n' => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

/// `line` with the value at byte range `r` replaced by `new`, a space before it if needed.
pub(super) fn put(line: &str, r: &Range<usize>, new: &str) -> String {
    let gap = if line[..r.start].ends_with([' ', '\t']) {
        ""
    } else {
        " "
    };
    [&line[..r.start], gap, new, &line[r.end..]].concat()
}

pub(super) fn eol_of(line: &str) -> &str {
    &line[line.trim_end_matches(['\n', '\r']).len()..]
}
