//! Byte-preserving edits of a file's frontmatter block, for `fmt --fix` and `lint --fix`.
//!
//! An edit changes only the bytes of the key it concerns: every other line, comment, blank
//! line, quoting style and line ending (LF or CRLF) stays as it was, and so does the body.
//! Every function takes the whole file and returns the whole new file, or `None` when the
//! file has no readable frontmatter block (see [`frontmatter::split`]). Pure; no I/O.
//!
//! A top-level entry is its key line, the lines that continue its value (indented lines,
//! `- item` lines), and the column-0 `#` comment lines directly above it.

use crate::markdown::frontmatter::{self, Block};
use serde_yaml::Value;
use std::ops::Range;

/// The shape of a top-level value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// The key is not in the block.
    Absent,
    /// `key:` with nothing after it.
    Empty,
    /// A single value (string, number, boolean).
    Scalar,
    /// A sequence, flow `[a, b]` or block `- a`.
    List,
    /// A mapping.
    Mapping,
}

/// The top-level keys of the block, in file order.
pub fn keys(text: &str) -> Option<Vec<String>> {
    let doc = Doc::parse(text)?;
    Some(doc.entries.iter().map(|e| e.key.clone()).collect())
}

/// The 1-based file line of a top-level `key:`; `None` when there is no block or no such key.
pub fn key_line(text: &str, key: &str) -> Option<usize> {
    let doc = Doc::parse(text)?;
    doc.entry(key).map(|e| doc.file_line(e.line))
}

/// The shape of the value of a top-level `key`.
pub fn shape(text: &str, key: &str) -> Option<Shape> {
    let doc = Doc::parse(text)?;
    let Some(e) = doc.entry(key) else {
        return Some(Shape::Absent);
    };
    Some(match untag(doc.value(e)) {
        None | Some(Value::Null) => Shape::Empty,
        Some(Value::Sequence(_)) => Shape::List,
        Some(Value::Mapping(_)) => Shape::Mapping,
        Some(_) => Shape::Scalar,
    })
}

/// Set a top-level scalar. The old value's quoting style and a trailing `# comment` are kept
/// where the new value allows; an absent key is added at the end of the block.
pub fn set_scalar(text: &str, key: &str, value: &str) -> Option<String> {
    let doc = Doc::parse(text)?;
    let Some(e) = doc.entry(key) else {
        let line = format!("{key}: {}{}", render(value, Style::Plain, false), doc.eol);
        return checked(doc.insert(&line), key, |v| is_scalar(v, value));
    };
    if doc.value(e).as_ref().and_then(scalar_text).as_deref() == Some(value) {
        return checked(text.to_string(), key, |v| is_scalar(v, value));
    }
    let line = doc.line(e.line);
    let lexed = lex(line, e.value_at);
    let multiline =
        e.value_end > e.line + 1 || matches!(lexed.token, Token::Open | Token::BlockScalar);
    let style = lexed.style(line);
    let new = if multiline {
        // The value spans lines: it becomes one line; a comment on the key line stays.
        let comment = match lexed.token {
            Token::Empty | Token::BlockScalar => lexed.comment(line),
            _ => "",
        };
        let head = &line[..e.value_at];
        format!(
            "{head} {}{comment}{}",
            render(value, style, false),
            eol_of(line)
        )
    } else {
        put(line, &lexed.span, &render(value, style, false))
    };
    checked(doc.replace(e.line..e.value_end, &new), key, |v| {
        is_scalar(v, value)
    })
}

/// Set a top-level list. A flow list `[a, b]` stays flow and a block list (`- a` lines) stays
/// block; a single value, an empty value or an absent key becomes a flow list. Items that do
/// not change keep their exact text (quoting, comments).
pub fn set_list<S: AsRef<str>>(text: &str, key: &str, items: &[S]) -> Option<String> {
    let doc = Doc::parse(text)?;
    let items: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    let Some(e) = doc.entry(key) else {
        let line = format!(
            "{key}: {}{}",
            flow(&items, &[], &FlowForm::default()),
            doc.eol
        );
        return checked(doc.insert(&line), key, |v| is_list(v, &items));
    };
    if let Some(Value::Sequence(old)) = untag(doc.value(e)) {
        let old: Option<Vec<String>> = old.iter().map(scalar_text).collect();
        if old.is_some_and(|o| o == items) {
            return checked(text.to_string(), key, |v| is_list(v, &items));
        }
    }
    let line = doc.line(e.line);
    let start = e.value_at;
    let lexed = lex(line, start);
    let one_line = e.value_end == e.line + 1;
    let new = match lexed.token {
        Token::Flow if one_line && line[lexed.span.clone()].starts_with('[') => {
            let inner = &line[lexed.span.start + 1..lexed.span.end - 1];
            let (old, form) = flow_items(inner);
            put(line, &lexed.span, &flow(&items, &old, &form))
        }
        Token::Plain | Token::Single | Token::Double | Token::Flow if one_line => {
            let src = &line[lexed.span.clone()];
            let old = [(src.to_string(), yaml_scalar(src))];
            // The scalar's quoting is kept only when it stays one item: quotes that a
            // `"#a, b"` needed say nothing about the tags it is split into.
            let stays = old[0].1.as_deref().is_some_and(|v| items.contains(&v));
            let old = if (lexed.token == Token::Plain && !plain_ok(src, true)) || !stays {
                &[][..]
            } else {
                &old[..]
            };
            put(line, &lexed.span, &flow(&items, old, &FlowForm::default()))
        }
        Token::Empty if one_line => {
            put(line, &lexed.span, &flow(&items, &[], &FlowForm::default()))
        }
        Token::Empty if !items.is_empty() && doc.is_block_list(e) => {
            let mut out = line.to_string();
            out.push_str(&doc.block_list(e, &items));
            out
        }
        _ => {
            let comment = match lexed.token {
                Token::Empty | Token::BlockScalar => lexed.comment(line),
                _ => "",
            };
            let head = &line[..start];
            format!(
                "{head} {}{comment}{}",
                flow(&items, &[], &FlowForm::default()),
                eol_of(line)
            )
        }
    };
    checked(doc.replace(e.line..e.value_end, &new), key, |v| {
        is_list(v, &items)
    })
}

