//! Markdown as Sparks reads it: the YAML frontmatter block and the outline of the body
//! (wikilinks, headings, block ids), and the edits that rewrite links. Pure functions over
//! text; no I/O.

pub mod edit;
pub mod frontmatter;
pub mod limits;
pub mod outline;
pub mod plain;
pub mod rewrite;
pub mod sentences;
pub mod title;

pub use frontmatter::{Block, Frontmatter, Problem, Split};
pub use outline::{Heading, Link, Outline};

/// A Markdown file taken apart: its frontmatter and the outline of its body.
#[derive(Debug, Clone)]
pub struct Document {
    /// The frontmatter block, or why there is none.
    pub block: Block,
    /// The 1-based line on which the body starts.
    pub body_line: usize,
    /// Links, headings and block ids of the body.
    pub outline: Outline,
}

impl Document {
    /// Parse a whole Markdown file.
    pub fn parse(text: &str) -> Document {
        let split = frontmatter::split(text);
        let outline = outline::outline(split.body, split.body_line);
        Document {
            block: split.block,
            body_line: split.body_line,
            outline,
        }
    }
}
