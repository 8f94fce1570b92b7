//! What a sync's merge does with a path both sides changed differently: Sparks' own files by
//! their rule ([`super::rules`]), generated pages by this side's text (they are made again
//! from the merged vault), any other text by git's line merge, and whatever that cannot merge
//! (overlapping lines, a binary file, a file one side deleted and the other changed) by a
//! conflict copy: this device's version stays, the other's goes beside it, never markers.

use super::rules::{self, Rule};
use crate::git::merge::{Both, Resolution, merge_text};

/// The resolution of `both` (repository-relative paths; the vault is at `prefix` in the work
/// tree), on `today` (`YYYY-MM-DD`, for naming a conflict copy).
pub fn resolve(prefix: &str, both: &Both<'_>, today: &str) -> Resolution {
    let copy = || {
        let rel = both.path.strip_prefix(prefix).unwrap_or(both.path);
        let name = rules::conflict_copy_name(rel, today, |p| (both.taken)(&format!("{prefix}{p}")));
        Resolution::Copy {
            copy: format!("{prefix}{name}"),
        }
    };
    let Some(rel) = both.path.strip_prefix(prefix) else {
        return by_lines(both).unwrap_or_else(copy);
    };
    let rule = rules::rule(rel);
    match rule {
        Rule::Other => by_lines(both).unwrap_or_else(copy),
        // Made again from the merged vault: either side's text will do until then.
        Rule::Generated => {
            Resolution::Merged(both.ours.or(both.theirs).unwrap_or_default().to_vec())
        }
        _ => match (text(both.base), text(both.ours), text(both.theirs)) {
            (Some(base), Some(ours), Some(theirs)) => {
                match rules::merge(rule, rel, base, ours.unwrap_or(""), theirs.unwrap_or("")) {
                    Ok(Some(merged)) => Resolution::Merged(merged.into_bytes()),
                    Ok(None) => by_lines(both).unwrap_or_else(copy),
                    // A side the rule cannot read: both texts kept, as for any file.
                    Err(_) => copy(),
                }
            }
            _ => copy(),
        },
    }
}

/// A side as text: `Some(None)` where the file does not exist, `None` where it is not UTF-8.
fn text(side: Option<&[u8]>) -> Option<Option<&str>> {
    side.map(std::str::from_utf8).transpose().ok()
}

/// Git's line merge, when both sides have the file as text and their changes do not overlap.
fn by_lines(both: &Both<'_>) -> Option<Resolution> {
    let (ours, theirs) = (both.ours?, both.theirs?);
    let binary = |b: &[u8]| b.contains(&0);
    if binary(ours) || binary(theirs) || both.base.is_some_and(binary) {
        return None;
    }
    merge_text(both.base.unwrap_or_default(), ours, theirs).map(Resolution::Merged)
}
