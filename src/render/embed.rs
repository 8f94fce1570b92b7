//! Embeds in place: `![[Page]]`, `![[Page#Heading]]` and `![[Page#^block]]` show the page's
//! body (without its frontmatter), the section under the heading (to the next heading of the
//! same or a higher level) or the block, rendered as the page itself would be and framed with
//! a link to the source ([`super::Embed`]). The target is the one the link resolves to
//! ([`super::resolve`]); the text is read fresh from disk, as the page shown is, through
//! [`super::paths`], and goes through the same renderer and sanitiser.
//!
//! Embeds nest up to [`MAX_DEPTH`]. An embed of what is already being embedded (a cycle, direct
//! or not), one nested deeper, one past the page's [`BUDGET`] of embeds, its [`BYTE_BUDGET`] of
//! embedded text or its [`READ_BUDGET`] of files read, and one whose file or anchor is missing
//! become a short notice in the frame, so no page can make the viewer loop or do unbounded
//! work: a count alone let 64 embeds of a 10 MB page render 640 MB. Each file is read and
//! outlined once per page view, however many of its sections the page embeds.

use super::html::display_title;
use super::paths;
use super::resolve;
use super::{Embed, Target, WikiLink};
use crate::key;
use crate::manifest::Manifest;
use crate::markdown::{
    Block, Link, frontmatter,
    outline::{self, Outline},
};
use std::cell::OnceCell;
use std::io::Read;
use std::path::Path;
use std::rc::Rc;

/// How deep embeds nest: an embed inside an embed inside an embed is shown, one more is a link.
pub const MAX_DEPTH: usize = 3;

/// The most embeds one page view renders, nested ones included.
pub const BUDGET: usize = 64;

/// The most Markdown one page view renders from embeds, in bytes, nested ones included.
pub const BYTE_BUDGET: usize = 2 * 1024 * 1024;

/// The most one page view reads of the files it embeds, in bytes, each file once: sections of
/// a large page are cut from one reading of it, and a page larger than this is never read.
pub const READ_BUDGET: usize = 16 * 1024 * 1024;

/// Who a page is rendered for, when it is not the vault's owner: which of the vault's files
/// the reader may be shown (a published site's pages and attachments).
pub trait Audience: std::fmt::Debug {
    /// Whether the file at the vault-relative `path` may be shown, linked or named.
    fn shows(&self, path: &str) -> bool;
}

/// The embeds of one page view: what is being embedded now, and how many were.
#[derive(Debug)]
pub struct Embedder<'r> {
    root: &'r Path,
    /// The page shown, then each embed being rendered, outermost first, by path and anchor.
    stack: Vec<(String, Option<String>)>,
    /// Embeds rendered so far; also what makes each one's anchor ids unique.
    count: usize,
    /// Bytes of Markdown embeds have rendered so far.
    bytes: usize,
    /// Bytes of the files embeds have read so far.
    read: usize,
    /// The files embeds have read, each once, by path.
    loaded: Vec<(String, Rc<Loaded>)>,
    /// The embeds (path and anchor) found too large for what was left of [`BYTE_BUDGET`] or
    /// [`READ_BUDGET`], and their notice: what is left only shrinks, so a page embedding one
    /// large page a hundred times is told so once, and the notices count as no embed.
    too_large: Vec<((String, Option<String>), String)>,
    /// The files embedded, in order, each once: a change of one of them changes the page.
    pub files: Vec<String>,
    /// Who reads ([`Embedder::showing`]); `None`: the vault's owner, who may be shown all.
    shows: Option<&'r dyn Audience>,
}

impl<'r> Embedder<'r> {
    /// The embeds of the page `rel` of the vault at `root`.
    pub fn new(root: &'r Path, rel: &str) -> Embedder<'r> {
        Embedder {
            root,
            stack: vec![(rel.to_string(), None)],
            count: 0,
            bytes: 0,
            read: 0,
            loaded: Vec::new(),
            too_large: Vec::new(),
            files: Vec::new(),
            shows: None,
        }
    }

    /// The embeds of the page `rel` for a reader who may be shown only the files `shows`
    /// accepts (a published site): a link or embed leading anywhere else, or nowhere, is its
    /// text alone ([`Target::Hidden`]), here and in every page embedded.
    pub fn showing(root: &'r Path, rel: &str, shows: &'r dyn Audience) -> Embedder<'r> {
        Embedder {
            shows: Some(shows),
            ..Embedder::new(root, rel)
        }
    }

