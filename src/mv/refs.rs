//! The references to one page and what each becomes: a wikilink keeps its form (by title, by
//! file name, by path, with `.md` or without) and names the new page; a link by alias is left
//! as it is (it still resolves); a Markdown link gets the destination that leads to the new
//! file from where it is written. Text that moves to another folder (the moved page, a merged
//! body) has its relative Markdown links re-based, so that they lead where they led.

use super::names::{self, Style};
use crate::key;
use crate::markdown::rewrite::{self, Edit, MarkdownRef, WikiRef};
use std::collections::{HashMap, HashSet};

/// How a link's target reaches its page, in the order links are resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// A path suffix (`[[folder/Old]]`).
    Path,
    /// The page's title.
    Title,
    /// One of its aliases.
    Alias,
    /// Its file name.
    FileName,
}

impl Via {
    /// How the link key `k` reaches a page with these title and alias keys.
    pub fn of(k: &str, title_key: &str, alias_keys: &[String]) -> Via {
        if k.contains('/') {
            Via::Path
        } else if k == title_key {
            Via::Title
        } else if alias_keys.iter().any(|a| a == k) {
            Via::Alias
        } else {
            Via::FileName
        }
    }
}

/// What the references to one page become.
#[derive(Debug, Clone)]
pub struct Retarget {
    /// The page's path now.
    pub page: String,
    /// The link keys that resolve to it, and how.
    pub keys: HashMap<String, Via>,
    /// What a link by title becomes.
    pub title: String,
    /// What a link by file name becomes.
    pub stem: String,
    /// The page's new path: a link by path becomes a suffix of it, a Markdown link leads to it.
    pub path: String,
    /// How many trailing parts of `path` a link by path needs, at least, to name only it.
    pub min_depth: usize,
    /// Block ids of the page renamed (`merge`), old → new: links to them follow, whatever
    /// name they reach the page by.
    pub blocks: HashMap<String, String>,
    /// The page's heading renamed (`mv` renames the H1 that repeats the title): its heading
    /// key before, and its new text. Links to it follow, whatever name they reach the page by.
    pub heading: Option<(String, String)>,
}

/// A link to the page with a heading (for `merge`'s ambiguity check).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadingLink {
    /// The linking file.
    pub source: String,
    /// The line.
    pub line: usize,
    /// The heading as written.
    pub heading: String,
}

/// The references rewritten in one file.
#[derive(Debug, Default)]
pub struct Found {
    /// The edits, in the file's old bytes.
    pub edits: Vec<Edit>,
    /// How many references they rewrite.
    pub rewritten: usize,
    /// The links to the page that name a heading.
    pub headings: Vec<HeadingLink>,
}

impl Retarget {
    /// The references to the page in `text`, the file at `source`. `moved_to` is where the
    /// text will live when it is not at `source` (the moved page, a merged body), and `exists`
    /// says whether a vault path is a live file (to tell how a Markdown link was meant).
    pub fn find(
        &self,
        source: &str,
        text: &str,
        moved_to: Option<&str>,
        exists: &dyn Fn(&str) -> bool,
    ) -> Found {
        self.find_in(source, text, moved_to, exists, true)
    }

    /// [`Retarget::find`]; without `wikilinks`, only the Markdown links (for a file that the
    /// manifest knows has no wikilink to the page).
    pub fn find_in(
        &self,
        source: &str,
        text: &str,
        moved_to: Option<&str>,
        exists: &dyn Fn(&str) -> bool,
        wikilinks: bool,
    ) -> Found {
        let mut found = Found::default();
        let own = source == self.page;
        let refs = match wikilinks {
            true => rewrite::wikilinks(text),
            false => Vec::new(),
        };
        for r in refs {
            let before = found.edits.len();
            self.wikilink(source, text, &r, own, &mut found);
            if found.edits.len() > before {
                found.rewritten += 1;
            }
        }
        for m in rewrite::markdown_links(text) {
            if let Some((edit, to_page)) = self.markdown(source, text, &m, moved_to, exists) {
                found.edits.push(edit);
                if to_page {
                    found.rewritten += 1;
                }
            }
        }
        found
    }

