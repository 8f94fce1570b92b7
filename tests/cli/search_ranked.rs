//! `sparks search` ranked: sentences, stems, and meaning (`--mode`), for issue 51.

use crate::harness::TestVault;
use crate::search::hits;

/// A page about keeping devices in step, one about cooking, none sharing a word with the
/// questions below but the one about syncing by meaning.
fn two_subjects() -> TestVault {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Device Sync.md",
        "Device Sync",
        "Synchronise my notebook across computers with git.",
    )
    .page(
        "wiki/concepts/Omelette.md",
        "Omelette",
        "The recipe needs two eggs and butter.",
    );
    v.run(&["scan"]).ok();
    v
}

fn search_json(v: &TestVault, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["search", "--json"];
    all.extend(args);
    v.run(&all).ok().json()
}

#[test]
fn a_sentence_finds_the_page_with_most_of_its_words() {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Sync.md",
        "Device Sync",
        "Keep the notes on a laptop and a phone the same with git.",
    )
    .page(
        "wiki/concepts/Phone.md",
        "Phones",
        "A phone is a small computer.",
    )
    .page("wiki/concepts/Other.md", "Other", "Nothing to do with it.");
    v.run(&["scan"]).ok();
    // No page holds every word of the question, and the question's punctuation is text.
    let got = hits(
        &v,
        &["How do I keep my notes in sync between a laptop and a phone?"],
    );
    assert_eq!(got, ["wiki/concepts/Sync.md", "wiki/concepts/Phone.md"]);
}

#[test]
fn words_are_found_by_their_stem() {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Sync.md",
        "Sync",
        "The vaults synced overnight.",
    )
    .page(
        "wiki/concepts/Other.md",
        "Other",
        "Synchronous calls block.",
    );
    v.run(&["scan"]).ok();
    assert_eq!(
        hits(&v, &["--mode", "lexical", "syncing"]),
        ["wiki/concepts/Sync.md"]
    );
    let j = search_json(&v, &["--mode", "lexical", "syncing"]);
    assert_eq!(j["hits"][0]["snippet"], "The vaults **synced** overnight.");
}

#[test]
fn a_paraphrase_is_found_by_meaning_by_default_and_in_semantic_mode() {
    let v = two_subjects();
    let question = "keep the files identical on laptop and phone";
    assert!(
        hits(&v, &["--mode", "lexical", question]).is_empty(),
        "no word of the question is in a page"
    );
    for mode in [None, Some("semantic"), Some("hybrid")] {
        let mut args = Vec::from_iter(mode.map(|m| ["--mode", m]).into_iter().flatten());
        args.push(question);
        let j = search_json(&v, &args);
        assert_eq!(j["mode"], mode.unwrap_or("hybrid"), "{j}");
        assert_eq!(j["hits"][0]["path"], "wiki/concepts/Device Sync.md", "{j}");
        assert_eq!(j["total"], 1, "the recipe is no answer: {j}");
        assert_eq!(
            j["hits"][0]["snippet"], "Synchronise my notebook across computers with git.",
            "a hit by meaning shows its passage"
        );
    }
}

#[test]
fn a_synonym_is_found_by_meaning() {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Car.md",
        "Car care",
        "Change the oil of the car every year.",
    )
    .page(
        "wiki/concepts/Bread.md",
        "Bread",
        "Flour, water, salt and yeast.",
    );
    v.run(&["scan"]).ok();
    assert!(hits(&v, &["--mode", "lexical", "automobile"]).is_empty());
    assert_eq!(
        hits(&v, &["--mode", "semantic", "automobile"]),
        ["wiki/concepts/Car.md"]
    );
    assert_eq!(hits(&v, &["automobile"]), ["wiki/concepts/Car.md"]);
}

#[test]
fn operators_apply_to_hits_found_by_meaning() {
    let v = two_subjects();
    let question = "keep the files identical on laptop and phone";
    assert!(
        hits(&v, &["--mode", "semantic", &format!("{question} -git")]).is_empty(),
        "-git excludes the page that says git"
    );
    let with_eggs = hits(&v, &["--mode", "semantic", &format!("{question} +eggs")]);
    assert!(
        !with_eggs.contains(&"wiki/concepts/Device Sync.md".to_string()),
        "+eggs keeps only pages that say eggs: {with_eggs:?}"
    );
    let tagged = search_json(&v, &["--mode", "semantic", "--type", "entity", question]);
    assert_eq!(tagged["total"], 0, "{tagged}");
}

#[test]
fn scan_embeds_only_what_changed_and_forgets_what_went() {
    let v = two_subjects();
    let embedded = |v: &TestVault| v.run(&["scan", "--json"]).ok().json()["embedded"].clone();
    assert_eq!(embedded(&v), 0, "nothing changed, nothing embedded");
    v.page(
        "wiki/concepts/Omelette.md",
        "Omelette",
        "Keep the laptop and the phone synchronised: the same files on both.",
    );
    assert_eq!(embedded(&v), 1, "the one page edited, one section");
    let question = "keep the files identical on laptop and phone";
    let mut found = hits(&v, &["--mode", "semantic", question]);
    found.sort();
    assert_eq!(
        found,
        ["wiki/concepts/Device Sync.md", "wiki/concepts/Omelette.md"],
        "the edited page is embedded anew"
    );
    std::fs::remove_file(v.path("wiki/concepts/Device Sync.md")).unwrap();
    assert_eq!(embedded(&v), 0);
    assert_eq!(
        hits(&v, &["--mode", "semantic", question]),
        ["wiki/concepts/Omelette.md"],
        "a deleted page is gone from the meanings"
    );
}

