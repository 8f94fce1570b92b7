//! The source rules: which pages are stale (older than a source they cite) and which
//! sources are dead (they name nothing in the vault). The manifest only reads the rows, the
//! pages' sources and the live files, each in one pass ([`Manifest::each_cited`],
//! [`Manifest::live_files`]); the rules are here, joined in memory. `query --stale` asks the
//! same question in SQL (`manifest::sql::STALE`); a test in the manifest holds the two to
//! the same pages.

use crate::manifest::{Cited, LiveFiles, Manifest, ManifestError};
use std::ops::ControlFlow;

/// A stale page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    /// The page's path.
    pub path: String,
    /// Its `updated:` date.
    pub updated: String,
    /// The newest of its sources that changed after that date, as a vault path.
    pub source: String,
    /// The local date that source changed on.
    pub changed: String,
}

/// A dead source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dead {
    /// The citing page's path.
    pub page: String,
    /// The source, as written.
    pub source: String,
}

/// Stale pages, each with its `updated:` date and the newest source that is newer (by the
/// local date of its modification time), by path. A page whose `updated:` is not a date is
/// never stale.
pub fn stale_pages(manifest: &Manifest) -> Result<Vec<Stale>, ManifestError> {
    Ok(judge(manifest, true, false)?.0)
}

/// `give` the path of each of [`stale_pages`], by path, as it is judged, until it breaks: the
/// live files are held, not the stale pages.
pub fn each_stale_path(
    manifest: &Manifest,
    give: &mut dyn FnMut(String) -> ControlFlow<()>,
) -> Result<(), ManifestError> {
    let files = manifest.live_files()?;
    manifest.each_cited_by_path(&mut |page| match stale_page(&files, &page) {
        Some(s) => give(s.path),
        None => ControlFlow::Continue(()),
    })
}

/// Sources that name no file or directory of the vault, by page and then as listed.
pub fn dead_sources(manifest: &Manifest) -> Result<Vec<Dead>, ManifestError> {
    Ok(judge(manifest, false, true)?.1)
}

/// [`stale_pages`] and [`dead_sources`] together, reading the files and the pages' sources
/// once.
pub fn stale_and_dead(manifest: &Manifest) -> Result<(Vec<Stale>, Vec<Dead>), ManifestError> {
    judge(manifest, true, true)
}

/// The stale pages (when `stale`) and the dead sources (when `dead`): the live files are
/// held, each page's sources judged as they are read.
fn judge(
    manifest: &Manifest,
    stale: bool,
    dead: bool,
) -> Result<(Vec<Stale>, Vec<Dead>), ManifestError> {
    let files = manifest.live_files()?;
    let (mut stale_found, mut dead_found) = (Vec::new(), Vec::new());
    manifest.each_cited(|page| {
        if stale {
            stale_found.extend(stale_page(&files, &page));
        }
        if dead {
            dead_of_page(&files, page, &mut dead_found);
        }
    })?;
    stale_found.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    // Stable: a page's dead sources stay as listed.
    dead_found.sort_by(|a, b| a.page.cmp(&b.page));
    Ok((stale_found, dead_found))
}

/// Whether `s` is a date written `YYYY-MM-DD`, as SQLite's `date(s) = s` tells.
fn is_date(s: &str) -> bool {
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .is_ok_and(|d| d.format("%Y-%m-%d").to_string() == s)
}

/// The local date (`YYYY-MM-DD`) of a modification time in nanoseconds, as SQLite's
/// `date(ns / 1000000000, 'unixepoch', 'localtime')`.
fn local_date(ns: i64) -> Option<String> {
    use chrono::{Datelike, TimeZone};
    let day = chrono::Local
        .timestamp_opt(ns / 1_000_000_000, 0)
        .earliest()?
        .date_naive();
    Some(format!(
        "{:04}-{:02}-{:02}",
        day.year(),
        day.month(),
        day.day()
    ))
}

/// The stale pages among `pages`, by path.
#[cfg(test)]
fn stale_of(files: &LiveFiles, pages: &[Cited]) -> Vec<Stale> {
    let mut stale: Vec<Stale> = pages.iter().filter_map(|p| stale_page(files, p)).collect();
    stale.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    stale
}

/// Whether `page` is stale: its `updated:` is a date older than the local date a source last
/// changed on. The newest such source is named, the first listed among equals.
fn stale_page(files: &LiveFiles, page: &Cited) -> Option<Stale> {
    let updated = page.updated.as_deref().unwrap_or_default();
    if !is_date(updated) {
        return None;
    }
    let mut newest: Option<(String, &str)> = None;
    for source in &page.sources {
        let path = source.strip_prefix("./").unwrap_or(source);
        let Some(date) = files.mtime(path).and_then(local_date) else {
            continue;
        };
        if date.as_str() > updated && newest.as_ref().is_none_or(|(d, _)| date > *d) {
            newest = Some((date, path));
        }
    }
    let (changed, source) = newest?;
    Some(Stale {
        path: page.path.clone(),
        updated: updated.to_string(),
        source: source.to_string(),
        changed,
    })
}

