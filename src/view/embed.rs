//! Embeds in place: `![[Page]]`, `![[Page#Heading]]` and `![[Page#^block]]` show the page's
//! body (without its frontmatter), the section under the heading (to the next heading of the
//! same or a higher level) or the block, rendered as the page itself would be and framed with
//! a link to the source ([`super::render::Embed`]). The target is the one the link resolves to
//! ([`super::resolve`]); the text is read fresh from disk, as the page shown is, through
//! [`super::paths`], and goes through the same renderer and sanitiser.
//!
//! Embeds nest up to [`MAX_DEPTH`]. An embed of what is already being embedded (a cycle, direct
//! or not), one nested deeper, one past the page's [`BUDGET`], and one whose file or anchor is
//! missing become a short notice in the frame, so no page can make the viewer loop or do
//! unbounded work.

use super::html::display_title;
use super::paths;
use super::render::{self, Embed, Target, WikiLink};
use super::resolve;
use crate::key;
use crate::manifest::Manifest;
use crate::markdown::{Block, Link, frontmatter, outline};
use std::path::Path;

/// How deep embeds nest: an embed inside an embed inside an embed is shown, one more is a link.
pub const MAX_DEPTH: usize = 3;

/// The most embeds one page view renders, nested ones included.
pub const BUDGET: usize = 64;

/// The embeds of one page view: what is being embedded now, and how many were.
#[derive(Debug)]
pub struct Embedder<'r> {
    root: &'r Path,
    /// The page shown, then each embed being rendered, outermost first, by path and anchor.
    stack: Vec<(String, Option<String>)>,
    /// Embeds rendered so far; also what makes each one's anchor ids unique.
    count: usize,
    /// The files embedded, in order, each once: a change of one of them changes the page.
    pub files: Vec<String>,
}

