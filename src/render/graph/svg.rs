//! A graph drawn as inline SVG: a line per link, a linked circle per page coloured by its type
//! (through the stylesheet's classes: no inline style, which the CSP forbids), the page shown
//! marked. Every node and line carries the paths it stands for in `data-` attributes, which
//! the tests read. Titles and paths are escaped like any other text.

use super::layout::Point;
use super::{Graph, Node};
use crate::render::html::{esc, href_for};
use std::fmt::Write as _;

/// The page types that have a colour of their own; any other is `other`.
const TYPES: &[&str] = &["entity", "concept", "synthesis", "summary", "collection"];

/// The class of a page's type.
pub fn type_class(kind: Option<&str>) -> &'static str {
    let k = kind.map(|k| k.trim().to_lowercase()).unwrap_or_default();
    TYPES.iter().find(|t| **t == k).copied().unwrap_or("other")
}

/// How the drawing looks.
pub struct Style {
    /// The view box.
    pub width: f64,
    /// The view box.
    pub height: f64,
    /// A node's radius.
    pub radius: f64,
    /// Label the nodes with at least this many links (the page shown is always labelled).
    pub label_from: usize,
    /// Labels longer than this many characters are cut.
    pub label_chars: usize,
    /// What the picture is, for a screen reader.
    pub caption: String,
    /// The class of the drawing besides `graph`: `whole` or `near`.
    pub class: &'static str,
}

/// The SVG of `graph` with its nodes at `pos`.
pub fn draw(graph: &Graph, pos: &[Point], style: &Style) -> String {
    let mut out = format!(
        "<svg class=\"graph {}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" xmlns=\"http://www.w3.org/2000/svg\">\n<g class=\"edges\">\n",
        style.class,
        style.width,
        style.height,
        esc(&style.caption)
    );
    for &(a, b) in &graph.edges {
        let (from, to) = (&graph.nodes[a], &graph.nodes[b]);
        let touches = if from.current || to.current {
            " class=\"near\""
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "<line{touches} x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" data-from=\"{}\" data-to=\"{}\"/>",
            pos[a].0,
            pos[a].1,
            pos[b].0,
            pos[b].1,
            esc(&from.path),
            esc(&to.path)
        );
    }
    out.push_str("</g>\n<g class=\"nodes\">\n");
    for (n, p) in graph.nodes.iter().zip(pos) {
        node(&mut out, n, *p, style);
    }
    out.push_str("</g>\n</svg>\n");
    out
}

fn node(out: &mut String, n: &Node, (x, y): Point, style: &Style) {
    let current = if n.current {
        " current\" aria-current=\"page"
    } else {
        ""
    };
    let r = if n.current {
        style.radius * 1.6
    } else {
        style.radius * (1.0 + (n.links as f64).ln_1p() * 0.25).min(2.2)
    };
    let _ = write!(
        out,
        "<a class=\"node t-{}{current}\" href=\"{}\" data-path=\"{}\"><title>{}</title><circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r:.1}\"/>",
        type_class(n.kind.as_deref()),
        esc(&href_for(&n.path)),
        esc(&n.path),
        esc(&n.title)
    );
    if n.current || n.links >= style.label_from {
        let shown: String = if n.title.chars().count() > style.label_chars {
            let cut: String = n.title.chars().take(style.label_chars - 1).collect();
            format!("{}…", cut.trim_end())
        } else {
            n.title.clone()
        };
        let _ = write!(
            out,
            "<text x=\"{x:.1}\" y=\"{:.1}\" dy=\"0.9em\">{}</text>",
            y + r + 1.0,
            esc(&shown)
        );
    }
    out.push_str("</a>\n");
}
