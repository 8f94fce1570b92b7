//! Conflict copies in the viewer: a copy (`<name> (conflict YYYY-MM-DD).md`, a version of a
//! page a sync kept beside it) carries the page's own title, so each is marked: the copy with a
//! notice linking the page it is a version of (and its title says it is a copy), the page with
//! a notice linking each of its copies, until the copy is reconciled and deleted.

use super::html::notice;
use crate::manifest::Manifest;
use crate::render::html::{esc, page_link};
use std::path::Path;

/// The title a file at `rel` is shown with: a copy's says it is one.
pub fn title(rel: &str, title: String) -> String {
    match crate::vault::conflict_copy(rel) {
        Some(c) => format!("{title} (conflict copy, {})", c.date),
        None => title,
    }
}

/// The notice above a copy or a page that has copies (HTML; empty for any other file). A
/// page's copies come from the manifest (none without one).
pub fn notice_for(root: &Path, manifest: Option<&Manifest>, rel: &str) -> String {
    if let Some(c) = crate::vault::conflict_copy(rel) {
        let original = &c.original;
        let page = page_link(original, Some(original));
        let what = format!(
            "This is a conflict copy: the version of {page} that a sync on {} kept beside it \
             when two devices changed the same lines.",
            esc(&c.date)
        );
        let todo = match root.join(original).exists() {
            true => format!(" Merge what it says into {page}, then delete this copy."),
            false => " That file no longer exists: restore it from this copy, or delete the copy."
                .to_string(),
        };
        return notice("warn", &format!("{what}{todo}"));
    }
    let copies = manifest
        .and_then(|m| m.conflict_copies_of(rel).ok())
        .unwrap_or_default();
    if copies.is_empty() {
        return String::new();
    }
    let links: Vec<String> = copies.iter().map(|c| page_link(c, Some(c))).collect();
    let (one, them) = match copies.len() {
        1 => ("another version", "it"),
        _ => ("other versions", "each"),
    };
    notice(
        "warn",
        &format!(
            "A sync kept {one} of this page beside it, when two devices changed the same lines: \
             {}. Merge what {them} says into this page, then delete the copy.",
            links.join(", ")
        ),
    )
}
