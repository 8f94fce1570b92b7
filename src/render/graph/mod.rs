//! The graph of links as the viewer and a published site draw it, as SVG (no script, nothing
//! fetched): a whole vault's most linked pages and the links between them, and a page's
//! neighbourhood (the pages it links to and that link to it, and their neighbours too when they
//! are few). Nodes are pages, the index excluded (it links to everything); edges are links as
//! the last scan resolved them. Where the pages and links come from is the caller's
//! ([`Links`]); positions are computed in [`layout`], drawn in [`svg`].

pub mod layout;
pub mod svg;

use super::html::{display_title, esc};
use super::layout::{count, type_heading};
use crate::manifest::{GraphPage, Manifest};
use std::collections::HashMap;
use std::fmt::Write as _;

/// The most pages `/graph` draws; a bigger vault shows its most linked pages.
pub const MAX_NODES: usize = 300;

/// The most neighbours a page's graph shows in each direction.
const NEIGHBOURS: usize = 24;

/// A page's neighbours below this many: their neighbours are shown too.
const FEW: usize = 6;

/// The most pages a neighbourhood shows.
const AROUND: usize = 30;

/// A page of a graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Vault-relative path.
    pub path: String,
    /// What it is called.
    pub title: String,
    /// `type:`
    pub kind: Option<String>,
    /// Whether it is the page shown.
    pub current: bool,
    /// How many pages of the graph link to it.
    pub links: usize,
}

/// Pages and the links between them (indexes into `nodes`, linking page first).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Graph {
    /// The pages.
    pub nodes: Vec<Node>,
    /// The links.
    pub edges: Vec<(usize, usize)>,
}

impl Graph {
    /// The graph of `pages` with the `links` whose two ends are among them, in-links counted.
    pub fn of(pages: Vec<GraphPage>, links: &[(String, String)], current: Option<&str>) -> Graph {
        let at: HashMap<&str, usize> = pages
            .iter()
            .enumerate()
            .map(|(i, p)| (p.path.as_str(), i))
            .collect();
        let mut edges: Vec<(usize, usize)> = links
            .iter()
            .filter_map(|(s, t)| Some((*at.get(s.as_str())?, *at.get(t.as_str())?)))
            .filter(|(s, t)| s != t)
            .collect();
        edges.sort_unstable();
        edges.dedup();
        let mut nodes: Vec<Node> = pages
            .into_iter()
            .map(|p| Node {
                title: display_title(&p.path, p.title.as_deref()),
                current: current == Some(p.path.as_str()),
                path: p.path,
                kind: p.kind,
                links: 0,
            })
            .collect();
        for &(_, t) in &edges {
            nodes[t].links += 1;
        }
        Graph { nodes, edges }
    }

    /// The same graph with only the nodes `keep` says, in its order.
    pub fn only(self, keep: &[usize]) -> Graph {
        let mut new = vec![usize::MAX; self.nodes.len()];
        for (n, &i) in keep.iter().enumerate() {
            new[i] = n;
        }
        let edges = self
            .edges
            .iter()
            .map(|&(a, b)| (new[a], new[b]))
            .filter(|&(a, b)| a != usize::MAX && b != usize::MAX)
            .collect();
        let mut nodes: Vec<Option<Node>> = self.nodes.into_iter().map(Some).collect();
        let nodes = keep.iter().filter_map(|&i| nodes[i].take()).collect();
        Graph { nodes, edges }
    }
}

/// Where a neighbourhood's pages and links come from: the manifest for the viewer, the pages
/// a publish shows for a published site.
pub trait Links {
    /// What reading them may fail with.
    type Error;
    /// The pages `path` links to and the pages linking to it (`limit` of each at most).
    fn neighbours(
        &self,
        path: &str,
        limit: usize,
    ) -> Result<(Vec<String>, Vec<String>), Self::Error>;
    /// The pages of `paths` that are live pages, in path order.
    fn pages_of(&self, paths: &[String]) -> Result<Vec<GraphPage>, Self::Error>;
    /// The links between pages of `paths` (linking page, target).
    fn links_among(&self, paths: &[String]) -> Result<Vec<(String, String)>, Self::Error>;
}

