//! Every link of the site leads to a file there (and a fragment to an id in it), relative or
//! under `--base-url`.

use super::*;

/// A vault of published pages linked in every way a link can take — by title, alias, heading,
/// block, to the page itself, with `&`, `%` and accents in their names, an embedded image, a
/// tag with a `/`, a collection — beside a private page and a link to nothing.
pub(super) fn site_vault() -> TestVault {
    let v = TestVault::new();
    edit(
        &v,
        "sparks.toml",
        "description = \"\"",
        "description = \"Notes on gardens & water\"",
    );
    v.write(
        "wiki/entities/Garden Plan.md",
        page(
            "Garden Plan",
            "entity",
            "publish: true\ntags: [gardening, ai/agents]\naliases: [GP]\n\
             sources: [\"https://example.com/seeds\"]\n",
            "# Garden Plan\n\nThe plot follows [[Cascade]], its [[Cascade#Design|design notes]] \
             and a [[Cascade#^terrace|terrace]]; see [[#Soil Types]], [[Café Notes]], \
             [[100% & Rain]], [[Private Draft]] and [[Nope]].\n\n## Soil Types\n\n\
             Loam, mostly. ^soil\n\n![[diagram one.png]]",
        ),
    )
    .write(
        "wiki/concepts/Cascade.md",
        page(
            "Cascade",
            "concept",
            "publish: true\ntags: [gardening]\n",
            "Terraces for 個人知識管理, planned in [[Garden Plan]] \
             (see [[Garden Plan#^soil|the soil]]).\n\n## Design\n\nStone walls. ^terrace",
        ),
    )
    .write(
        "wiki/concepts/Café Notes.md",
        page(
            "Café Notes",
            "concept",
            "publish: true\n",
            "Coffee grounds for [[GP]].",
        ),
    )
    .write(
        "wiki/concepts/100% & Rain.md",
        page(
            "100% & Rain",
            "concept",
            "publish: true\n",
            "Rain on [[Garden Plan#Soil Types]].",
        ),
    )
    .write(
        "wiki/collections/Seed Catalogue.md",
        page(
            "Seed Catalogue",
            "collection",
            "publish: true\n",
            "- [[Cascade]]\n- [[Garden Plan]]",
        ),
    )
    .write(
        "wiki/concepts/Private Draft.md",
        page(
            "Private Draft",
            "concept",
            "",
            "A draftword about [[Cascade]].",
        ),
    )
    .write("wiki/diagram one.png", PNG);
    v
}

/// The published pages of [`site_vault`], by vault path, with their titles and site paths.
pub(super) const SITE_PAGES: [(&str, &str, &str); 5] = [
    (
        "wiki/collections/Seed Catalogue.md",
        "Seed Catalogue",
        "wiki/collections/Seed%20Catalogue/",
    ),
    (
        "wiki/concepts/100% & Rain.md",
        "100% & Rain",
        "wiki/concepts/100%25%20%26%20Rain/",
    ),
    (
        "wiki/concepts/Café Notes.md",
        "Café Notes",
        "wiki/concepts/Caf%C3%A9%20Notes/",
    ),
    (
        "wiki/concepts/Cascade.md",
        "Cascade",
        "wiki/concepts/Cascade/",
    ),
    (
        "wiki/entities/Garden Plan.md",
        "Garden Plan",
        "wiki/entities/Garden%20Plan/",
    ),
];

/// The values of the attributes `names` in `html`, their character references decoded.
fn attributes(html: &str, names: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for name in names {
        let pattern = format!("{name}=\"");
        let mut from = 0;
        while let Some(i) = html[from..].find(&pattern) {
            let at = from + i;
            let start = at + pattern.len();
            from = start;
            // An attribute of its own, not the end of another's name (`data-href`).
            if !html[..at].ends_with(char::is_whitespace) {
                continue;
            }
            let Some(len) = html[start..].find('"') else {
                break;
            };
            found.push(unescape(&html[start..start + len]));
        }
    }
    found
}

/// An attribute's value with its character references decoded.
pub(super) fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The URLs of the Markdown links and images in `md`.
fn markdown_urls(md: &str) -> Vec<String> {
    md.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &md[at + 2..];
            let url = &rest[..rest.find(')')?];
            Some(url.trim_matches(['<', '>']).to_string())
        })
        .collect()
}

/// Whether `url` leads outside the site: another scheme (`https:`, `mailto:`) or another host
/// (`//host/`).
fn external(url: &str) -> bool {
    if url.starts_with("//") {
        return true;
    }
    let end = url.find([':', '/', '?', '#']);
    end.is_some_and(|e| {
        e > 0
            && url[e..].starts_with(':')
            && url[..e]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    })
}

/// `s` with its `%XX` escapes decoded; `None` when one is malformed or the text is no UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The file of the site (its path there, decoded) and fragment that the relative or
/// root-absolute `url`, found in the file `from`, leads to, as a browser resolves it: against
/// the folder `from` is served in (`a/b/index.html` at `/a/b/`, `a/b.md` at `/a/b.md`), a URL
/// ending in `/` served by that folder's `index.html`. `None` for a URL that climbs above the
/// site's root or is not percent-encoded properly.
pub(super) fn resolve(from: &str, url: &str) -> Option<(String, String)> {
    let (rest, fragment) = url.split_once('#').unwrap_or((url, ""));
    let rest = rest.split_once('?').map_or(rest, |(p, _)| p);
    let fragment = percent_decode(fragment)?;
    let mut at: Vec<String> = from.split('/').map(str::to_string).collect();
    at.pop();
    if rest.is_empty() {
        return Some((from.to_string(), fragment));
    }
    if rest.starts_with('/') {
        at.clear();
    }
    let parts: Vec<&str> = rest.trim_start_matches('/').split('/').collect();
    for part in &parts {
        match *part {
            "" | "." => {}
            ".." => {
                at.pop()?;
            }
            segment => at.push(percent_decode(segment)?),
        }
    }
    if rest.ends_with('/') || matches!(parts.last(), Some(&".") | Some(&"..")) {
        at.push("index.html".to_string());
    }
    Some((at.join("/"), fragment))
}

