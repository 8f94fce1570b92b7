//! What agents and readers get besides the pages: llms.txt as llmstxt.org reads it, the
//! Markdown copies, the sitemap and feed as XML, the search index.

use super::links::{SITE_PAGES, check_links, resolve, site_vault};
use super::*;

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
