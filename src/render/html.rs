//! The pure HTML and URL helpers of what the viewer and a published site both show: escaping,
//! the URL of each vault file and tag, what a page is called and a link to it. Every value
//! interpolated into HTML goes through [`esc`].

use super::paths::{encode_path, encode_segment, is_markdown};

/// Escape text for HTML content and quoted attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The URL that shows a vault file, without the `.md` of a Markdown file: the original
/// viewer's `/wiki/…` under `wiki/` and `/raw/…` under `raw/`; `/page/…` for the few files
/// elsewhere (`inbox.md`). A page whose name without `.md` is itself a Markdown name
/// (`Note.md.md`) keeps its `.md`, since the routes take a URL ending in `.md` as the file.
pub fn href_for(path: &str) -> String {
    let shown = match path.strip_suffix(".md") {
        Some(shown) if !is_markdown(shown) => shown,
        _ => path,
    };
    for top in ["wiki", "raw"] {
        if let Some(rest) = shown.strip_prefix(top).and_then(|r| r.strip_prefix('/')) {
            return format!("/{top}/{}", encode_path(rest));
        }
    }
    format!("/page/{}", encode_path(shown))
}

/// The URL of a vault file's bytes (images, downloads).
pub fn file_href(path: &str) -> String {
    format!("/file/{}", encode_path(path))
}

/// The URL of a tag page.
pub fn tag_href(tag: &str) -> String {
    format!("/tag/{}", encode_segment(tag))
}

/// What a page is called: its title, or its file name without `.md`.
pub fn display_title(path: &str, title: Option<&str>) -> String {
    match title.map(str::trim) {
        Some(t) if !t.is_empty() => t.to_string(),
        _ => {
            let name = path.rsplit('/').next().unwrap_or(path);
            name.strip_suffix(".md").unwrap_or(name).to_string()
        }
    }
}

/// A link to a vault file.
pub fn page_link(path: &str, title: Option<&str>) -> String {
    format!(
        "<a href=\"{}\">{}</a>",
        esc(&href_for(path)),
        esc(&display_title(path, title))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_everything_that_matters() {
        assert_eq!(
            esc("<a href=\"x\" onclick='y'>&</a>"),
            "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;"
        );
    }

    #[test]
    fn hrefs() {
        assert_eq!(
            href_for("wiki/entities/Garden Plan.md"),
            "/wiki/entities/Garden%20Plan"
        );
        assert_eq!(href_for("raw/inbox/2026-05-01.md"), "/raw/inbox/2026-05-01");
        assert_eq!(href_for("raw/clip.txt"), "/raw/clip.txt");
        assert_eq!(href_for("wiki/img/a b.png"), "/wiki/img/a%20b.png");
        assert_eq!(href_for("inbox.md"), "/page/inbox");
        assert_eq!(href_for("wikipedia/x.md"), "/page/wikipedia/x");
        assert_eq!(href_for("wiki/Note.md.md"), "/wiki/Note.md.md");
        assert_eq!(href_for("wiki/Note.MD.md"), "/wiki/Note.MD.md");
        assert_eq!(href_for("wiki/x.m💡.md"), "/wiki/x.m%F0%9F%92%A1");
        assert_eq!(tag_href("ai/agents"), "/tag/ai%2Fagents");
        assert_eq!(tag_href("c#"), "/tag/c%23");
        assert_eq!(display_title("wiki/log.md", None), "log");
        assert_eq!(display_title("wiki/log.md", Some("  ")), "log");
        assert_eq!(display_title("wiki/x.md", Some("X")), "X");
    }
}
