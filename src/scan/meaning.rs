//! What a page means, for search by meaning: its readable text cut into sections, each
//! embedded by the model compiled into the binary ([`crate::embed`]). Raw files are found by
//! their words alone. The scan embeds a page when it reads it as changed (on the reader threads, beside the parse), and only then: an
//! unchanged file keeps its vectors. Search cuts the same sections again to show the passage
//! that matched ([`sections`]).

use crate::embed::{self, Vector};
use crate::markdown::{frontmatter, title};

/// Bytes of readable text in one section, at most (cut at a line end): about 500 words, a
/// screenful, what the model's mean of token vectors still tells apart. (1,500 bytes embedded
/// twice as many sections of the pages of `make bench`, for a first scan 1.3× as long as
/// without meanings at 100,000 pages, and scored the same on `make eval`.)
pub const SECTION: usize = 3000;

/// Sections embedded of one page, at most (what the manifest holds): a long page's first
/// 192 KB of text.
pub const SECTIONS: usize = crate::manifest::MEANING_SECTIONS;

/// The readable text of a file (`text`, all of it) as search shows it: a page's body without
/// its frontmatter and the H1 that repeats its title, Markdown made plain (an archive's markers
/// are HTML comments: they go); another file's text as it is.
pub fn readable(rel: &str, text: &str, title: &str) -> String {
    match super::kind::is_wiki_markdown(rel) {
        true => plain(rel, title::without_title(frontmatter::body(text).0, title)),
        false => plain(rel, text),
    }
}

/// A text of the file `rel` (all of it, or a later piece of a long one) as a reader sees it:
/// Markdown made plain, any other text as it is.
pub fn plain(rel: &str, text: &str) -> String {
    match crate::key::strip_md(rel).is_some_and(|stem| !stem.is_empty()) {
        true => crate::markdown::plain::text(text),
        false => text.to_string(),
    }
}

/// The sections of a readable text, in order: pieces of at most [`SECTION`] bytes cut at line
/// ends, the first [`SECTIONS`] of them.
pub fn sections(readable: &str) -> impl Iterator<Item = &str> {
    crate::pieces::split(readable, SECTION).take(SECTIONS)
}

/// The vectors of a file's sections, by section number: each embedded with the page's title
/// before it, so that a section is read in its page's context. A section with nothing the
/// model reads (no Latin letter) has none; a file whose text has no section embeds its title.
pub fn meaning(rel: &str, text: &str, title: &str) -> Vec<(usize, Vector)> {
    let readable = readable(rel, text, title);
    let texts: Vec<String> = match readable.trim().is_empty() {
        true => vec![title.to_string()],
        false => sections(&readable)
            .map(|s| match title.is_empty() {
                true => s.to_string(),
                false => format!("{title}\n{s}"),
            })
            .collect(),
    };
    texts
        .iter()
        .enumerate()
        .filter_map(|(n, t)| Some((n, embed::embed(t)?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_embedded_by_sections_with_its_title() {
        let body = "---\ntitle: Sync\n---\n# Sync\n\nKeep the laptop and the phone in step.\n";
        let m = meaning("wiki/concepts/Sync.md", body, "Sync");
        assert_eq!(m.len(), 1);
        assert_eq!(
            m[0].1,
            embed::embed("Sync\nKeep the laptop and the phone in step.").unwrap(),
            "the H1 that repeats the title goes, the title comes first"
        );
        let long: String = (0..400)
            .map(|i| format!("Line {i} of a page about gardens and soil.\n"))
            .collect();
        let m = meaning("wiki/concepts/Long.md", &long, "Long");
        assert_eq!(m.len(), long.len().div_ceil(SECTION).min(SECTIONS));
        assert!(m.len() > 1);
        assert!(m.iter().enumerate().all(|(i, (n, _))| i == *n));
    }

    #[test]
    fn text_the_model_cannot_read_has_no_vector() {
        assert!(meaning("wiki/entities/Zh.md", "個人の知識管理について。", "知識").is_empty());
        // A page with no body is known by its title.
        assert_eq!(
            meaning("wiki/entities/Empty.md", "", "Garden plan").len(),
            1
        );
    }
}
