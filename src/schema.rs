//! The frontmatter schema: required fields, the type and maturity enums, calendar dates and
//! the form of tags and sources. One set of rules, used by `lint` and `fmt` alike.

use crate::markdown::Frontmatter;
use serde::Serialize;

/// The page types.
pub const TYPES: [&str; 5] = ["entity", "concept", "summary", "synthesis", "collection"];
/// The maturities.
pub const MATURITIES: [&str; 4] = ["seed", "working", "stable", "historical"];
/// The canonical key order of a frontmatter block.
pub const KEY_ORDER: [&str; 8] = [
    "title", "type", "maturity", "tags", "aliases", "sources", "created", "updated",
];

/// Whether a problem is a missing field or a wrong one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// A required field is absent or empty.
    Missing,
    /// A field is present but wrong.
    Invalid,
}

/// One schema problem of a page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldIssue {
    /// The key concerned.
    pub key: String,
    /// Missing or invalid.
    pub severity: Severity,
    /// What is wrong, for a person.
    pub message: String,
}

/// System pages (`wiki/index.md` and its shards under `wiki/index/`, `wiki/log.md`,
/// `wiki/collections/*`) are made by Sparks
/// and cite no sources.
pub fn is_system_page(path: &str) -> bool {
    path == crate::vault::INDEX
        || path == crate::vault::LOG
        || path.starts_with("wiki/collections/")
        || path.starts_with("wiki/index/")
}

/// Whether `s` is a real calendar date written `YYYY-MM-DD`.
pub fn is_date(s: &str) -> bool {
    s.len() == 10 && chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok()
}

/// Whether a tag has the contract's form: no `#`, no spaces.
pub fn tag_ok(tag: &str) -> bool {
    !tag.is_empty() && !tag.starts_with('#') && !tag.chars().any(char::is_whitespace)
}

/// The canonical form of a tag: without `#`, lower-case, spaces as dashes.
pub fn normalise_tag(tag: &str) -> String {
    tag.trim()
        .trim_start_matches('#')
        .split_whitespace()
        .collect::<Vec<_>>()
        .join("-")
        .to_lowercase()
}

/// Every schema problem of the frontmatter of the page at `path`, in key order.
pub fn validate(path: &str, fm: &Frontmatter) -> Vec<FieldIssue> {
    let mut out = Vec::new();
    let mut push = |key: &str, severity, message: String| {
        out.push(FieldIssue {
            key: key.into(),
            severity,
            message,
        })
    };
    let blank = |v: &Option<String>| v.as_deref().is_none_or(|s| s.trim().is_empty());
    if blank(&fm.title) {
        push(
            "title",
            Severity::Missing,
            "missing required field: title".into(),
        );
    }
    enum_field(&mut push, "type", &fm.kind, &TYPES);
    enum_field(&mut push, "maturity", &fm.maturity, &MATURITIES);
    for (key, tag) in fm.tags.iter().map(|t| ("tags", t)) {
        if !tag_ok(tag) {
            push(
                key,
                Severity::Invalid,
                format!("tag {tag:?} should be written {:?}", normalise_tag(tag)),
            );
        }
    }
    if fm.sources.is_empty() && !is_system_page(path) {
        push(
            "sources",
            Severity::Missing,
            "missing required field: sources (list the raw/ files this page draws on)".into(),
        );
    }
    for s in &fm.sources {
        if !s.starts_with("raw/") && !is_system_page(path) {
            push(
                "sources",
                Severity::Invalid,
                format!("source {s:?} is not a raw/ path"),
            );
        }
    }
    for (key, value) in [("created", &fm.created), ("updated", &fm.updated)] {
        match value.as_deref().map(str::trim) {
            None | Some("") => push(
                key,
                Severity::Missing,
                format!("missing required field: {key}"),
            ),
            Some(v) if !is_date(v) => push(
                key,
                Severity::Invalid,
                format!("{key} {v:?} is not a calendar date written YYYY-MM-DD"),
            ),
            Some(_) => {}
        }
    }
    if let (Some(c), Some(u)) = (fm.created.as_deref(), fm.updated.as_deref())
        && is_date(c)
        && is_date(u)
        && c > u
    {
        push(
            "updated",
            Severity::Invalid,
            format!("updated {u} is before created {c}"),
        );
    }
    for p in &fm.problems {
        push(&p.key, Severity::Invalid, p.message.clone());
    }
    out
}

fn enum_field(
    push: &mut impl FnMut(&str, Severity, String),
    key: &str,
    value: &Option<String>,
    allowed: &[&str],
) {
    match value.as_deref().map(str::trim) {
        None | Some("") => push(
            key,
            Severity::Missing,
            format!("missing required field: {key}"),
        ),
        Some(v) if !allowed.contains(&v) => push(
            key,
            Severity::Invalid,
            format!("{key} {v:?} is not one of {}", allowed.join(", ")),
        ),
        Some(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fm(yaml: &str) -> Frontmatter {
        match crate::markdown::frontmatter::split(&format!("---\n{yaml}---\n")).block {
            crate::markdown::Block::Valid(f) => f,
            other => panic!("{other:?}"),
        }
    }

    fn keys(issues: &[FieldIssue]) -> Vec<(&str, Severity)> {
        issues
            .iter()
            .map(|i| (i.key.as_str(), i.severity))
            .collect()
    }

    #[test]
    fn a_complete_page_passes() {
        let f = fm(
            "title: A\ntype: concept\nmaturity: seed\ntags: [x]\nsources: [raw/a.md]\ncreated: 2026-03-02\nupdated: 2026-03-09\n",
        );
        assert!(validate("wiki/concepts/A.md", &f).is_empty());
    }

    #[test]
    fn reports_each_problem_once_in_key_order() {
        let f = fm(
            "type: Entity\nmaturity: ripe\ntags: ['#ai', ok]\nsources: [notes.md]\ncreated: 2026-02-29\nupdated: 2026-13-01\n",
        );
        use Severity::*;
        assert_eq!(
            keys(&validate("wiki/x.md", &f)),
            [
                ("title", Missing),
                ("type", Invalid),
                ("maturity", Invalid),
                ("tags", Invalid),
                ("sources", Invalid),
                ("created", Invalid),
                ("updated", Invalid)
            ]
        );
    }

    #[test]
    fn system_pages_cite_no_sources() {
        let f = fm(
            "title: Tasks\ntype: collection\nmaturity: working\nsources: []\ncreated: 2026-05-01\nupdated: 2026-05-01\n",
        );
        assert!(validate("wiki/collections/Tasks.md", &f).is_empty());
        assert_eq!(
            keys(&validate("wiki/concepts/T.md", &f)),
            [("sources", Severity::Missing)]
        );
    }

    #[test]
    fn created_after_updated() {
        let f = fm(
            "title: A\ntype: concept\nmaturity: seed\nsources: [raw/a]\ncreated: 2026-05-02\nupdated: 2026-05-01\n",
        );
        assert_eq!(
            keys(&validate("wiki/a.md", &f)),
            [("updated", Severity::Invalid)]
        );
    }

    #[test]
    fn tags_normalise() {
        assert_eq!(normalise_tag("#Machine Learning"), "machine-learning");
        assert!(tag_ok("gpt-4o") && !tag_ok("#ai") && !tag_ok("two words"));
    }
}
