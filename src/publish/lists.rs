//! The pages of a published site that list its pages: the index (by type), the tags and each
//! tag's page, the whole graph, the search page and the page a host shows for a missing one.
//! Each is the main column (and sidebar) of a document in the viewer's layout, with the
//! viewer's URLs; only published pages are listed, so a tag no published page carries has no
//! page.

use super::site::Site;
use crate::manifest::SitePage;
use crate::render::graph::{self, Graph, MAX_NODES};
use crate::render::html::{esc, page_link};
use crate::render::layout::{self, chip, count};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A listing of the site: its title (none: the index), main column and sidebar.
#[derive(Debug)]
pub struct Listing {
    /// The `<title>` before the site's name.
    pub title: Option<String>,
    /// The main column.
    pub main: String,
    /// The sidebar.
    pub aside: Option<String>,
}

/// The most recently updated pages the index lists.
const RECENT: usize = 10;

/// The published pages by type, each list by title.
pub fn by_type(site: &Site) -> Vec<(String, Vec<&SitePage>)> {
    layout::by_type(&site.pages)
}

/// Each tag of the published pages (its key) and the pages carrying it, by tag.
pub fn tags(site: &Site) -> BTreeMap<String, Vec<&SitePage>> {
    let mut tags: BTreeMap<String, Vec<&SitePage>> = BTreeMap::new();
    for p in &site.pages {
        for t in &p.tags {
            let key = crate::key::key(t.trim().trim_start_matches('#'));
            if !key.is_empty() {
                let list = tags.entry(key).or_default();
                if list.last().is_none_or(|l| l.path != p.path) {
                    list.push(p);
                }
            }
        }
    }
    for list in tags.values_mut() {
        list.sort_by_cached_key(layout::list_key);
    }
    tags
}

/// The index: the pages by type, the recently updated and the tags beside.
pub fn index(site: &Site, name: &str, description: &str) -> Listing {
    let groups = by_type(site);
    let mut head = format!("<h1>{}</h1>\n", esc(name));
    if !description.trim().is_empty() {
        let _ = writeln!(head, "<p class=\"lede\">{}</p>", esc(description.trim()));
    }
    // The sections (megabytes for a large site) are not copied after the heading.
    let mut main = layout::type_sections(&groups, |_| String::new());
    main.insert_str(0, &head);
    let mut aside = layout::recently_updated(&recent(site, RECENT));
    aside.push_str(&cloud(&tags(site), None));
    Listing {
        title: None,
        main,
        aside: Some(aside),
    }
}

/// The `limit` pages updated last (by `updated:`, else `created:`), the newest first.
pub fn recent(site: &Site, limit: usize) -> Vec<&SitePage> {
    let mut dated: Vec<&SitePage> = site.pages.iter().filter(|p| p.updated.is_some()).collect();
    dated.sort_by(|a, b| b.updated.cmp(&a.updated).then_with(|| a.path.cmp(&b.path)));
    dated.truncate(limit);
    dated
}

/// Tag chips with counts, `active` marked.
fn cloud(tags: &BTreeMap<String, Vec<&SitePage>>, active: Option<&str>) -> String {
    if tags.is_empty() {
        return String::new();
    }
    let mut out = String::from("<section>\n<h2>Tags</h2>\n<p class=\"tags\">");
    for (t, pages) in tags {
        out.push_str(&chip(t, Some(pages.len()), active == Some(t.as_str())));
    }
    out.push_str("</p>\n</section>\n");
    out
}

/// The page of every tag.
pub fn all_tags(site: &Site) -> Listing {
    let tags = tags(site);
    let mut main = String::from("<h1>Tags</h1>\n");
    let _ = writeln!(
        main,
        "<p class=\"lede\">{}</p>",
        count(tags.len(), "tag", "tags")
    );
    main.push_str("<p class=\"tags big\">");
    for (t, pages) in &tags {
        main.push_str(&chip(t, Some(pages.len()), false));
    }
    main.push_str("</p>\n");
    Listing {
        title: Some("Tags".into()),
        main,
        aside: None,
    }
}

/// The page of the tag `tag`, carried by `pages`.
pub fn tag(tag: &str, pages: &[&SitePage], all: &BTreeMap<String, Vec<&SitePage>>) -> Listing {
    let title = format!("#{tag}");
    let mut main = format!("<h1 class=\"tag-title\">{}</h1>\n", esc(&title));
    let _ = writeln!(
        main,
        "<p class=\"lede\">{} tagged.</p>\n<ul class=\"pages wide\">",
        count(pages.len(), "page", "pages")
    );
    for p in pages {
        let _ = writeln!(main, "<li>{}</li>", page_link(&p.path, p.title.as_deref()));
    }
    main.push_str("</ul>\n");
    Listing {
        title: Some(title),
        main,
        aside: Some(cloud(all, Some(tag))),
    }
}

/// The whole graph: the most linked [`MAX_NODES`] published pages and the links between them.
pub fn whole_graph(site: &Site) -> Listing {
    let degrees = site.in_degrees();
    let mut order: Vec<usize> = (0..site.pages.len()).collect();
    order.sort_by(|&a, &b| degrees[b].cmp(&degrees[a]).then(a.cmp(&b)));
    order.truncate(MAX_NODES);
    let mut paths: Vec<String> = order.iter().map(|&i| site.pages[i].path.clone()).collect();
    paths.sort_unstable();
    let mut main = String::from("<h1>Graph</h1>\n");
    let (g, total) = match (
        crate::render::graph::Links::pages_of(site, &paths),
        crate::render::graph::Links::links_among(site, &paths),
    ) {
        (Ok(pages), Ok(links)) => (Graph::of(pages, &links, None), site.pages.len()),
    };
    let rank: BTreeMap<&str, (usize, usize)> = order
        .iter()
        .enumerate()
        .map(|(r, &i)| (site.pages[i].path.as_str(), (r, degrees[i])))
        .collect();
    let mut at = vec![0; g.nodes.len()];
    let mut g = g;
    for (i, node) in g.nodes.iter_mut().enumerate() {
        let (r, n) = rank[node.path.as_str()];
        node.links = n;
        at[r] = i;
    }
    let g = g.only(&at);
    let links = count(g.edges.len(), "link", "links");
    let _ = match total > g.nodes.len() {
        true => writeln!(
            main,
            "<p class=\"lede\">{}: the {} most linked are shown, with the {links} between them.</p>",
            count(total, "page", "pages"),
            g.nodes.len()
        ),
        false => writeln!(
            main,
            "<p class=\"lede\">{}, {links}.</p>",
            count(total, "page", "pages")
        ),
    };
    main.push_str(&graph::whole(&g));
    Listing {
        title: Some("Graph".into()),
        main,
        aside: None,
    }
}

/// The search page.
pub fn search() -> Listing {
    Listing {
        title: Some("Search".into()),
        main: super::search::page_main(),
        aside: None,
    }
}

/// The page a host shows for an address the site does not have.
pub fn not_found() -> Listing {
    Listing {
        title: Some("Not found".into()),
        main: "<h1>Not found</h1>\n<p class=\"lede\">There is no page here. Try the \
               <a href=\"/\">index</a> or the <a href=\"/search/\">search</a>.</p>\n"
            .into(),
        aside: None,
    }
}
