//! `GET /graph`: the whole vault's graph of links, drawn on the server as SVG by the render
//! room ([`crate::render::graph`]): the most linked [`MAX_NODES`] pages when there are more,
//! with a note; `?tag=` and `?type=` narrow it. Every page shows its neighbourhood in the
//! sidebar ([`graph::section`], over the manifest).

use super::html::count;
use super::paths::query_value;
use super::site::{Lease, Reply, Site};
use crate::manifest::{GraphFilter, GraphPage};
use crate::render::graph::{self, Graph, MAX_NODES};
use crate::render::html::esc;
use std::collections::HashMap;
use std::fmt::Write as _;

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
        main.push_str(&graph::whole(&g));
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
