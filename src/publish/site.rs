//! The published site as a model: its pages (those the rules publish), the attachments they
//! link or embed, and the links between them — all a published file may show. It is the
//! reader's view of the vault ([`Audience`]): a file outside it is never named, linked or
//! counted in any output. It answers the graph's questions over the published pages alone
//! ([`Links`]), and says which pages a change touches ([`Site::touched_by`]).

use crate::manifest::{GraphPage, LinkTable, SitePage};
use crate::render::embed::Audience;
use crate::render::graph::Links;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::convert::Infallible;

/// The published pages and attachments, and the links between the pages.
#[derive(Debug, Default)]
pub struct Site {
    /// The published pages, by path.
    pub pages: Vec<SitePage>,
    /// Each page's position in `pages`.
    at: HashMap<String, usize>,
    /// The pages each page links to (published ones, itself excluded), in path order.
    out: Vec<Vec<usize>>,
    /// The pages linking to each page, in path order.
    into: Vec<Vec<usize>>,
    /// The attachments the pages link to or embed, with their hashes (set by the caller).
    pub attachments: BTreeMap<String, String>,
}

impl Site {
    /// The site of `pages` (the published ones, by path) and `links` (linking page, target,
    /// embed) of the whole vault, of which those between published pages are kept.
    pub fn new(pages: Vec<SitePage>, links: &LinkTable) -> Site {
        let at: HashMap<String, usize> = pages
            .iter()
            .enumerate()
            .map(|(i, p)| (p.path.clone(), i))
            .collect();
        let mut out = vec![Vec::new(); pages.len()];
        let mut into = vec![Vec::new(); pages.len()];
        for (s, t, _) in links.iter() {
            if let (Some(&s), Some(&t)) = (at.get(s), at.get(t))
                && s != t
            {
                out[s].push(t);
                into[t].push(s);
            }
        }
        for list in out.iter_mut().chain(into.iter_mut()) {
            list.sort_unstable();
            list.dedup();
        }
        Site {
            pages,
            at,
            out,
            into,
            attachments: BTreeMap::new(),
        }
    }

    /// The published page at `path`.
    pub fn page(&self, path: &str) -> Option<&SitePage> {
        self.at.get(path).map(|&i| &self.pages[i])
    }

    /// The place of the published page at `path` among the pages.
    pub fn place(&self, path: &str) -> Option<usize> {
        self.at.get(path).copied()
    }

    /// The published pages linking to `path`, in path order.
    pub fn linking(&self, path: &str) -> Vec<&SitePage> {
        self.at.get(path).map_or(Vec::new(), |&i| {
            self.into[i].iter().map(|&j| &self.pages[j]).collect()
        })
    }

    /// How many published pages link to each page, by position.
    pub fn in_degrees(&self) -> Vec<usize> {
        self.into.iter().map(Vec::len).collect()
    }
}

impl Audience for Site {
    fn shows(&self, path: &str) -> bool {
        self.at.contains_key(path) || self.attachments.contains_key(path)
    }
}

impl Links for Site {
    type Error = Infallible;

    fn neighbours(
        &self,
        path: &str,
        limit: usize,
    ) -> Result<(Vec<String>, Vec<String>), Infallible> {
        let Some(&i) = self.at.get(path) else {
            return Ok((Vec::new(), Vec::new()));
        };
        let paths = |list: &[usize]| {
            list.iter()
                .take(limit)
                .map(|&j| self.pages[j].path.clone())
                .collect()
        };
        Ok((paths(&self.out[i]), paths(&self.into[i])))
    }

    fn pages_of(&self, paths: &[String]) -> Result<Vec<GraphPage>, Infallible> {
        let mut pages: Vec<GraphPage> = paths
            .iter()
            .filter_map(|p| self.page(p))
            .map(|p| GraphPage {
                path: p.path.clone(),
                title: p.title.clone(),
                kind: p.kind.clone(),
            })
            .collect();
        pages.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        pages.dedup_by(|a, b| a.path == b.path);
        Ok(pages)
    }

    fn links_among(&self, paths: &[String]) -> Result<Vec<(String, String)>, Infallible> {
        let among: BTreeSet<usize> = paths
            .iter()
            .filter_map(|p| self.at.get(p).copied())
            .collect();
        let mut links = Vec::new();
        for &s in &among {
            for &t in &self.out[s] {
                if among.contains(&t) {
                    links.push((self.pages[s].path.clone(), self.pages[t].path.clone()));
                }
            }
        }
        links.sort_unstable();
        Ok(links)
    }
}