    /// The wikilinks of a body whose outline is `outline` (of the file `rel`), each with its
    /// target ([`Self::targets`], the body its own whole).
    pub fn wikilinks<'o>(
        &mut self,
        manifest: Option<&Manifest>,
        rel: &str,
        outline: &'o Outline,
    ) -> crate::manifest::Result<Vec<WikiLink<'o>>> {
        let targets = self.targets(manifest, rel, outline, outline)?;
        Ok(outline
            .links
            .iter()
            .zip(targets)
            .map(|(link, target)| WikiLink { link, target })
            .collect())
    }

    /// The target of every link of `links` (the links of `rel`'s body, or of an excerpt of it,
    /// `whole` the outline of the whole body) as [`resolve::targets`] finds it, with each embed
    /// of a Markdown page rendered in place ([`Self::embed`]), in order.
    fn targets(
        &mut self,
        manifest: Option<&Manifest>,
        rel: &str,
        links: &Outline,
        whole: &Outline,
    ) -> crate::manifest::Result<Vec<Target>> {
        let mut found = resolve::targets(manifest, rel, links, whole, self.is_host(rel))?;
        if let Some(shows) = self.shows {
            for target in &mut found {
                let shown = matches!(target, Target::Found { path, .. } if shows.shows(path));
                if !shown {
                    *target = Target::Hidden;
                }
            }
        }
        let Some(m) = manifest else {
            return Ok(found);
        };
        links
            .links
            .iter()
            .zip(found)
            .map(|(l, target)| match target {
                Target::Found {
                    href,
                    path,
                    image: None,
                    missing_anchor,
                } if l.embed && paths::is_markdown(&path) => {
                    self.embed(m, l, path, href, missing_anchor)
                }
                other => Ok(other),
            })
            .collect()
    }

    /// Whether `rel` is the page shown (not a page embedded in it).
    fn is_host(&self, rel: &str) -> bool {
        self.stack.len() == 1 && self.stack[0].0 == rel
    }

    /// The target of `link`, an embed of the Markdown file `path` (at `href`): its content
    /// in a frame, or a notice saying why it is not shown.
    fn embed(
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
        } else if let Some((_, why)) = self.too_large.iter().find(|(e, _)| *e == here) {
            Err(why.clone())
        } else if self.bytes >= BYTE_BUDGET {
            Err(too_much(&name))
        } else if self.count >= BUDGET {
            Err(format!(
                "Not embedded: this page already shows {BUDGET} embeds; open {name} to read it."
            ))
        } else {
            self.count += 1;
            if !self.files.contains(&embed.path) {
                self.files.push(embed.path.clone());
            }
            self.stack.push(here.clone());
            let shown = self.content(m, link, &embed.path);
            self.stack.pop();
            match shown? {
                Ok((title, html)) => {
                    embed.caption = caption(&title, link);
                    Ok(html)
                }
                Err(Refused::TooLarge(why)) => {
                    self.too_large.push((here, why.clone()));
                    Err(why)
                }
                Err(Refused::Other(why)) => Err(why),
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
    ) -> crate::manifest::Result<Result<(String, String), Refused>> {
        // Taken before the embeds inside take their own numbers.
        let prefix = format!("e{}-", self.count);
        let page = match self.load(path) {
            Ok(page) => page,
            Err(why) => return Ok(Err(why)),
        };
        let body = page.body();
        let title = page.title.clone();
        let room = BYTE_BUDGET - self.bytes;
        // A whole page too large is known before its outline is made.
        if link.heading.is_none() && link.block.is_none() && body.len() > room {
            return Ok(Err(Refused::TooLarge(too_much(&title))));
        }
        let Some((part, first_line)) =
            excerpt(body, page.body_line, page.whole(), page.starts(), link)
        else {
            return Ok(Err(Refused::Other(format!(
                "Not embedded: {path} has no such part."
            ))));
        };
        if part.len() > room {
            return Ok(Err(Refused::TooLarge(too_much(&title))));
        }
        self.bytes += part.len();
        let part_outline = outline::outline(part, first_line);
        let targets = self.targets(Some(m), path, &part_outline, page.whole())?;
        let links: Vec<WikiLink<'_>> = part_outline
            .links
            .iter()
            .zip(targets)
            .map(|(link, target)| WikiLink { link, target })
            .collect();
        // A whole page's leading H1 repeats the title the frame shows.
        let drop_h1 = (link.heading.is_none() && link.block.is_none()).then_some(title.as_str());
        let html = super::render_embedded(part, &links, drop_h1.or(Some("")), &prefix);
        Ok(Ok((title, html)))
    }

    /// The Markdown file `path` read and outlined, once per page view, within the page's
    /// [`READ_BUDGET`].
    fn load(&mut self, path: &str) -> Result<Rc<Loaded>, Refused> {
        if let Some((_, page)) = self.loaded.iter().find(|(p, _)| p == path) {
            return Ok(page.clone());
        }
        let unreadable = || Refused::Other(format!("Not embedded: {path} cannot be read."));
        let file = paths::resolve_clean(self.root, path).map_err(|_| unreadable())?;
        // Its size is known before it is read: a page past what is left is never read.
        let size = fs_err::metadata(&file.abs).map_err(|_| unreadable())?.len();
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        if size > READ_BUDGET - self.read {
            return Err(Refused::TooLarge(too_large_to_read(&display_title(
                path, None,
            ))));
        }
        let room = READ_BUDGET - self.read;
        let mut bytes = Vec::with_capacity(size.min(room));
        fs_err::File::open(&file.abs)
            .and_then(|f| f.take(room as u64 + 1).read_to_end(&mut bytes))
            .map_err(|_| unreadable())?;
        // A file that grew since: what was read is counted, and it is not shown.
        self.read += bytes.len().min(room);
        if bytes.len() > room {
            return Err(Refused::TooLarge(too_large_to_read(&display_title(
                path, None,
            ))));
        }
        let Ok(text) = String::from_utf8(bytes) else {
            return Err(Refused::Other(format!(
                "Not embedded: {path} is not UTF-8 text; open it to see its bytes."
            )));
        };
        let (title, body_start, body_line) = {
            let split = frontmatter::split(&text);
            let fm_title = match &split.block {
                Block::Valid(fm) => fm.title.clone().filter(|t| !t.trim().is_empty()),
                _ => None,
            };
            (
                display_title(path, fm_title.as_deref()),
                text.len() - split.body.len(),
                split.body_line,
            )
        };
        let page = Loaded {
            text,
            body_start,
            body_line,
            title,
            whole: OnceCell::new(),
            starts: OnceCell::new(),
        };
        let page = Rc::new(page);
        self.loaded.push((path.to_string(), page.clone()));
        Ok(page)
    }
}

