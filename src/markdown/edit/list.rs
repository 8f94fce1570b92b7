//! Lists: a flow list `[a, b]` rewritten with its spacing and each kept item's text, and a
//! block list (`- a` lines) rewritten item by item with its indentation and comments.

use super::document::{Doc, Entry, item_start};
use super::lexer::{Token, eol_of, lex, put, quoted_end};
use super::scalar::{Style, render, scalar_text, yaml_scalar};
use serde_yaml::Value;
use std::ops::Range;

impl Doc<'_> {
    /// Whether the value lines of `e` are `- item` lines.
    pub(super) fn is_block_list(&self, e: &Entry) -> bool {
        (e.line + 1..e.value_end)
            .map(|i| self.line(i).trim_start())
            .find(|t| !t.trim().is_empty() && !t.starts_with('#'))
            .is_some_and(|t| item_start(t).is_some())
    }

    /// New value lines of a block list: an item whose value stays keeps its lines; a changed
    /// item keeps its place, indentation and comment; comments above dropped items are kept.
    pub(super) fn block_list(&self, e: &Entry, items: &[&str]) -> String {
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
    pub(super) fn groups(&self, e: &Entry) -> Vec<Group> {
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
pub(super) struct Group {
    pub(super) lead: Range<usize>,
    pub(super) item: usize,
    pub(super) end: usize,
    /// Where the item's value starts in its line.
    pub(super) token_at: usize,
    pub(super) value: Option<String>,
}

/// How a flow list was spaced: `[a, b]`, `[ a, b ]`, `[a,b]`.
pub(super) struct FlowForm {
    pub(super) pad: &'static str,
    pub(super) sep: &'static str,
}

impl Default for FlowForm {
    fn default() -> Self {
        FlowForm { pad: "", sep: ", " }
    }
}

/// The items of a one-line flow list's inside (source text and value) and its spacing.
pub(super) fn flow_items(inner: &str) -> (Vec<(String, Option<String>)>, FlowForm) {
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
pub(super) fn flow(items: &[&str], old: &[(String, Option<String>)], form: &FlowForm) -> String {
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

/// The comment lines of `text`, without its blank lines.
pub(super) fn comments_only(text: &str) -> String {
    text.split_inclusive('\n')
        .filter(|l| l.trim_start().starts_with('#'))
        .collect()
}
