//! The files an argument names: a file, a directory or a glob, relative to the vault root;
//! every Markdown file under `wiki/` without one. Walks as scan does (no hidden entries, no
//! `node_modules`, no symbolic links followed).

use super::{FmtError, FmtIssue, unreadable};
use crate::vault;
use std::path::Path;

/// The files the argument names, sorted, and the directories that could not be read.
pub(super) fn select(
    root: &Path,
    target: Option<&str>,
) -> Result<(Vec<String>, Vec<FmtIssue>), FmtError> {
    let Some(arg) = target else {
        return Ok(walk(root, "wiki", &|_| true));
    };
    let rel = relative_arg(root, arg)?;
    let abs = root.join(&rel);
    match fs_err::symlink_metadata(&abs) {
        Ok(m) if m.file_type().is_symlink() => Err(FmtError::Symlink(rel)),
        Ok(m) if m.is_dir() => Ok(walk(root, &rel, &|_| true)),
        Ok(_) => Ok((vec![rel], Vec::new())),
        Err(_) if rel.contains(['*', '?', '[', '{']) => {
            let glob = globset::GlobBuilder::new(&rel)
                .literal_separator(true)
                .build()
                .map_err(|source| FmtError::Glob {
                    pattern: arg.into(),
                    source,
                })?
                .compile_matcher();
            Ok(walk(root, "", &|p| glob.is_match(p)))
        }
        Err(_) => Err(FmtError::NotFound(arg.into())),
    }
}

/// The argument as a vault-relative path with forward slashes (`""` for the root).
fn relative_arg(root: &Path, arg: &str) -> Result<String, FmtError> {
    let path = Path::new(arg);
    let rel = if path.is_absolute() {
        vault::relative(root, path).ok_or_else(|| FmtError::Outside(arg.into()))?
    } else {
        arg.replace('\\', "/")
    };
    let parts: Vec<&str> = rel
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.contains(&"..") {
        return Err(FmtError::Outside(arg.into()));
    }
    Ok(parts.join("/"))
}

/// Markdown files under `base` (vault-relative) accepted by `keep`, skipping what scan skips:
/// hidden entries and `node_modules`. Symbolic links are not followed.
fn walk(root: &Path, base: &str, keep: &dyn Fn(&str) -> bool) -> (Vec<String>, Vec<FmtIssue>) {
    let mut files = Vec::new();
    let mut issues = Vec::new();
    let dir = root.join(base);
    if !dir.is_dir() {
        return (files, issues);
    }
    let walker = walkdir::WalkDir::new(&dir)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0
                || !(name.starts_with('.') || (e.file_type().is_dir() && name == "node_modules"))
        });
    for entry in walker {
        match entry {
            Ok(e) if e.file_type().is_file() => {
                let Some(rel) = vault::relative(root, e.path()) else {
                    continue;
                };
                if rel.to_ascii_lowercase().ends_with(".md") && keep(&rel) {
                    files.push(rel);
                }
            }
            Ok(_) => {}
            Err(e) => {
                let rel = e
                    .path()
                    .and_then(|p| vault::relative(root, p))
                    .unwrap_or_else(|| base.into());
                let cause = e
                    .io_error()
                    .map_or_else(|| e.to_string(), ToString::to_string);
                issues.push(unreadable(&rel, format!("cannot read: {cause}")));
            }
        }
    }
    files.sort();
    (files, issues)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_stay_inside_the_vault() {
        let root = Path::new("/v");
        assert_eq!(relative_arg(root, "./wiki//a.md").unwrap(), "wiki/a.md");
        assert_eq!(relative_arg(root, "/v/wiki").unwrap(), "wiki");
        assert_eq!(relative_arg(root, ".").unwrap(), "");
        assert!(matches!(
            relative_arg(root, "../x"),
            Err(FmtError::Outside(_))
        ));
        assert!(matches!(
            relative_arg(root, "/elsewhere/a.md"),
            Err(FmtError::Outside(_))
        ));
    }
}
