//! Ideas: one entry per idea note (title from frontmatter or first heading; `status:` from
//! frontmatter or a body line), plus archived captures that begin with `Idea:`, grouped by
//! status.

use super::text::{Inputs, archive_lines, body_lines, inline, labelled, stem};
use super::{Collection, ExtractError, is_archive, page::Body};
use crate::markdown::{Block, frontmatter};

/// The order of the usual statuses; others follow alphabetically.
const ORDER: [&str; 8] = [
    "active",
    "shipping",
    "shipped",
    "backlog",
    "parked",
    "done",
    "captured",
    "uncategorized",
];

/// An idea.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Idea {
    /// Its title.
    pub title: String,
    /// Its status, lower-cased (`uncategorized` when none).
    pub status: String,
    /// Its file.
    pub source: String,
}

/// What an idea note says about itself.
pub fn parse(text: &str, path: &str) -> Idea {
    let split = frontmatter::split(text);
    let raw_status = text
        .lines()
        .find_map(|l| labelled(l.trim_end_matches('\r'), "status:").map(str::to_string));
    let fm_title = match split.block {
        Block::Valid(fm) => fm.title,
        _ => None,
    };
    let heading = body_lines(text).into_iter().find_map(|l| {
        l.trim_start()
            .strip_prefix("# ")
            .map(|h| h.trim().to_string())
    });
    Idea {
        title: fm_title
            .or(heading)
            .unwrap_or_else(|| stem(path).to_string()),
        status: raw_status.map_or_else(|| "uncategorized".into(), |s| s.to_lowercase()),
        source: path.to_string(),
    }
}

/// The titles of the `idea:` lines of one archive file's text, in order.
pub fn captured(text: &str) -> impl Iterator<Item = &str> {
    archive_lines(text).filter_map(|line| labelled(line, "idea:"))
}

fn heading(status: &str) -> String {
    let mut c = status.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// The Ideas page body.
pub fn body(inputs: &Inputs<'_>) -> Result<Body, ExtractError> {
    let glob = Collection::Ideas
        .glob(&inputs.vault.config)?
        .expect("Ideas has a glob");
    let mut sources = inputs.files(|p| glob.is_match(p));
    let mut ideas: Vec<Idea> = sources
        .iter()
        .filter_map(|f| inputs.text(f).map(|t| parse(&t, f)))
        .collect();
    for f in inputs.files(is_archive) {
        let Some(text) = inputs.text(&f) else {
            continue;
        };
        for title in captured(&text) {
            ideas.push(Idea {
                title: title.to_string(),
                status: "captured".into(),
                source: f.clone(),
            });
        }
        sources.push(f);
    }
    let mut statuses: Vec<&str> = ideas.iter().map(|i| i.status.as_str()).collect();
    statuses.sort_by_key(|s| {
        (
            ORDER.iter().position(|o| o == s).unwrap_or(ORDER.len()),
            s.to_string(),
        )
    });
    statuses.dedup();
    let mut text = String::new();
    for status in statuses {
        text.push_str(&format!("## {}\n\n", inline(&heading(status))));
        for idea in ideas.iter().filter(|i| i.status == status) {
            let link = if is_archive(&idea.source) {
                format!("{} _(captured in {})_", inline(&idea.title), idea.source)
            } else {
                inputs
                    .manifest
                    .link_to(&idea.source, &inline(&idea.title))?
            };
            text.push_str(&format!("- {link}\n"));
        }
        text.push('\n');
    }
    Ok(Body::new(
        ideas.len(),
        ("idea", "ideas", "tracked"),
        "_No ideas captured yet._",
        text,
        sources,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_and_status() {
        let i = parse("# Garden Bot\nstatus: Active\n", "raw/ideas/garden-bot.md");
        assert_eq!(
            (i.title.as_str(), i.status.as_str()),
            ("Garden Bot", "active")
        );
        let i = parse("---\nstatus: on hold\n---\n# Zine\n", "raw/ideas/zine.md");
        assert_eq!((i.title.as_str(), i.status.as_str()), ("Zine", "on hold"));
        let i = parse("no heading\n", "raw/ideas/later.md");
        assert_eq!(
            (i.title.as_str(), i.status.as_str()),
            ("later", "uncategorized")
        );
        assert_eq!(heading("on hold"), "On hold");
    }
}
