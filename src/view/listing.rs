//! The listing of a directory under `raw/` (the original viewer's `/raw/<dir>/`): folders
//! first, then files with their sizes, by name.

use super::html::{count, crumbs};
use super::site::{Reply, Site};
use crate::render::html::{esc, href_for};
use crate::render::paths;
use std::fmt::Write as _;

/// The listing of a directory under `raw/`: directories first, then files, by name.
pub(super) fn listing(site: &Site, rel: &str, dir: &std::path::Path) -> Reply {
    let Ok(entries) = fs_err::read_dir(dir) else {
        return site.not_found();
    };
    let mut dirs = Vec::new();
    let mut files = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        // Symbolic links are not listed: the scan does not follow them either.
        match e.file_type() {
            Ok(t) if t.is_dir() => dirs.push(name),
            Ok(t) if t.is_file() => {
                let size = e.metadata().map_or(0, |m| m.len());
                files.push((name, size));
            }
            _ => {}
        }
    }
    dirs.sort_by_cached_key(|n| crate::key::key(n));
    files.sort_by_cached_key(|(n, _)| crate::key::key(n));
    let title = format!("{rel}/");
    let mut main = format!("<h1>{}</h1>\n", esc(&title));
    let _ = writeln!(
        main,
        "<p class=\"lede\">{}, {}.</p>\n<ul class=\"listing\">",
        count(dirs.len(), "folder", "folders"),
        count(files.len(), "file", "files")
    );
    for d in &dirs {
        let _ = writeln!(
            main,
            "<li class=\"dir\"><a href=\"/{}/\">{}/</a></li>",
            esc(&paths::encode_path(&format!("{rel}/{d}"))),
            esc(d)
        );
    }
    for (f, size) in &files {
        let _ = writeln!(
            main,
            "<li class=\"file\"><a href=\"{}\">{}</a> <span class=\"meta\">{}</span></li>",
            esc(&href_for(&format!("{rel}/{f}"))),
            esc(f),
            size_text(*size)
        );
    }
    main.push_str("</ul>\n");
    let mut layout = site.layout(Some(&title), main, None);
    layout.crumbs = crumbs(&format!("{rel}/"));
    Reply::html(200, layout.render())
}

/// A byte count for people.
pub(super) fn size_text(n: u64) -> String {
    match n {
        0..1024 => count(n as usize, "byte", "bytes"),
        1024..1_048_576 => format!("{:.1} KiB", n as f64 / 1024.0),
        _ => format!("{:.1} MiB", n as f64 / 1_048_576.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(size_text(1), "1 byte");
        assert_eq!(size_text(2048), "2.0 KiB");
    }
}
