//! A second publish writes only what changed and removes only what it wrote; redirects after
//! `mv`; `--dry-run`; the folders refused; what a publish says; the scan and git leave the site
//! alone.

use super::links::{resolve, site_vault, unescape};
use super::*;

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

    edit(
        &v,
        "wiki/concepts/Birch.md",
        "Bark.",
        "Bark, peeling in white strips.",
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
    edit(
        &v,
        "wiki/concepts/Birch.md",
        "publish: true",
        "publish: false",
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
    edit(
        &v,
        "wiki/concepts/Café Notes.md",
        "publish: true",
        "publish: false",
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
    edit(
        &v,
        "sparks.toml",
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
