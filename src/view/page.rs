//! The model of one vault file as the viewer shows it, read fresh from disk on every request:
//! Markdown split into frontmatter and body, its wikilinks resolved as the manifest resolved
//! them and its embeds rendered in place ([`crate::render::embed`]), rendered ([`crate::render`]),
//! with its backlinks. Other files are text, images or bytes; a Markdown file that is not UTF-8 is
//! named, not shown as garbage.

use super::site::Lease;
use crate::manifest::{Backlink, Manifest};
use crate::markdown::{Block, Frontmatter, frontmatter, outline};
use crate::render::embed::Embedder;
use crate::render::html::display_title;
use crate::render::paths::{is_image, is_markdown};
use crate::render::{self, Rendered};
use std::path::Path;

/// Text files longer than this are cut when shown.
pub const TEXT_LIMIT: usize = 1 << 20;

/// A file of the vault, ready to show.
#[derive(Debug)]
pub struct FileView {
    /// Vault-relative path.
    pub rel: String,
    /// What it is.
    pub content: Content,
}

/// What a file holds.
#[derive(Debug)]
pub enum Content {
    /// Markdown, rendered.
    Markdown(Box<MarkdownView>),
    /// Text, shown escaped (cut at [`TEXT_LIMIT`] bytes, `truncated` then set).
    Text {
        /// The text.
        text: String,
        /// Whether it was cut.
        truncated: bool,
    },
    /// An image, shown from `/file/…`.
    Image,
    /// A Markdown file whose bytes are not UTF-8: named, with where the first bad byte is.
    NotUtf8 {
        /// The offset of the first byte that is not UTF-8.
        offset: usize,
    },
    /// Anything else: offered for download.
    Binary {
        /// Its size in bytes.
        size: u64,
    },
}

/// A Markdown file, rendered.
#[derive(Debug)]
pub struct MarkdownView {
    /// The title shown: frontmatter title, else a leading H1, else the file name.
    pub title: String,
    /// The frontmatter, when the file has a readable block.
    pub frontmatter: Option<Frontmatter>,
    /// Why the block is unreadable, when it is.
    pub frontmatter_error: Option<String>,
    /// The body.
    pub rendered: Rendered,
    /// Pages linking here (as of the last scan): the first [`BACKLINKS_SHOWN`] by path.
    pub backlinks: Vec<Backlink>,
    /// How many pages link here in all.
    pub backlinks_total: usize,
    /// The files embedded in it, each once: a change of one changes the page.
    pub embedded: Vec<String>,
    /// Pages citing this file in `sources:` (as of the last scan).
    pub cited_by: Vec<Backlink>,
    /// For a page, the pages nearest it that it does not link to yet, the nearest first
    /// ([`RELATED_SHOWN`] at most; as of the last scan).
    pub related: Vec<Backlink>,
    /// How the file relates to the last scan.
    pub freshness: Freshness,
    /// The source text, for `?source`.
    pub source: String,
}

/// The most backlinks a page lists: a hub that tens of thousands of pages link to says how
/// many, and lists these.
pub const BACKLINKS_SHOWN: usize = 500;

/// The most related pages a page lists.
pub const RELATED_SHOWN: usize = 5;

/// Whether the manifest knows the file as it is on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// Same content as the last scan read.
    Current,
    /// Edited since the last scan.
    Changed,
    /// Not in the manifest.
    Unscanned,
    /// No manifest to compare with.
    NoManifest,
}