/// The file's inode: a file replaced (written atomically) has another.
#[cfg(unix)]
fn inode(path: &std::path::Path) -> u64 {
    std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(path).unwrap())
}

/// The copy of the meanings a search keeps beside the manifest (`sparks.db-meanings`) is read
/// only while it bears the manifest's token: one of an older state, or torn, is rebuilt, by
/// the default mode (which reads it on a second thread) as by `--mode semantic`.
#[test]
fn a_copy_of_the_meanings_from_before_a_change_is_never_read() {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Omelette.md",
        "Omelette",
        "The recipe needs two eggs and butter.",
    );
    v.run(&["scan"]).ok();
    // No word of it is in the page that answers it: only its meaning finds that page.
    let question = "keep the files identical on laptop and phone";
    let sync = "wiki/concepts/Device Sync.md";
    assert!(hits(&v, &["--mode", "semantic", question]).is_empty());
    let copy = v.path("sparks.db-meanings");
    let before = std::fs::read(&copy).expect("the search kept a copy");
    v.page(
        "wiki/concepts/Device Sync.md",
        "Device Sync",
        "Synchronise my notebook across computers with git.",
    );
    v.run(&["scan"]).ok();
    for mode in ["hybrid", "semantic"] {
        // The copy from before the page was written, put back: its label is not the token.
        std::fs::write(&copy, &before).unwrap();
        assert_eq!(hits(&v, &["--mode", mode, question]), [sync], "{mode}");
        assert_ne!(
            std::fs::read(&copy).unwrap(),
            before,
            "{mode}: written again"
        );
    }
    let after = std::fs::read(&copy).unwrap();
    #[cfg(unix)]
    let current = inode(&copy);
    v.run(&["scan"]).ok();
    assert_eq!(hits(&v, &[question]), [sync], "the current copy is read");
    #[cfg(unix)]
    assert_eq!(
        inode(&copy),
        current,
        "not written again: a scan that changed nothing kept it"
    );
    std::fs::write(&copy, &after[..after.len() - 7]).unwrap();
    assert_eq!(hits(&v, &[question]), [sync], "a torn copy is not read");
    assert_eq!(std::fs::read(&copy).unwrap(), after);
}

#[test]
fn a_long_page_shows_the_section_that_matched() {
    let v = TestVault::new();
    let mut body: String = (0..80)
        .map(|i| format!("Line {i} about soil, compost and watering the garden beds.\n"))
        .collect();
    // More than a section of text about keeping devices in step, after the garden.
    for i in 0..30 {
        body.push_str(&format!(
            "Sync {i}: synchronise my notebook across computers and tablets with git.\n"
        ));
    }
    v.page("wiki/concepts/Garden.md", "Garden", &body);
    v.run(&["scan"]).ok();
    let j = search_json(
        &v,
        &[
            "--mode",
            "semantic",
            "keep the files identical on laptop and phone",
        ],
    );
    let snippet = j["hits"][0]["snippet"].as_str().unwrap_or_default();
    assert!(
        snippet.contains("synchronise my notebook") && !snippet.contains("**"),
        "the passage about syncing (no word of the query in it), not the page's opening: {j}"
    );
}

#[test]
fn text_the_model_cannot_read_is_ranked_by_its_words() {
    let v = TestVault::new();
    v.page(
        "wiki/entities/Zh.md",
        "知識管理",
        "個人の知識管理について。",
    )
    .page("wiki/entities/Other.md", "Other", "Nothing in Japanese.");
    v.run(&["scan"]).ok();
    assert_eq!(hits(&v, &["知識"]), ["wiki/entities/Zh.md"]);
    assert!(hits(&v, &["--mode", "semantic", "知識"]).is_empty());
}

#[test]
fn a_mode_that_does_not_exist_is_refused_naming_the_modes() {
    let v = two_subjects();
    let run = v.run(&["search", "--mode", "fuzzy", "sync"]).code(2);
    assert!(run.stderr.contains("hybrid"), "{}", run.stderr);
}

#[cfg(target_os = "linux")]
#[test]
fn mcp_search_takes_a_mode() {
    use crate::mcp::{call, refused, replay, run_client, text};
    use serde_json::json;
    let (mcp, cli) = (two_subjects(), two_subjects());
    let q = "keep the files identical on laptop and phone";
    let steps = vec![
        call(
            "sparks_search",
            json!({"query": q, "mode": "semantic"}),
            &["search", q, "--mode", "semantic", "--json"],
            0,
        ),
        call(
            "sparks_search",
            json!({"query": q, "mode": "lexical"}),
            &["search", q, "--mode", "lexical", "--json"],
            0,
        ),
        refused(
            "sparks_search",
            json!({"query": q, "mode": "fuzzy"}),
            "mode: \"fuzzy\" is not one of hybrid, lexical, semantic",
        ),
    ];
    let records = run_client(&mcp, &steps, false);
    let result = |step: usize| -> serde_json::Value {
        let r = records.iter().find(|r| r["step"] == step).expect("ran");
        serde_json::from_str(&text(&r["result"])).expect("JSON")
    };
    assert_eq!(result(0)["mode"], "semantic");
    assert_eq!(result(0)["total"], 1, "{}", result(0));
    assert_eq!(result(1)["total"], 0, "{}", result(1));
    replay(&mcp, &cli, &steps, &records);
}
