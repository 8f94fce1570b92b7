//! The block as lines: where the YAML lines are and which of them make each top-level entry
//! (its comment lines, key line and value lines). No YAML is parsed here except to read one
//! entry's value.

use super::lexer::quoted_end;
use super::scalar::yaml_scalar;
use crate::markdown::frontmatter::{self, Block};
use serde_yaml::Value;
use std::ops::Range;

/// A parsed block: the byte ranges of its YAML lines and its top-level entries.
pub(super) struct Doc<'a> {
    pub(super) text: &'a str,
    /// Each YAML line's byte range in `text`, line ending included.
    pub(super) lines: Vec<Range<usize>>,
    /// Where the closing `---` line starts.
    pub(super) yaml_end: usize,
    pub(super) entries: Vec<Entry>,
    /// The line ending of the opening `---` line, used for new lines.
    pub(super) eol: &'static str,
}

/// A top-level entry, as indices into `Doc::lines`.
pub(super) struct Entry {
    pub(super) key: String,
    /// The first comment line directly above the key line.
    pub(super) lead: usize,
    /// The key line.
    pub(super) line: usize,
    /// The byte offset in the key line just after the key's `:`.
    pub(super) value_at: usize,
    /// One past the value's last line (blank and comment lines after it excluded).
    pub(super) value_end: usize,
    /// One past the entry's last line: the next entry's `lead`, or `value_end` for the last.
    pub(super) end: usize,
}

impl<'a> Doc<'a> {
    pub(super) fn parse(text: &'a str) -> Option<Doc<'a>> {
        Doc::of(text, &frontmatter::split(text))
    }

    /// The block of `text` as lines, given `split`, which must be [`frontmatter::split`] of
    /// the same `text` (a caller that has it spares the YAML a second reading).
    pub(super) fn of(text: &'a str, split: &frontmatter::Split<'_>) -> Option<Doc<'a>> {
        if !matches!(split.block, Block::Valid(_)) {
            return None;
        }
        let mut pos = if text.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        };
        let mut next_line = || {
            (pos < text.len()).then(|| {
                let start = pos;
                pos = text[start..]
                    .find('\n')
                    .map_or(text.len(), |i| start + i + 1);
                start..pos
            })
        };
        let open = next_line()?;
        let eol = if text[open].ends_with("\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        let mut lines = Vec::new();
        let (yaml_end, body_start) = loop {
            let l = next_line()?;
            let t = text[l.clone()].trim_end_matches(['\n', '\r', ' ', '\t']);
            if t == "---" || t == "..." {
                break (l.start, l.end);
            }
            lines.push(l);
        };
        // The same block the parser read, or no edit at all.
        if text.len() - split.body.len() != body_start {
            return None;
        }
        // Only a mapping of column-0 keys is edited: in an indented or a flow mapping a key
        // added at column 0 would break the block.
        let first = lines
            .iter()
            .map(|l| kind(&text[l.clone()]))
            .find(|k| !matches!(k, Kind::Blank | Kind::TopComment));
        if first.is_some_and(|k| !matches!(k, Kind::Key(..))) {
            return None;
        }
        let mut doc = Doc {
            text,
            lines,
            yaml_end,
            entries: Vec::new(),
            eol,
        };
        doc.entries = doc.find_entries();
        Some(doc)
    }

    pub(super) fn find_entries(&self) -> Vec<Entry> {
        let kinds: Vec<Kind> = (0..self.lines.len()).map(|i| kind(self.line(i))).collect();
        let key_lines: Vec<(usize, &String, usize)> = kinds
            .iter()
            .enumerate()
            .filter_map(|(i, k)| match k {
                Kind::Key(key, at) => Some((i, key, *at)),
                _ => None,
            })
            .collect();
        let mut entries: Vec<Entry> = Vec::new();
        for (n, &(line, key, value_at)) in key_lines.iter().enumerate() {
            let floor = if n == 0 { 0 } else { key_lines[n - 1].0 + 1 };
            let mut lead = line;
            while lead > floor && kinds[lead - 1] == Kind::TopComment {
                lead -= 1;
            }
            if let Some(prev) = entries.last_mut() {
                prev.end = lead;
                prev.value_end = value_end(&kinds, prev.line, lead);
            }
            entries.push(Entry {
                key: key.clone(),
                lead,
                line,
                value_at,
                value_end: 0,
                end: 0,
            });
        }
        if let Some(last) = entries.last_mut() {
            last.value_end = value_end(&kinds, last.line, kinds.len());
            last.end = last.value_end;
        }
        entries
    }