/// The dead sources of `pages`, by page and then as listed.
#[cfg(test)]
fn dead_of(files: &LiveFiles, mut pages: Vec<Cited>) -> Vec<Dead> {
    pages.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    let mut dead = Vec::new();
    for page in pages {
        dead_of_page(files, page, &mut dead);
    }
    dead
}

/// Push the sources of `page` that name neither a live file nor a directory holding one onto
/// `dead`, as listed; blank sources are not checked.
fn dead_of_page(files: &LiveFiles, page: Cited, dead: &mut Vec<Dead>) {
    for source in page.sources {
        if source.trim_matches(' ').is_empty() {
            continue;
        }
        let x = source.strip_prefix("./").unwrap_or(&source);
        let x = x.trim_end_matches('/');
        if files.mtime(x).is_none() && !files.holds(x) {
            dead.push(Dead {
                page: page.path.clone(),
                source,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    /// A modification time (ns) at local noon of `date`.
    fn noon(date: &str) -> i64 {
        let t = chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d")
            .unwrap()
            .and_hms_opt(12, 0, 0)
            .unwrap();
        chrono::Local
            .from_local_datetime(&t)
            .earliest()
            .unwrap()
            .timestamp()
            * 1_000_000_000
    }

    fn files(list: &[(&str, &str)]) -> LiveFiles {
        list.iter().map(|(p, d)| (p.to_string(), noon(d))).collect()
    }

    fn page(path: &str, updated: Option<&str>, sources: &[&str]) -> Cited {
        Cited {
            path: path.into(),
            updated: updated.map(str::to_string),
            sources: sources.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn a_page_is_stale_when_a_source_changed_on_a_later_day_and_names_the_newest() {
        let files = files(&[
            ("raw/old.md", "2026-04-10"),
            ("raw/same.md", "2026-04-15"),
            ("raw/new.md", "2026-04-20"),
            ("raw/newer.md", "2026-04-25"),
            ("raw/newer2.md", "2026-04-25"),
        ]);
        let pages = [
            page(
                "wiki/z.md",
                Some("2026-04-15"),
                &[
                    "raw/old.md",
                    "./raw/new.md",
                    "raw/newer2.md",
                    "raw/newer.md",
                ],
            ),
            // The same day is not newer.
            page(
                "wiki/same.md",
                Some("2026-04-15"),
                &["raw/same.md", "raw/old.md"],
            ),
            // Not a date: never stale.
            page("wiki/nodate.md", Some("2026-04-01T10:00"), &["raw/new.md"]),
            page("wiki/none.md", None, &["raw/new.md"]),
            page("wiki/feb.md", Some("2026-02-30"), &["raw/new.md"]),
            // A source that is not a live file counts for nothing.
            page("wiki/gone.md", Some("2026-01-01"), &["raw/gone.md"]),
            page(
                "wiki/a.md",
                Some("2026-04-19"),
                &["raw/new.md", "raw/old.md"],
            ),
        ];
        let stale = stale_of(&files, &pages);
        let want = |path: &str, updated: &str, source: &str, changed: &str| Stale {
            path: path.into(),
            updated: updated.into(),
            source: source.into(),
            changed: changed.into(),
        };
        assert_eq!(
            stale,
            [
                want("wiki/a.md", "2026-04-19", "raw/new.md", "2026-04-20"),
                // The newest source, the first listed among equals, without its `./`.
                want("wiki/z.md", "2026-04-15", "raw/newer2.md", "2026-04-25"),
            ]
        );
    }

    #[test]
    fn a_source_is_dead_when_it_names_no_live_file_nor_a_folder_holding_one() {
        let files = files(&[
            ("raw/a.md", "2026-04-10"),
            ("raw/dir/deep/c.md", "2026-04-10"),
        ]);
        let pages = vec![
            page(
                "wiki/b.md",
                None,
                &[
                    "raw/a.md",
                    "./raw/a.md",
                    "raw/dir/",
                    "raw/dir/deep",
                    "  ",
                    "raw/di",
                ],
            ),
            page(
                "wiki/a.md",
                Some("2026-01-01"),
                &["raw/nope.md", "raw/a.md/"],
            ),
        ];
        let dead: Vec<(String, String)> = dead_of(&files, pages)
            .into_iter()
            .map(|d| (d.page, d.source))
            .collect();
        let want = |p: &str, s: &str| (p.to_string(), s.to_string());
        assert_eq!(
            dead,
            [
                want("wiki/a.md", "raw/nope.md"),
                want("wiki/b.md", "raw/di")
            ]
        );
    }
}
