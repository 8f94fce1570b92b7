//! Names and paths for `mv` and `merge`: what NEW means (a title or a path), which titles can
//! be file names, the vault path a Markdown link destination leads to, and the destination that
//! leads to a new path from a given file, written in the style of the old one.

use std::fmt;

/// Characters a title that becomes a file name cannot hold: Obsidian refuses them in file
/// names (`\ / : * ? " < > |`) or in links (`# ^ [ ] |`).
const FORBIDDEN: &[char] = &[
    '\\', '/', ':', '*', '?', '"', '<', '>', '|', '#', '^', '[', ']',
];

/// The longest file name, in bytes, the file systems Sparks runs on take (ext4, APFS, btrfs,
/// XFS, NTFS in UTF-16 units; all 255).
pub const MAX_NAME_BYTES: usize = 255;

/// The longest path, in bytes, a file can be opened by on Linux (`PATH_MAX`, its NUL
/// included).
pub const MAX_PATH_BYTES: usize = 4096;

/// What `sparks mv PAGE NEW` was given as NEW.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NewName {
    /// A new title: the file becomes `TITLE.md` in the same folder.
    Title(String),
    /// A vault-relative path under `wiki/`, ending in `.md`.
    Path(String),
}

impl fmt::Display for NewName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NewName::Title(t) | NewName::Path(t) => f.write_str(t),
        }
    }
}

impl NewName {
    /// Read NEW: a path when it ends in `.md` and names a folder, else a title. Both are
    /// checked here; the message says what is wrong.
    pub fn parse(new: &str) -> Result<NewName, String> {
        let new = new.trim();
        if new.is_empty() {
            return Err(
                "NEW is empty: give a title or a path such as wiki/concepts/Name.md".into(),
            );
        }
        let is_md = crate::key::strip_md(new).is_some_and(|stem| !stem.is_empty());
        if !is_md {
            check_title(new)?;
            check_name_length(&format!("{new}.md"))?;
            return Ok(NewName::Title(new.to_string()));
        }
        if !new.contains('/') {
            return Err(format!(
                "{new:?} ends in .md but names no folder: give a title without .md, or a path \
                 under wiki/ such as wiki/concepts/{new}"
            ));
        }
        let path = new.strip_prefix("./").unwrap_or(new);
        if !path.starts_with("wiki/") {
            return Err(format!(
                "{new:?} is not under wiki/: pages live in the wiki (raw/ is never edited)"
            ));
        }
        let parts: Vec<&str> = path.split('/').collect();
        if parts
            .iter()
            .any(|p| p.is_empty() || p.starts_with('.') || p.contains('\\'))
        {
            return Err(format!(
                "{new:?} is not a plain vault-relative path (empty, `.`, `..` or hidden parts)"
            ));
        }
        let name = stem(path);
        check_title(name).map_err(|e| format!("the file name of {new:?}: {e}"))?;
        if let Some(short) = crate::key::strip_md(name) {
            return Err(format!(
                "the file name of {new:?} ends in .md twice: a link [[{name}]] would name                  {short:?}, not this page; drop one .md"
            ));
        }
        for part in &parts {
            check_name_length(part)?;
        }
        check_path_length(path)?;
        Ok(NewName::Path(path.to_string()))
    }
}

/// Whether `name` fits in a directory entry ([`MAX_NAME_BYTES`]).
fn check_name_length(name: &str) -> Result<(), String> {
    match name.len() > MAX_NAME_BYTES {
        true => Err(format!(
            "the file name {name:?} is {} bytes long; a file system takes {MAX_NAME_BYTES} at most",
            name.len()
        )),
        false => Ok(()),
    }
}

/// Whether `path` (vault-relative, or the whole path of the file) can be opened
/// ([`MAX_PATH_BYTES`]).
pub fn check_path_length(path: &str) -> Result<(), String> {
    match path.len() >= MAX_PATH_BYTES {
        true => Err(format!(
            "the new path is {} bytes long; a file system takes paths of {} bytes at most",
            path.len(),
            MAX_PATH_BYTES - 1
        )),
        false => Ok(()),
    }
}