impl<'r> Embedder<'r> {
    /// The embeds of the page `rel` of the vault at `root`.
    pub fn new(root: &'r Path, rel: &str) -> Embedder<'r> {
        Embedder {
            root,
            stack: vec![(rel.to_string(), None)],
            count: 0,
            files: Vec::new(),
        }
    }

    /// Whether `rel` is the page shown (not a page embedded in it).
    pub fn is_host(&self, rel: &str) -> bool {
        self.stack.len() == 1 && self.stack[0].0 == rel
    }

    /// The target of `link`, an embed of the Markdown file `path` (at `href`): its content
    /// in a frame, or a notice saying why it is not shown.
    pub fn embed(
        &mut self,
        m: &Manifest,
        link: &Link,
        path: String,
        href: String,
        missing_anchor: Option<String>,
    ) -> crate::manifest::Result<Target> {
        let anchor = match (&link.heading, &link.block) {
            (Some(h), _) => Some(key::heading_key(h.rsplit('#').next().unwrap_or(h))),
            (None, Some(b)) => Some(format!("^{b}")),
            (None, None) => None,
        };
        let mut embed = Embed {
            caption: String::new(),
            body: Err(String::new()),
            href,
            path,
        };
        let name = display_title(&embed.path, None);
        embed.caption = caption(&name, link);
        let here = (embed.path.clone(), anchor);
        embed.body = if let Some(a) = missing_anchor {
            Err(format!("Not embedded: {} has no {a}.", embed.path))
        } else if self.stack.contains(&here) {
            Err(format!(
                "Not embedded: {name} embeds itself here, through the embeds around it."
            ))
        } else if self.stack.len() > MAX_DEPTH {
            Err(format!(
                "Not embedded: embeds nest {MAX_DEPTH} deep at most; open {name} to read it."
            ))
        } else if self.count >= BUDGET {
            Err(format!(
                "Not embedded: this page already shows {BUDGET} embeds; open {name} to read it."
            ))
        } else {
            self.count += 1;
            if !self.files.contains(&embed.path) {
                self.files.push(embed.path.clone());
            }
            self.stack.push(here);
            let shown = self.content(m, link, &embed.path);
            self.stack.pop();
            match shown? {
                Ok((title, html)) => {
                    embed.caption = caption(&title, link);
                    Ok(html)
                }
                Err(why) => Err(why),
            }
        };
        Ok(Target::Embed(Box::new(embed)))
    }

    /// The page's title and the embedded part rendered, or why there is nothing to show.
    fn content(
        &mut self,
        m: &Manifest,
        link: &Link,
        path: &str,
    ) -> crate::manifest::Result<Result<(String, String), String>> {
        let Some(bytes) = paths::resolve_clean(self.root, path)
            .ok()
            .and_then(|f| fs_err::read(&f.abs).ok())
        else {
            return Ok(Err(format!("Not embedded: {path} cannot be read.")));
        };
        let Ok(text) = std::str::from_utf8(&bytes) else {
            return Ok(Err(format!(
                "Not embedded: {path} is not UTF-8 text; open it to see its bytes."
            )));
        };
        let split = frontmatter::split(text);
        let fm_title = match &split.block {
            Block::Valid(fm) => fm.title.clone().filter(|t| !t.trim().is_empty()),
            _ => None,
        };
        let title = display_title(path, fm_title.as_deref());
        let whole = outline::outline(split.body, split.body_line);
        let Some((part, first_line)) = excerpt(split.body, split.body_line, &whole, link) else {
            return Ok(Err(format!("Not embedded: {path} has no such part.")));
        };
        let part_outline = outline::outline(part, first_line);
        let targets = resolve::targets(Some(m), path, &part_outline, &whole, self)?;
        let links: Vec<WikiLink<'_>> = part_outline
            .links
            .iter()
            .zip(targets)
            .map(|(link, target)| WikiLink { link, target })
            .collect();
        let prefix = format!("e{}-", self.count);
        // A whole page's leading H1 repeats the title the frame shows.
        let drop_h1 = (link.heading.is_none() && link.block.is_none()).then_some(title.as_str());
        let html = render::render_embedded(part, &links, drop_h1.or(Some("")), &prefix);
        Ok(Ok((title, html)))
    }
}

/// What a frame names: the page, with the heading or block embedded.
fn caption(title: &str, link: &Link) -> String {
    match (&link.heading, &link.block) {
        (Some(h), _) => format!("{title} › {}", h.rsplit('#').next().unwrap_or(h)),
        (None, Some(b)) => format!("{title} › ^{b}"),
        (None, None) => title.to_string(),
    }
}

/// The part of `body` (whose first line is line `first` of the file) that `link` embeds, and
/// the line it starts on: all of it, the section under its heading, or its block.
fn excerpt<'b>(
    body: &'b str,
    first: usize,
    whole: &outline::Outline,
    link: &Link,
) -> Option<(&'b str, usize)> {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(body.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    // The byte where file line `line` starts (the end of the body past its last line).
    let at = |line: usize| {
        line.checked_sub(first)
            .and_then(|i| starts.get(i).copied())
            .unwrap_or(body.len())
    };
    let line_text = |line: usize| {
        let s = at(line);
        let e = at(line + 1);
        body[s..e].trim()
    };
    if let Some(h) = &link.heading {
        let want = key::heading_key(h.rsplit('#').next().unwrap_or(h));
        let i = whole
            .headings
            .iter()
            .position(|x| key::heading_key(&x.text) == want)?;
        let level = whole.headings[i].level;
        let start = whole.headings[i].line;
        let end = whole.headings[i + 1..]
            .iter()
            .find(|x| x.level <= level)
            .map_or(body.len(), |x| at(x.line));
        return Some((&body[at(start)..end], start));
    }
    if let Some(b) = &link.block {
        let &(_, line) = whole.blocks.iter().find(|(id, _)| id == b)?;
        let last_line = first + starts.len() - 1;
        let text = line_text(line);
        // A list item is its own line; a marker on a line of its own names the block above.
        let list_item = text.starts_with(['-', '*', '+'])
            || text
                .split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if list_item {
            return Some((&body[at(line)..at(line + 1)], line));
        }
        let mut start = line;
        if text.starts_with('^') {
            while start > first && (start == line || line_text(start).is_empty()) {
                start -= 1;
            }
        }
        while start > first && !line_text(start - 1).is_empty() {
            start -= 1;
        }
        let mut end = line;
        while end < last_line && !line_text(end + 1).is_empty() {
            end += 1;
        }
        return Some((&body[at(start)..at(end + 1)], start));
    }
    Some((body, first))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(heading: Option<&str>, block: Option<&str>) -> Link {
        Link {
            line: 1,
            target: "P".into(),
            heading: heading.map(str::to_string),
            block: block.map(str::to_string),
            label: None,
            embed: true,
            span: 0..0,
        }
    }

    fn cut(body: &str, l: &Link) -> Option<String> {
        let o = outline::outline(body, 5);
        excerpt(body, 5, &o, l).map(|(s, _)| s.to_string())
    }

    #[test]
    fn a_section_runs_to_the_next_heading_of_its_level_or_higher() {
        let body = "intro\n\n## A\n\na text\n\n### A1\n\ndeeper\n\n## B\n\nb text\n";
        assert_eq!(
            cut(body, &link(Some("A"), None)).as_deref(),
            Some("## A\n\na text\n\n### A1\n\ndeeper\n\n")
        );
        assert_eq!(
            cut(body, &link(Some("a1"), None)).as_deref(),
            Some("### A1\n\ndeeper\n\n")
        );
        assert_eq!(
            cut(body, &link(Some("B"), None)).as_deref(),
            Some("## B\n\nb text\n")
        );
        assert_eq!(cut(body, &link(Some("Z"), None)), None);
        assert_eq!(cut(body, &link(None, None)).as_deref(), Some(body));
    }

    #[test]
    fn a_block_is_its_paragraph_or_list_item() {
        let body = "one\ntwo ^p\nthree\n\n- x\n- y ^li\n- z\n\n| t |\n|---|\n\n^tab\n";
        assert_eq!(
            cut(body, &link(None, Some("p"))).as_deref(),
            Some("one\ntwo ^p\nthree\n")
        );
        assert_eq!(
            cut(body, &link(None, Some("li"))).as_deref(),
            Some("- y ^li\n")
        );
        assert_eq!(cut(body, &link(None, Some("nope"))), None);
    }
}
