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
    /// The published pages, by path (a page's place is found by a binary search: a map of
    /// every path was 8 MB at 100,000 pages).
    pub pages: Vec<SitePage>,
    /// The pages each page links to (published ones, itself excluded), in path order.
    out: Adjacent,
    /// The pages linking to each page, in path order.
    into: Adjacent,
    /// The attachments the pages link to or embed, with their hashes (set by the caller).
    pub attachments: BTreeMap<String, String>,
}

/// Each page's neighbours one way, by place, as one list (a list per page of `usize` was
/// 19 MB at 100,000 pages, this 7 MB).
#[derive(Debug, Default)]
struct Adjacent {
    /// Where each page's neighbours start in `to`, and (last) where the last ones end.
    starts: Vec<u32>,
    /// The neighbours' places.
    to: Vec<u32>,
}

impl Adjacent {
    /// The adjacency of `n` pages from the links `pairs` (from, to), each page's neighbours in
    /// place order, each once.
    fn of(n: usize, pairs: &mut [(u32, u32)]) -> Adjacent {
        pairs.sort_unstable();
        let mut starts = Vec::with_capacity(n + 1);
        let mut to = Vec::with_capacity(pairs.len());
        let mut last = None;
        for &(from, next) in pairs.iter() {
            if last == Some((from, next)) {
                continue;
            }
            last = Some((from, next));
            while starts.len() <= from as usize {
                starts.push(to.len() as u32);
            }
            to.push(next);
        }
        while starts.len() <= n {
            starts.push(to.len() as u32);
        }
        Adjacent { starts, to }
    }

    /// The neighbours of the page at `place`.
    fn of_page(&self, place: usize) -> &[u32] {
        match (self.starts.get(place), self.starts.get(place + 1)) {
            (Some(&a), Some(&b)) => &self.to[a as usize..b as usize],
            _ => &[],
        }
    }
}

impl Site {
    /// The site of `pages` (the published ones) and `links` (linking page, target, embed) of
    /// the whole vault, of which those between published pages are kept.
    pub fn new(mut pages: Vec<SitePage>, links: &LinkTable) -> Site {
        // In path order already when read from the manifest (a sort that finds them so).
        pages.sort_by(|a, b| a.path.cmp(&b.path));
        let mut site = Site {
            pages,
            ..Site::default()
        };
        let place_of: Vec<Option<u32>> = (links.paths.iter())
            .map(|p| site.place(p).map(|i| i as u32))
            .collect();
        let place = |n: u32| place_of.get(n as usize).copied().flatten();
        let mut pairs: Vec<(u32, u32)> = (links.links.iter())
            .filter_map(|&(s, t, _)| Some((place(s)?, place(t)?)))
            .filter(|(s, t)| s != t)
            .collect();
        let n = site.pages.len();
        site.out = Adjacent::of(n, &mut pairs);
        for pair in pairs.iter_mut() {
            *pair = (pair.1, pair.0);
        }
        site.into = Adjacent::of(n, &mut pairs);
        site
    }

    /// The published page at `path`.
    pub fn page(&self, path: &str) -> Option<&SitePage> {
        self.place(path).map(|i| &self.pages[i])
    }

    /// The place of the published page at `path` among the pages.
    pub fn place(&self, path: &str) -> Option<usize> {
        self.pages
            .binary_search_by(|p| p.path.as_str().cmp(path))
            .ok()
    }

    /// The published pages linking to `path`, in path order.
    pub fn linking(&self, path: &str) -> Vec<&SitePage> {
        self.place(path).map_or(Vec::new(), |i| {
            (self.into.of_page(i).iter())
                .map(|&j| &self.pages[j as usize])
                .collect()
        })
    }

    /// How many published pages link to each page, by position.
    pub fn in_degrees(&self) -> Vec<usize> {
        (0..self.pages.len())
            .map(|i| self.into.of_page(i).len())
            .collect()
    }
}

impl Audience for Site {
    fn shows(&self, path: &str) -> bool {
        self.place(path).is_some() || self.attachments.contains_key(path)
    }
}

impl Links for Site {
    type Error = Infallible;

    fn neighbours(
        &self,
        path: &str,
        limit: usize,
    ) -> Result<(Vec<String>, Vec<String>), Infallible> {
        let Some(i) = self.place(path) else {
            return Ok((Vec::new(), Vec::new()));
        };
        let paths = |list: &[u32]| {
            list.iter()
                .take(limit)
                .map(|&j| self.pages[j as usize].path.clone())
                .collect()
        };
        Ok((paths(self.out.of_page(i)), paths(self.into.of_page(i))))
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
        let among: BTreeSet<u32> = paths
            .iter()
            .filter_map(|p| self.place(p).map(|i| i as u32))
            .collect();
        let mut links = Vec::new();
        for &s in &among {
            for &t in self.out.of_page(s as usize) {
                if among.contains(&t) {
                    links.push((
                        self.pages[s as usize].path.clone(),
                        self.pages[t as usize].path.clone(),
                    ));
                }
            }
        }
        links.sort_unstable();
        Ok(links)
    }
}

/// The links of a vault between files, to find whom a change touches: a page shows the pages
/// it links to and that link to it (backlinks, its graph), their neighbours when it has few
/// (its graph), and what it embeds, to three levels. The links are walked a few times for the
/// whole change, not turned into maps of every file's neighbours (two of them, the last
/// publish's and this one's, were 80 MB at 100,000 pages).
#[derive(Debug)]
pub struct Touches<'a> {
    /// Each file's path, by number.
    names: Vec<&'a str>,
    /// The links (linking file, target, embed) by number; a number without a name is passed by.
    links: &'a [(u32, u32, bool)],
}

