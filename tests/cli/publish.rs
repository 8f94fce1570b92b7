//! `sparks publish`: the wiki as a static site. Nothing of a private page reaches any file of
//! the site; which pages are published; every link of the site leads to a file there (and a
//! fragment to an id in it), relative or under `--base-url`; llms.txt as llmstxt.org reads it,
//! the Markdown copies, the sitemap and feed as XML, the search index; a second publish writes
//! only what changed and removes only what it wrote; redirects after `mv`; `--dry-run`; the
//! folders refused; the scan and git leave the site alone.

use crate::harness::{TestVault, refused, tree};
use crate::snapshot;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A 1×1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

/// The address of the tests that publish under `--base-url`.
const BASE: &str = "https://example.org/notes/";

/// A page's text: its title and type, the frontmatter lines `front` (each ending in a newline),
/// its dates, then `body`.
fn page(title: &str, kind: &str, front: &str, body: &str) -> String {
    format!(
        "---\ntitle: {title}\ntype: {kind}\n{front}created: 2026-04-01\nupdated: 2026-04-20\n\
         ---\n\n{body}\n"
    )
}

/// Replace `from` with `to` in the vault's `sparks.toml` (which must hold it).
fn configure(v: &TestVault, from: &str, to: &str) {
    let text = v.read("sparks.toml");
    assert!(text.contains(from), "sparks.toml has no {from:?}:\n{text}");
    v.write("sparks.toml", text.replacen(from, to, 1));
}

/// `sparks publish --json <args>`, which must succeed: its report.
#[track_caller]
fn publish(v: &TestVault, args: &[&str]) -> Value {
    let mut all = vec!["publish", "--json"];
    all.extend(args);
    v.run(&all).ok().json()
}

