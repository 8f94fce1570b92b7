//! The links an author wrote as paths — Markdown links and images (`[text](Other.md)`,
//! `![alt](pic.png)`) and the `href` and `src` of HTML in a page — on the published site: a
//! link to a published page leads to that page, one to a file the site carries leads to its
//! copy, and any other (a private page, a raw capture, a file that is not there) shows its
//! text alone, so that the path it names appears in no file of the site. The manifest records
//! wikilinks alone; a publish reads the pages the scan marked as holding such links to know
//! which pages and files they name ([`named`]).

use super::site::Site;
use crate::markdown::outline::is_path_destination;
use crate::markdown::rewrite::{self, Edit};
use crate::render::html::{esc, file_href, href_for};
use crate::render::{block_anchor, fragment, slug};

/// Where a link written as a path leads on the site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Leads {
    /// A published page (its vault path), with the fragment written (`#…`, or empty).
    Page(String, String),
    /// A file the site carries (its vault path).
    File(String),
    /// Nowhere the site may show.
    Nowhere,
}

/// The vault file that the destination `dest` (as written: percent-encoded, or raw in angle
/// brackets) of a link in the page at `page` names, with the fragment written: the first of
/// the readings a Markdown link has (relative to the page, then from the vault's root; each
/// as written, then with `.md` added) for which `exists` holds.
pub fn named(page: &str, dest: &str, exists: impl Fn(&str) -> bool) -> Option<(String, String)> {
    let (path, fragment) = match dest.find('#') {
        Some(i) => (&dest[..i], &dest[i..]),
        None => (dest, ""),
    };
    let path = path.split('?').next().unwrap_or(path);
    let decoded = rewrite::percent_decode(path).unwrap_or_else(|| path.to_string());
    for (reading, _) in crate::mv::names::md_target(page, &decoded) {
        let with_md = format!("{reading}.md");
        if exists(&reading) {
            return Some((reading, fragment.to_string()));
        }
        if !reading.is_empty() && exists(&with_md) {
            return Some((with_md, fragment.to_string()));
        }
    }
    None
}

/// Where the destination `dest` of a link in the published page at `page` leads on `site`.
pub fn leads(site: &Site, page: &str, dest: &str) -> Leads {
    let shown = |p: &str| site.page(p).is_some() || site.attachments.contains_key(p);
    match named(page, dest, shown) {
        Some((p, f)) if site.page(&p).is_some() => Leads::Page(p, f),
        Some((p, _)) => Leads::File(p),
        None => Leads::Nowhere,
    }
}

/// Whether a link's destination is a path as a Markdown link's is
/// ([`is_path_destination`]: no URL, not only a fragment), and not rooted (the renderer's own
/// links are) or only a query.
pub fn is_path(dest: &str) -> bool {
    is_path_destination(dest) && !dest.starts_with(['/', '?'])
}

/// The viewer's URL of a published page with the fragment a Markdown link wrote (a heading's
/// text or `^block`), made the anchor the page has for it.
fn page_url(path: &str, written: &str) -> String {
    let anchor = written
        .strip_prefix('#')
        .filter(|f| !f.is_empty())
        .map(|f| {
            let f = rewrite::percent_decode(f).unwrap_or_else(|| f.to_string());
            match f.strip_prefix('^') {
                Some(block) => fragment(&block_anchor(block)),
                None => fragment(&slug(&f)),
            }
        });
    format!("{}{}", href_for(path), anchor.unwrap_or_default())
}

/// The rendered body `html` of the published page at `page`, each `href`, `src` and `cite`
/// (of a quotation) that is a path made to lead where [`leads`] says, as a viewer URL (written
/// for the site later, with the renderer's own): a link that leads nowhere shows its content
/// alone, such an image its alt text, and any other element loses the attribute.
pub fn html(html: &str, page: &str, site: &Site) -> String {
    if !html.contains("=\"") {
        return html.to_string();
    }
    let mut edits: Vec<Edit> = Vec::new();
    let mut at = 0;
    while let Some(i) = html[at..].find("=\"").map(|i| at + i) {
        let start = i + 2;
        let Some(end) = html[start..].find('"').map(|e| start + e) else {
            break;
        };
        at = end;
        let Some(attribute) = [" href", " src", " cite"]
            .into_iter()
            .find(|a| html[..i].ends_with(a))
        else {
            continue;
        };
        let value = unescape(&html[start..end]);
        if !is_path(&value) {
            continue;
        }
        let edit = match leads(site, page, &value) {
            Leads::Page(p, f) => Some(Edit {
                range: start..end,
                text: esc(&page_url(&p, &f)),
            }),
            Leads::File(p) => Some(Edit {
                range: start..end,
                text: esc(&file_href(&p)),
            }),
            Leads::Nowhere => unlinked(html, i - attribute.len(), end, &mut edits),
        };
        edits.extend(edit);
    }
    edits.sort_by_key(|e| e.range.start);
    let mut kept: Vec<Edit> = Vec::with_capacity(edits.len());
    for e in edits {
        if kept.last().is_none_or(|k| k.range.end <= e.range.start) {
            kept.push(e);
        }
    }
    rewrite::apply(html, &kept)
}

