//! `sparks fmt`: the frontmatter of files read from disk, checked against the schema that
//! `lint` uses ([`crate::schema::validate`], no rules of its own), and with `fix` the
//! mechanical repairs: key order, tag form, a single value where a list belongs, date form.
//! Without `fix`, every repair `fix` would make is reported as an issue.
//! The edits themselves are [`crate::markdown::edit`]'s; this module chooses the files, the
//! repairs, and writes atomically. Never invents content: a missing title stays missing.

use crate::manifest::Manifest;
use crate::markdown::edit::{self, Shape};
use crate::markdown::{Block, Frontmatter, frontmatter};
use crate::schema::{self, Severity};
use crate::vault::Vault;
use crate::{fault, fsio, vault};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::Path;

/// What to check.
#[derive(Debug, Clone, Default)]
pub struct FmtRequest {
    /// A vault-relative file, directory or glob; `None` for every Markdown file under `wiki/`.
    pub target: Option<String>,
    /// Repair what is mechanical and write the files that change.
    pub fix: bool,
    /// Sources that count as existing although they do not yet: the archive files of the open
    /// ingest ([`crate::ingest::pending_archives`]).
    pub pending: BTreeSet<String>,
}

/// The outcome: what was checked, what remains wrong, what was fixed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FmtReport {
    /// Files read.
    pub files_checked: usize,
    /// Files (or unreadable directories) with at least one issue left.
    pub files_with_issues: usize,
    /// The issues left, by path then line.
    pub issues: Vec<FmtIssue>,
    /// The changes made, in the order they were made.
    pub fixes: Vec<Fix>,
    /// Files rewritten.
    pub files_fixed: usize,
}

/// One frontmatter problem.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FmtIssue {
    /// The vault-relative path.
    pub path: String,
    /// The 1-based line (of the key, or of the block's opening line when a key is missing);
    /// `None` when the file could not be read.
    pub line: Option<usize>,
    /// The key concerned; `None` for the block as a whole.
    pub key: Option<String>,
    /// Missing or invalid.
    pub severity: Severity,
    /// What is wrong.
    pub message: String,
}

/// One change made by `fix`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fix {
    /// The vault-relative path.
    pub path: String,
    /// The key changed; `None` when the keys were reordered.
    pub key: Option<String>,
    /// The value before (for a reorder, the keys in their old order).
    pub before: String,
    /// The value after.
    pub after: String,
}