/// A Markdown file an embed read: its text, where its body starts and its title; its outline
/// and where each line of its body starts once an embed needs them (a whole page too large to
/// show needs neither).
#[derive(Debug)]
struct Loaded {
    text: String,
    body_start: usize,
    body_line: usize,
    title: String,
    whole: OnceCell<outline::Outline>,
    starts: OnceCell<Vec<usize>>,
}

impl Loaded {
    fn body(&self) -> &str {
        &self.text[self.body_start..]
    }

    fn whole(&self) -> &outline::Outline {
        self.whole
            .get_or_init(|| outline::outline(self.body(), self.body_line))
    }

    fn starts(&self) -> &[usize] {
        self.starts.get_or_init(|| line_starts(self.body()))
    }
}

/// Why an embed read from disk is not shown: too large for what is left of the page's
/// [`BYTE_BUDGET`], or another reason; each a notice.
#[derive(Debug)]
enum Refused {
    TooLarge(String),
    Other(String),
}

/// The notice of an embed of a file larger than what is left of the page's [`READ_BUDGET`].
fn too_large_to_read(name: &str) -> String {
    format!(
        "Not embedded: embeds read {} MB of pages per page at most; open {name} to read it.",
        READ_BUDGET / (1024 * 1024)
    )
}

/// The notice of an embed past the page's [`BYTE_BUDGET`].
fn too_much(name: &str) -> String {
    format!(
        "Not embedded: embeds show {} MB of text per page at most; open {name} to read it.",
        BYTE_BUDGET / (1024 * 1024)
    )
}

/// What a frame names: the page, with the heading or block embedded.
fn caption(title: &str, link: &Link) -> String {
    match (&link.heading, &link.block) {
        (Some(h), _) => format!("{title} › {}", h.rsplit('#').next().unwrap_or(h)),
        (None, Some(b)) => format!("{title} › ^{b}"),
        (None, None) => title.to_string(),
    }
}

/// The byte where each line of `body` starts.
fn line_starts(body: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(body.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// The part of `body` (whose first line is line `first` of the file, and whose lines start at
/// `starts`) that `link` embeds, and the line it starts on: all of it, the section under its
/// heading, or its block.
fn excerpt<'b>(
    body: &'b str,
    first: usize,
    whole: &outline::Outline,
    starts: &[usize],
    link: &Link,
) -> Option<(&'b str, usize)> {
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
        excerpt(body, 5, &o, &line_starts(body), l).map(|(s, _)| s.to_string())
    }

    #[test]
    fn a_file_is_read_once_per_view_and_never_past_the_read_budget() {
        let dir = tempfile::tempdir().unwrap();
        let a = "---\ntitle: Alpha\n---\n# A\n\n## One\n";
        fs_err::create_dir_all(dir.path().join("wiki")).unwrap();
        fs_err::write(dir.path().join("wiki/A.md"), a).unwrap();
        fs_err::write(dir.path().join("wiki/Big.md"), "x".repeat(READ_BUDGET)).unwrap();
        let mut e = Embedder::new(dir.path(), "wiki/Host.md");
        let first = e.load("wiki/A.md").unwrap();
        assert_eq!(
            (first.title.as_str(), first.body()),
            ("Alpha", "# A\n\n## One\n")
        );
        assert_eq!(first.whole().headings.len(), 2);
        assert!(Rc::ptr_eq(&first, &e.load("wiki/A.md").unwrap()));
        assert_eq!(e.read, a.len());
        // What is left is one byte short of Big: it is refused unread.
        match e.load("wiki/Big.md") {
            Err(Refused::TooLarge(why)) => assert!(why.contains("16 MB of pages"), "{why}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(e.read, a.len());
        assert!(matches!(e.load("wiki/None.md"), Err(Refused::Other(_))));
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