/// The strings of the report's list `key`.
fn list(report: &Value, key: &str) -> Vec<String> {
    report[key]
        .as_array()
        .unwrap_or_else(|| panic!("no list {key} in {report}"))
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// Every file under `out` with its bytes, by its path there (`/`-separated).
fn files(out: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(out)
        .into_iter()
        .map(|e| e.expect("walk the site"))
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(out).unwrap();
            let rel = rel.to_string_lossy().replace('\\', "/");
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

/// The text of the file `rel` of the site at `out`.
#[track_caller]
fn text(out: &Path, rel: &str) -> String {
    std::fs::read_to_string(out.join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
}

/// The vault paths of the pages published into `out`: those with a Markdown copy there.
fn published(out: &Path) -> BTreeSet<String> {
    files(out)
        .into_keys()
        .filter(|p| p.starts_with("wiki/") && p.ends_with(".md"))
        .collect()
}

/// A vault where a private page (title, alias, tags, a body word, a heading, a block and an
/// attachment of its own) is linked, embedded (nested too) and cited by public pages, which it
/// links back to and shares a tag with; the vault's index, log, inbox and a raw capture name it.
fn leak_vault() -> TestVault {
    let v = TestVault::new();
    v.write(
        "wiki/concepts/zeta-private.md",
        "---\ntitle: Private Title Zeta\ntype: concept\naliases: [Hidden Thing]\n\
         tags: [secret-tag, shared]\ncreated: 2026-04-01\nupdated: 2026-04-25\n---\n\n\
         The zebra grazes where [[Garden Plan]] ends. ^stripe\n\n## Stripes\n\nBlack and white.\n\n\
         ![[zeta-diagram.png]]\n",
    )
    .write("wiki/zeta-diagram.png", PNG)
    .write(
        "wiki/concepts/Garden Plan.md",
        page(
            "Garden Plan",
            "concept",
            "publish: true\ntags: [shared, gardening]\nsources: [wiki/concepts/zeta-private.md]\n",
            "The beds follow [[Cascade]] and hide [[Hidden Thing]]; see \
             [[Hidden Thing#Stripes|the stripes]] and [[Hidden Thing#^stripe]].\n\n\
             ![[Hidden Thing]]\n\n![[Hidden Thing#Stripes]]",
        ),
    )
    .write(
        "wiki/concepts/Cascade.md",
        page(
            "Cascade",
            "concept",
            "publish: true\ntags: [shared]\n",
            "Terraces, planned in [[Garden Plan]], shown here whole:\n\n![[Garden Plan]]",
        ),
    )
    .write(
        "wiki/concepts/Loose Note.md",
        page(
            "Loose Note",
            "concept",
            "",
            "Says nothing of publishing; links [[Hidden Thing]].",
        ),
    )
    .write(
        "raw/inbox/2026-05-01.md",
        "# 2026-05-01\n\nZeta thoughts: the zebra.\n",
    )
    .capture(&["More on Private Title Zeta and its zebra."]);
    let log = v.read("wiki/log.md");
    v.write(
        "wiki/log.md",
        format!("{log}\n- 2026-05-01: made [[Private Title Zeta]] (zebra)\n"),
    );
    v.run(&["index"]).ok();
    assert!(
        v.read("wiki/index.md").contains("Private Title Zeta"),
        "the vault's index lists the private page, so that a publish of it would leak"
    );
    v.settle();
    v
}

/// Every mention of the private page in the files under `out` (their paths and bytes, case
/// folded): `path: needle`.
fn leaks(out: &Path) -> Vec<String> {
    let needles = ["zeta", "zeta-private", "secret-tag", "zebra"];
    let mut found = Vec::new();
    for (path, bytes) in files(out) {
        let bytes = bytes.to_ascii_lowercase();
        let path_lower = path.to_ascii_lowercase();
        for n in needles {
            let in_bytes = bytes.windows(n.len()).any(|w| w == n.as_bytes());
            if in_bytes || path_lower.contains(n) {
                found.push(format!("{path}: {n}"));
            }
        }
    }
    found
}

#[test]
fn nothing_of_a_private_page_reaches_any_file_of_the_site() {
    let v = leak_vault();
    let out = v.path("site");
    let report = publish(&v, &[]);
    assert_eq!(report["published"], 2, "{report}");
    assert_eq!(leaks(&out), Vec::<String>::new());
    // Not vacuous: the public pages are there, the link shown as its text alone, the shared tag
    // listing them.
    let plan = text(&out, "wiki/concepts/Garden Plan/index.html");
    assert!(plan.contains("hide Hidden Thing;"), "{plan}");
    assert!(out.join(".sparks-publish.json").is_file());
    let shared = text(&out, "tag/shared/index.html");
    assert!(
        shared.contains("Garden Plan") && shared.contains("Cascade"),
        "{shared}"
    );
    let warnings = report["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w["page"] == "wiki/concepts/Garden Plan.md"
                && w["message"]
                    .as_str()
                    .unwrap()
                    .contains("wiki/concepts/zeta-private.md")),
        "a warning names the link to the private page: {report}"
    );

    // With --all, a page saying `publish: false` leaks no more, nor do the index, the log, a
    // conflict copy, the inbox or raw/.
    let text = v.read("wiki/concepts/zeta-private.md");
    v.write(
        "wiki/concepts/zeta-private.md",
        text.replacen("type: concept\n", "type: concept\npublish: false\n", 1),
    )
    .write(
        "wiki/concepts/Cascade (conflict 2026-05-01).md",
        page(
            "Cascade",
            "concept",
            "",
            "Zeta's zebra, in a conflict copy.",
        ),
    );
    let all = v.dir.path().join("all");
    let report = publish(&v, &[all.to_str().unwrap(), "--all"]);
    assert_eq!(report["published"], 3, "and Loose Note: {report}");
    assert!(all.join("wiki/concepts/Loose Note/index.html").is_file());
    assert_eq!(leaks(&all), Vec::<String>::new());
}

/// A vault of pages saying each thing of publishing, in two folders, and the pages never
/// published (the index, the log, Tasks, a conflict copy) saying `publish: true`.
fn choices_vault() -> TestVault {
    let v = TestVault::new();
    for (rel, front) in [
        ("wiki/concepts/Said Nothing.md", ""),
        ("wiki/concepts/Said True.md", "publish: true\n"),
        ("wiki/concepts/Said False.md", "publish: false\n"),
        ("wiki/concepts/Said Yes.md", "publish: \"yes\"\n"),
        ("wiki/entities/Included.md", ""),
        ("wiki/entities/Included But False.md", "publish: false\n"),
        (
            "wiki/concepts/Said True (conflict 2026-05-01).md",
            "publish: true\n",
        ),
    ] {
        let title = rel.rsplit('/').next().unwrap().trim_end_matches(".md");
        v.write(rel, page(title, "concept", front, "Words."));
    }
    v.run(&["index"]).ok();
    for rel in ["wiki/index.md", "wiki/log.md", "wiki/collections/Tasks.md"] {
        let text = v.read(rel);
        let with = match text.strip_prefix("---\n") {
            Some(rest) => format!("---\npublish: true\n{rest}"),
            None => format!("---\npublish: true\n---\n{text}"),
        };
        v.write(rel, with);
    }
    v
}

/// `paths` as a set.
fn set(paths: &[&str]) -> BTreeSet<String> {
    paths.iter().map(|p| p.to_string()).collect()
}

#[test]
fn a_page_is_published_when_it_says_so_or_the_configuration_does() {
    let v = choices_vault();
    let out = |name: &str| v.dir.path().join(name);

    let report = publish(&v, &[out("default").to_str().unwrap()]);
    assert_eq!(
        published(&out("default")),
        set(&["wiki/concepts/Said True.md"])
    );
    assert_eq!(report["published"], 1);
    let yes_warning = |report: &Value| {
        report["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["page"] == "wiki/concepts/Said Yes.md")
            .cloned()
    };
    let w = yes_warning(&report).expect("`publish: \"yes\"` is warned of");
    assert_eq!(w["line"], 4, "{w}");
    assert!(w["message"].as_str().unwrap().contains("publish"), "{w}");

    let report = publish(&v, &[out("all").to_str().unwrap(), "--all"]);
    let everything = set(&[
        "wiki/concepts/Said Nothing.md",
        "wiki/concepts/Said True.md",
        "wiki/entities/Included.md",
    ]);
    assert_eq!(published(&out("all")), everything);
    assert_eq!(report["published"], 3);
    assert!(
        yes_warning(&report).is_some(),
        "not published under --all either: {report}"
    );
    for never in ["wiki/index/", "wiki/log/", "wiki/collections/Tasks/"] {
        assert!(!out("all").join(never).exists(), "{never}");
    }

    configure(&v, "include = []", "include = [\"wiki/entities/**\"]");
    publish(&v, &[out("include").to_str().unwrap()]);
    assert_eq!(
        published(&out("include")),
        set(&["wiki/concepts/Said True.md", "wiki/entities/Included.md"])
    );

    configure(&v, "include = [\"wiki/entities/**\"]", "include = []");
    configure(&v, "all = false", "all = true");
    publish(&v, &[out("configured").to_str().unwrap()]);
    assert_eq!(published(&out("configured")), everything);

    // The page was read by the last publish into this folder: its warning is not forgotten.
    let again = publish(&v, &[out("configured").to_str().unwrap()]);
    assert!(list(&again, "written").is_empty(), "{again}");
    assert!(yes_warning(&again).is_some(), "{again}");
}

/// A vault of published pages linked in every way a link can take — by title, alias, heading,
/// block, to the page itself, with `&`, `%` and accents in their names, an embedded image, a
/// tag with a `/`, a collection — beside a private page and a link to nothing.
fn site_vault() -> TestVault {
    let v = TestVault::new();
    configure(
        &v,
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
const SITE_PAGES: [(&str, &str, &str); 5] = [
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
fn unescape(s: &str) -> String {
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
fn resolve(from: &str, url: &str) -> Option<(String, String)> {
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
struct Checked {
    /// Links followed.
    links: usize,
    /// Of them, those to a fragment of an HTML file.
    fragments: usize,
    /// The broken ones: where each is, and why.
    broken: Vec<String>,
}

/// Follow every link of the site at `out`: each `href`, `src` and form `action` of its HTML
/// files, each Markdown link of its `.md` files, llms.txt and llms-full.txt. A link leads to a
/// file there, and a fragment on an HTML file to an `id` in it. Under `base`, a link under that
/// address is one of the site's.
fn check_links(out: &Path, base: Option<&str>) -> Checked {
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

#[test]
fn llms_txt_is_as_llmstxt_org_describes() {
    let v = site_vault();
    let out = v.path("site");
    publish(&v, &[]);
    let llms = text(&out, "llms.txt");
    let mut lines = llms.lines().peekable();
    assert_eq!(lines.next(), Some("# vault"), "{llms}");
    // A blank line, then the summary as a blockquote.
    assert_eq!(lines.next(), Some(""));
    assert_eq!(lines.next(), Some("> Notes on gardens & water"), "{llms}");
    // Then anything but a heading, up to the first section.
    while let Some(line) = lines.next_if(|l| !l.starts_with("## ")) {
        assert!(!line.starts_with('#'), "{line:?} in\n{llms}");
    }
    let mut sections: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for line in lines {
        if let Some(h) = line.strip_prefix("## ") {
            sections.push((h.to_string(), Vec::new()));
            continue;
        }
        if line.is_empty() {
            continue;
        }
        // `- [Title](url)` or `- [Title](url): description`.
        let item = line
            .strip_prefix("- [")
            .and_then(|l| l.split_once("]("))
            .and_then(|(title, rest)| {
                let (url, after) = rest.split_once(')')?;
                (after.is_empty() || after.starts_with(": ")).then_some((title, url))
            });
        let Some((title, url)) = item else {
            panic!("{line:?} is not a link of a list in\n{llms}");
        };
        let section = sections.last_mut().expect("an item under a section");
        section.1.push((title.to_string(), url.to_string()));
    }
    let names: Vec<&str> = sections.iter().map(|(h, _)| h.as_str()).collect();
    assert_eq!(names, ["Entities", "Concepts", "Optional"], "{llms}");
    let titles =
        |i: usize| -> Vec<&str> { sections[i].1.iter().map(|(t, _)| t.as_str()).collect() };
    assert_eq!(titles(0), ["Garden Plan"]);
    assert_eq!(titles(1), ["100% & Rain", "Café Notes", "Cascade"]);
    assert_eq!(titles(2), ["Seed Catalogue"], "collections under Optional");
    for (_, items) in &sections {
        for (title, url) in items {
            let (file, _) = resolve("llms.txt", url).unwrap();
            assert!(
                file.ends_with(".md") && out.join(&file).is_file(),
                "{title}: {url}"
            );
        }
    }
    let full = text(&out, "llms-full.txt");
    assert!(
        !full.contains("draftword") && full.contains("Stone walls"),
        "{full}"
    );
}

#[test]
fn a_page_s_markdown_is_its_title_and_body_linking_published_markdown() {
    let v = site_vault();
    let out = v.path("site");
    publish(&v, &[]);
    let md = text(&out, "wiki/entities/Garden Plan.md");
    snapshot!(v, md, @r"
    # Garden Plan

    The plot follows [Cascade](../../wiki/concepts/Cascade.md), its [design notes](../../wiki/concepts/Cascade.md) and a [terrace](../../wiki/concepts/Cascade.md); see [Soil Types](../../wiki/entities/Garden%20Plan.md), [Café Notes](../../wiki/concepts/Caf%C3%A9%20Notes.md), [100% & Rain](../../wiki/concepts/100%25%20%26%20Rain.md), Private Draft and Nope.

    ## Soil Types

    Loam, mostly. ^soil

    ![diagram one.png](../../file/wiki/diagram%20one.png)
    ");
    // A page without an H1 of its own has one; the frontmatter is gone.
    let cascade = text(&out, "wiki/concepts/Cascade.md");
    assert!(
        cascade.starts_with("# Cascade\n\nTerraces for"),
        "{cascade}"
    );
    assert!(
        !cascade.contains("publish:") && !cascade.contains("---"),
        "{cascade}"
    );
    // Each link leads to a file there.
    let checked = check_links(&out, None);
    assert_eq!(checked.broken, Vec::<String>::new());
}

/// The elements of the XML file at `path` that a sitemap or feed is read for, one a line in
/// document order: `root <tag>`, `entry`, `loc <text>`, `id <text>`, `title <text>`,
/// `subtitle <text>`, `updated <text>`, `link <rel> <href>`, each tag with its namespace as
/// `{ns}name` for the root. Fails when the file is not well-formed XML (Python's parser).
fn xml(path: &Path) -> Vec<String> {
    let script = "import sys, xml.etree.ElementTree as ET\n\
                  root = ET.parse(sys.argv[1]).getroot()\n\
                  print('root', root.tag)\n\
                  for e in root.iter():\n    \
                      tag = e.tag.split('}')[-1]\n    \
                      if e is not root and tag == 'entry':\n        print('entry')\n    \
                      if tag in ('loc', 'id', 'title', 'subtitle', 'updated'):\n        \
                          print(tag, (e.text or '').strip())\n    \
                      if tag == 'link':\n        \
                          print('link', e.get('rel', 'alternate'), e.get('href'))\n";
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(path)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{} is not well-formed XML: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

// Python's XML parser is on the PATH of the Linux and macOS runners.
#[cfg(unix)]
#[test]
fn the_sitemap_and_the_feed_are_xml_naming_the_published_pages() {
    let v = site_vault();
    let out = v.dir.path().join("under");
    publish(&v, &[out.to_str().unwrap(), "--base-url", BASE]);
    let pages: BTreeSet<String> = SITE_PAGES
        .iter()
        .map(|(_, _, url)| format!("{BASE}{url}"))
        .collect();

    let sitemap = xml(&out.join("sitemap.xml"));
    assert_eq!(
        sitemap[0],
        "root {http://www.sitemaps.org/schemas/sitemap/0.9}urlset"
    );
    let locs: BTreeSet<String> = sitemap
        .iter()
        .filter_map(|l| l.strip_prefix("loc ").map(str::to_string))
        .collect();
    let mut expected = pages.clone();
    expected.insert(BASE.to_string());
    assert_eq!(locs, expected);

    let feed = xml(&out.join("feed.xml"));
    assert_eq!(feed[0], "root {http://www.w3.org/2005/Atom}feed");
    assert!(
        feed.contains(&"subtitle Notes on gardens & water".to_string()),
        "{feed:?}"
    );
    assert!(
        feed.contains(&format!("link self {BASE}feed.xml")),
        "{feed:?}"
    );
    let entries: Vec<&[String]> = feed.split(|l| l == "entry").skip(1).collect();
    assert_eq!(entries.len(), SITE_PAGES.len(), "{feed:?}");
    let linked: BTreeSet<String> = entries
        .iter()
        .flat_map(|e| e.iter())
        .filter_map(|l| l.strip_prefix("link alternate ").map(str::to_string))
        .collect();
    assert_eq!(linked, pages);
    for e in &entries {
        assert!(
            e.contains(&"updated 2026-04-20T00:00:00Z".to_string()),
            "{e:?}"
        );
    }

    // Relative links make well-formed files too.
    publish(&v, &[]);
    assert_eq!(
        xml(&v.path("site/sitemap.xml"))[0],
        "root {http://www.sitemaps.org/schemas/sitemap/0.9}urlset"
    );
    assert_eq!(
        xml(&v.path("site/feed.xml"))[0],
        "root {http://www.w3.org/2005/Atom}feed"
    );
}

#[test]
fn the_search_index_holds_the_published_words_and_cjk_pairs_alone() {
    let v = site_vault();
    let out = v.path("site");
    publish(&v, &[]);
    let meta: Value = serde_json::from_str(&text(&out, "search/meta.json")).unwrap();
    let all = files(&out);
    let json = |prefix: &str| -> Vec<Value> {
        all.iter()
            .filter(|(p, _)| p.starts_with(prefix) && p.ends_with(".json"))
            .map(|(_, b)| serde_json::from_slice(b).unwrap())
            .collect()
    };
    let tokens: BTreeSet<String> = json("search/index/")
        .iter()
        .flat_map(|chunk| chunk.as_array().unwrap().iter())
        .map(|entry| entry[0].as_str().unwrap().to_string())
        .collect();
    for token in ["terraces", "stone", "cafe", "知", "知識", "識管", "管理"] {
        assert!(tokens.contains(token), "{token}: {tokens:?}");
    }
    assert!(!tokens.contains("draftword"), "the private page's word");
    let urls: BTreeSet<String> = json("search/docs/")
        .iter()
        .flat_map(|chunk| chunk.as_array().unwrap().iter())
        .map(|doc| doc[0].as_str().unwrap().to_string())
        .collect();
    let expected: BTreeSet<String> = SITE_PAGES.iter().map(|(_, _, u)| u.to_string()).collect();
    assert_eq!(urls, expected);
    let search_files = all.keys().filter(|p| p.starts_with("search/"));
    for p in search_files {
        let bytes = &all[p];
        assert!(
            !bytes.windows(9).any(|w| w == b"draftword"),
            "{p} names the private page's word"
        );
    }
    assert_eq!(meta["count"], SITE_PAGES.len(), "{meta}");
    // The chunks meta.json names are there.
    let index = meta["index"].as_array().unwrap();
    let docs = meta["docs"]["chunks"].as_array().unwrap();
    assert!(!index.is_empty() && !docs.is_empty(), "{meta}");
    for name in index.iter().map(|i| &i[1]) {
        let file = format!("search/index/{}.json", name.as_str().unwrap());
        assert!(all.contains_key(&file), "{file}");
    }
    for name in docs {
        let file = format!("search/docs/{}.json", name.as_str().unwrap());
        assert!(all.contains_key(&file), "{file}");
    }
}

/// Three published pages: Alder links Birch; Cedar links nothing.
fn three_pages() -> TestVault {
    let v = TestVault::new();
    v.write(
        "wiki/concepts/Alder.md",
        page(
            "Alder",
            "concept",
            "publish: true\n",
            "Alder grows by [[Birch]].",
        ),
    )
    .write(
        "wiki/concepts/Birch.md",
        page("Birch", "concept", "publish: true\n", "Bark."),
    )
    .write(
        "wiki/concepts/Cedar.md",
        page("Cedar", "concept", "publish: true\n", "Cedar stands alone."),
    )
    .settle();
    v
}

#[test]
fn a_second_publish_writes_only_what_changed() {
    let v = three_pages();
    let first = publish(&v, &[]);
    let made = list(&first, "written");
    assert!(made.contains(&"wiki/concepts/Cedar/index.html".to_string()));

    let again = publish(&v, &[]);
    assert_eq!(list(&again, "written"), Vec::<String>::new());
    assert_eq!(list(&again, "removed"), Vec::<String>::new());
    assert_eq!(again["skipped"], made.len());

    let text = v.read("wiki/concepts/Birch.md");
    v.write(
        "wiki/concepts/Birch.md",
        text.replace("Bark.", "Bark, peeling in white strips."),
    );
    let edited = publish(&v, &[]);
    let written = list(&edited, "written");
    for f in ["wiki/concepts/Birch/index.html", "wiki/concepts/Birch.md"] {
        assert!(written.contains(&f.to_string()), "{f}: {written:?}");
    }
    assert!(
        !written.iter().any(|f| f.starts_with("wiki/concepts/Cedar")),
        "an unrelated page: {written:?}"
    );
    assert!(edited["skipped"].as_u64().unwrap() > 0, "{edited}");
    let birch = self::text(&v.path("site"), "wiki/concepts/Birch.md");
    assert!(birch.contains("white strips"), "{birch}");
}

#[test]
fn what_is_no_longer_published_is_removed_and_nothing_else() {
    let v = three_pages();
    let out = v.path("site");
    publish(&v, &[]);
    let theirs = [
        ("CNAME", "notes.example.org\n"),
        ("wiki/mine.txt", "someone else's\n"),
        ("wiki/concepts/Birch/notes.txt", "beside the page\n"),
    ];
    for (rel, content) in theirs {
        std::fs::write(out.join(rel), content).unwrap();
    }
    let text = v.read("wiki/concepts/Birch.md");
    v.write(
        "wiki/concepts/Birch.md",
        text.replace("publish: true", "publish: false"),
    );
    let report = publish(&v, &[]);
    let removed = list(&report, "removed");
    for f in ["wiki/concepts/Birch/index.html", "wiki/concepts/Birch.md"] {
        assert!(removed.contains(&f.to_string()), "{f}: {report}");
        assert!(!out.join(f).exists(), "{f}");
    }
    for (rel, content) in theirs {
        assert_eq!(self::text(&out, rel), content, "{rel}");
        assert!(!removed.contains(&rel.to_string()), "{rel}");
    }
    let alder = self::text(&out, "wiki/concepts/Alder/index.html");
    assert!(
        alder.contains("grows by Birch.") && !alder.contains("Birch/"),
        "the link shows as its text: {alder}"
    );
    let llms = self::text(&out, "llms.txt");
    assert!(
        !llms.contains("Birch.md") && !llms.contains("[Birch]"),
        "{llms}"
    );
}

/// Where the redirect page `rel` of the site at `out` sends the browser (its meta refresh),
/// as a file of the site.
#[track_caller]
fn redirect_target(out: &Path, rel: &str) -> String {
    let html = text(out, rel);
    let marker = "http-equiv=\"refresh\" content=\"0; url=";
    let at = html.find(marker).unwrap_or_else(|| panic!("{rel}: {html}")) + marker.len();
    let url = &html[at..at + html[at..].find('"').unwrap()];
    resolve(rel, &unescape(url)).unwrap().0
}

#[test]
fn a_renamed_or_moved_page_s_old_address_leads_to_it() {
    let v = TestVault::new();
    v.write(
        "wiki/concepts/Cascade.md",
        page("Cascade", "concept", "publish: true\n", "Terraces."),
    )
    .write(
        "wiki/concepts/Garden Plan.md",
        page(
            "Garden Plan",
            "concept",
            "publish: true\n",
            "See [[Cascade]].",
        ),
    );
    let out = v.path("site");
    publish(&v, &[]);
    v.run(&["mv", "Cascade", "Waterfall"]).ok();
    publish(&v, &[]);
    assert_eq!(
        redirect_target(&out, "wiki/concepts/Cascade/index.html"),
        "wiki/concepts/Waterfall/index.html"
    );
    let page = text(&out, "wiki/concepts/Waterfall/index.html");
    assert!(page.contains("<h1>Waterfall</h1>"), "{page}");

    // A page moved to another folder, its name kept (no alias): its old address too.
    v.run(&["mv", "Garden Plan", "wiki/entities/Garden Plan.md"])
        .ok();
    let report = publish(&v, &[]);
    assert!(
        list(&report, "written").contains(&"wiki/concepts/Garden Plan/index.html".to_string()),
        "{report}"
    );
    assert_eq!(
        redirect_target(&out, "wiki/concepts/Garden Plan/index.html"),
        "wiki/entities/Garden Plan/index.html"
    );
    assert!(out.join("wiki/entities/Garden Plan/index.html").is_file());

    // Kept by the next publishes.
    let again = publish(&v, &[]);
    assert_eq!(list(&again, "removed"), Vec::<String>::new(), "{again}");
    assert!(out.join("wiki/concepts/Cascade/index.html").is_file());
    assert!(out.join("wiki/concepts/Garden Plan/index.html").is_file());
}

#[test]
fn a_dry_run_writes_nothing_and_says_what_it_would() {
    let v = site_vault();
    v.run(&["scan"]).ok();
    let before = tree(&v);
    let report = publish(&v, &["--dry-run"]);
    assert_eq!(report["dry_run"], true);
    let written = list(&report, "written");
    for f in ["index.html", "llms.txt", "wiki/concepts/Cascade/index.html"] {
        assert!(written.contains(&f.to_string()), "{f}: {report}");
    }
    assert!(!v.path("site").exists(), "no site/");
    assert!(tree(&v) == before, "the vault is as it was");

    // On a site published before: the change it would make, and none made.
    publish(&v, &[]);
    let text = v.read("wiki/concepts/Café Notes.md");
    v.write(
        "wiki/concepts/Café Notes.md",
        text.replace("publish: true", "publish: false"),
    );
    let site = files(&v.path("site"));
    let report = publish(&v, &["--dry-run"]);
    assert!(
        list(&report, "removed").contains(&"wiki/concepts/Café Notes.md".to_string()),
        "{report}"
    );
    assert!(!list(&report, "written").is_empty(), "{report}");
    assert!(files(&v.path("site")) == site, "the site is as it was");
}

#[test]
fn a_folder_of_the_vault_s_own_is_refused() {
    let v = site_vault();
    v.run(&["scan"]).ok();
    let root = v.root.to_str().unwrap().to_string();
    for (args, says) in [
        (
            vec!["publish", "wiki"],
            "wiki: it is inside the vault's pages",
        ),
        (
            vec!["publish", "wiki/concepts/out"],
            "it is inside the vault's pages",
        ),
        (
            vec!["publish", "raw"],
            "raw: it is inside the vault's pages",
        ),
        (
            vec!["publish", ".sparks/site"],
            "it is inside a hidden folder of the vault",
        ),
        (vec!["publish", "."], "vault: the vault is in it"),
        (vec!["publish", &root], "vault: the vault is in it"),
        (vec!["publish", ".."], ": the vault is in it"),
        (
            vec!["publish", "--json", "wiki"],
            "wiki: it is inside the vault's pages",
        ),
    ] {
        refused(&v, &args, 1, says);
        let r = v.run(&args);
        assert!(r.stderr.contains("cannot publish into "), "{}", r.stderr);
    }
    assert!(!v.dir.path().join(".sparks-publish.json").exists());
    let r = v.run(&["publish", "--json", "wiki"]).code(1);
    let message = r.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(message.contains("wiki: it is inside"), "{message}");
}

/// What `sparks publish` printed into the vault's `site/`, stdout then stderr, as any system
/// shows it: the folder as `[VAULT]/site` (its separators are the system's), the hash that names
/// each search file (16 hex digits before `.json`) as `[ID]`.
fn shown(v: &TestVault, r: &crate::harness::Run) -> String {
    let text = format!("{}--- stderr\n{}", r.stdout, r.stderr);
    let text = text.replace(&v.path("site").display().to_string(), "[VAULT]/site");
    let mut out = String::new();
    for line in text.lines() {
        let shown = match line.find(".json") {
            Some(end)
                if end >= 16 && line[end - 16..end].chars().all(|c| c.is_ascii_hexdigit()) =>
            {
                format!("{}[ID]{}", &line[..end - 16], &line[end..])
            }
            _ => line.to_string(),
        };
        out.push_str(&shown);
        out.push('\n');
    }
    out
}

#[test]
fn what_a_small_publish_says_and_its_llms_txt() {
    let v = TestVault::new();
    configure(
        &v,
        "description = \"\"",
        "description = \"Trees of the valley\"",
    );
    v.write(
        "wiki/concepts/Alder.md",
        page(
            "Alder",
            "concept",
            "publish: true\n",
            "Alder grows by [[Birch]] and [[Hidden Grove]].",
        ),
    )
    .write(
        "wiki/entities/Birch.md",
        page(
            "Birch",
            "entity",
            "publish: true\n",
            "Bark, peeling in strips.",
        ),
    )
    .write(
        "wiki/collections/Tree List.md",
        page("Tree List", "collection", "publish: true\n", "- [[Alder]]"),
    )
    .write(
        "wiki/concepts/Hidden Grove.md",
        page("Hidden Grove", "concept", "", "Not for the site."),
    );
    let r = v.run(&["publish"]).ok();
    snapshot!(v, shown(&v, &r), @r"
    3 pages published, 4 private: wrote 21 files into [VAULT]/site, removed 0, 0 unchanged
      written wiki/collections/Tree List/index.html
      written wiki/collections/Tree List.md
      written wiki/concepts/Alder/index.html
      written wiki/concepts/Alder.md
      written wiki/entities/Birch/index.html
      written wiki/entities/Birch.md
      written llms-full.txt
      written index.html
      written tags/index.html
      written graph/index.html
      written search/index.html
      written 404.html
      written llms.txt
      written sitemap.xml
      written feed.xml
      written search/search.js
      written search/index/[ID].json
      written search/docs/[ID].json
      written search/meta.json
      written static/style.css
      … and 1 more written
    --- stderr
    warning: wiki/concepts/Alder.md: links to wiki/concepts/Hidden Grove.md, which is not published: the site shows the link's text alone
    ");
    snapshot!(v, text(&v.path("site"), "llms.txt"), @r"
    # vault

    > Trees of the valley

    Each link leads to a page's Markdown; `llms-full.txt` holds them all.

    ## Entities

    - [Birch](wiki/entities/Birch.md): Bark, peeling in strips.

    ## Concepts

    - [Alder](wiki/concepts/Alder.md): Alder grows by Birch and Hidden Grove.

    ## Optional

    - [Tree List](wiki/collections/Tree%20List.md): Alder
    ");
    let again = v.run(&["publish"]).ok();
    snapshot!(v, shown(&v, &again), @r"
    3 pages published, 4 private: wrote 0 files into [VAULT]/site, removed 0, 21 unchanged
    --- stderr
    warning: wiki/concepts/Alder.md: links to wiki/concepts/Hidden Grove.md, which is not published: the site shows the link's text alone
    ");
}

#[test]
fn the_scan_passes_the_site_by_and_git_ignores_it() {
    let v = site_vault();
    let walked = |v: &TestVault| v.run(&["scan", "--json"]).ok().json()["walked"].clone();
    let total = |v: &TestVault| v.run(&["status", "--json"]).ok().json()["files"]["total"].clone();
    let (walked_before, total_before) = (walked(&v), total(&v));
    assert!(walked_before.as_u64().unwrap() > 5, "{walked_before}");
    publish(&v, &[]);
    publish(&v, &["public"]);
    assert!(v.path("site/wiki/concepts/Cascade.md").is_file());
    assert!(v.path("public/wiki/concepts/Cascade.md").is_file());
    assert_eq!(walked(&v), walked_before);
    assert_eq!(total(&v), total_before);
    let ignore = v.read(".gitignore");
    let rules: Vec<&str> = ignore.lines().collect();
    assert!(rules.contains(&"/site/"), "{ignore}");
    assert!(rules.contains(&"/public/"), "{ignore}");
}

// A Markdown link to a page (`[text](Other.md)`) is left as the author wrote it: on the site,
// where a page is a folder, it leads nowhere, and one to a private page names it. The links
// table records wikilinks alone, so the publish does not know these links.
#[test]
#[ignore = "BUG: Markdown links between pages are not rewritten by publish (broken on the site, \
            a private page's file name shown)"]
fn a_markdown_link_to_a_page_leads_to_it_or_shows_its_text_alone() {
    let v = leak_vault();
    let text = v.read("wiki/concepts/Cascade.md");
    v.write(
        "wiki/concepts/Cascade.md",
        format!("{text}\nSee [the plan](Garden%20Plan.md) and [a secret](zeta-private.md).\n"),
    );
    let out = v.path("site");
    publish(&v, &[]);
    assert_eq!(check_links(&out, None).broken, Vec::<String>::new());
    assert_eq!(leaks(&out), Vec::<String>::new());
}