/// The links of a vault between files, both ways, to find whom a change touches: a page shows
/// the pages it links to and that link to it (backlinks, its graph), their neighbours when it
/// has few (its graph), and what it embeds, to three levels.
#[derive(Debug, Default)]
pub struct Touches<'a> {
    /// Each file's neighbours, either way (borrowed from the links).
    near: HashMap<&'a str, Vec<&'a str>>,
    /// The pages embedding each file.
    embedded_by: HashMap<&'a str, Vec<&'a str>>,
}

/// A page with fewer neighbours than this shows theirs too (the graph's rule, with room).
const FEW: usize = 8;

/// How deep embeds nest ([`crate::render::embed::MAX_DEPTH`]).
const EMBED_DEPTH: usize = crate::render::embed::MAX_DEPTH + 1;

impl<'a> Touches<'a> {
    /// The touches of `links` (linking page, target, embed).
    pub fn of(links: impl IntoIterator<Item = (&'a str, &'a str, bool)>) -> Touches<'a> {
        let mut t = Touches::default();
        for (s, d, embed) in links {
            t.near.entry(s).or_default().push(d);
            t.near.entry(d).or_default().push(s);
            if embed {
                t.embedded_by.entry(d).or_default().push(s);
            }
        }
        for list in t.near.values_mut().chain(t.embedded_by.values_mut()) {
            list.sort_unstable();
            list.dedup();
        }
        t
    }

    /// The pages whose published files may show `path`, added to `touched`: the pages
    /// embedding it (nested too), and when `near` (what the pages near it show of it changed)
    /// its neighbours and their neighbours that have few.
    pub fn add(&self, path: &str, near: bool, touched: &mut BTreeSet<String>) {
        let neighbours = |p: &str| self.near.get(p).map_or(&[][..], Vec::as_slice);
        for n in neighbours(path).iter().filter(|_| near) {
            touched.insert(n.to_string());
            for m in neighbours(n) {
                if neighbours(m).len() < FEW {
                    touched.insert(m.to_string());
                }
            }
        }
        let mut level = vec![path];
        for _ in 0..EMBED_DEPTH {
            let next: Vec<&str> = level
                .iter()
                .flat_map(|p| self.embedded_by.get(p).map_or(&[][..], Vec::as_slice))
                .copied()
                .filter(|p| touched.insert(p.to_string()))
                .collect();
            if next.is_empty() {
                break;
            }
            level = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(path: &str) -> SitePage {
        SitePage {
            path: path.into(),
            ..SitePage::default()
        }
    }

    #[test]
    fn only_published_pages_and_their_attachments_are_shown_and_linked() {
        let links = LinkTable {
            paths: vec![
                "wiki/a.md".into(),
                "wiki/b.md".into(),
                "wiki/private.md".into(),
            ],
            links: vec![(0, 1, false), (0, 2, true), (2, 1, false)],
        };
        let mut site = Site::new(vec![page("wiki/a.md"), page("wiki/b.md")], &links);
        site.attachments.insert("wiki/p.png".into(), "h".into());
        assert!(site.shows("wiki/a.md") && site.shows("wiki/p.png"));
        assert!(!site.shows("wiki/private.md"));
        let linking: Vec<&str> = site
            .linking("wiki/b.md")
            .iter()
            .map(|p| p.path.as_str())
            .collect();
        assert_eq!(
            linking,
            ["wiki/a.md"],
            "a private page's link counts for nothing"
        );
        assert_eq!(
            site.links_among(&[
                "wiki/a.md".into(),
                "wiki/b.md".into(),
                "wiki/private.md".into()
            ])
            .unwrap(),
            [("wiki/a.md".to_string(), "wiki/b.md".to_string())]
        );
    }

    #[test]
    fn a_change_touches_neighbours_embedders_and_the_few_neighbours_beyond() {
        let t = Touches::of([
            ("a", "b", false),
            ("b", "c", false),
            ("x", "a", true),
            ("y", "x", true),
        ]);
        let mut touched = BTreeSet::new();
        t.add("c", true, &mut touched);
        assert_eq!(
            touched,
            BTreeSet::from(["a".to_string(), "b".to_string(), "c".to_string()]),
            "not x: three links away"
        );
        let mut touched = BTreeSet::new();
        t.add("a", true, &mut touched);
        assert!(
            touched.contains("x") && touched.contains("y"),
            "{touched:?}"
        );
        let mut touched = BTreeSet::new();
        t.add("a", false, &mut touched);
        assert_eq!(
            touched,
            BTreeSet::from(["x".to_string(), "y".to_string()]),
            "what only its content changed of: the pages embedding it, not those near"
        );
    }
}
