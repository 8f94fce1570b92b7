//! Where things are on a published site. Pages are rendered with the viewer's URLs (rooted at
//! `/`: `/wiki/concepts/Garden%20Plan`, `/file/…`, `/tag/…`), then every `href` and `src` is
//! moved to the site's: each page is a folder with an `index.html` (`wiki/concepts/Garden%20Plan/`),
//! its Markdown beside it (`wiki/concepts/Garden%20Plan.md`), attachments under `file/`, tag
//! pages under `tag/` (a tag's `/` a folder). A link is absolute under `--base-url`, else
//! relative to the file it is in, so that a site works under any sub-path.

use crate::render::html::href_for;
use crate::render::paths::encode_segment;

/// How a site's links are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    /// Relative to the file they are in.
    Relative,
    /// Absolute, under this address (ending with `/`).
    Absolute(String),
}

impl Base {
    /// The base of `--base-url` (a `/` added at its end), or relative links without one.
    pub fn of(url: Option<&str>) -> Base {
        match url.map(str::trim).filter(|u| !u.is_empty()) {
            Some(u) if u.ends_with('/') => Base::Absolute(u.to_string()),
            Some(u) => Base::Absolute(format!("{u}/")),
            None => Base::Relative,
        }
    }

    /// How the site's path `site` (no leading `/`) is written in the file at the site path
    /// `from`: under the base address, or with a `../` for each folder `from` is in.
    pub fn href(&self, site: &str, from: &str) -> String {
        match self {
            Base::Absolute(base) => format!("{base}{site}"),
            Base::Relative => {
                let up = "../".repeat(from.matches('/').count());
                match (up.is_empty(), site.is_empty()) {
                    (true, true) => "./".to_string(),
                    _ => format!("{up}{site}"),
                }
            }
        }
    }

    /// The absolute address of `site` where there is one, else its path from the root.
    pub fn absolute(&self, site: &str) -> String {
        match self {
            Base::Absolute(base) => format!("{base}{site}"),
            Base::Relative => format!("/{site}"),
        }
    }
}

/// The site path (percent-encoded, no leading `/`) of the page at the vault path `path`: a
/// folder, ending with `/`.
pub fn page(path: &str) -> String {
    format!("{}/", &href_for(path)[1..])
}

/// The site path of the copy of the vault file at `path` (an attachment).
pub fn file(path: &str) -> String {
    format!("file/{}", crate::render::paths::encode_path(path))
}

/// The site path of the Markdown of the page at `path` (its folder's name and `.md`).
pub fn markdown(path: &str) -> String {
    format!("{}.md", &href_for(path)[1..])
}

/// The site path of a tag's page: a folder for each part of the tag, any part that could
/// climb out of `tag/` made harmless.
pub fn tag(tag: &str) -> String {
    let parts: Vec<String> = tag.split('/').map(|p| encode_segment(&safe(p))).collect();
    format!("tag/{}/", parts.join("/"))
}

/// A path segment that names no folder above or of its own (`.`, `..`, empty).
fn safe(part: &str) -> String {
    match part {
        "" | "." | ".." => format!("_{}", part.replace('.', "_")),
        p => p.to_string(),
    }
}

/// The site path a viewer URL (`/wiki/A#x`, `/file/…`, `/tag/…`, `/tags`, `/graph`, `/`,
/// `/search`, the stylesheet and icon) is published at, fragment kept; `None` for what a
/// site does not have (`/raw/…`, `/page/…`, a search with a query).
pub fn site_href(viewer: &str) -> Option<String> {
    let (path, fragment) = match viewer.find('#') {
        Some(i) => viewer.split_at(i),
        None => (viewer, ""),
    };
    let rest = path.strip_prefix('/')?;
    let site = match rest {
        "" => String::new(),
        "tags" | "graph" | "search" | "tags/" | "graph/" | "search/" => {
            format!("{}/", rest.trim_end_matches('/'))
        }
        "static/style.css" | "favicon.ico" => rest.to_string(),
        _ => {
            if let Some(p) = rest.strip_prefix("wiki/") {
                format!("wiki/{p}/")
            } else if rest.starts_with("file/") {
                rest.to_string()
            } else if let Some(t) = rest.strip_prefix("tag/") {
                tag(&crate::markdown::rewrite::percent_decode(t)?)
            } else {
                return None;
            }
        }
    };
    if site.contains('?') || site.starts_with('/') {
        return None;
    }
    Some(format!("{site}{fragment}"))
}

