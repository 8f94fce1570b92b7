//! Byte-preserving edits of a file's frontmatter block, for `fmt --fix` and `lint --fix`.
//!
//! An edit changes only the bytes of the key it concerns: every other line, comment, blank
//! line, quoting style and line ending (LF or CRLF) stays as it was, and so does the body.
//! Every function takes the whole file and returns the whole new file, or `None` when the
//! file has no readable frontmatter block (see [`frontmatter::split`]). Pure; no I/O.
//!
//! A top-level entry is its key line, the lines that continue its value (indented lines,
//! `- item` lines), and the column-0 `#` comment lines directly above it.
//!
//! The pieces: `document` finds the block's lines and top-level entries, `lexer` reads one
//! value on a line, `scalar` writes a value back in a quoting style that reads the same,
//! `list` rewrites flow and block lists item by item. This file holds the public edits and
//! the read-back check that guards every one of them.

mod document;
mod lexer;
mod list;
mod scalar;
#[cfg(test)]
mod tests;

use crate::markdown::frontmatter::{self, Block};
use document::{Doc, Entry};
use lexer::{Token, eol_of, lex, put};
use list::{FlowForm, flow, flow_items};
use scalar::{Style, plain_ok, render, scalar_text, untag, yaml_scalar};
use serde_yaml::Value;

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
    Doc::parse(text).map(|doc| Outline(doc).shape(key))
}

/// A block read once for several questions: the shape of each value and whether the keys are
/// in an order. Each of [`shape`] and [`reorder`] reads the file's YAML again, and `fmt` asks
/// them of every page; an outline made from the [`frontmatter::Split`] a caller already has
/// reads no YAML beyond the values asked about.
pub struct Outline<'a>(Doc<'a>);

impl<'a> Outline<'a> {
    /// The outline of `text`, whose [`frontmatter::split`] is `split`; `None` when the block
    /// cannot be read or edited (as for every edit).
    pub fn of(text: &'a str, split: &frontmatter::Split<'_>) -> Option<Outline<'a>> {
        Doc::of(text, split).map(Outline)
    }

    /// The shape of the value of a top-level `key`.
    pub fn shape(&self, key: &str) -> Shape {
        let Some(e) = self.0.entry(key) else {
            return Shape::Absent;
        };
        match untag(self.0.value(e)) {
            None | Some(Value::Null) => Shape::Empty,
            Some(Value::Sequence(_)) => Shape::List,
            Some(Value::Mapping(_)) => Shape::Mapping,
            Some(_) => Shape::Scalar,
        }
    }

    /// Whether the keys are in `order` (keys not in it last), that is, whether [`reorder`]
    /// would leave the text as it is.
    pub fn in_order(&self, order: &[&str]) -> bool {
        self.0
            .entries
            .windows(2)
            .all(|w| rank(order, &w[0].key) <= rank(order, &w[1].key))
    }
}

/// Set a top-level scalar. The old value's quoting style and a trailing `# comment` are kept
/// where the new value allows; an absent key is added where the canonical key order puts it.
pub fn set_scalar(text: &str, key: &str, value: &str) -> Option<String> {
    let doc = Doc::parse(text)?;
    let Some(e) = doc.entry(key) else {
        let line = format!("{key}: {}{}", render(value, Style::Plain, false), doc.eol);
        return checked(doc.insert(key, &line), key, |v| is_scalar(v, value));
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
        return checked(doc.insert(key, &line), key, |v| is_list(v, &items));
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
    let mut sorted: Vec<&Entry> = doc.entries.iter().collect();
    sorted.sort_by_key(|e| rank(order, &e.key));
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

/// Where `key` goes in `order`: keys not in it after every key that is. [`reorder`] sorts by
/// it and [`Outline::in_order`] checks it, so that an outline in order is one `reorder` leaves.
fn rank(order: &[&str], key: &str) -> usize {
    order.iter().position(|o| *o == key).unwrap_or(order.len())
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
