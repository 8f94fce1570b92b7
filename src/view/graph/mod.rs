//! The graph of links, drawn on the server as SVG (no script, nothing fetched): `GET /graph`
//! shows the whole vault's pages and the links between them (the most linked
//! [`MAX_NODES`] when there are more, with a note; `?tag=` and `?type=` narrow it), and every
//! page shows its neighbourhood in the sidebar: the pages it links to and that link to it, and
//! their neighbours too when they are few. Nodes are the pages as the manifest lists them, the
//! index excluded (it links to everything); edges are links as the last scan resolved them.
//! Positions are computed in [`layout`], drawn in [`svg`].

mod layout;
mod svg;

use super::html::{count, type_heading};
use super::paths::query_value;
use super::site::{Lease, Reply, Site};
use crate::manifest::{GraphFilter, GraphPage, Manifest};
use crate::render::html::{display_title, esc};
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
    fn of(pages: Vec<GraphPage>, links: &[(String, String)], current: Option<&str>) -> Graph {
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
    fn only(self, keep: &[usize]) -> Graph {
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

/// The whole vault's graph as `filter` narrows it: its most linked [`MAX_NODES`] pages, hubs
/// first, and how many pages there were. The pages are ranked by the manifest before any link
/// between them is read, so only the links among those drawn are fetched.
pub fn whole(m: &Lease, filter: &GraphFilter) -> crate::manifest::Result<(Graph, usize)> {
    let (most, total) = m.graph_most_linked(filter, MAX_NODES, m.counted())?;
    let rank: HashMap<&str, (usize, usize)> = most
        .iter()
        .enumerate()
        .map(|(i, (p, n))| (p.path.as_str(), (i, *n)))
        .collect();
    let mut pages: Vec<GraphPage> = most.iter().map(|(p, _)| p.clone()).collect();
    pages.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    let paths: Vec<String> = pages.iter().map(|p| p.path.clone()).collect();
    // Built in path order and then put in rank order, so that the links keep the order they
    // are drawn in (by linking page, then target).
    let mut g = Graph::of(pages, &m.graph_links_among(&paths)?, None);
    let mut order = vec![0; g.nodes.len()];
    for (i, node) in g.nodes.iter_mut().enumerate() {
        let (at, n) = rank[node.path.as_str()];
        // Counted over the whole graph, not just the links among the pages drawn.
        node.links = n;
        order[at] = i;
    }
    Ok((g.only(&order), total))
}

/// The neighbourhood of the page `rel`: the page first, then the pages it links to and that
/// link to it, then (when those are few) theirs. `None` when `rel` is no live page or has no
/// neighbour.
pub fn around(m: &Manifest, rel: &str) -> crate::manifest::Result<Option<(Graph, usize)>> {
    let (out, into) = m.graph_neighbours(rel, NEIGHBOURS)?;
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
            let (out, into) = m.graph_neighbours(&paths[i].clone(), FEW)?;
            for p in out.into_iter().chain(into) {
                if paths.len() < AROUND && !paths.contains(&p) {
                    paths.push(p);
                }
            }
        }
    }
    let pages = m.graph_pages_of(&paths)?;
    if !pages.iter().any(|p| p.path == rel) {
        return Ok(None);
    }
    let g = Graph::of(pages, &m.graph_links_among(&paths)?, Some(rel));
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
pub fn section(m: &Manifest, rel: &str) -> crate::manifest::Result<String> {
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

/// `GET /graph?tag=…&type=…`: the vault's graph of links.
pub fn page(site: &Site, query: Option<&str>) -> Reply {
    let value = |name| {
        query_value(query, name)
            .map(|v| crate::key::key(v.trim().trim_start_matches('#')))
            .filter(|v| !v.is_empty())
    };
    let filter = GraphFilter {
        tag: value("tag"),
        kind: value("type"),
    };
    let db = site.db();
    let mut main = String::from("<h1>Graph</h1>\n");
    main.push_str(&db.notice());
    main.push_str(&form(&filter));
    if let Some(m) = db.lease() {
        let (g, total) = match whole(m, &filter) {
            Ok(w) => w,
            Err(e) => return site.failed(&e.to_string()),
        };
        let pages = count(total, "page", "pages");
        let links = count(g.edges.len(), "link", "links");
        if total > g.nodes.len() {
            let _ = write!(
                main,
                "<p class=\"lede\">{pages}: too many to draw, so the {} most linked are shown, \
                 with the {links} between them. Narrow the graph by tag or type to see others.",
                g.nodes.len()
            );
        } else {
            let _ = write!(main, "<p class=\"lede\">{pages}, {links}.");
        }
        main.push_str("</p>\n");
        main.push_str(&legend(&g));
        let (w, h) = (1000.0, 720.0);
        let pos = layout::force(g.nodes.len(), &g.edges, w, h, 40.0);
        let label_from = if g.nodes.len() <= 60 {
            0
        } else {
            let mut links: Vec<usize> = g.nodes.iter().map(|n| n.links).collect();
            links.sort_unstable_by(|a, b| b.cmp(a));
            links.get(40).copied().unwrap_or(0) + 1
        };
        main.push_str(&svg::draw(
            &g,
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
    }
    Reply::html(200, site.layout(Some("Graph"), main, None).render())
}

/// The filter form: a tag and a type, sent as a GET.
fn form(filter: &GraphFilter) -> String {
    format!(
        "<form class=\"graph-filter\" action=\"/graph\" method=\"get\">\
         <label>Tag <input type=\"text\" name=\"tag\" value=\"{}\"></label> \
         <label>Type <input type=\"text\" name=\"type\" value=\"{}\"></label> \
         <button type=\"submit\">Show</button></form>\n",
        esc(filter.tag.as_deref().unwrap_or_default()),
        esc(filter.kind.as_deref().unwrap_or_default())
    )
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
