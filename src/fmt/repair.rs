//! The mechanical repairs: key order, tag form, a single value where a list belongs, date
//! form. Each goes through [`crate::markdown::edit`], so every other byte stays as it was.

use super::Fix;
use crate::markdown::edit::{self, Shape};
use crate::markdown::frontmatter::Split;
use crate::markdown::{Block, Frontmatter, frontmatter};
use crate::schema;

/// `text` with its mechanical problems repaired, and the repairs made.
pub fn repair(path: &str, text: &str) -> (String, Vec<Fix>) {
    repair_split(path, text, &frontmatter::split(text))
}

/// [`repair`] of `original`, whose [`frontmatter::split`] is `split` (a caller that checks the
/// block too reads its YAML once). The questions about the block as read (the shape of each
/// list, the key order) are answered from one outline of it; once a repair changes the text,
/// the later ones read the new text.
pub(super) fn repair_split(path: &str, original: &str, split: &Split<'_>) -> (String, Vec<Fix>) {
    let Block::Valid(fm) = &split.block else {
        return (original.to_string(), Vec::new());
    };
    let outline = edit::Outline::of(original, split);
    let mut text = original.to_string();
    let mut changed = false;
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
        let shape = match changed {
            false => outline.as_ref().map(|o| o.shape(key)),
            true => edit::shape(&text, key),
        };
        if let Some((t, before, after)) = repair_shaped(&text, fm, key, shape) {
            record(Some(key), before, after);
            text = t;
            changed = true;
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
            changed = true;
        }
    }
    // Unchanged text that cannot be outlined cannot be reordered either.
    let ordered = !changed
        && outline
            .as_ref()
            .is_none_or(|o| o.in_order(&schema::KEY_ORDER));
    if !ordered {
        let reordered = edit::reorder(&text, &schema::KEY_ORDER).filter(|t| *t != text);
        if let (Some(t), Some(before)) = (reordered, edit::keys(&text)) {
            let after = edit::keys(&t).unwrap_or_default();
            record(None, before.join(", "), after.join(", "));
            text = t;
        }
    }
    (text, fixes)
}

/// `text` with the list at `key` (`tags`, `aliases` or `sources`) of its block `fm` repaired:
/// a single value made a list, tags put in their canonical form. `None` when nothing changes.
/// Returns the new text and the value before and after. `lint --fix` repairs tags with it too.
pub fn repair_list(text: &str, fm: &Frontmatter, key: &str) -> Option<(String, String, String)> {
    repair_shaped(text, fm, key, edit::shape(text, key))
}

/// [`repair_list`], given the shape of the value at `key` in `text` (`None`: not editable).
fn repair_shaped(
    text: &str,
    fm: &Frontmatter,
    key: &str,
    shape: Option<Shape>,
) -> Option<(String, String, String)> {
    let items = match key {
        "tags" => &fm.tags,
        "aliases" => &fm.aliases,
        _ => &fm.sources,
    };
    let scalar = shape == Some(Shape::Scalar);
    // A list with an item of the wrong shape is left alone: rewriting it would drop the item.
    let clean_list = shape == Some(Shape::List) && !fm.problems.iter().any(|p| p.key == key);
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