/// Reorder the top-level keys: those named in `order` first, in that order, then the others
/// in their original order. Each key moves with its value's lines and the comment lines
/// directly above it; lines before the first key and after the last stay where they are.
pub fn reorder(text: &str, order: &[&str]) -> Option<String> {
    let doc = Doc::parse(text)?;
    let (Some(first), Some(last)) = (doc.entries.first(), doc.entries.last()) else {
        return Some(text.to_string());
    };
    let rank = |k: &str| order.iter().position(|o| *o == k).unwrap_or(order.len());
    let mut sorted: Vec<&Entry> = doc.entries.iter().collect();
    sorted.sort_by_key(|e| rank(&e.key));
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..doc.lines.first().map_or(doc.yaml_end, |l| l.start)]);
    out.push_str(doc.span(0..first.lead));
    for e in sorted {
        out.push_str(doc.span(e.lead..e.end));
    }
    out.push_str(doc.span(last.end..doc.lines.len()));
    out.push_str(&text[doc.yaml_end..]);
    readable(out)
}

/// `out` if its block still reads; otherwise no edit at all. The line-based editor can be
/// fooled by YAML it does not model (a quoted scalar continued at column 0, a list nested in
/// a list), and a page must never be written with a block that no longer reads.
fn readable(out: String) -> Option<String> {
    matches!(frontmatter::split(&out).block, Block::Valid(_)).then_some(out)
}

/// `out` if its block still reads and `key` reads back as `wanted` says; otherwise no edit at
/// all, for the same reason as [`readable`]: never write a value other than the one asked for.
fn checked(out: String, key: &str, wanted: impl Fn(Option<Value>) -> bool) -> Option<String> {
    let ok = {
        // Read back through the YAML parser, not the editor's own view of the lines.
        let doc = Doc::parse(&out)?;
        let block: Value = serde_yaml::from_str(doc.span(0..doc.lines.len())).ok()?;
        wanted(untag(block.as_mapping()?.get(key).cloned()))
    };
    ok.then_some(out)
}

fn is_scalar(v: Option<Value>, value: &str) -> bool {
    v.as_ref().and_then(scalar_text).as_deref() == Some(value)
}

fn is_list(v: Option<Value>, items: &[&str]) -> bool {
    match v {
        Some(Value::Sequence(seq)) => seq
            .iter()
            .map(scalar_text)
            .collect::<Option<Vec<String>>>()
            .is_some_and(|got| got == items),
        _ => false,
    }
}

/// A parsed block: the byte ranges of its YAML lines and its top-level entries.
struct Doc<'a> {
    text: &'a str,
    /// Each YAML line's byte range in `text`, line ending included.
    lines: Vec<Range<usize>>,
    /// Where the closing `---` line starts.
    yaml_end: usize,
    entries: Vec<Entry>,
    /// The line ending of the opening `---` line, used for new lines.
    eol: &'static str,
}

/// A top-level entry, as indices into `Doc::lines`.
struct Entry {
    key: String,
    /// The first comment line directly above the key line.
    lead: usize,
    /// The key line.
    line: usize,
    /// The byte offset in the key line just after the key's `:`.
    value_at: usize,
    /// One past the value's last line (blank and comment lines after it excluded).
    value_end: usize,
    /// One past the entry's last line: the next entry's `lead`, or `value_end` for the last.
    end: usize,
}

impl<'a> Doc<'a> {
    fn parse(text: &'a str) -> Option<Doc<'a>> {
        let split = frontmatter::split(text);
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

    fn find_entries(&self) -> Vec<Entry> {
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

    fn entry(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.key == key)
    }

    fn line(&self, i: usize) -> &'a str {
        &self.text[self.lines[i].clone()]
    }

    fn file_line(&self, i: usize) -> usize {
        i + 2
    }

    /// The text of a range of lines.
    fn span(&self, r: Range<usize>) -> &'a str {
        if r.is_empty() {
            return "";
        }
        &self.text[self.lines[r.start].start..self.lines[r.end - 1].end]
    }

    /// The entry's value as YAML reads it.
    fn value(&self, e: &Entry) -> Option<Value> {
        let map: Value = serde_yaml::from_str(self.span(e.line..e.value_end)).ok()?;
        map.as_mapping()?.values().next().cloned()
    }