    fn wikilink(&self, source: &str, text: &str, r: &WikiRef, own: bool, found: &mut Found) {
        let l = &r.link;
        let via = if l.target.is_empty() {
            // A link to a heading or block of its own page moves with the page's text: its
            // target stays empty, as a link by alias keeps its name.
            own.then_some(Via::Alias)
        } else {
            self.keys.get(&key::link_key(&l.target)).copied()
        };
        let Some(via) = via else { return };
        if let Some(h) = &l.heading {
            found.headings.push(HeadingLink {
                source: source.to_string(),
                line: l.line,
                heading: h.clone(),
            });
        }
        let written = &text[r.target.clone()];
        let ext = key::strip_md(written).map_or("", |stem| &written[stem.len()..]);
        // `[[Old.md]]` is a link by file name, whatever the title.
        let via = match via {
            Via::Title if !ext.is_empty() => Via::FileName,
            v => v,
        };
        let target = match via {
            Via::Alias => None,
            Via::Title => Some(self.title.clone()),
            Via::FileName => Some(format!("{}{ext}", self.stem)),
            Via::Path => {
                let depth = written.split('/').filter(|p| !p.is_empty()).count();
                let depth = depth.max(self.min_depth);
                Some(format!("{}{ext}", names::suffix(&self.path, depth)))
            }
        };
        // A name that still leads to the page keeps its form as written (`[[old name]]` when
        // only the folder changed).
        if let Some(t) = target.filter(|t| key::link_key(t) != key::link_key(written)) {
            found.edits.push(r.retarget(&t));
        }
        if let Some(new) = l.block.as_ref().and_then(|b| self.blocks.get(b))
            && let Some(e) = r.refragment(&format!("^{new}"))
        {
            found.edits.push(e);
        }
        if let (Some(h), Some((old, new))) = (&l.heading, &self.heading)
            && key::link_heading_key(h) == *old
            && let Some(range) = r.fragment.clone()
        {
            // `[[T#A#B]]` names B: only the last part is the heading's.
            let last = text[range.clone()].rfind('#').map_or(0, |i| i + 1);
            found.edits.push(Edit {
                range: range.start + last..range.end,
                text: new.clone(),
            });
        }
    }

    /// The edit for a Markdown link, and whether it leads to the page.
    fn markdown(
        &self,
        source: &str,
        text: &str,
        m: &MarkdownRef,
        moved_to: Option<&str>,
        exists: &dyn Fn(&str) -> bool,
    ) -> Option<(Edit, bool)> {
        let raw = &text[m.dest.clone()];
        let (path, fragment) = match raw.find('#') {
            Some(i) => (&raw[..i], &raw[i..]),
            None => (raw, ""),
        };
        let decoded = rewrite::percent_decode(path).unwrap_or_else(|| path.into());
        let page_key = key::key(&self.page);
        // `[x](Old)` names `Old.md` too; the rewritten link keeps leaving `.md` out.
        let with_md = decoded.to_ascii_lowercase().ends_with(".md");
        // What the destination names: the first reading that is a live file (the page is),
        // else the plain relative one.
        let readings = names::md_target(source, &decoded);
        let is_page = |p: &str| {
            key::key(p) == page_key || (!with_md && key::key(&format!("{p}.md")) == page_key)
        };
        let chosen = readings
            .iter()
            .find(|(p, _)| is_page(p) || exists(p))
            .or(readings.first())?;
        let (target, style) = chosen;
        let from = moved_to.unwrap_or(source);
        let to_page = is_page(target);
        let new_target = if to_page {
            match with_md {
                true => self.path.clone(),
                false => key::strip_md(&self.path).unwrap_or(&self.path).to_string(),
            }
        } else if moved_to.is_some() && *style == Style::Relative {
            target.clone()
        } else {
            return None;
        };
        let dot = path.starts_with("./");
        let dest = names::md_destination(from, &new_target, *style, dot);
        let new = format!("{}{fragment}", names::encode_destination(&dest, m.angle));
        (new != raw).then(|| {
            (
                Edit {
                    range: m.dest.clone(),
                    text: new,
                },
                to_page,
            )
        })
    }
}

/// The smallest number of trailing parts of `path` that no other of `others` (paths of live
/// files with the same file name) ends with.
pub fn min_depth(path: &str, others: &[String]) -> usize {
    let parts = path.split('/').count();
    (1..=parts)
        .find(|&n| {
            let mine = key::link_key(&names::suffix(path, n));
            others.iter().filter(|o| *o != path).all(|o| {
                let theirs = key::link_key(o);
                theirs != mine && !theirs.ends_with(&format!("/{mine}"))
            })
        })
        .unwrap_or(parts)
}