/// `fmt` could not do its work.
#[derive(Debug, thiserror::Error)]
pub enum FmtError {
    /// The argument names a place outside the vault.
    #[error("{0:?} is outside the vault (give a path relative to the vault root)")]
    Outside(String),
    /// The argument names nothing.
    #[error(
        "no file or directory {0:?} in the vault (paths and globs are relative to the vault root)"
    )]
    NotFound(String),
    /// The argument is a symbolic link, which fmt neither follows nor replaces.
    #[error("{0} is a symbolic link; fmt does not follow links")]
    Symlink(String),
    /// The glob does not parse.
    #[error("{pattern:?} is not a valid glob: {source}")]
    Glob {
        /// The pattern.
        pattern: String,
        /// The cause.
        source: globset::Error,
    },
    /// A fixed file could not be written.
    #[error("cannot write {path}")]
    Write {
        /// The vault-relative path.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A file changed every time fmt was about to write it.
    #[error("{0} kept changing while it was being fixed; it was left as it is")]
    Busy(String),
    /// A repair would have made the block unreadable (a bug: nothing is written).
    #[error("fixing {0} would make its frontmatter unreadable; it was left as it is")]
    Broken(String),
    /// The files were fixed, but recording them in the manifest failed.
    #[error("the files were fixed, but the manifest could not record them: {0}")]
    Record(#[from] crate::scan::ScanError),
}

/// Check (and with `req.fix`, repair) the frontmatter of the chosen files of the vault at `root`.
pub fn fmt(root: &Path, req: &FmtRequest) -> Result<FmtReport, FmtError> {
    let (files, mut issues) = select(root, req.target.as_deref())?;
    let mut report = FmtReport {
        files_with_issues: issues.len(),
        ..FmtReport::default()
    };
    for rel in files {
        let (file_issues, fixes) = process(root, &rel, req)?;
        report.files_checked += 1;
        report.files_with_issues += usize::from(!file_issues.is_empty());
        report.files_fixed += usize::from(!fixes.is_empty());
        issues.extend(file_issues);
        report.fixes.extend(fixes);
    }
    report.issues = issues;
    Ok(report)
}

/// [`fmt`] on the vault, then, when files were fixed, record them in the manifest (so that the
/// next `lint` or `query` sees them as they are now).
pub fn fmt_recorded(
    vault: &Vault,
    manifest: &mut Manifest,
    req: &FmtRequest,
    now_ns: i64,
) -> Result<FmtReport, FmtError> {
    let report = fmt(&vault.root, req)?;
    let fixed: Vec<String> = report.fixes.iter().map(|f| f.path.clone()).collect();
    if !fixed.is_empty() {
        crate::scan::scan_paths(vault, manifest, &fixed, now_ns)?;
    }
    Ok(report)
}

/// The issues of one file after any fixes, and the fixes written.
fn process(
    root: &Path,
    rel: &str,
    req: &FmtRequest,
) -> Result<(Vec<FmtIssue>, Vec<Fix>), FmtError> {
    let abs = root.join(rel);
    // A file edited between our read and our write is read again, never overwritten.
    for _ in 0..3 {
        let bytes = match std::fs::read(&abs) {
            Ok(b) => b,
            Err(e) => {
                return Ok((
                    vec![unreadable(rel, format!("cannot read: {e}"))],
                    Vec::new(),
                ));
            }
        };
        let text = match std::str::from_utf8(&bytes) {
            Ok(t) => t,
            Err(e) => {
                let line = bytes[..e.valid_up_to()]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count()
                    + 1;
                let message = "not UTF-8 text".to_string();
                return Ok((
                    vec![issue(rel, Some(line), None, Severity::Invalid, message)],
                    Vec::new(),
                ));
            }
        };
        let (new, fixes) = if req.fix {
            repair(rel, text)
        } else {
            (text.to_string(), Vec::new())
        };
        let issues = check(rel, &new, |s| {
            req.pending.contains(schema::source_path(s)) || source_exists(root, s)
        });
        if fixes.is_empty() {
            return Ok((issues, fixes));
        }
        if !matches!(frontmatter::split(&new).block, Block::Valid(_)) {
            return Err(FmtError::Broken(rel.into()));
        }
        let written =
            fsio::replace_if_unchanged(&abs, &bytes, new.as_bytes()).map_err(|source| {
                FmtError::Write {
                    path: rel.into(),
                    source,
                }
            })?;
        if written {
            fault::reached("fmt.write");
            return Ok((issues, fixes));
        }
    }
    Err(FmtError::Busy(rel.into()))
}

/// Every frontmatter issue of the file `path` holding `text`, by line.
pub fn check(path: &str, text: &str, exists: impl Fn(&str) -> bool) -> Vec<FmtIssue> {
    let fm = match frontmatter::split(text).block {
        Block::None => {
            let message = "no frontmatter block".to_string();
            return vec![issue(path, Some(1), None, Severity::Missing, message)];
        }
        Block::Invalid { line, message } => {
            return vec![issue(path, Some(line), None, Severity::Invalid, message)];
        }
        Block::Valid(fm) => fm,
    };
    let line = |key: &str| Some(fm.line_of(key).unwrap_or(1));
    let mut out: Vec<FmtIssue> = schema::validate(path, &fm)
        .into_iter()
        .map(|i| issue(path, line(&i.key), Some(&i.key), i.severity, i.message))
        .collect();
    for s in fm
        .sources
        .iter()
        .filter(|s| !s.trim().is_empty() && !exists(s))
    {
        let message = format!("source {s} does not exist");
        out.push(issue(
            path,
            line("sources"),
            Some("sources"),
            Severity::Invalid,
            message,
        ));
    }
    // Whatever `--fix` would change is an issue too, so that a file passes `--check` exactly
    // when `--fix` leaves it alone. A repair of a key the schema already faults adds nothing.
    for f in repair(path, text).1 {
        if f.key.is_some() && out.iter().any(|i| i.key == f.key) {
            continue;
        }
        let (at, message) = match &f.key {
            Some(k) => (
                line(k),
                format!("{} should be written {}", f.before, f.after),
            ),
            None => (
                first_moved(&f).and_then(|k| fm.line_of(k)).or(Some(1)),
                format!(
                    "keys out of order: {} (the order is {})",
                    f.before,
                    schema::KEY_ORDER.join(", ")
                ),
            ),
        };
        out.push(issue(
            path,
            at,
            f.key.as_deref(),
            Severity::Invalid,
            message,
        ));
    }
    out.sort_by_key(|i| i.line);
    out
}

/// The first key a reorder moves: where the old and the new order first differ, the key the
/// new order brings forward (a schema key, whose line is known).
fn first_moved(reorder: &Fix) -> Option<&str> {
    let old = reorder.before.split(", ");
    let new = reorder.after.split(", ");
    old.zip(new).find(|(a, b)| a != b).map(|(_, b)| b)
}

/// `text` with its mechanical problems repaired, and the repairs made.
pub fn repair(path: &str, text: &str) -> (String, Vec<Fix>) {
    let Block::Valid(fm) = frontmatter::split(text).block else {
        return (text.to_string(), Vec::new());
    };
    let mut text = text.to_string();
    let mut fixes = Vec::new();
    let mut record = |key: Option<&str>, before: String, after: String| {
        fixes.push(Fix {
            path: path.into(),
            key: key.map(Into::into),
            before,
            after,
        })
    };
    for key in ["tags", "aliases", "sources"] {
        if let Some((t, before, after)) = repair_list(&text, &fm, key) {
            record(Some(key), before, after);
            text = t;
        }
    }
    for (key, value) in [("created", &fm.created), ("updated", &fm.updated)] {
        let Some(v) = value.as_deref().filter(|v| !schema::is_date(v.trim())) else {
            continue;
        };
        let Some(date) = repair_date(v) else { continue };
        if let Some(t) = edit::set_scalar(&text, key, &date) {
            record(Some(key), v.into(), date);
            text = t;
        }
    }
    let reordered = edit::reorder(&text, &schema::KEY_ORDER).filter(|t| *t != text);
    if let (Some(t), Some(before)) = (reordered, edit::keys(&text)) {
        let after = edit::keys(&t).unwrap_or_default();
        record(None, before.join(", "), after.join(", "));
        text = t;
    }
    (text, fixes)
}

/// `text` with the list at `key` (`tags`, `aliases` or `sources`) of its block `fm` repaired:
/// a single value made a list, tags put in their canonical form. `None` when nothing changes.
/// Returns the new text and the value before and after. `lint --fix` repairs tags with it too.
pub fn repair_list(text: &str, fm: &Frontmatter, key: &str) -> Option<(String, String, String)> {
    let items = match key {
        "tags" => &fm.tags,
        "aliases" => &fm.aliases,
        _ => &fm.sources,
    };
    let scalar = edit::shape(text, key) == Some(Shape::Scalar);
    // A list with an item of the wrong shape is left alone: rewriting it would drop the item.
    let clean_list =
        edit::shape(text, key) == Some(Shape::List) && !fm.problems.iter().any(|p| p.key == key);
    let new = if key == "tags" {
        schema::canonical_tags(items)
    } else {
        items.clone()
    };
    if !(scalar || (clean_list && new != *items)) {
        return None;
    }
    let before = if scalar { items.concat() } else { show(items) };
    edit::set_list(text, key, &new).map(|t| (t, before, show(&new)))
}

fn show(items: &[String]) -> String {
    format!("[{}]", items.join(", "))
}

/// A date written year first (`2026-4-1`, `2026/04/01`, `2026-04-01T10:00`) as `YYYY-MM-DD`,
/// when it names one real calendar day. Day-first or month-first forms are ambiguous: `None`.
pub fn repair_date(value: &str) -> Option<String> {
    let v = value.trim();
    let (date, time) = match v.find(['T', 't', ' ']) {
        Some(i) => (&v[..i], Some(v[i + 1..].trim_start())),
        None => (v, None),
    };
    if time.is_some_and(|t| !is_time(t)) {
        return None;
    }
    let sep = ['-', '/'].into_iter().find(|&c| date.contains(c))?;
    let parts: Vec<&str> = date.split(sep).collect();
    let [y, m, d] = parts[..] else { return None };
    let digits = |s: &str, n: std::ops::RangeInclusive<usize>| {
        n.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit())
    };
    if !digits(y, 4..=4) || !digits(m, 1..=2) || !digits(d, 1..=2) {
        return None;
    }
    let day = chrono::NaiveDate::from_ymd_opt(y.parse().ok()?, m.parse().ok()?, d.parse().ok()?)?;
    Some(day.format("%Y-%m-%d").to_string())
}

