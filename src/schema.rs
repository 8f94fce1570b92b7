//! The frontmatter schema: required fields, the type and maturity enums, calendar dates and
//! the form of tags and sources. One set of rules, used by `lint` and `fmt` alike.

use crate::markdown::Frontmatter;
// Rules of the schema that the parser and the editor need too: they are defined in `markdown`,
// which must not depend on the schema.
pub use crate::markdown::frontmatter::{KEY_ORDER, is_date};
use serde::Serialize;

/// The page types.
pub const TYPES: [&str; 5] = ["entity", "concept", "summary", "synthesis", "collection"];
/// The maturities.
pub const MATURITIES: [&str; 4] = ["seed", "working", "stable", "historical"];

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

/// The vault-relative path a `sources:` item names: trimmed, without a leading `./` or a
/// trailing `/` (as lint's and fmt's existence checks read it).
pub fn source_path(source: &str) -> &str {
    let s = source.trim();
    s.strip_prefix("./").unwrap_or(s).trim_end_matches('/')
}

/// The tags one written tag stands for, each in the canonical form: split at commas, without
/// `#`, lower-case, spaces as dashes (`"#Local First, Tools"` → `local-first`, `tools`). Empty
/// when nothing is left.
pub fn split_tag(tag: &str) -> Vec<String> {
    tag.split(',')
        .map(|part| {
            part.trim()
                .trim_start_matches('#')
                .split_whitespace()
                .collect::<Vec<_>>()
                .join("-")
                .to_lowercase()
        })
        .filter(|t| !t.is_empty())
        .collect()
}

/// Whether a tag has the canonical form (what [`split_tag`] makes of it is itself).
pub fn tag_ok(tag: &str) -> bool {
    matches!(&split_tag(tag)[..], [one] if one == tag)
}

/// A tag list in the canonical form, each tag once: what `fmt --fix` and `lint --fix` write.
/// A tag with nothing left in it is kept as it is, never dropped.
pub fn canonical_tags(tags: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in tags {
        let parts = split_tag(t);
        let parts = if parts.is_empty() {
            vec![t.clone()]
        } else {
            parts
        };
        for p in parts {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// What is wrong with one tag of a list, if anything; `earlier` are the tags before it.
fn tag_problem(tag: &str, earlier: &[String]) -> Option<String> {
    let parts = split_tag(tag);
    match &parts[..] {
        [one] if one == tag => earlier
            .iter()
            .any(|e| e == tag)
            .then(|| format!("tag {tag:?} is listed twice")),
        [] => Some(format!("tag {tag:?} has no letters or digits")),
        [one] => Some(format!("tag {tag:?} should be written {one:?}")),
        many => Some(format!(
            "tag {tag:?} should be written as {} tags: [{}]",
            many.len(),
            many.join(", ")
        )),
    }
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
    for (i, tag) in fm.tags.iter().enumerate() {
        if let Some(message) = tag_problem(tag, &fm.tags[..i]) {
            push("tags", Severity::Invalid, message);
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
    fn tags_normalise_and_split_at_commas() {
        assert_eq!(split_tag("#Machine Learning"), ["machine-learning"]);
        assert_eq!(split_tag("#Local First, Tools"), ["local-first", "tools"]);
        assert_eq!(split_tag(" # , "), Vec::<String>::new());
        assert!(tag_ok("gpt-4o") && !tag_ok("#ai") && !tag_ok("two words"));
        assert!(!tag_ok("People") && !tag_ok("a,b") && !tag_ok(""));
        let tags = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            canonical_tags(&tags(&["#Local First, Tools", "tools", "#", "AI", "ai"])),
            tags(&["local-first", "tools", "#", "ai"])
        );
    }

    #[test]
    fn every_tag_that_canonical_tags_would_change_is_an_issue() {
        let messages = |yaml: &str| {
            validate("wiki/a.md", &fm(yaml))
                .into_iter()
                .filter(|i| i.key == "tags")
                .map(|i| i.message)
                .collect::<Vec<_>>()
        };
        let base = "title: A\ntype: concept\nmaturity: seed\nsources: [raw/a.md]\ncreated: 2026-03-02\nupdated: 2026-03-09\n";
        assert_eq!(
            messages(&format!(
                "{base}tags: [People, \"#Local First, Tools\", ok, ok]\n"
            )),
            [
                "tag \"People\" should be written \"people\"",
                "tag \"#Local First, Tools\" should be written as 2 tags: [local-first, tools]",
                "tag \"ok\" is listed twice"
            ]
        );
        assert_eq!(
            messages(&format!("{base}tags: [people, local-first]\n")),
            Vec::<String>::new()
        );
    }
}