/// Whether a title can be a page's title and file name.
pub fn check_title(title: &str) -> Result<(), String> {
    if title.trim() != title {
        return Err(format!("{title:?} starts or ends with a space"));
    }
    if title.starts_with('.') {
        return Err(format!("{title:?} starts with a dot (a hidden file)"));
    }
    if let Some(c) = title
        .chars()
        .find(|c| FORBIDDEN.contains(c) || c.is_control())
    {
        return Err(format!(
            "{title:?} contains {c:?}, which a file name or a link cannot hold (not allowed: \
             \\ / : * ? \" < > | # ^ [ ])"
        ));
    }
    Ok(())
}

pub use crate::key::stem;

/// The folder of a vault-relative path (`""` at the root).
pub fn dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The suffix of `path` (without `.md`) made of its last `n` parts, or all of them.
pub fn suffix(path: &str, n: usize) -> String {
    let mut parts: Vec<&str> = dir(path).split('/').filter(|p| !p.is_empty()).collect();
    parts.push(stem(path));
    let from = parts.len().saturating_sub(n);
    parts[from..].join("/")
}

/// The files a Markdown link destination in the file at `source` may name, as vault-relative
/// paths with how each reading takes it (relative to the file, or from the vault root), in the
/// order they are tried. A reading that leaves the vault is none.
pub fn md_target(source: &str, decoded: &str) -> Vec<(String, Style)> {
    let mut out = Vec::new();
    if let Some(rooted) = decoded.strip_prefix('/') {
        out.extend(normalise("", rooted).map(|p| (p, Style::Rooted)));
        return out;
    }
    out.extend(normalise(dir(source), decoded).map(|p| (p, Style::Relative)));
    if !decoded.starts_with("./") && !decoded.starts_with("../") {
        out.extend(normalise("", decoded).map(|p| (p, Style::FromRoot)));
    }
    out
}

/// How a Markdown link destination names its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Relative to the linking file (`Old.md`, `../x/Old.md`).
    Relative,
    /// From the vault root, without a leading slash (Obsidian's "absolute path in vault").
    FromRoot,
    /// From the vault root, with a leading slash.
    Rooted,
}

