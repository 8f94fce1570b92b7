//! Media: one entry per media note, titled by its frontmatter title or first heading, with
//! its URL (a frontmatter `url:` or the first URL of the file), linked so that the link
//! resolves.

use super::text::{Inputs, body_lines, inline, stem};
use super::{Collection, ExtractError, page::Body};
use crate::inbox::hints::urls;
use crate::markdown::{Block, frontmatter};

/// A media note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// Its title.
    pub title: String,
    /// Its URL, if any.
    pub url: Option<String>,
}

/// What a media note says about itself.
pub fn parse(text: &str, path: &str) -> Note {
    let fm_title = match frontmatter::split(text).block {
        Block::Valid(fm) => fm.title,
        _ => None,
    };
    let lines = body_lines(text);
    let heading = lines
        .iter()
        .find_map(|l| l.strip_prefix("# ").map(|h| h.trim().to_string()));
    let url_line = text.lines().find_map(|l| {
        let t = l.trim_start();
        t.strip_prefix("url:").map(str::trim).map(str::to_string)
    });
    let url = url_line.filter(|u| u.starts_with("http")).or_else(|| {
        text.lines()
            .find_map(|l| urls(l).next().map(str::to_string))
    });
    Note {
        title: fm_title
            .or(heading)
            .unwrap_or_else(|| stem(path).to_string()),
        url,
    }
}

/// The Media page body.
pub fn body(inputs: &Inputs<'_>) -> Result<Body, ExtractError> {
    let glob = Collection::Media
        .glob(&inputs.vault.config)?
        .expect("Media has a glob");
    let files = inputs.files(|p| glob.is_match(p));
    let mut text = String::new();
    let mut n = 0;
    for f in &files {
        let Some(content) = inputs.text(f) else {
            continue;
        };
        let note = parse(&content, f);
        let link = inputs.manifest.link_to(f, &inline(&note.title))?;
        n += 1;
        match note.url {
            Some(u) => text.push_str(&format!("- {link} — <{u}>\n")),
            None => text.push_str(&format!("- {link}\n")),
        }
    }
    Ok(Body::new(
        n,
        ("media note", "media notes", "kept"),
        "_No media notes captured yet._",
        text,
        files,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_and_url() {
        let n = parse(
            "---\nurl: https://pod.example/12\n---\n# Episode 12: Soil\n",
            "raw/media/podcasts/ep12.md",
        );
        assert_eq!(
            n,
            Note {
                title: "Episode 12: Soil".into(),
                url: Some("https://pod.example/12".into())
            }
        );
        let n = parse("notes about https://v.example/a).\n", "raw/media/film.md");
        assert_eq!(
            n,
            Note {
                title: "film".into(),
                url: Some("https://v.example/a".into())
            }
        );
    }
}
