//! Reading source files for the extractors: which files, their text, and line helpers.

use crate::manifest::{Manifest, ManifestError};
use crate::vault::Vault;
use std::cell::RefCell;
use std::collections::HashMap;

/// What the extractors read: the vault's live files (as the last scan saw them) and their
/// text, each file read once.
pub struct Inputs<'a> {
    /// The vault.
    pub vault: &'a Vault,
    /// Its manifest.
    pub manifest: &'a Manifest,
    files: Vec<String>,
    cache: RefCell<HashMap<String, Option<String>>>,
}

impl<'a> Inputs<'a> {
    /// The inputs of `vault`.
    pub fn new(vault: &'a Vault, manifest: &'a Manifest) -> Result<Inputs<'a>, ManifestError> {
        Ok(Inputs {
            vault,
            manifest,
            files: manifest.changed_since(None)?,
            cache: RefCell::new(HashMap::new()),
        })
    }

    /// Live files for which `keep` holds, by path.
    pub fn files(&self, keep: impl Fn(&str) -> bool) -> Vec<String> {
        self.files.iter().filter(|p| keep(p)).cloned().collect()
    }

    /// The text of a vault file (invalid UTF-8 replaced), or `None` if it cannot be read.
    pub fn text(&self, rel: &str) -> Option<String> {
        if let Some(t) = self.cache.borrow().get(rel) {
            return t.clone();
        }
        let t = crate::fsio::read(&self.vault.path(rel))
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned());
        self.cache.borrow_mut().insert(rel.to_string(), t.clone());
        t
    }
}

/// The body of a Markdown file: its lines after a frontmatter block, CR removed.
pub fn body_lines(text: &str) -> Vec<&str> {
    let body = crate::markdown::frontmatter::split(text).body;
    body.lines().map(|l| l.trim_end_matches('\r')).collect()
}

/// The capture lines of an archive file: separators and block markers left out.
pub fn archive_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| l.trim() != "---" && !crate::archive::is_marker(l))
}

/// The captures of an archive file, each as its lines: blocks split at the `---` separators,
/// markers left out, empty blocks dropped. A capture's content never holds a `---` line (the
/// inbox splits there), so each block is one capture, and a quote never runs into the next.
pub fn archive_entries(text: &str) -> Vec<Vec<&str>> {
    let mut out: Vec<Vec<&str>> = vec![Vec::new()];
    for line in text.lines().map(|l| l.trim_end_matches('\r')) {
        if line.trim() == "---" {
            out.push(Vec::new());
        } else if !crate::archive::is_marker(line) {
            out.last_mut().expect("never empty").push(line);
        }
    }
    out.retain(|e| e.iter().any(|l| !l.trim().is_empty()));
    out
}

/// The value after a `label:` at the start of a line (case-insensitive), if not empty.
pub fn labelled<'t>(line: &'t str, label: &str) -> Option<&'t str> {
    let t = line.trim_start();
    let head = t.get(..label.len())?;
    if !head.eq_ignore_ascii_case(label) {
        return None;
    }
    Some(t[label.len()..].trim()).filter(|v| !v.is_empty())
}

/// At most `n` characters of `s`, with `…` when cut; never splits a character.
pub fn shorten(s: &str, n: usize) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= n {
        return one_line;
    }
    let cut: String = one_line.chars().take(n.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

/// Text safe to put in a generated Markdown line: no raw HTML, no line breaks.
pub fn inline(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The file name of a path without its `.md`.
pub fn stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".md").unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorten_never_splits_a_character() {
        assert_eq!(shorten("ééééé", 3), "éé…");
        assert_eq!(shorten("a\nb", 10), "a b");
    }

    #[test]
    fn archive_lines_skip_structure() {
        let t = "---\n<!-- sparks: ingest 1 k entry 1 blake3 h -->\nbook: Dune\n";
        assert_eq!(archive_lines(t).collect::<Vec<_>>(), ["book: Dune"]);
    }

    #[test]
    fn archive_entries_split_at_separators() {
        let t = "---\n<!-- sparks: ingest 1 k entry 1 blake3 h -->\n> a\n---\n<!-- sparks: ingest 1 k entry 2 blake3 h -->\n\n— b\n---\n";
        assert_eq!(archive_entries(t), [vec!["> a"], vec!["", "— b"]]);
        assert_eq!(archive_entries("plain\n"), [vec!["plain"]]);
    }

    #[test]
    fn inline_escapes_html() {
        assert_eq!(inline("<b>x</b>\ny"), "&lt;b&gt;x&lt;/b&gt; y");
    }
}