/// The file (relative to the site's root, not encoded) a site path is served from: a folder's
/// `index.html`.
pub fn file_of(site: &str) -> Option<String> {
    let decoded = crate::markdown::rewrite::percent_decode(site)?;
    let file = match decoded.is_empty() || decoded.ends_with('/') {
        true => format!("{decoded}index.html"),
        false => decoded,
    };
    let clean = file
        .split('/')
        .all(|part| !part.is_empty() && part != "." && part != "..");
    clean.then_some(file)
}

/// `html` with every `href`, `src` and `action` that is a viewer URL written for the file at
/// the site path `from`; other URLs (the web, fragments, what the author wrote) stay as they
/// are.
pub fn relocate(html: &str, from: &str, base: &Base) -> String {
    let mut out = String::with_capacity(html.len() + html.len() / 8);
    let mut done = 0;
    let mut at = 0;
    // Each `="/` once, in one pass: an attribute whose value starts with `/`.
    while let Some(i) = html[at..].find("=\"/").map(|i| at + i) {
        let value_start = i + 2;
        at = value_start;
        let before = &html[..i];
        if ![" href", " src", " action"]
            .iter()
            .any(|a| before.ends_with(a))
        {
            continue;
        }
        let Some(end) = html[value_start..].find('"').map(|e| value_start + e) else {
            break;
        };
        let value = &html[value_start..end];
        let unescaped = super::paths::unescape(value);
        if let Some(site) = site_href(&unescaped).filter(|_| !value.starts_with("//")) {
            out.push_str(&html[done..value_start]);
            out.push_str(&crate::render::html::esc(&base.href(&site, from)));
            done = end;
        }
        at = end;
    }
    out.push_str(&html[done..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_folders_their_markdown_beside_them() {
        assert_eq!(
            page("wiki/concepts/Garden Plan.md"),
            "wiki/concepts/Garden%20Plan/"
        );
        assert_eq!(
            markdown("wiki/concepts/Garden Plan.md"),
            "wiki/concepts/Garden%20Plan.md"
        );
        assert_eq!(
            file_of("wiki/concepts/Garden%20Plan/").as_deref(),
            Some("wiki/concepts/Garden Plan/index.html")
        );
        assert_eq!(file_of("").as_deref(), Some("index.html"));
        assert_eq!(file_of("wiki/%2E%2E/x"), None, "nothing climbs out");
    }

    #[test]
    fn viewer_urls_become_site_paths() {
        assert_eq!(site_href("/").as_deref(), Some(""));
        assert_eq!(site_href("/wiki/a/B#h").as_deref(), Some("wiki/a/B/#h"));
        assert_eq!(
            site_href("/file/wiki/p.png").as_deref(),
            Some("file/wiki/p.png")
        );
        assert_eq!(
            site_href("/tag/ai%2Fagents").as_deref(),
            Some("tag/ai/agents/")
        );
        assert_eq!(site_href("/tag/..").as_deref(), Some("tag/___/"));
        assert_eq!(site_href("/tags").as_deref(), Some("tags/"));
        assert_eq!(site_href("/raw/x"), None);
        assert_eq!(site_href("/search?q=x"), None);
        assert_eq!(site_href("https://example.org/"), None);
    }

    #[test]
    fn links_are_relative_to_their_file_or_under_the_base() {
        let form = "<form action=\"/search/\" method=\"get\">";
        assert_eq!(
            relocate(form, "wiki/c/D/", &Base::Relative),
            "<form action=\"../../../search/\" method=\"get\">",
            "the search box's form too"
        );
        let html = "<a href=\"/wiki/a/B\">B</a><img src=\"/file/wiki/p.png\">\
                    <a href=\"#x\">x</a><a href=\"https://e.org/\">e</a><a href=\"/\">i</a>";
        assert_eq!(
            relocate(html, "wiki/c/D/", &Base::Relative),
            "<a href=\"../../../wiki/a/B/\">B</a><img src=\"../../../file/wiki/p.png\">\
             <a href=\"#x\">x</a><a href=\"https://e.org/\">e</a><a href=\"../../../\">i</a>"
        );
        assert_eq!(
            relocate(html, "", &Base::Relative),
            "<a href=\"wiki/a/B/\">B</a><img src=\"file/wiki/p.png\">\
             <a href=\"#x\">x</a><a href=\"https://e.org/\">e</a><a href=\"./\">i</a>"
        );
        let base = Base::of(Some("https://me.github.io/notes"));
        assert_eq!(
            relocate("<a href=\"/wiki/a/B#h\">B</a>", "wiki/c/D/", &base),
            "<a href=\"https://me.github.io/notes/wiki/a/B/#h\">B</a>"
        );
    }
}