/// What [`check_links`] found.
#[derive(Debug, Default)]
pub(super) struct Checked {
    /// Links followed.
    pub(super) links: usize,
    /// Of them, those to a fragment of an HTML file.
    pub(super) fragments: usize,
    /// The broken ones: where each is, and why.
    pub(super) broken: Vec<String>,
}

/// Follow every link of the site at `out`: each `href`, `src` and form `action` of its HTML
/// files, each Markdown link of its `.md` files, llms.txt and llms-full.txt. A link leads to a
/// file there, and a fragment on an HTML file to an `id` in it. Under `base`, a link under that
/// address is one of the site's.
pub(super) fn check_links(out: &Path, base: Option<&str>) -> Checked {
    let files = files(out);
    let mut c = Checked::default();
    for (path, bytes) in &files {
        let text = String::from_utf8_lossy(bytes);
        let urls = if path.ends_with(".html") {
            attributes(&text, &["href", "src", "action"])
        } else if path.ends_with(".md") || path.starts_with("llms") {
            markdown_urls(&text)
        } else {
            continue;
        };
        for url in urls {
            let url = match base.and_then(|b| url.strip_prefix(b)) {
                Some(rest) => format!("/{rest}"),
                None => url,
            };
            if external(&url) {
                continue;
            }
            c.links += 1;
            let Some((file, fragment)) = resolve(path, &url) else {
                c.broken
                    .push(format!("{path}: {url}: not a path of the site"));
                continue;
            };
            match files.get(&file) {
                None => c.broken.push(format!("{path}: {url}: {file} is not there")),
                Some(target) if !fragment.is_empty() && file.ends_with(".html") => {
                    c.fragments += 1;
                    let id = format!(
                        "id=\"{}\"",
                        fragment
                            .replace('&', "&amp;")
                            .replace('"', "&quot;")
                            .replace('<', "&lt;")
                            .replace('>', "&gt;")
                    );
                    if !String::from_utf8_lossy(target).contains(&id) {
                        c.broken.push(format!("{path}: {url}: {file} has no {id}"));
                    }
                }
                Some(_) => {}
            }
        }
    }
    c
}

#[test]
fn every_link_of_the_site_leads_to_a_file_of_the_site() {
    let v = site_vault();
    let out = v.path("site");
    publish(&v, &[]);
    let checked = check_links(&out, None);
    assert_eq!(checked.broken, Vec::<String>::new(), "{checked:?}");
    // Not vacuous: the links of every page, its Markdown, the listings and the redirect of the
    // alias GP were followed, headings and blocks among them.
    assert!(checked.links > 150, "{checked:?}");
    assert!(checked.fragments >= 5, "{checked:?}");
    let redirect = text(&out, "wiki/entities/GP/index.html");
    assert!(redirect.contains("Garden%20Plan/"), "{redirect}");

    // The same under an address of its own.
    let under = v.dir.path().join("under");
    publish(&v, &[under.to_str().unwrap(), "--base-url", BASE]);
    let checked = check_links(&under, Some(BASE));
    assert_eq!(checked.broken, Vec::<String>::new(), "{checked:?}");
    assert!(checked.links > 150, "{checked:?}");
}

#[test]
fn links_are_relative_or_under_the_base_url() {
    let v = site_vault();
    publish(&v, &[]);
    let under = v.dir.path().join("under");
    publish(&v, &[under.to_str().unwrap(), "--base-url", BASE]);
    let mut rooted = Vec::new();
    let mut elsewhere = Vec::new();
    for (out, base) in [(v.path("site"), None), (under.clone(), Some(BASE))] {
        for (path, bytes) in files(&out).iter().filter(|(p, _)| p.ends_with(".html")) {
            let html = String::from_utf8_lossy(bytes);
            for url in attributes(&html, &["href", "src", "action"]) {
                // From the root of the host, the site would have to be served at it.
                if url.starts_with('/') {
                    rooted.push(format!("{path}: {url}"));
                }
                let theirs = url.starts_with(BASE) || url.starts_with('#') || url.is_empty();
                let web = url == "https://example.com/seeds";
                // The search page's script sits beside it: the one relative URL under a base.
                let beside = path == "search/index.html" && url == "search.js";
                if base.is_some() && !(theirs || web || beside) {
                    elsewhere.push(format!("{path}: {url}"));
                }
            }
        }
    }
    assert_eq!(rooted, Vec::<String>::new());
    assert_eq!(elsewhere, Vec::<String>::new());
    let plan = text(&under, "wiki/entities/Garden Plan/index.html");
    assert!(
        plan.contains("href=\"https://example.org/notes/wiki/concepts/Cascade/#design\""),
        "{plan}"
    );
    let llms = text(&under, "llms.txt");
    assert!(
        llms.contains("(https://example.org/notes/wiki/concepts/Cascade.md)"),
        "{llms}"
    );
}