/// A page with fewer neighbours than this shows theirs too (the graph's rule, with room).
const FEW: usize = 8;

/// How deep embeds nest ([`crate::render::embed::MAX_DEPTH`]).
const EMBED_DEPTH: usize = crate::render::embed::MAX_DEPTH + 1;

impl<'a> Touches<'a> {
    /// The touches of `links` between the files `names` (by number).
    pub fn new(names: Vec<&'a str>, links: &'a [(u32, u32, bool)]) -> Touches<'a> {
        Touches { names, links }
    }

    /// Each link whose files both have a name, by number.
    fn each(&self) -> impl Iterator<Item = (usize, usize, bool)> + '_ {
        let n = self.names.len();
        self.links
            .iter()
            .map(|&(s, d, e)| (s as usize, d as usize, e))
            .filter(move |&(s, d, _)| s < n && d < n)
    }

    /// The pages whose published files may show the files `changed`, added to `touched`: the
    /// pages embedding each (nested too), and for each whose `near` is true (what the pages
    /// near it show of it changed) its neighbours and their neighbours that have few.
    pub fn add(&self, changed: &[(&str, bool)], touched: &mut BTreeSet<String>) {
        let n = self.names.len();
        let said: HashMap<&str, bool> = changed.iter().copied().collect();
        let (mut seed, mut wide) = (vec![false; n], vec![false; n]);
        for (i, name) in self.names.iter().enumerate() {
            if let Some(&near) = said.get(name) {
                (seed[i], wide[i]) = (true, near);
            }
        }
        // The neighbours of the files whose face changed, either way, and theirs.
        let around = |of: &[bool]| {
            let mut out = vec![false; n];
            for (s, d, _) in self.each() {
                out[d] |= of[s];
                out[s] |= of[d];
            }
            out
        };
        let first = around(&wide);
        let second = around(&first);
        // Of those, the ones with fewer than FEW neighbours (counted up to FEW).
        let mut counted: HashMap<usize, Vec<usize>> = HashMap::new();
        for (s, d, _) in self.each() {
            for (a, b) in [(s, d), (d, s)] {
                if second[a] {
                    let list = counted.entry(a).or_default();
                    if list.len() < FEW && !list.contains(&b) {
                        list.push(b);
                    }
                }
            }
        }
        for i in 0..n {
            let few = second[i] && counted.get(&i).is_some_and(|l| l.len() < FEW);
            if first[i] || few {
                touched.insert(self.names[i].to_string());
            }
        }
        // The pages embedding them, level by level.
        let mut level = seed.clone();
        let mut seen = seed;
        for _ in 0..EMBED_DEPTH {
            let mut next = vec![false; n];
            let mut any = false;
            for (s, d, embed) in self.each() {
                if embed && level[d] && !seen[s] {
                    (seen[s], next[s], any) = (true, true, true);
                    touched.insert(self.names[s].to_string());
                }
            }
            if !any {
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

    /// Touches of links between named files, numbered as first named.
    fn touches_of(
        links: &[(&'static str, &'static str, bool)],
    ) -> (Vec<&'static str>, Vec<(u32, u32, bool)>) {
        let mut names: Vec<&str> = Vec::new();
        let mut number = |p: &'static str| match names.iter().position(|n| *n == p) {
            Some(i) => i as u32,
            None => {
                names.push(p);
                names.len() as u32 - 1
            }
        };
        let numbered = links
            .iter()
            .map(|&(s, d, e)| (number(s), number(d), e))
            .collect();
        (names, numbered)
    }

    #[test]
    fn a_change_touches_neighbours_embedders_and_the_few_neighbours_beyond() {
        let (names, links) = touches_of(&[
            ("a", "b", false),
            ("b", "c", false),
            ("x", "a", true),
            ("y", "x", true),
        ]);
        let t = Touches::new(names, &links);
        let mut touched = BTreeSet::new();
        t.add(&[("c", true)], &mut touched);
        assert_eq!(
            touched,
            BTreeSet::from(["a".to_string(), "b".to_string(), "c".to_string()]),
            "not x: three links away"
        );
        let mut touched = BTreeSet::new();
        t.add(&[("a", true)], &mut touched);
        assert!(
            touched.contains("x") && touched.contains("y"),
            "{touched:?}"
        );
        let mut touched = BTreeSet::new();
        t.add(&[("a", false)], &mut touched);
        assert_eq!(
            touched,
            BTreeSet::from(["x".to_string(), "y".to_string()]),
            "what only its content changed of: the pages embedding it, not those near"
        );
    }

    #[test]
    fn a_neighbour_with_many_neighbours_is_not_touched_beyond_and_a_bad_number_is_passed_by() {
        // c changed; b is its neighbour; b's neighbours: c, the hub h and f. h has FEW
        // neighbours or more, f has few.
        let mut links = vec![("b", "c", false), ("h", "b", false), ("f", "b", false)];
        let spokes = ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"];
        links.extend(spokes.iter().map(|s| (*s, "h", false)));
        let (names, mut numbered) = touches_of(&links);
        numbered.push((0, 999, true));
        let t = Touches::new(names, &numbered);
        let mut touched = BTreeSet::new();
        t.add(&[("c", true), ("unknown", true)], &mut touched);
        assert_eq!(
            touched,
            BTreeSet::from(["b".to_string(), "c".to_string(), "f".to_string()]),
            "not the hub, nor its spokes"
        );
    }
}