    /// The text with lines `r` replaced by `new`.
    fn replace(&self, r: Range<usize>, new: &str) -> String {
        let at = |i: usize| self.lines.get(i).map_or(self.yaml_end, |l| l.start);
        let (from, to) = (at(r.start), at(r.end));
        [&self.text[..from], new, &self.text[to..]].concat()
    }

    /// The text with `line` added after the last entry's value.
    fn insert(&self, line: &str) -> String {
        let at = self
            .entries
            .last()
            .map_or(self.lines.len(), |e| e.value_end);
        self.replace(at..at, line)
    }

    /// Whether the value lines of `e` are `- item` lines.
    fn is_block_list(&self, e: &Entry) -> bool {
        (e.line + 1..e.value_end)
            .map(|i| self.line(i).trim_start())
            .find(|t| !t.trim().is_empty() && !t.starts_with('#'))
            .is_some_and(|t| item_start(t).is_some())
    }

    /// New value lines of a block list: an item whose value stays keeps its lines; a changed
    /// item keeps its place, indentation and comment; comments above dropped items are kept.
    fn block_list(&self, e: &Entry, items: &[&str]) -> String {
        let groups = self.groups(e);
        let mut taken: Vec<Option<usize>> = vec![None; items.len()];
        let mut used = vec![false; groups.len()];
        for (i, item) in items.iter().enumerate() {
            if let Some(g) =
                (0..groups.len()).find(|&g| !used[g] && groups[g].value.as_deref() == Some(item))
            {
                used[g] = true;
                taken[i] = Some(g);
            }
        }
        let mut spare = (0..groups.len())
            .filter(|&g| !used[g])
            .collect::<Vec<_>>()
            .into_iter();
        for slot in taken.iter_mut().filter(|t| t.is_none()) {
            if let Some(g) = spare.next() {
                used[g] = true;
                *slot = Some(g);
            }
        }
        // Comments of dropped items go with the next item that stays, or to the end.
        let mut lead: Vec<String> = groups
            .iter()
            .map(|g| self.span(g.lead.clone()).to_string())
            .collect();
        let mut pending = String::new();
        for g in 0..groups.len() {
            if used[g] {
                lead[g] = std::mem::take(&mut pending) + &lead[g];
            } else {
                pending.push_str(&comments_only(self.span(groups[g].lead.clone())));
            }
        }
        let prefix = match groups.first() {
            Some(g) => put(
                &self.line(g.item)[..g.token_at],
                &(g.token_at..g.token_at),
                "",
            ),
            None => "  - ".into(),
        };
        let mut out = String::new();
        for (item, slot) in items.iter().zip(&taken) {
            let Some(g) = *slot else {
                out.push_str(&format!(
                    "{prefix}{}{}",
                    render(item, Style::Plain, false),
                    self.eol
                ));
                continue;
            };
            let group = &groups[g];
            out.push_str(&lead[g]);
            if group.value.as_deref() == Some(item) {
                out.push_str(self.span(group.item..group.end));
                continue;
            }
            let line = self.line(group.item);
            let lexed = lex(line, group.token_at);
            let simple = group.end == group.item + 1
                && matches!(
                    lexed.token,
                    Token::Plain | Token::Single | Token::Double | Token::Empty
                );
            if simple {
                out.push_str(&put(
                    line,
                    &lexed.span,
                    &render(item, lexed.style(line), false),
                ));
            } else {
                let head = &line[..group.token_at];
                out.push_str(&put(
                    head,
                    &(head.len()..head.len()),
                    &render(item, Style::Plain, false),
                ));
                out.push_str(eol_of(line));
            }
        }
        out.push_str(&pending);
        out
    }

    /// The items of a block list: each `- ` line with the lines continuing it and the blank
    /// and comment lines above it.
    fn groups(&self, e: &Entry) -> Vec<Group> {
        let mut groups: Vec<Group> = Vec::new();
        let mut pending = e.line + 1;
        for i in e.line + 1..e.value_end {
            let line = self.line(i);
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let indent = line.len() - line.trim_start().len();
            match item_start(&line[indent..]) {
                Some(at) => {
                    if let Some(prev) = groups.last_mut() {
                        prev.end = pending.max(prev.item + 1);
                    }
                    groups.push(Group {
                        lead: pending..i,
                        item: i,
                        end: i + 1,
                        token_at: indent + at,
                        value: None,
                    });
                }
                None => {
                    if let Some(g) = groups.last_mut() {
                        g.end = i + 1;
                    }
                }
            }
            pending = i + 1;
            if let Some(g) = groups.last_mut() {
                g.end = g.end.max(i + 1);
            }
        }
        for g in &mut groups {
            let yaml = self.span(g.item..g.end);
            g.value = match serde_yaml::from_str::<Value>(yaml) {
                Ok(Value::Sequence(s)) => s.first().and_then(scalar_text),
                _ => None,
            };
        }
        groups
    }
}

/// One item of a block list, as indices into `Doc::lines`.
struct Group {
    lead: Range<usize>,
    item: usize,
    end: usize,
    /// Where the item's value starts in its line.
    token_at: usize,
    value: Option<String>,
}

/// What a YAML line of the block is.
#[derive(Debug, PartialEq)]
enum Kind {
    Blank,
    /// A `#` comment in column 0.
    TopComment,
    /// A top-level `key:`, with the byte offset just after the colon.
    Key(String, usize),
    /// Anything else: a value's continuation, an indented comment, a `- item`.
    Other,
}