/// `HH:MM`, optionally `:SS` and a fraction, optionally `Z` or a `±HH:MM` offset.
fn is_time(t: &str) -> bool {
    let t = t.strip_suffix(['Z', 'z']).unwrap_or(t);
    let t = match t.rfind(['+', '-']) {
        Some(i)
            if chrono::NaiveTime::parse_from_str(&t[i + 1..], "%H:%M").is_ok()
                || (t.len() - i == 5
                    && chrono::NaiveTime::parse_from_str(&t[i + 1..], "%H%M").is_ok()) =>
        {
            &t[..i]
        }
        _ => t,
    };
    ["%H:%M", "%H:%M:%S", "%H:%M:%S%.f"]
        .iter()
        .any(|f| chrono::NaiveTime::parse_from_str(t, f).is_ok())
}

/// Whether a source names a file or directory of the vault (as lint's dead-sources check reads it).
fn source_exists(root: &Path, source: &str) -> bool {
    let p = Path::new(schema::source_path(source));
    p.is_relative()
        && !p.components().any(|c| c == std::path::Component::ParentDir)
        && root.join(p).exists()
}

fn issue(
    path: &str,
    line: Option<usize>,
    key: Option<&str>,
    severity: Severity,
    message: String,
) -> FmtIssue {
    FmtIssue {
        path: path.into(),
        line,
        key: key.map(Into::into),
        severity,
        message,
    }
}