/// Build the view of a file of the vault at `root` from its bytes (embedded files are read
/// from `root`), with the manifest when there is one (and what was counted on it).
pub fn view_file(
    root: &Path,
    rel: &str,
    bytes: &[u8],
    db: Option<&Lease>,
) -> crate::manifest::Result<FileView> {
    let content = if is_markdown(rel) {
        match std::str::from_utf8(bytes) {
            Ok(text) => Content::Markdown(Box::new(markdown(root, rel, text, bytes, db)?)),
            Err(e) => Content::NotUtf8 {
                offset: e.valid_up_to(),
            },
        }
    } else if is_image(rel) {
        Content::Image
    } else if let Some(text) = as_text(bytes) {
        let truncated = text.len() > TEXT_LIMIT;
        let mut cut = TEXT_LIMIT.min(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        Content::Text {
            text: text[..cut].to_string(),
            truncated,
        }
    } else {
        Content::Binary {
            size: bytes.len() as u64,
        }
    };
    Ok(FileView {
        rel: rel.to_string(),
        content,
    })
}

/// UTF-8 without NUL bytes is text.
fn as_text(bytes: &[u8]) -> Option<&str> {
    let s = std::str::from_utf8(bytes).ok()?;
    (!s.contains('\0')).then_some(s)
}

fn markdown(
    root: &Path,
    rel: &str,
    text: &str,
    bytes: &[u8],
    db: Option<&Lease>,
) -> crate::manifest::Result<MarkdownView> {
    let manifest: Option<&Manifest> = db.map(|l| &**l);
    let mut embeds = Embedder::new(root, rel);
    // An archive file of the inbox is its captures, not a page (`None`: not in that shape).
    let captures = if crate::archive::is_archive(rel) {
        super::captures::render(manifest, rel, text, &mut embeds)?
    } else {
        None
    };
    let Body {
        frontmatter: fm,
        frontmatter_error: fm_error,
        rendered,
        title,
    } = match captures {
        Some(rendered) => Body {
            frontmatter: None,
            frontmatter_error: None,
            rendered,
            title: display_title(rel, None),
        },
        None => page_body(manifest, rel, text, &mut embeds)?,
    };
    let ((backlinks, backlinks_total), cited_by, freshness) = match db {
        Some(m) => {
            let freshness = match m.file_hash(rel)? {
                None => Freshness::Unscanned,
                Some(h) if h == blake3::hash(bytes).to_hex().as_str() => Freshness::Current,
                Some(_) => Freshness::Changed,
            };
            (
                m.backlinks(rel, BACKLINKS_SHOWN, m.counted())?,
                m.citing_pages(rel)?,
                freshness,
            )
        }
        None => ((Vec::new(), 0), Vec::new(), Freshness::NoManifest),
    };
    let related = match db {
        Some(m) if crate::search::related::shown(rel) => not_linked_yet(root, m, rel),
        _ => Vec::new(),
    };
    Ok(MarkdownView {
        title,
        frontmatter: fm,
        frontmatter_error: fm_error,
        rendered,
        backlinks,
        backlinks_total,
        embedded: embeds.files,
        cited_by,
        related,
        freshness,
        source: text.to_string(),
    })
}

/// The pages related to the page at `rel` that it does not link to yet, found once per change
/// of the manifest on this connection; none when they cannot be found (a page is shown all the
/// same: the list is a suggestion).
fn not_linked_yet(root: &Path, db: &Lease, rel: &str) -> Vec<Backlink> {
    let find = || -> Result<Vec<Backlink>, crate::search::related::RelatedError> {
        Ok(
            crate::search::related::not_linked_yet(root, db, rel, RELATED_SHOWN)?
                .into_iter()
                .map(|r| Backlink {
                    source: r.path,
                    title: r.title,
                    links: 0,
                })
                .collect(),
        )
    };
    db.remembered(db.counted(), rel, find).unwrap_or_default()
}

/// A Markdown page's body, rendered, and what its frontmatter says.
struct Body {
    frontmatter: Option<Frontmatter>,
    frontmatter_error: Option<String>,
    rendered: Rendered,
    title: String,
}

/// The body of the page `rel`: its frontmatter read, its wikilinks resolved, rendered; its
/// title the frontmatter's, else a leading H1, else the file name.
fn page_body(
    manifest: Option<&Manifest>,
    rel: &str,
    text: &str,
    embeds: &mut Embedder<'_>,
) -> crate::manifest::Result<Body> {
    let split = frontmatter::split(text);
    let (fm, fm_error) = match split.block {
        Block::Valid(fm) => (Some(fm), None),
        Block::Invalid { line, message } => (None, Some(format!("line {line}: {message}"))),
        Block::None => (None, None),
    };
    let outline = outline::outline(split.body, split.body_line);
    let links = embeds.wikilinks(manifest, rel, &outline)?;
    let title = fm
        .as_ref()
        .and_then(|f| f.title.as_deref())
        .filter(|t| !t.trim().is_empty());
    let rendered = render::render(split.body, &links, title);
    let title = title
        .map(|t| t.trim().to_string())
        .or_else(|| rendered.dropped_h1.clone())
        .unwrap_or_else(|| display_title(rel, None));
    Ok(Body {
        frontmatter: fm,
        frontmatter_error: fm_error,
        rendered,
        title,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_of_files() {
        let v = view_file(Path::new("."), "raw/a.txt", b"<b>hi</b>", None).unwrap();
        assert!(
            matches!(v.content, Content::Text { ref text, truncated: false } if text == "<b>hi</b>")
        );
        let v = view_file(Path::new("."), "raw/a.bin", b"\0\x01", None).unwrap();
        assert!(matches!(v.content, Content::Binary { size: 2 }));
    }

    #[test]
    fn a_page_without_frontmatter_or_manifest_still_renders() {
        let v = view_file(
            Path::new("."),
            "wiki/log.md",
            b"# Log\n\nSee [[Cascade]] and [[#Log]].\n",
            None,
        )
        .unwrap();
        let Content::Markdown(md) = v.content else {
            panic!("markdown")
        };
        assert_eq!(md.title, "Log");
        assert_eq!(md.freshness, Freshness::NoManifest);
        assert!(
            md.rendered.html.contains("class=\"wikilink unresolved\""),
            "{}",
            md.rendered.html
        );
        assert!(
            md.rendered.html.contains("href=\"#log\""),
            "{}",
            md.rendered.html
        );
    }

    #[test]
    fn an_unreadable_block_is_reported_and_the_body_shown() {
        let v = view_file(
            Path::new("."),
            "wiki/x.md",
            b"---\ntitle: [unclosed\n---\nBody text\n",
            None,
        )
        .unwrap();
        let Content::Markdown(md) = v.content else {
            panic!("markdown")
        };
        assert!(md.frontmatter_error.is_some());
        assert!(md.rendered.html.contains("Body text"));
    }
}