fn kind(line: &str) -> Kind {
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
fn top_key(line: &str) -> Option<(String, usize)> {
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
fn item_start(t: &str) -> Option<usize> {
    let rest = t.strip_prefix('-')?;
    if rest.is_empty() || rest.starts_with(['\n', '\r']) {
        return Some(1);
    }
    let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    (spaces > 0).then_some(1 + spaces)
}

/// One past the last line of `[from + 1, to)` that is neither blank nor a column-0 comment.
fn value_end(kinds: &[Kind], from: usize, to: usize) -> usize {
    (from + 1..to)
        .rev()
        .find(|&i| !matches!(kinds[i], Kind::Blank | Kind::TopComment))
        .map_or(from + 1, |i| i + 1)
}

/// A value on a line, as written.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Token {
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
struct Lexed {
    token: Token,
    span: Range<usize>,
    comment: Option<usize>,
}

impl Lexed {
    /// The comment with the whitespace before it, without the line ending.
    fn comment<'l>(&self, line: &'l str) -> &'l str {
        let end = line.trim_end_matches(['\n', '\r']).len();
        self.comment.map_or("", |_| &line[self.span.end..end])
    }

    /// The quoting style of the value.
    fn style(&self, line: &str) -> Style {
        match line[self.span.clone()].chars().next() {
            Some('\'') => Style::Single,
            Some('"') => Style::Double,
            _ => Style::Plain,
        }
    }
}

