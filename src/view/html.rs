//! The viewer's page layout: [`crate::render::layout`]'s document with the viewer's sections,
//! its search route and the script that reloads a page when what it shows changes. The pieces
//! its routes assemble (tag chips, counts, breadcrumbs, notices) are the render room's, shared
//! with a published site.

use crate::render::html::esc;
use crate::render::layout::Document;
pub use crate::render::layout::{chip, count, crumbs, notice, type_count, type_heading};

/// One HTML document of the viewer.
#[derive(Debug, Default)]
pub struct Layout<'a> {
    /// The vault's name.
    pub vault: &'a str,
    /// The `<title>` before the vault name (none for the index).
    pub title: Option<&'a str>,
    /// Breadcrumbs, already HTML.
    pub crumbs: String,
    /// The main column, already HTML.
    pub main: String,
    /// The sidebar, already HTML (none: one column).
    pub aside: Option<String>,
    /// The search box's current text.
    pub query: &'a str,
    /// What the page shows, for the script that reloads it on a change; `None` (a viewer that
    /// does not watch) leaves the script out.
    pub live: Option<Shown>,
}

impl Layout<'_> {
    /// The whole document.
    pub fn render(&self) -> String {
        let head = self.live.as_ref().map_or(String::new(), live_script);
        Document {
            vault: self.vault,
            title: self.title,
            crumbs: &self.crumbs,
            main: &self.main,
            aside: self.aside.as_deref(),
            query: self.query,
            sections: &[
                ("Index", "/"),
                ("Tags", "/tags"),
                ("Graph", "/graph"),
                ("Raw", "/raw/"),
            ],
            search: "/search",
            head: &head,
            footer: "Served read-only by <code>sparks view</code>",
        }
        .render()
    }
}

/// The `data-` attributes of the script tag that tell [`super::live::SCRIPT`] what a page
/// shows: its file, and the pages whose change changes it (backlinks, citations), as attribute
/// text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shown {
    /// The vault-relative file the page shows, if it shows one.
    pub file: Option<String>,
    /// The pages that link to it or cite it.
    pub related: Vec<String>,
}

/// The script tag of a page that reloads itself, telling the script what the page shows.
fn live_script(shown: &Shown) -> String {
    let file = shown
        .file
        .as_ref()
        .map_or(String::new(), |f| format!(" data-file=\"{}\"", esc(f)));
    let related = serde_json::to_string(&shown.related).unwrap_or_else(|_| "[]".into());
    format!(
        "<script src=\"/static/live.js\" defer{file} data-related=\"{}\"></script>\n",
        esc(&related)
    )
}