    pub(super) fn entry(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.key == key)
    }

    pub(super) fn line(&self, i: usize) -> &'a str {
        &self.text[self.lines[i].clone()]
    }

    pub(super) fn file_line(&self, i: usize) -> usize {
        i + 2
    }

    /// The text of a range of lines.
    pub(super) fn span(&self, r: Range<usize>) -> &'a str {
        if r.is_empty() {
            return "";
        }
        &self.text[self.lines[r.start].start..self.lines[r.end - 1].end]
    }

    /// The entry's value as YAML reads it.
    pub(super) fn value(&self, e: &Entry) -> Option<Value> {
        let map: Value = serde_yaml::from_str(self.span(e.line..e.value_end)).ok()?;
        map.as_mapping()?.values().next().cloned()
    }

    /// The text with lines `r` replaced by `new`.
    pub(super) fn replace(&self, r: Range<usize>, new: &str) -> String {
        let at = |i: usize| self.lines.get(i).map_or(self.yaml_end, |l| l.start);
        let (from, to) = (at(r.start), at(r.end));
        [&self.text[..from], new, &self.text[to..]].concat()
    }

    /// The text with `line`, the entry of `key`, added where the canonical key order puts it:
    /// before the first entry (and the comments above it) whose key comes later in that order,
    /// else after the last entry's value. A block in another order stays as it is.
    pub(super) fn insert(&self, key: &str, line: &str) -> String {
        let rank = |k: &str| frontmatter::KEY_ORDER.iter().position(|o| *o == k);
        let later = rank(key).and_then(|r| {
            self.entries
                .iter()
                .find(|e| rank(&e.key).is_some_and(|o| o > r))
        });
        let at = match later {
            Some(e) => e.lead,
            None => self
                .entries
                .last()
                .map_or(self.lines.len(), |e| e.value_end),
        };
        self.replace(at..at, line)
    }
}

/// What a YAML line of the block is.
#[derive(Debug, PartialEq)]
pub(super) enum Kind {
    Blank,
    /// A `#` comment in column 0.
    TopComment,
    /// A top-level `key:`, with the byte offset just after the colon.
    Key(String, usize),
    /// Anything else: a value's continuation, an indented comment, a `- item`.
    Other,
}

pub(super) fn kind(line: &str) -> Kind {
    let t = line.trim_end_matches(['\n', '\r']);
    if t.trim().is_empty() {
        return Kind::Blank;
    }
    if t.starts_with('#') {
        return Kind::TopComment;
    }
    match top_key(t) {
        Some((key, at)) => Kind::Key(key, at),
        None => Kind::Other,
    }
}

/// A key in column 0 (plain or quoted) and the offset just after its `:`.
pub(super) fn top_key(line: &str) -> Option<(String, usize)> {
    let first = line.chars().next()?;
    if first.is_whitespace() || "#[]{},&*!|>%@`?".contains(first) || item_start(line).is_some() {
        return None;
    }
    let separated = |at: usize| line[at..].chars().next().is_none_or(char::is_whitespace);
    if first == '"' || first == '\'' {
        let end = quoted_end(line, 0)?;
        let rest = &line[end..];
        let colon = end + (rest.len() - rest.trim_start().len());
        if !line[colon..].starts_with(':') || !separated(colon + 1) {
            return None;
        }
        return Some((yaml_scalar(&line[..end])?, colon + 1));
    }
    let colon = line
        .match_indices(':')
        .map(|(i, _)| i)
        .find(|&i| separated(i + 1))?;
    Some((line[..colon].trim_end().to_string(), colon + 1))
}

/// Where the value of a `- item` line starts, if the (unindented) text is one.
pub(super) fn item_start(t: &str) -> Option<usize> {
    let rest = t.strip_prefix('-')?;
    if rest.is_empty() || rest.starts_with(['\n', '\r']) {
        return Some(1);
    }
    let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    (spaces > 0).then_some(1 + spaces)
}

/// One past the last line of `[from + 1, to)` that is neither blank nor a column-0 comment.
pub(super) fn value_end(kinds: &[Kind], from: usize, to: usize) -> usize {
    (from + 1..to)
        .rev()
        .find(|&i| !matches!(kinds[i], Kind::Blank | Kind::TopComment))
        .map_or(from + 1, |i| i + 1)
}