/// A set of vault paths compared as keys.
#[derive(Debug, Default)]
pub struct Paths(HashSet<String>);

impl Paths {
    /// The paths given.
    pub fn new(paths: impl IntoIterator<Item = String>) -> Paths {
        Paths(paths.into_iter().map(|p| key::key(&p)).collect())
    }

    /// Whether `path` is one of them.
    pub fn contains(&self, path: &str) -> bool {
        self.0.contains(&key::key(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn retarget(keys: &[(&str, Via)]) -> Retarget {
        Retarget {
            page: "wiki/concepts/Old.md".into(),
            keys: keys.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            title: "New".into(),
            stem: "New".into(),
            path: "wiki/entities/New.md".into(),
            min_depth: 1,
            blocks: HashMap::new(),
            heading: None,
        }
    }

    fn rewrite(r: &Retarget, source: &str, text: &str) -> (String, usize) {
        let exists = |p: &str| p == "wiki/concepts/Other.md";
        let f = r.find(source, text, None, &exists);
        (rewrite::apply(text, &f.edits), f.rewritten)
    }

    #[test]
    fn each_form_names_the_new_page() {
        let r = retarget(&[
            ("old", Via::Title),
            ("oldie", Via::Alias),
            ("old-file", Via::FileName),
            ("concepts/old", Via::Path),
        ]);
        let text = "[[Old]] [[old|x]] [[Oldie]] [[old-file.MD]] ![[concepts/Old#^b]] [[Other]]\n\
                    [a](Old.md) [b](<Old.md>) [c](../concepts/Old.md#Part) [d](Other.md) [e](Old)\n";
        let (out, n) = rewrite(&r, "wiki/concepts/P.md", text);
        assert_eq!(
            out,
            "[[New]] [[New|x]] [[Oldie]] [[New.MD]] ![[entities/New#^b]] [[Other]]\n\
             [a](../entities/New.md) [b](<../entities/New.md>) [c](../entities/New.md#Part) [d](Other.md) [e](../entities/New)\n"
        );
        assert_eq!(n, 4 + 4);
    }

    #[test]
    fn links_to_the_renamed_heading_follow_it() {
        let mut r = retarget(&[("old", Via::Title), ("oldie", Via::Alias)]);
        r.heading = Some((key::heading_key("Old"), "New".into()));
        let text = "[[Old#Old]] [[Oldie#old|x]] [[Old#Other]] [[Old#Part#Old]] [[Other#Old]]\n";
        let (out, n) = rewrite(&r, "wiki/concepts/P.md", text);
        assert_eq!(
            out,
            "[[New#New]] [[Oldie#New|x]] [[New#Other]] [[New#Part#New]] [[Other#Old]]\n"
        );
        assert_eq!(n, 4);
        let own = r.find("wiki/concepts/Old.md", "See [[#Old]].\n", None, &|_| false);
        assert_eq!(
            rewrite::apply("See [[#Old]].\n", &own.edits),
            "See [[#New]].\n"
        );
    }

    #[test]
    fn moved_text_keeps_its_relative_links() {
        let r = retarget(&[("old", Via::Title)]);
        let text = "[o](Other.md) [s](Old.md) [u](https://x.example/a.md) [[Old]]\n";
        let exists = |p: &str| p == "wiki/concepts/Other.md";
        let f = r.find(
            "wiki/concepts/Old.md",
            text,
            Some("wiki/entities/New.md"),
            &exists,
        );
        assert_eq!(
            rewrite::apply(text, &f.edits),
            "[o](../concepts/Other.md) [s](New.md) [u](https://x.example/a.md) [[New]]\n"
        );
        assert_eq!(
            f.rewritten, 2,
            "the re-based link is no reference to the page"
        );
    }

    #[test]
    fn path_links_grow_until_they_name_one_file() {
        assert_eq!(min_depth("wiki/a/New.md", &[]), 1);
        assert_eq!(
            min_depth("wiki/a/New.md", &["wiki/b/New.md".into()]),
            2,
            "New alone names two files"
        );
        assert_eq!(min_depth("wiki/a/New.md", &["wiki/x/a/New.md".into()]), 3);
    }
}