/// `rel` joined to the folder `base`, with `.` and `..` resolved; `None` above the root.
fn normalise(base: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    for p in rel.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// The destination, in `style`, that leads from the file at `source` to the file at `target`
/// (both vault-relative). `dot` keeps a leading `./`.
pub fn md_destination(source: &str, target: &str, style: Style, dot: bool) -> String {
    match style {
        Style::Rooted => format!("/{target}"),
        Style::FromRoot => target.to_string(),
        Style::Relative => {
            let from: Vec<&str> = dir(source).split('/').filter(|p| !p.is_empty()).collect();
            let to: Vec<&str> = target.split('/').collect();
            let common = from
                .iter()
                .zip(&to)
                .take_while(|(a, b)| a == b)
                .count()
                .min(to.len() - 1);
            let mut out = "../".repeat(from.len() - common);
            if out.is_empty() && dot {
                out.push_str("./");
            }
            out.push_str(&to[common..].join("/"));
            out
        }
    }
}

/// A destination as it must be written: inside `<>` as it is (but for `<`, `>` and line
/// breaks), else with spaces and the characters a link cannot hold percent-encoded.
pub fn encode_destination(dest: &str, angle: bool) -> String {
    let mut out = String::with_capacity(dest.len());
    for c in dest.chars() {
        let escape = match angle {
            true => matches!(c, '<' | '>' | '\n' | '\r'),
            false => {
                c.is_whitespace()
                    || c.is_control()
                    || matches!(
                        c,
                        '%' | '(' | ')' | '<' | '>' | '\\' | '[' | ']' | '?' | '#'
                    )
            }
        };
        if escape {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_is_a_title_or_a_path_under_wiki() {
        assert_eq!(
            NewName::parse(" Big Query "),
            Ok(NewName::Title("Big Query".into()))
        );
        assert_eq!(
            NewName::parse("wiki/entities/Big Query.md"),
            Ok(NewName::Path("wiki/entities/Big Query.md".into()))
        );
        assert_eq!(
            NewName::parse("./wiki/a.md"),
            Ok(NewName::Path("wiki/a.md".into()))
        );
        for bad in [
            "",
            "a/b",
            "C++: a tour",
            "x#y",
            "Note.md",
            "raw/x.md",
            "wiki/../x.md",
            "wiki/.hidden/x.md",
            ".dot",
            "wiki/a/b:c.md",
            "wiki/a/Note.md.md",
            "wiki/a/💡.MD.md",
        ] {
            assert!(NewName::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn new_names_fit_the_file_system() {
        // `é` is two bytes: the limit is in bytes, not characters.
        let longest = "é".repeat(126);
        assert!(NewName::parse(&longest).is_ok(), "126 × 2 + 3 = 255 bytes");
        let over = format!("{longest}x");
        let e = NewName::parse(&over).unwrap_err();
        assert!(e.contains("is 256 bytes long") && e.contains(&over), "{e}");
        let folder = "f".repeat(256);
        assert!(NewName::parse(&format!("wiki/{folder}/A.md")).is_err());
        assert!(
            NewName::parse("éé").is_ok(),
            "no byte of a character is cut"
        );
        assert!(NewName::parse(&format!("wiki/{}.md", "a".repeat(252))).is_ok());
        assert!(NewName::parse(&format!("wiki/{}.md", "a".repeat(253))).is_err());
        let deep = format!("wiki/{}A.md", "d/".repeat(2048));
        let e = NewName::parse(&deep).unwrap_err();
        assert!(
            e.contains(&format!("the new path is {} bytes long", deep.len())),
            "{e}"
        );
    }

    #[test]
    fn stems_dirs_and_suffixes() {
        assert_eq!(stem("wiki/a/Old Name.md"), "Old Name");
        assert_eq!(stem("wiki/a/pic.png"), "pic.png");
        assert_eq!(dir("wiki/a/Old.md"), "wiki/a");
        assert_eq!(dir("top.md"), "");
        assert_eq!(suffix("wiki/concepts/New.md", 1), "New");
        assert_eq!(suffix("wiki/concepts/New.md", 2), "concepts/New");
        assert_eq!(suffix("wiki/concepts/New.md", 9), "wiki/concepts/New");
    }

    #[test]
    fn markdown_destinations_relative_and_rooted() {
        assert_eq!(
            md_target("wiki/a/P.md", "../b/Old.md"),
            [("wiki/b/Old.md".to_string(), Style::Relative)]
        );
        assert_eq!(
            md_target("wiki/a/P.md", "wiki/b/Old.md"),
            [
                ("wiki/a/wiki/b/Old.md".to_string(), Style::Relative),
                ("wiki/b/Old.md".to_string(), Style::FromRoot)
            ]
        );
        assert_eq!(
            md_target("wiki/P.md", "/wiki/Old.md"),
            [("wiki/Old.md".to_string(), Style::Rooted)]
        );
        assert!(md_target("wiki/P.md", "../../../x.md").is_empty());
        assert_eq!(
            md_destination("wiki/a/P.md", "wiki/b/New.md", Style::Relative, false),
            "../b/New.md"
        );
        assert_eq!(
            md_destination("wiki/a/P.md", "wiki/a/New.md", Style::Relative, true),
            "./New.md"
        );
        assert_eq!(
            md_destination("wiki/P.md", "wiki/a/New.md", Style::Relative, false),
            "a/New.md"
        );
        assert_eq!(
            md_destination("wiki/a/b/P.md", "wiki/New.md", Style::Relative, false),
            "../../New.md"
        );
        assert_eq!(
            md_destination("wiki/P.md", "wiki/N.md", Style::Rooted, false),
            "/wiki/N.md"
        );
        assert_eq!(
            encode_destination("New Name (2)%.md", false),
            "New%20Name%20%282%29%25.md"
        );
        assert_eq!(encode_destination("New Name.md", true), "New Name.md");
    }
}