/// Take away a path that leads nowhere: its attribute starts at `attr` and its value ends at
/// `end`. A link keeps its content (its opening and closing tags go, the closing one pushed to
/// `edits`); an image becomes its alt text; another element loses the attribute.
fn unlinked(html: &str, attr: usize, end: usize, edits: &mut Vec<Edit>) -> Option<Edit> {
    let open = html[..attr].rfind('<')?;
    let close = html[end..].find('>').map(|c| end + c + 1)?;
    let name: String = html[open + 1..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    match name.as_str() {
        "a" => {
            if let Some(c) = html[close..].find("</a>").map(|c| close + c) {
                edits.push(Edit {
                    range: c..c + 4,
                    text: String::new(),
                });
            }
            Some(Edit {
                range: open..close,
                text: String::new(),
            })
        }
        "img" => Some(Edit {
            range: open..close,
            text: attribute(&html[open..close], "alt").unwrap_or_default(),
        }),
        _ => Some(Edit {
            range: attr..end + 1,
            text: String::new(),
        }),
    }
}

/// The value of the attribute `name` in the tag `tag`, as written (escaped).
fn attribute(tag: &str, name: &str) -> Option<String> {
    let pattern = format!(" {name}=\"");
    let start = tag.find(&pattern)? + pattern.len();
    let end = tag[start..].find('"')? + start;
    Some(tag[start..end].to_string())
}

/// An attribute's value with its character references decoded (those the sanitiser writes).
pub(super) fn unescape(value: &str) -> String {
    if !value.contains('&') {
        return value.to_string();
    }
    value
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_destination_names_a_file_relative_to_the_page_then_from_the_root() {
        let files = ["wiki/a/Other Page.md", "wiki/pic.png", "wiki/b/Note.md"];
        let exists = |p: &str| files.contains(&p);
        let named = |dest: &str| named("wiki/a/Page.md", dest, exists);
        assert_eq!(
            named("Other%20Page.md#Part"),
            Some(("wiki/a/Other Page.md".into(), "#Part".into()))
        );
        assert_eq!(
            named("Other Page"),
            Some(("wiki/a/Other Page.md".into(), "".into()))
        );
        assert_eq!(
            named("../pic.png"),
            Some(("wiki/pic.png".into(), "".into()))
        );
        assert_eq!(
            named("wiki/b/Note.md"),
            Some(("wiki/b/Note.md".into(), "".into()))
        );
        assert_eq!(
            named("../../../etc/passwd"),
            None,
            "nothing above the vault"
        );
        assert_eq!(named("Missing.md"), None);
    }

    #[test]
    fn paths_are_neither_urls_nor_fragments_nor_the_renderer_s_own() {
        for path in ["Other.md", "../x.png", "a b.md#h", "./x:y"] {
            assert!(is_path(path), "{path}");
        }
        for not in [
            "",
            "#h",
            "/wiki/X",
            "https://e.org/",
            "mailto:a@b",
            "//e.org/x",
        ] {
            assert!(!is_path(not), "{not}");
        }
    }

    #[test]
    fn a_fragment_becomes_the_anchor_of_the_heading_or_block() {
        assert_eq!(page_url("wiki/A.md", ""), "/wiki/A");
        assert_eq!(page_url("wiki/A.md", "#My%20Part"), "/wiki/A#my-part");
        assert_eq!(page_url("wiki/A.md", "#^b1"), "/wiki/A#block-b1");
    }

    /// A site of two published pages in `wiki/a/` and an attachment.
    fn site() -> Site {
        let page = |p: &str| crate::manifest::SitePage {
            path: p.into(),
            hash: "h".into(),
            ..Default::default()
        };
        let pages = vec![page("wiki/a/Page.md"), page("wiki/a/Public.md")];
        let mut site = Site::new(pages, &crate::manifest::LinkTable::default());
        site.attachments.insert("wiki/pic.png".into(), "h".into());
        site
    }

    #[test]
    fn links_lead_to_published_pages_and_files_or_show_their_text_alone() {
        let body = "<p><a href=\"Public.md#Part\">pub</a> <a href=\"Secret.md\">the <em>secret</em></a> \
                    <a href=\"../pic.png\"><img src=\"../secret.png\" alt=\"a &amp; b\"></a> \
                    <img src=\"../pic.png\" alt=\"p\"> <a href=\"https://e.org/\">web</a> \
                    <a href=\"/wiki/X\">x</a><q cite=\"Secret.md\">q</q></p>";
        assert_eq!(
            html(body, "wiki/a/Page.md", &site()),
            "<p><a href=\"/wiki/a/Public#part\">pub</a> the <em>secret</em> \
             <a href=\"/file/wiki/pic.png\">a &amp; b</a> \
             <img src=\"/file/wiki/pic.png\" alt=\"p\"> <a href=\"https://e.org/\">web</a> \
             <a href=\"/wiki/X\">x</a><q>q</q></p>"
        );
    }
}
