//! Conflict copies: where a sync puts the other device's version of a file when the two
//! versions cannot be merged, `<name> (conflict YYYY-MM-DD).<ext>` beside the file, so that no
//! conflict marker ever lands in a page. The names are made and recognised here, below the
//! scan and the manifest: a copy is a file the manifest records and search finds, never a page
//! (it takes no title, alias or file name from link resolution), and the `sync-conflicts`
//! lint check lists it until it is gone.

use crate::markdown::frontmatter::is_date;

/// What a conflict copy's name says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictCopy {
    /// The vault-relative path of the file it is a copy of: the copy's without
    /// ` (conflict …)`.
    pub original: String,
    /// The day the copy was made, `YYYY-MM-DD`.
    pub date: String,
}

/// The vault-relative path of the conflict copy of `path` made on `date` (`YYYY-MM-DD`): the
/// first of `<dir>/<stem> (conflict DATE).<ext>`, `… (conflict DATE 2).<ext>`, … that `taken`
/// does not refuse. A name without an extension gets none.
pub fn conflict_copy_name(path: &str, date: &str, taken: impl Fn(&str) -> bool) -> String {
    let (dir, name) = split_dir(path);
    let (stem, ext) = split_extension(name);
    let ext = ext.map(|e| format!(".{e}")).unwrap_or_default();
    let mut n = 1;
    loop {
        let number = if n == 1 {
            String::new()
        } else {
            format!(" {n}")
        };
        let candidate = format!("{dir}{stem} (conflict {date}{number}){ext}");
        if !taken(&candidate) {
            return candidate;
        }
        n += 1;
    }
}

/// Whether `path` is named as [`conflict_copy_name`] names a conflict copy.
pub fn is_conflict_copy(path: &str) -> bool {
    conflict_copy(path).is_some()
}

/// The file `path` is a conflict copy of, and the copy's date, when `path` is named as
/// [`conflict_copy_name`] names a copy.
pub fn conflict_copy(path: &str) -> Option<ConflictCopy> {
    let (dir, name) = split_dir(path);
    let (stem, ext) = split_extension(name);
    // Nearly every path fails here, before any allocation: the scan asks of every file.
    let (before, inner) = stem.strip_suffix(')')?.rsplit_once(" (conflict ")?;
    let (date, number) = inner.split_once(' ').unwrap_or((inner, ""));
    let numbered = number.is_empty()
        || (number.bytes().all(|b| b.is_ascii_digit())
            && !number.starts_with('0')
            && number != "1");
    if before.is_empty() || !is_date(date) || !numbered {
        return None;
    }
    let ext = ext.map(|e| format!(".{e}")).unwrap_or_default();
    Some(ConflictCopy {
        original: format!("{dir}{before}{ext}"),
        date: date.to_string(),
    })
}

/// A path's directory (with its trailing slash, empty at the root) and file name.
fn split_dir(path: &str) -> (&str, &str) {
    match path.rfind('/') {
        Some(i) => path.split_at(i + 1),
        None => ("", path),
    }
}

/// A file name's stem and extension: the text after the last dot, when there is text before
/// the dot and the extension is a word (`v1.2 notes` has none).
fn split_extension(name: &str) -> (&str, Option<&str>) {
    match name.rfind('.') {
        Some(i) if i > 0 && i + 1 < name.len() && !name[i + 1..].contains(' ') => {
            (&name[..i], Some(&name[i + 1..]))
        }
        _ => (name, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: &str = "2026-05-01";

    #[test]
    fn names_keep_the_folder_and_the_extension() {
        for (path, copy) in [
            (
                "wiki/entities/Ann Lee.md",
                "wiki/entities/Ann Lee (conflict 2026-05-01).md",
            ),
            ("raw/photo.v2.png", "raw/photo.v2 (conflict 2026-05-01).png"),
            ("Makefile", "Makefile (conflict 2026-05-01)"),
            (".gitignore", ".gitignore (conflict 2026-05-01)"),
            ("notes/v1.2 draft", "notes/v1.2 draft (conflict 2026-05-01)"),
        ] {
            assert_eq!(conflict_copy_name(path, DAY, |_| false), copy);
            let found = conflict_copy(copy).expect("a copy");
            assert_eq!((found.original.as_str(), found.date.as_str()), (path, DAY));
        }
    }

    #[test]
    fn a_taken_name_is_numbered() {
        let taken = [
            "a/B (conflict 2026-05-01).md",
            "a/B (conflict 2026-05-01 2).md",
        ];
        let name = conflict_copy_name("a/B.md", DAY, |c| taken.contains(&c));
        assert_eq!(name, "a/B (conflict 2026-05-01 3).md");
        assert_eq!(
            conflict_copy(&name),
            Some(ConflictCopy {
                original: "a/B.md".into(),
                date: DAY.into()
            })
        );
    }

    #[test]
    fn copies_are_recognised_and_pages_are_not() {
        for copy in [
            "wiki/B (conflict 2026-05-01).md",
            "wiki/B (conflict 2026-05-01 12).md",
            "Makefile (conflict 2026-05-01)",
            "raw/photo.v2 (conflict 2026-05-01).png",
            &conflict_copy_name("x/y.md", DAY, |c| !c.contains(" 4)")),
        ] {
            assert!(is_conflict_copy(copy), "{copy}");
        }
        for page in [
            "wiki/B.md",
            "wiki/B (conflict).md",
            "wiki/B (conflict 2026-13-01).md",
            "wiki/B (conflict 2026-05-01 1).md",
            "wiki/B (conflict 2026-05-01 x).md",
            "wiki/B (conflict 2026-05-01) notes.md",
            "wiki/ (conflict 2026-05-01).md",
            "wiki/(conflict 2026-05-01).md",
        ] {
            assert!(!is_conflict_copy(page), "{page}");
            assert_eq!(conflict_copy(page), None, "{page}");
        }
    }
}
