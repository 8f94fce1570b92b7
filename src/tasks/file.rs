//! `Tasks.md` as lines that keep their endings, its seed, and its rewrite: atomic, and only if
//! the file is still the one that was read.

use super::TaskError;
use crate::fsio;
use crate::fsio::FileError;
use std::path::Path;

/// The content of a new `Tasks.md`.
pub(super) fn seed(today: &str) -> String {
    format!(
        "---\ntitle: Tasks\ntype: collection\nmaturity: working\ntags: [tasks]\nsources: []\n\
         created: {today}\nupdated: {today}\n---\n\n# Tasks\n\n\
         Open tasks are `- [ ]` lines, done ones `- [x]`, grouped under `##` sections. Add them with \
         `sparks tasks add` and complete them with `sparks done`.\n"
    )
}

/// A text file as lines that keep their endings.
pub(super) struct Lines {
    pub(super) text: String,
    /// Byte ranges of each line's content (without its ending).
    pub(super) lines: Vec<(usize, usize)>,
    pub(super) newline: &'static str,
}

impl Lines {
    pub(super) fn parse(path: &Path, bytes: Vec<u8>) -> Result<Lines, TaskError> {
        let text = fsio::utf8(&bytes)
            .map_err(|line| TaskError::Encoding {
                path: path.to_path_buf(),
                line,
            })?
            .to_string();
        let mut lines = Vec::new();
        let mut pos = 0;
        for l in text.split_inclusive('\n') {
            let content = l.trim_end_matches('\n').trim_end_matches('\r');
            lines.push((pos, pos + content.len()));
            pos += l.len();
        }
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        Ok(Lines {
            text,
            lines,
            newline,
        })
    }

    pub(super) fn line(&self, i: usize) -> &str {
        let (a, b) = self.lines[i];
        &self.text[a..b]
    }

    /// The text with `new` inserted as a line before line `at` (0-based; `len` appends).
    pub(super) fn insert(&self, at: usize, new: &str) -> String {
        let offset = if at < self.lines.len() {
            self.lines[at].0
        } else {
            self.text.len()
        };
        let mut out = String::with_capacity(self.text.len() + new.len() + 2);
        out.push_str(&self.text[..offset]);
        if offset > 0 && !out.ends_with('\n') {
            out.push_str(self.newline);
        }
        out.push_str(new);
        out.push_str(self.newline);
        out.push_str(&self.text[offset..]);
        out
    }
}

pub(super) fn heading_name(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix("### ")
        .or_else(|| line.strip_prefix("## "))?;
    Some(rest.trim())
}

/// The bytes of the file; `None` when there is none.
pub(super) fn load(path: &Path) -> Result<Option<Vec<u8>>, TaskError> {
    Ok(fsio::read_if_exists(path).map_err(FileError::at("read", path))?)
}

pub(super) fn write(path: &Path, text: &str) -> Result<(), TaskError> {
    if let Some(dir) = path.parent() {
        fs_err::create_dir_all(dir).map_err(FileError::at("create", dir))?;
    }
    Ok(fsio::write_atomic(path, text.as_bytes()).map_err(FileError::at("write", path))?)
}

/// Write `text` to `path` if the file still holds `old` (`None`: there was no file), so that
/// a line a human appended after it was read is never lost; `false`, writing nothing, if it
/// changed: the caller reads it again and starts over.
pub(super) fn replace(path: &Path, old: Option<&[u8]>, text: &str) -> Result<bool, TaskError> {
    let Some(old) = old else {
        write(path, text)?;
        return Ok(true);
    };
    Ok(fsio::replace_if_unchanged(path, old, text.as_bytes())
        .map_err(FileError::at("replace", path))?)
}