fn unreadable(path: &str, message: String) -> FmtIssue {
    issue(path, None, None, Severity::Invalid, message)
}

/// The files the argument names, sorted, and the directories that could not be read.
fn select(root: &Path, target: Option<&str>) -> Result<(Vec<String>, Vec<FmtIssue>), FmtError> {
    let Some(arg) = target else {
        return Ok(walk(root, "wiki", &|_| true));
    };
    let rel = relative_arg(root, arg)?;
    let abs = root.join(&rel);
    match abs.symlink_metadata() {
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

    const GOOD: &str = "---\ntitle: A\ntype: concept\nmaturity: seed\ntags: [x]\nsources: [raw/a.md]\n\
                        created: 2026-03-02\nupdated: 2026-03-09\n---\nbody\n";

    fn keys(issues: &[FmtIssue]) -> Vec<(Option<usize>, Option<&str>)> {
        issues.iter().map(|i| (i.line, i.key.as_deref())).collect()
    }

    #[test]
    fn a_good_page_passes() {
        assert_eq!(check("wiki/a.md", GOOD, |_| true), []);
    }

    #[test]
    fn issues_name_their_line_and_key() {
        assert_eq!(
            keys(&check("wiki/a.md", "# no block\n", |_| true)),
            [(Some(1), None)]
        );
        assert_eq!(
            keys(&check("wiki/a.md", "---\ntitle: [a\n---\n", |_| true))[0].1,
            None
        );
        let text = GOOD
            .replace("title: A\n", "")
            .replace("maturity: seed", "maturity: ripe");
        assert_eq!(
            keys(&check("wiki/a.md", &text, |_| true)),
            [(Some(1), Some("title")), (Some(3), Some("maturity"))]
        );
        let missing = check("wiki/a.md", GOOD, |_| false);
        assert_eq!(keys(&missing), [(Some(6), Some("sources"))]);
        assert_eq!(missing[0].message, "source raw/a.md does not exist");
    }

    #[test]
    fn repairs_are_mechanical_and_reported() {
        let text = "---\ntype: concept\ntitle: A # name\nmaturity: seed\ntags: ['#AI', Machine Learning, ai]\n\
                    sources: raw/a.md\ncreated: 2026/3/2\nupdated: \"2026-03-09T10:00\"\n---\nbody\n";
        let (out, fixes) = repair("wiki/a.md", text);
        assert_eq!(
            out,
            "---\ntitle: A # name\ntype: concept\nmaturity: seed\ntags: [ai, machine-learning]\n\
             sources: [raw/a.md]\ncreated: 2026-03-02\nupdated: \"2026-03-09\"\n---\nbody\n"
        );
        let got: Vec<_> = fixes
            .iter()
            .map(|f| (f.key.as_deref(), f.before.as_str(), f.after.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    Some("tags"),
                    "[#AI, Machine Learning, ai]",
                    "[ai, machine-learning]"
                ),
                (Some("sources"), "raw/a.md", "[raw/a.md]"),
                (Some("created"), "2026/3/2", "2026-03-02"),
                (Some("updated"), "2026-03-09T10:00", "2026-03-09"),
                (
                    None,
                    "type, title, maturity, tags, sources, created, updated",
                    "title, type, maturity, tags, sources, created, updated"
                ),
            ]
        );
        assert_eq!(check("wiki/a.md", &out, |_| true), []);
        assert_eq!(
            repair("wiki/a.md", &out),
            (out.clone(), Vec::new()),
            "a second repair changes nothing"
        );
    }

    #[test]
    fn check_fails_on_everything_fix_would_change() {
        let moved = GOOD
            .replace("tags: [x]\n", "")
            .replace("updated: 2026-03-09\n", "updated: 2026-03-09\ntags: [x]\n");
        for text in [
            moved.clone(),
            GOOD.replace("tags: [x]", "tags: [People]"),
            GOOD.replace("tags: [x]", "tags: [x, x]"),
            GOOD.replace("tags: [x]", "tags: \"#Local First, Tools\""),
            GOOD.replace("sources: [raw/a.md]", "sources: raw/a.md"),
            GOOD.replace("created: 2026-03-02", "created: 2026/3/2"),
        ] {
            let (fixed, fixes) = repair("wiki/a.md", &text);
            assert!(!fixes.is_empty(), "{text}");
            assert!(!check("wiki/a.md", &text, |_| true).is_empty(), "{text}");
            assert_eq!(check("wiki/a.md", &fixed, |_| true), [], "{fixed}");
        }
        let order = check("wiki/a.md", &moved, |_| true);
        assert_eq!(
            keys(&order),
            [(Some(8), None)],
            "the line of the key to move up"
        );
        assert!(
            order[0].message.starts_with(
                "keys out of order: title, type, maturity, sources, created, updated, tags"
            ),
            "{}",
            order[0].message
        );
        let (fixed, _) = repair(
            "wiki/a.md",
            &GOOD.replace("tags: [x]", "tags: \"#Local First, Tools\""),
        );
        assert!(fixed.contains("tags: [local-first, tools]\n"), "{fixed}");
    }

    #[test]
    fn repairs_never_invent_content() {
        let text = "---\ntype: thing\ntags: [[nested], '#X']\ncreated: 01/04/2026\nupdated: 2026-02-30\n---\n";
        assert_eq!(repair("wiki/a.md", text), (text.to_string(), Vec::new()));
        assert_eq!(repair("wiki/a.md", "# no block\n").1, []);
    }

    #[test]
    fn dates_are_repaired_only_when_unambiguous() {
        for (v, want) in [
            ("2026-4-1", Some("2026-04-01")),
            ("2026/04/01", Some("2026-04-01")),
            ("2026-04-01T10:00", Some("2026-04-01")),
            ("2026-04-01 10:00:59.5+02:00", Some("2026-04-01")),
            ("2026-04-01T10:00Z", Some("2026-04-01")),
            ("2024-2-29", Some("2024-02-29")),
            ("2026-2-29", None),
            ("01/04/2026", None),
            ("26-04-01", None),
            ("2026-04/01", None),
            ("2026-04-01T25:00", None),
            ("2026-04-01 later", None),
            ("April 1, 2026", None),
        ] {
            assert_eq!(repair_date(v).as_deref(), want, "{v}");
        }
    }

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
