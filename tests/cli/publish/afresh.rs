//! A publish after edits makes the site a publish into an empty folder makes, byte for byte,
//! though it makes again only the pages that show what changed and takes the rest from what
//! the last publish kept: the pages embedding an edited page, and the pages near it when what
//! they show of it (a heading their links name, its title) changed; `llms-full.txt` pieced
//! together from the last one only where its bytes are as they were written.

use super::*;

/// Four published pages: Alder links a heading of Birch, Cedar embeds Birch, Dogwood stands
/// alone.
fn four_pages() -> TestVault {
    let v = TestVault::new();
    v.write(
        "wiki/concepts/Alder.md",
        page(
            "Alder",
            "concept",
            "publish: true\n",
            "Alder grows by [[Birch#Roots]].",
        ),
    )
    .write(
        "wiki/concepts/Birch.md",
        page("Birch", "concept", "publish: true\n", "## Roots\n\nBark."),
    )
    .write(
        "wiki/concepts/Cedar.md",
        page(
            "Cedar",
            "concept",
            "publish: true\n",
            "Cedar holds ![[Birch]].",
        ),
    )
    .write(
        "wiki/concepts/Dogwood.md",
        page(
            "Dogwood",
            "concept",
            "publish: true\n",
            "Dogwood stands alone.",
        ),
    )
    .settle();
    v
}

/// Publish into `site/`; the files written, checked to be those a publish into an empty folder
/// makes.
#[track_caller]
fn publish_as_afresh(v: &TestVault) -> Vec<String> {
    let written = list(&publish(v, &[]), "written");
    let fresh = v.path("fresh");
    let _ = std::fs::remove_dir_all(&fresh);
    publish(v, &[fresh.to_str().unwrap()]);
    let (made, afresh) = (files(&v.path("site")), files(&fresh));
    assert_eq!(
        made.keys().collect::<Vec<_>>(),
        afresh.keys().collect::<Vec<_>>(),
        "the same files"
    );
    for (rel, bytes) in &made {
        assert!(
            bytes == &afresh[rel],
            "{rel} differs from a publish afresh:\n{}\n---- afresh:\n{}",
            String::from_utf8_lossy(bytes),
            String::from_utf8_lossy(&afresh[rel])
        );
    }
    written
}

#[test]
fn an_edit_makes_again_the_pages_that_show_it_and_the_site_is_as_one_made_afresh() {
    let v = four_pages();
    let out = v.path("site");
    publish_as_afresh(&v);
    let alder = || text(&out, "wiki/concepts/Alder/index.html");
    assert!(!alder().contains("missing-anchor"), "{}", alder());

    // The body alone: the page and the one embedding it.
    edit(
        &v,
        "wiki/concepts/Birch.md",
        "Bark.",
        "Bark in white strips.",
    );
    let written = publish_as_afresh(&v);
    for f in [
        "wiki/concepts/Birch/index.html",
        "wiki/concepts/Cedar/index.html",
    ] {
        assert!(written.contains(&f.to_string()), "{f}: {written:?}");
    }
    assert!(text(&out, "wiki/concepts/Cedar/index.html").contains("white strips"));
    assert!(
        !written.iter().any(|f| f.contains("Dogwood")),
        "{written:?}"
    );

    // The heading Alder's link names: Alder shows it is gone.
    edit(&v, "wiki/concepts/Birch.md", "## Roots", "## Trunk");
    let written = publish_as_afresh(&v);
    assert!(
        written.contains(&"wiki/concepts/Alder/index.html".to_string()),
        "{written:?}"
    );
    assert!(alder().contains("missing-anchor"), "{}", alder());

    // Its title: the pages near it show it.
    edit(
        &v,
        "wiki/concepts/Birch.md",
        "title: Birch",
        "title: Silver Birch",
    );
    let written = publish_as_afresh(&v);
    assert!(
        written.contains(&"wiki/concepts/Alder/index.html".to_string()),
        "{written:?}"
    );
    assert!(alder().contains("Silver Birch"), "{}", alder());
}

#[test]
fn llms_full_txt_is_pieced_together_from_the_last_where_it_is_as_written() {
    let v = four_pages();
    let out = v.path("site");
    publish_as_afresh(&v);
    // A kept page's piece comes from the last llms-full.txt, not from its Markdown copy.
    let dogwood = "wiki/concepts/Dogwood.md";
    let copy = text(&out, dogwood);
    std::fs::write(out.join(dogwood), copy.replace("alone", "by the gate")).unwrap();
    edit(
        &v,
        "wiki/concepts/Birch.md",
        "Bark.",
        "Bark in white strips.",
    );
    publish(&v, &[]);
    let full = text(&out, "llms-full.txt");
    assert!(
        full.contains("Dogwood stands alone.") && full.contains("white strips"),
        "{full}"
    );
    std::fs::write(out.join(dogwood), copy).unwrap();

    // Where its bytes are not as written (the same length: only the pieces' hashes tell), a
    // piece is made from the page again.
    std::fs::write(
        out.join("llms-full.txt"),
        full.replace("Dogwood stands alone.", "Dogwood stands ALONE."),
    )
    .unwrap();
    edit(&v, "wiki/concepts/Birch.md", "white strips", "grey strips");
    publish_as_afresh(&v);
    let full = text(&out, "llms-full.txt");
    assert!(
        full.contains("Dogwood stands alone.") && full.contains("grey strips"),
        "{full}"
    );
}

#[test]
fn a_publish_killed_before_its_record_leaves_a_site_the_next_publish_makes_whole() {
    let v = four_pages();
    publish_as_afresh(&v);
    v.write(
        "wiki/concepts/Elm.md",
        page("Elm", "concept", "publish: true\n", "Elm, a first draft."),
    )
    .settle();
    let killed: crate::harness::Run = v
        .cmd(&["publish"])
        .env("SPARKS_FAULT_AT", "publish.pages")
        .output()
        .expect("run sparks")
        .into();
    assert_eq!(killed.code, None, "killed after its pages");
    let out = v.path("site");
    assert!(out.join("wiki/concepts/Elm/index.html").is_file());
    // What a kill in the middle of a write leaves.
    std::fs::write(out.join(".sparks-staging/.tmpHALF"), "half a page").unwrap();
    // The new page changes before the next publish: its files are a publish's, not someone
    // else's, though no record names them.
    edit(
        &v,
        "wiki/concepts/Elm.md",
        "a first draft",
        "a second draft",
    );
    publish_as_afresh(&v);
    assert!(text(&out, "wiki/concepts/Elm.md").contains("a second draft"));
    assert!(!out.join(".sparks-staging").exists());
}
