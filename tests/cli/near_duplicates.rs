//! `lint`'s `near-duplicates` (issue 52): pairs of pages that say nearly the same thing, by
//! meaning and titles; the hint names `merge`, and nothing merges them but the user.

use crate::harness::{TestVault, tree};
use crate::mcp_stdio::Served;

/// Pages on subjects of their own, two of them sharing a tag; a page pasted from one of them
/// under a new title and name; a page that says one of them again with a sentence cut.
fn vault() -> TestVault {
    let v = TestVault::new();
    let tagged = |title: &str, body: &str| {
        format!(
            "---\ntitle: {title}\ntype: concept\ntags: [kitchen]\ncreated: 2026-01-01\n\
             updated: 2026-01-01\n---\n\n{body}\n"
        )
    };
    v.write(
        "wiki/concepts/Sourdough.md",
        tagged(
            "Sourdough",
            "A starter of flour and water ferments for days. The dough rises slowly overnight \
             and bakes in a hot Dutch oven. Its crust cracks as it cools on a rack.",
        ),
    )
    .write(
        "wiki/concepts/Knife Care.md",
        tagged(
            "Knife Care",
            "Hone the blade before each use and sharpen it on a whetstone twice a year. Wash \
             it by hand and dry it at once; never leave it in the sink.",
        ),
    )
    .page(
        "wiki/concepts/Git Sync.md",
        "Git Sync",
        "Each device commits its notes, fetches the other's commits and merges them, so the \
         laptop and the phone hold the same files. A conflict copy is left beside a file both \
         changed.",
    )
    .page(
        "wiki/concepts/Tide Pools.md",
        "Tide Pools",
        "At low tide the rocks hold pools of sea water where anemones, crabs and small fish \
         wait for the sea to return twice a day.",
    )
    .page(
        "wiki/concepts/Marathon Training.md",
        "Marathon Training",
        "Long runs grow by a mile a week, with an easy week every fourth. Rest days matter as \
         much as the miles, and the last three weeks taper.",
    )
    // The twin: Git Sync's text, pasted under a title that shares no word with it.
    .page(
        "wiki/concepts/Keeping Devices Alike.md",
        "Keeping Devices Alike",
        "Each device commits its notes, fetches the other's commits and merges them, so the \
         laptop and the phone hold the same files. A conflict copy is left beside a file both \
         changed.",
    );
    v.run(&["scan"]).ok();
    v
}

/// The near-duplicates lint reports, as (path, message, hint).
fn near(v: &TestVault) -> Vec<(String, String, String)> {
    let j = v
        .run(&["lint", "--check", "near-duplicates", "--json"])
        .json();
    j["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .map(|i| {
            let s = |k: &str| i[k].as_str().unwrap_or_default().to_string();
            (s("path"), s("message"), s("hint"))
        })
        .collect()
}

#[test]
fn a_pasted_twin_with_a_new_title_is_flagged_and_pages_that_share_a_tag_are_not() {
    let v = vault();
    let found = near(&v);
    let paths: Vec<&str> = found.iter().map(|(p, _, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "wiki/concepts/Git Sync.md",
            "wiki/concepts/Keeping Devices Alike.md"
        ],
        "{found:#?}"
    );
    // Each names the other and the merge that would make them one.
    assert!(
        found[0]
            .1
            .contains("wiki/concepts/Keeping Devices Alike.md"),
        "{found:?}"
    );
    assert!(
        found[1].1.contains("wiki/concepts/Git Sync.md"),
        "{found:?}"
    );
    for (_, _, hint) in &found {
        assert_eq!(hint, "sparks merge FROM INTO");
    }
    // The text says it too, and lint exits 1 as for any issue.
    let run = v.run(&["lint", "--check", "near-duplicates"]).code(1);
    assert!(
        run.stdout.contains("near-duplicates (2):"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("  hint: run `sparks merge FROM INTO`\n"),
        "the text says the hint once, after the pairs: {}",
        run.stdout
    );
    assert_eq!(run.stdout.matches("hint:").count(), 1, "{}", run.stdout);
}

#[test]
fn a_twin_with_a_sentence_cut_is_flagged_until_the_threshold_is_above_it() {
    let v = vault();
    v.page(
        "wiki/concepts/Tidal Rock Pools.md",
        "Tidal Rock Pools",
        "At low tide the rocks hold pools of sea water where anemones and crabs wait.",
    );
    v.run(&["scan"]).ok();
    let found = near(&v);
    assert!(
        found
            .iter()
            .any(|(p, m, _)| p == "wiki/concepts/Tidal Rock Pools.md"
                && m.contains("wiki/concepts/Tide Pools.md")),
        "{found:#?}"
    );
    // Asked for only what says exactly the same, the edited twin is not a pair.
    let config = v.read("sparks.toml");
    v.write(
        "sparks.toml",
        config.replace(
            "near_duplicate_above = 0.93",
            "near_duplicate_above = 0.999",
        ),
    );
    let found = near(&v);
    assert!(
        found.iter().all(|(p, _, _)| !p.contains("Tid")),
        "{found:#?}"
    );
}

#[test]
fn fix_never_merges() {
    let v = vault();
    let before = tree(&v);
    v.run(&["lint", "--fix", "--check", "near-duplicates"])
        .code(1);
    let after = tree(&v);
    for page in [
        "wiki/concepts/Git Sync.md",
        "wiki/concepts/Keeping Devices Alike.md",
    ] {
        assert_eq!(before.get(page), after.get(page), "{page} untouched");
    }
}

#[test]
fn mcp_lint_words_the_hint_as_its_merge_tool() {
    let v = vault();
    let mut s = Served::start(&v);
    let r = s.call(
        "sparks_lint",
        serde_json::json!({"checks": ["near-duplicates"]}),
    );
    let issues = r["structuredContent"]["issues"]
        .as_array()
        .unwrap_or_else(|| panic!("{r}"));
    assert_eq!(issues.len(), 2, "{r}");
    for i in issues {
        let hint = i["hint"].as_str().unwrap_or_default();
        assert!(hint.contains("`sparks_merge`"), "{i}");
        assert!(
            !hint.contains("sparks merge "),
            "no command line for an agent: {i}"
        );
    }
}
