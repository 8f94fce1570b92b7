//! Reading List: the `to-read:` lines of the archived captures, each once, in the order they
//! were captured.

use super::text::{Inputs, archive_lines, inline, labelled};
use super::{is_archive, page::Body};
use crate::key::key;

/// The `to-read:` items of one archive file's text, in order, repeats included.
pub fn items(text: &str) -> impl Iterator<Item = &str> {
    archive_lines(text).filter_map(|line| labelled(line, "to-read:"))
}

/// The Reading List page body.
pub fn body(inputs: &Inputs<'_>) -> Result<Body, super::regen::RegenError> {
    let archives = inputs.files(is_archive);
    let mut seen = std::collections::HashSet::new();
    let mut text = String::new();
    let mut n = 0;
    for f in &archives {
        let Some(content) = inputs.text(f) else {
            continue;
        };
        for item in items(&content) {
            if !seen.insert(key(item)) {
                continue;
            }
            n += 1;
            let shown = if item.starts_with("http://") || item.starts_with("https://") {
                format!("<{item}>")
            } else {
                inline(item)
            };
            text.push_str(&format!("- {shown} _(via {f})_\n"));
        }
    }
    Ok(Body::new(
        n,
        ("item", "items", "to read"),
        "_No to-read items captured yet._",
        text,
        archives,
    ))
}