impl Links for Manifest {
    type Error = crate::manifest::ManifestError;
    fn neighbours(
        &self,
        path: &str,
        limit: usize,
    ) -> Result<(Vec<String>, Vec<String>), Self::Error> {
        self.graph_neighbours(path, limit)
    }
    fn pages_of(&self, paths: &[String]) -> Result<Vec<GraphPage>, Self::Error> {
        self.graph_pages_of(paths)
    }
    fn links_among(&self, paths: &[String]) -> Result<Vec<(String, String)>, Self::Error> {
        self.graph_links_among(paths)
    }
}

/// The neighbourhood of the page `rel`: the page first, then the pages it links to and that
/// link to it, then (when those are few) theirs. `None` when `rel` is no live page or has no
/// neighbour.
pub fn around<L: Links>(m: &L, rel: &str) -> Result<Option<(Graph, usize)>, L::Error> {
    let (out, into) = m.neighbours(rel, NEIGHBOURS)?;
    let mut paths = vec![rel.to_string()];
    for p in out.into_iter().chain(into) {
        if !paths.contains(&p) {
            paths.push(p);
        }
    }
    let first = paths.len() - 1;
    if first == 0 {
        return Ok(None);
    }
    if first < FEW {
        for i in 1..=first {
            let (out, into) = m.neighbours(&paths[i].clone(), FEW)?;
            for p in out.into_iter().chain(into) {
                if paths.len() < AROUND && !paths.contains(&p) {
                    paths.push(p);
                }
            }
        }
    }
    let pages = m.pages_of(&paths)?;
    if !pages.iter().any(|p| p.path == rel) {
        return Ok(None);
    }
    let g = Graph::of(pages, &m.links_among(&paths)?, Some(rel));
    // In the order found: the page, its neighbours, theirs.
    let at: HashMap<&str, usize> = g
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.path.as_str(), i))
        .collect();
    let order: Vec<usize> = paths
        .iter()
        .filter_map(|p| at.get(p.as_str()).copied())
        .collect();
    let first = order.len().min(first + 1) - 1;
    Ok(Some((g.only(&order), first)))
}

/// The sidebar section that shows a page's neighbourhood, empty when it has none.
pub fn section<L: Links>(m: &L, rel: &str) -> Result<String, L::Error> {
    let Some((g, first)) = around(m, rel)? else {
        return Ok(String::new());
    };
    let pos = layout::rings(g.nodes.len(), first, 300.0, 260.0, 44.0);
    let svg = svg::draw(
        &g,
        &pos,
        &svg::Style {
            width: 300.0,
            height: 260.0,
            radius: 5.0,
            label_from: 0,
            label_chars: 16,
            caption: format!("The pages linked with this one ({})", g.nodes.len() - 1),
            class: "near",
        },
    );
    Ok(format!(
        "<section class=\"neighbourhood\">\n<h2>Graph <span class=\"n\">{}</span></h2>\n{svg}<p><a href=\"/graph\">The whole graph</a></p>\n</section>\n",
        g.nodes.len() - 1
    ))
}

/// The drawing of a whole graph (its most linked pages, hubs first): its legend, then the SVG.
pub fn whole(g: &Graph) -> String {
    let mut out = legend(g);
    let (w, h) = (1000.0, 720.0);
    let pos = layout::force(g.nodes.len(), &g.edges, w, h, 40.0);
    let label_from = if g.nodes.len() <= 60 {
        0
    } else {
        let mut links: Vec<usize> = g.nodes.iter().map(|n| n.links).collect();
        links.sort_unstable_by(|a, b| b.cmp(a));
        links.get(40).copied().unwrap_or(0) + 1
    };
    out.push_str(&svg::draw(
        g,
        &pos,
        &svg::Style {
            width: w,
            height: h,
            radius: 7.0,
            label_from,
            label_chars: 24,
            class: "whole",
            caption: format!(
                "The graph of links between {}",
                count(g.nodes.len(), "page", "pages")
            ),
        },
    ));
    out
}

/// The types drawn, each with its colour.
fn legend(g: &Graph) -> String {
    let mut kinds: Vec<&'static str> = g
        .nodes
        .iter()
        .map(|n| svg::type_class(n.kind.as_deref()))
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    let mut out = String::from("<p class=\"legend\">");
    for k in kinds {
        let name = if k == "other" { "" } else { k };
        let _ = write!(
            out,
            "<span class=\"key t-{k}\"><span class=\"dot\"></span>{}</span> ",
            esc(&type_heading(name))
        );
    }
    out.push_str("</p>\n");
    out
}