/// Lex the value that starts at byte `from` of `line` (after a key's colon or an item's dash).
fn lex(line: &str, from: usize) -> Lexed {
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
fn quoted_end(line: &str, start: usize) -> Option<usize> {
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
fn flow_end(line: &str, start: usize) -> Option<usize> {
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

/// How a flow list was spaced: `[a, b]`, `[ a, b ]`, `[a,b]`.
struct FlowForm {
    pad: &'static str,
    sep: &'static str,
}

impl Default for FlowForm {
    fn default() -> Self {
        FlowForm { pad: "", sep: ", " }
    }
}

/// The items of a one-line flow list's inside (source text and value) and its spacing.
fn flow_items(inner: &str) -> (Vec<(String, Option<String>)>, FlowForm) {
    let mut items = Vec::new();
    let mut start = 0;
    let mut depth = 0usize;
    let mut i = 0;
    let bytes = inner.as_bytes();
    let mut sep = ", ";
    while i <= bytes.len() {
        match bytes.get(i) {
            Some(b'[' | b'{') => depth += 1,
            Some(b']' | b'}') => depth = depth.saturating_sub(1),
            Some(b'\'' | b'"') => i = quoted_end(inner, i).map_or(bytes.len(), |e| e - 1),
            Some(b',') | None if depth == 0 => {
                if bytes.get(i) == Some(&b',')
                    && items.is_empty()
                    && bytes.get(i + 1) != Some(&b' ')
                {
                    sep = ",";
                }
                let src = inner[start..i].trim();
                if !src.is_empty() {
                    items.push((src.to_string(), yaml_scalar(src)));
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    let pad = if inner.starts_with(' ') && !inner.trim().is_empty() {
        " "
    } else {
        ""
    };
    (items, FlowForm { pad, sep })
}

/// A flow list of `items`. An item equal to an old one reuses its text; a new one takes the
/// quoting of the old item at its position when that was quoted.
fn flow(items: &[&str], old: &[(String, Option<String>)], form: &FlowForm) -> String {
    let mut used = vec![false; old.len()];
    let rendered: Vec<String> = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            if let Some(o) = (0..old.len()).find(|&o| !used[o] && old[o].1.as_deref() == Some(item))
            {
                used[o] = true;
                return old[o].0.clone();
            }
            // A replaced item keeps the quoting of the one it replaces, when the items still
            // correspond one to one (not when a tag was split in two or two merged).
            let same_place = (items.len() == old.len()).then(|| old.get(i)).flatten();
            let style = match same_place.and_then(|(src, _)| src.chars().next()) {
                Some('\'') => Style::Single,
                Some('"') => Style::Double,
                _ => Style::Plain,
            };
            render(item, style, true)
        })
        .collect();
    if rendered.is_empty() {
        return "[]".into();
    }
    format!("[{pad}{}{pad}]", rendered.join(form.sep), pad = form.pad)
}

/// How a scalar is written.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Style {
    Plain,
    Single,
    Double,
}

/// `value` written in `style` where the value allows it: plain falls back to single quotes,
/// single quotes to double quotes (for control characters). `flow` means inside `[…]`.
fn render(value: &str, style: Style, flow: bool) -> String {
    match style {
        Style::Plain if plain_ok(value, flow) => value.to_string(),
        Style::Plain | Style::Single if !value.chars().any(is_break) => {
            format!("'{}'", value.replace('\'', "''"))
        }
        _ => {
            let mut out = String::from("\"");
            for c in value.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    '\r' => out.push_str("\\r"),
                    c if is_break(c) => out.push_str(&format!("\\u{:04X}", c as u32)),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        }
    }
}

/// Control characters and the characters YAML 1.1 reads as line breaks or ignores.
fn is_break(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
}

/// Whether `value` can be written unquoted and read back as the same string, by this parser
/// and by YAML 1.1 readers (which take `yes`, `on` or `0x1F` for booleans and numbers).
fn plain_ok(value: &str, flow: bool) -> bool {
    let Some(first) = value.chars().next() else {
        return false;
    };
    let second = value[first.len_utf8()..].chars().next();
    let lower = value.to_lowercase();
    let reserved = [
        "yes", "no", "y", "n", "on", "off", "true", "false", "null", "~", ".inf", "+.inf", "-.inf",
        ".nan",
    ];
    let digits = |s: &str, radix| !s.is_empty() && s.chars().all(|c| c.is_digit(radix) || c == '_');
    let numeric = value.parse::<f64>().is_ok()
        || ["0x", "0o", "0b"]
            .iter()
            .zip([16, 8, 2])
            .any(|(p, r)| lower.strip_prefix(p).is_some_and(|s| digits(s, r)))
        || (value.chars().any(|c| c.is_ascii_digit())
            && value
                .chars()
                .all(|c| c.is_ascii_digit() || "_:.+-".contains(c))
            && !crate::schema::is_date(value));
    let needs_quotes = value != value.trim()
        || value.chars().any(is_break)
        || "#,[]{}&*!|>'\"%@`".contains(first)
        || (matches!(first, '-' | '?' | ':')
            && second.is_none_or(|c| c.is_whitespace() || "[]{},".contains(c)))
        || value.contains(": ")
        || value.ends_with(':')
        || value.contains(" #")
        || (flow && value.contains([',', '[', ']', '{', '}', ':', '#']))
        || reserved.contains(&lower.as_str())
        || numeric;
    if needs_quotes {
        return false;
    }
    // The last word is the parser's: the value must read back as exactly this string.
    let yaml = if flow {
        format!("k: [{value}]\n")
    } else {
        format!("k: {value}\n")
    };
    match serde_yaml::from_str::<Value>(&yaml)
        .ok()
        .as_ref()
        .and_then(|m| m.get("k"))
    {
        Some(Value::String(s)) => !flow && s == value,
        Some(Value::Sequence(s)) => flow && s.len() == 1 && s[0].as_str() == Some(value),
        _ => false,
    }
}

/// The text of a scalar as the frontmatter parser keeps it; `None` for null or a collection.
fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Tagged(t) => scalar_text(&t.value),
        _ => None,
    }
}

/// A scalar's value from its source text.
fn yaml_scalar(src: &str) -> Option<String> {
    scalar_text(&serde_yaml::from_str::<Value>(src).ok()?)
}

fn untag(v: Option<Value>) -> Option<Value> {
    match v {
        Some(Value::Tagged(t)) => Some(t.value),
        other => other,
    }
}

/// `line` with the value at byte range `r` replaced by `new`, a space before it if needed.
fn put(line: &str, r: &Range<usize>, new: &str) -> String {
    let gap = if line[..r.start].ends_with([' ', '\t']) {
        ""
    } else {
        " "
    };
    [&line[..r.start], gap, new, &line[r.end..]].concat()
}

fn eol_of(line: &str) -> &str {
    &line[line.trim_end_matches(['\n', '\r']).len()..]
}

/// The comment lines of `text`, without its blank lines.
fn comments_only(text: &str) -> String {
    text.split_inclusive('\n')
        .filter(|l| l.trim_start().starts_with('#'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::Frontmatter;

    fn fm(text: &str) -> Frontmatter {
        match frontmatter::split(text).block {
            Block::Valid(f) => f,
            other => panic!("not a valid block: {other:?}\n{text}"),
        }
    }

    /// The body and every line of the block except those named, for comparing before/after.
    fn others<'t>(text: &'t str, except: &[&str]) -> Vec<&'t str> {
        text.split_inclusive('\n')
            .filter(|l| !except.iter().any(|k| l.trim_start().starts_with(k)))
            .collect()
    }

    const PAGE: &str = "---\n# A page about caches\ntitle: Pebble Cache  # the name\ntype: concept\n\
                        maturity: 'seed'\ntags: [\"#Caching\", db]\naliases:\n  - pcache # short\n  - PC\n\
                        sources: [raw/a.md]\ncreated: 2026-03-02\nupdated: \"2026/03/09\"\nowner: me\n---\n\nBody: [[x]]\n";

    #[test]
    fn an_indented_or_flow_mapping_is_left_alone() {
        // Found by the `edit` fuzz target: a key added at column 0 broke the block.
        for text in [
            "---\n  title: x\n  tags:\n  - a\n---\nbody\n",
            "---\n{title: x}\n---\n",
        ] {
            assert!(matches!(frontmatter::split(text).block, Block::Valid(_)));
            assert_eq!(set_scalar(text, "updated", "2026-05-01"), None);
            assert_eq!(set_list(text, "tags", &["b"]), None);
            assert_eq!(reorder(text, &["tags"]), None);
        }
    }

    #[test]
    fn an_edit_that_would_break_the_block_is_refused() {
        // Found by the `edit` fuzz target: the lines of a quoted scalar continued at column 0
        // were taken for keys and moved, and the block no longer read.
        let text = "---\ntype: concept\naliases:\n  - \"x\ntagq: [a, 'b\ntitle: y\"\n---\nbody\n";
        assert!(matches!(frontmatter::split(text).block, Block::Valid(_)));
        assert_eq!(reorder(text, &["title", "type", "tags"]), None);
        // A key line inside such a scalar is not a key: the value it seems to hold already is
        // no reason to report the edit done.
        let text = "---\naliases:\n  - \"x\ntitle: a value\ny\"\n---\n";
        assert!(matches!(frontmatter::split(text).block, Block::Valid(_)));
        assert_eq!(set_scalar(text, "title", "a value"), None);
        // And a list nested in a list: its inner items were taken for one folded item, so the
        // tags read back as `[a - b, c]`; refused rather than written wrong.
        let text = "---\ntags:\n- - a\n  - b\n---\n";
        assert_eq!(set_list(text, "tags", &["a", "b", "c"]), None);
        assert!(set_list("---\ntags:\n- a\n- b\n---\n", "tags", &["a", "b", "c"]).is_some());
    }

    #[test]
    fn no_block_no_edit() {
        for text in [
            "# Just text\n",
            "---\ntitle: A\n",
            "---\ntitle: [a\n---\n",
            "---\n- a\n---\n",
            "",
        ] {
            assert_eq!(set_scalar(text, "title", "A"), None, "{text:?}");
            assert_eq!(set_list(text, "tags", &["a"]), None);
            assert_eq!(reorder(text, &crate::schema::KEY_ORDER), None);
            assert_eq!(keys(text), None);
        }
    }

    #[test]
    fn keys_lines_and_shapes() {
        assert_eq!(
            keys(PAGE).unwrap(),
            [
                "title", "type", "maturity", "tags", "aliases", "sources", "created", "updated",
                "owner"
            ]
        );
        assert_eq!(key_line(PAGE, "title"), Some(3));
        assert_eq!(key_line(PAGE, "sources"), Some(10));
        assert_eq!(key_line(PAGE, "nope"), None);
        assert_eq!(shape(PAGE, "tags"), Some(Shape::List));
        assert_eq!(shape(PAGE, "aliases"), Some(Shape::List));
        assert_eq!(shape(PAGE, "title"), Some(Shape::Scalar));
        assert_eq!(shape(PAGE, "nope"), Some(Shape::Absent));
        assert_eq!(
            shape("---\ntags:\nm:\n  a: 1\n---\n", "tags"),
            Some(Shape::Empty)
        );
        assert_eq!(
            shape("---\ntags:\nm:\n  a: 1\n---\n", "m"),
            Some(Shape::Mapping)
        );
    }

    #[test]
    fn set_scalar_changes_only_its_value() {
        let out = set_scalar(PAGE, "updated", "2026-03-09").unwrap();
        assert!(
            out.contains("\nupdated: \"2026-03-09\"\n"),
            "double quotes kept:\n{out}"
        );
        assert_eq!(others(&out, &["updated"]), others(PAGE, &["updated"]));
        let out = set_scalar(PAGE, "title", "Pebble").unwrap();
        assert!(
            out.contains("\ntitle: Pebble  # the name\n"),
            "comment kept:\n{out}"
        );
        let out = set_scalar(PAGE, "maturity", "working").unwrap();
        assert!(
            out.contains("\nmaturity: 'working'\n"),
            "single quotes kept:\n{out}"
        );
        assert_eq!(fm(&out).maturity.as_deref(), Some("working"));
    }

    #[test]
    fn set_scalar_adds_an_absent_key_at_the_end() {
        let out = set_scalar("---\ntitle: A\n\n---\nbody\n", "updated", "2026-05-01").unwrap();
        assert_eq!(out, "---\ntitle: A\nupdated: 2026-05-01\n\n---\nbody\n");
        assert_eq!(
            set_scalar("---\n---\n", "title", "A").unwrap(),
            "---\ntitle: A\n---\n"
        );
    }

    #[test]
    fn set_scalar_replaces_a_multiline_value() {
        let text = "---\ntitle: >  # folded\n  a long\n  title\n\ntype: concept\n---\n";
        let out = set_scalar(text, "title", "Short").unwrap();
        assert_eq!(out, "---\ntitle: Short  # folded\n\ntype: concept\n---\n");
        let out = set_scalar("---\ntitle:\n  - a\n---\n", "title", "A").unwrap();
        assert_eq!(out, "---\ntitle: A\n---\n");
    }

    #[test]
    fn values_that_need_quotes_round_trip() {
        let nasty = [
            "a: b",
            "#tag",
            "[x]",
            "{x}",
            "*star",
            "&anchor",
            "!bang",
            "|pipe",
            ">gt",
            "'q",
            "\"dq",
            "%p",
            "@at",
            "`tick",
            "yes",
            "No",
            "true",
            "FALSE",
            "null",
            "~",
            " lead",
            "trail ",
            "42",
            "007",
            "3.14",
            "1e3",
            "0x1F",
            "12:30",
            "-",
            "- a",
            "? x",
            "a #b",
            "ends:",
            "it's",
            "tab\there",
            "line\nbreak",
            "",
            "\u{2028}",
            "back\\slash",
            "-1",
            ".inf",
            "on",
        ];
        for v in nasty {
            for (style, text) in [
                ("plain", "---\ntitle: x\n---\n"),
                ("single", "---\ntitle: 'x'\n---\n"),
                ("double", "---\ntitle: \"x\"\n---\n"),
                ("absent", "---\ntype: concept\n---\n"),
            ] {
                let out = set_scalar(text, "title", v).unwrap();
                assert_eq!(
                    fm(&out).title.as_deref(),
                    Some(v),
                    "{v:?} ({style}) as\n{out}"
                );
            }
            let out = set_list(PAGE, "tags", &[v, "ok"]).unwrap();
            assert_eq!(fm(&out).tags, [v, "ok"], "{v:?} in a flow list:\n{out}");
            let out = set_list(PAGE, "aliases", &["pcache", v]).unwrap();
            assert_eq!(
                fm(&out).aliases,
                ["pcache", v],
                "{v:?} in a block list:\n{out}"
            );
        }
    }

    #[test]
    fn plain_stays_plain_when_it_can() {
        for v in [
            "Pebble Cache",
            "2026-04-01",
            "C++",
            "gpt-4o",
            "a:b",
            "Café",
            "x-#1",
            "-x",
            "raw/inbox/2026-05-01.md",
        ] {
            let out = set_scalar("---\ntitle: x\n---\n", "title", v).unwrap();
            assert_eq!(out, format!("---\ntitle: {v}\n---\n"));
        }
        assert_eq!(
            set_scalar("---\ntitle: x\n---\n", "title", "2026").unwrap(),
            "---\ntitle: '2026'\n---\n"
        );
    }

    #[test]
    fn set_list_keeps_a_flow_list_flow() {
        let out = set_list(PAGE, "tags", &["caching", "db"]).unwrap();
        assert!(
            out.contains("\ntags: [\"caching\", db]\n"),
            "the changed item keeps its quotes:\n{out}"
        );
        assert_eq!(others(&out, &["tags"]), others(PAGE, &["tags"]));
        let out = set_list("---\ntags: [ a,b ] # t\n---\n", "tags", &["a", "c"]).unwrap();
        assert_eq!(out, "---\ntags: [ a,c ] # t\n---\n");
        assert_eq!(
            set_list("---\ntags: [a]\n---\n", "tags", &[] as &[&str]).unwrap(),
            "---\ntags: []\n---\n"
        );
    }

    #[test]
    fn set_list_keeps_a_block_list_block() {
        let out = set_list(PAGE, "aliases", &["pcache", "pebble"]).unwrap();
        assert!(
            out.contains("\naliases:\n  - pcache # short\n  - pebble\n"),
            "{out}"
        );
        assert_eq!(
            others(&out, &["- pebble", "- PC"]),
            others(PAGE, &["- pebble", "- PC"])
        );
        let text = "---\ntags:\n# first\n- '#A'\n- b   # bee\n\n- '#A'\n---\n";
        let out = set_list(text, "tags", &["a", "b"]).unwrap();
        assert_eq!(out, "---\ntags:\n# first\n- 'a'\n- b   # bee\n---\n");
        let out = set_list("---\ntags:\n  - a\n  - b\n---\n", "tags", &["a", "b", "c"]).unwrap();
        assert_eq!(out, "---\ntags:\n  - a\n  - b\n  - c\n---\n");
        let out = set_list(
            "---\ntags:\n  # about b\n  - b\n  - a\n---\n",
            "tags",
            &["a"],
        )
        .unwrap();
        assert_eq!(
            out, "---\ntags:\n  # about b\n  - a\n---\n",
            "a dropped item's comment stays"
        );
    }

    #[test]
    fn a_single_value_becomes_a_flow_list() {
        assert_eq!(
            set_list("---\ntags: ai # t\n---\n", "tags", &["ai"]).unwrap(),
            "---\ntags: [ai] # t\n---\n"
        );
        assert_eq!(
            set_list("---\ntags: 'a b'\n---\n", "tags", &["a b"]).unwrap(),
            "---\ntags: ['a b']\n---\n"
        );
        assert_eq!(
            set_list("---\ntags: a,b\n---\n", "tags", &["a,b"]).unwrap(),
            "---\ntags: ['a,b']\n---\n"
        );
        assert_eq!(
            set_list("---\ntags:\n---\n", "tags", &["a"]).unwrap(),
            "---\ntags: [a]\n---\n"
        );
        assert_eq!(
            set_list("---\ntitle: A\n---\n", "tags", &["a"]).unwrap(),
            "---\ntitle: A\ntags: [a]\n---\n"
        );
        let out = set_list("---\nsources: raw/a.md\n---\n", "sources", &["raw/a.md"]).unwrap();
        assert_eq!(fm(&out).sources, ["raw/a.md"]);
        assert!(fm(&out).problems.is_empty());
    }

    #[test]
    fn odd_list_forms_become_flow_lists() {
        let out = set_list("---\ntags: {a: 1} # t\n---\n", "tags", &["a"]).unwrap();
        assert_eq!(out, "---\ntags: [a] # t\n---\n");
        let out = set_list("---\ntags: [a,\n  b]\ntype: x\n---\n", "tags", &["a", "c"]).unwrap();
        assert_eq!(out, "---\ntags: [a, c]\ntype: x\n---\n");
        let out = set_list("---\ntags:\n  -\n  - b\n---\n", "tags", &["a", "b"]).unwrap();
        assert_eq!(fm(&out).tags, ["a", "b"], "{out}");
    }

    #[test]
    fn edits_leave_other_fields_alone() {
        let base = fm(PAGE);
        let edits = [
            ("title", set_scalar(PAGE, "title", "New: title").unwrap()),
            ("tags", set_list(PAGE, "tags", &["x"]).unwrap()),
            ("aliases", set_list(PAGE, "aliases", &["y"]).unwrap()),
            (
                "updated",
                set_scalar(PAGE, "updated", "2026-01-01").unwrap(),
            ),
        ];
        for (key, out) in edits {
            let f = fm(&out);
            if key != "title" {
                assert_eq!(f.title, base.title, "{key}");
            }
            if key != "tags" {
                assert_eq!(f.tags, base.tags, "{key}");
            }
            if key != "aliases" {
                assert_eq!(f.aliases, base.aliases, "{key}");
            }
            if key != "updated" {
                assert_eq!(f.updated, base.updated, "{key}");
            }
            assert_eq!(
                (f.kind, f.maturity, f.sources, f.created),
                (
                    base.kind.clone(),
                    base.maturity.clone(),
                    base.sources.clone(),
                    base.created.clone()
                )
            );
            assert!(
                out.ends_with("---\n\nBody: [[x]]\n"),
                "the body is untouched"
            );
        }
    }

    #[test]
    fn reorder_moves_keys_with_their_comments() {
        let text = "---\n# header\n\nextra: 1\n# the type\ntype: concept\ntags:\n  - a\n\ntitle: A # t\n\n---\nbody\n";
        let out = reorder(text, &crate::schema::KEY_ORDER).unwrap();
        assert_eq!(
            out,
            "---\n# header\n\ntitle: A # t\n# the type\ntype: concept\ntags:\n  - a\n\nextra: 1\n\n---\nbody\n"
        );
        let (a, b) = (fm(&out), fm(text));
        assert_eq!((a.title, a.kind, a.tags), (b.title, b.kind, b.tags));
        assert_eq!(reorder(&out, &crate::schema::KEY_ORDER).unwrap(), out);
    }

    #[test]
    fn reorder_keeps_a_sorted_block_byte_for_byte() {
        assert_eq!(reorder(PAGE, &crate::schema::KEY_ORDER).unwrap(), PAGE);
    }

    #[test]
    fn crlf_is_kept() {
        let text = PAGE.replace('\n', "\r\n");
        let edits = [
            set_scalar(&text, "updated", "2026-03-10").unwrap(),
            set_scalar(&text, "new", "x").unwrap(),
            set_list(&text, "tags", &["caching", "db"]).unwrap(),
            set_list(&text, "aliases", &["pcache", "pebble", "more"]).unwrap(),
            reorder(
                &text.replace("title:", "zzz: 1\r\ntitle:"),
                &crate::schema::KEY_ORDER,
            )
            .unwrap(),
        ];
        for out in edits {
            assert_eq!(
                out.matches('\n').count(),
                out.matches("\r\n").count(),
                "{out:?}"
            );
            fm(&out);
        }
    }

    #[test]
    fn a_bom_is_kept() {
        let text = format!("\u{feff}{PAGE}");
        let out = set_scalar(&text, "title", "B").unwrap();
        assert!(out.starts_with("\u{feff}---\n"));
        assert_eq!(fm(&out).title.as_deref(), Some("B"));
        assert!(
            reorder(&text, &["owner"])
                .unwrap()
                .starts_with("\u{feff}---\nowner: me\n# A page about caches\ntitle:")
        );
    }

    #[test]
    fn an_edit_applied_twice_equals_once() {
        let once = set_scalar(PAGE, "created", "2026-03-01").unwrap();
        assert_eq!(set_scalar(&once, "created", "2026-03-01").unwrap(), once);
        let once = set_scalar(PAGE, "title", "a: b").unwrap();
        assert_eq!(set_scalar(&once, "title", "a: b").unwrap(), once);
        let once = set_list(PAGE, "tags", &["caching", "db"]).unwrap();
        assert_eq!(set_list(&once, "tags", &["caching", "db"]).unwrap(), once);
        let once = set_list("---\ntags: ai\n---\n", "tags", &["ai"]).unwrap();
        assert_eq!(set_list(&once, "tags", &["ai"]).unwrap(), once);
        let once = set_list(PAGE, "aliases", &["x", "pcache"]).unwrap();
        assert_eq!(set_list(&once, "aliases", &["x", "pcache"]).unwrap(), once);
        let text = "---\nupdated: x\nz: 1\ntitle: A\n---\n";
        let once = reorder(text, &crate::schema::KEY_ORDER).unwrap();
        assert_eq!(reorder(&once, &crate::schema::KEY_ORDER).unwrap(), once);
    }

    #[test]
    fn an_unchanged_value_changes_nothing() {
        assert_eq!(set_scalar(PAGE, "title", "Pebble Cache").unwrap(), PAGE);
        assert_eq!(
            set_scalar("---\ntitle: 42\n---\n", "title", "42").unwrap(),
            "---\ntitle: 42\n---\n"
        );
        assert_eq!(set_list(PAGE, "aliases", &["pcache", "PC"]).unwrap(), PAGE);
    }
}
