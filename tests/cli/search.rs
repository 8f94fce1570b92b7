//! `sparks search`.

use crate::harness::TestVault;
use crate::snapshot;

pub(crate) fn hits(v: &TestVault, args: &[&str]) -> Vec<String> {
    // Options first, then the query after `--`, so that `-word` exclusions are query text.
    let (opts, words): (Vec<&str>, Vec<&str>) = split(args);
    let mut all = vec!["search", "--json"];
    all.extend(opts);
    all.push("--");
    all.extend(words);
    let j = v.run(&all).ok().json();
    j["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["path"].as_str().unwrap().to_string())
        .collect()
}

/// The hits of a search by words alone (`--mode lexical`): what the query language selects,
/// without the pages found by meaning.
fn lexical(v: &TestVault, args: &[&str]) -> Vec<String> {
    let mut all = vec!["--mode", "lexical"];
    all.extend(args);
    hits(v, &all)
}

/// Separate `--in X`, `--type X`, `--limit X` from query words.
fn split<'a>(args: &[&'a str]) -> (Vec<&'a str>, Vec<&'a str>) {
    let (mut opts, mut words) = (Vec::new(), Vec::new());
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a.starts_with("--") {
            opts.push(*a);
            opts.extend(it.next());
        } else {
            words.push(*a);
        }
    }
    (opts, words)
}

fn vault() -> TestVault {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/WAL.md",
        "Write-Ahead Logging",
        "Durability before speed. SQLite uses a journal.",
    )
    .page(
        "wiki/concepts/Journal.md",
        "Journaling",
        "A write-ahead logging mention in the body only, among other words.",
    )
    .page(
        "wiki/entities/Cafe.md",
        "Café Nova",
        "A café in Lisbon serving crème brûlée.",
    )
    .page(
        "wiki/entities/Model.md",
        "Models",
        "We compared gpt-4o with the co-op model.",
    )
    .page(
        "wiki/entities/Zh.md",
        "知識管理システム",
        "個人の知識管理について。",
    )
    .page(
        "wiki/concepts/Cache.md",
        "Caching",
        "Eviction policies: LRU, LFU; invalidation is hard.",
    )
    .write(
        "raw/ideas/idea.md",
        "An idea about write-ahead logging in raw notes.",
    );
    v.run(&["scan"]).ok();
    v
}

#[test]
fn a_title_match_outranks_a_body_match() {
    let v = vault();
    let got = hits(&v, &["write-ahead", "logging"]);
    assert_eq!(
        got[..2],
        ["wiki/concepts/WAL.md", "wiki/concepts/Journal.md"],
        "{got:?}"
    );
}

#[test]
fn query_syntax() {
    let v = vault();
    assert_eq!(
        lexical(&v, &["\"crème brûlée\""]),
        ["wiki/entities/Cafe.md"]
    );
    assert!(
        lexical(&v, &["\"brûlée crème\""]).is_empty(),
        "a phrase keeps its order"
    );
    assert_eq!(
        lexical(&v, &["lisbon", "OR", "eviction"]),
        ["wiki/concepts/Cache.md", "wiki/entities/Cafe.md"]
    );
    assert_eq!(
        lexical(&v, &["write-ahead", "-durability"]),
        ["wiki/concepts/Journal.md"]
    );
    assert_eq!(lexical(&v, &["polic*"]), ["wiki/concepts/Cache.md"]);
    assert!(
        lexical(&v, &["polic"]).is_empty(),
        "without * a word matches whole (or by its stem)"
    );
    assert_eq!(
        lexical(&v, &["durability", "journal"]),
        ["wiki/concepts/WAL.md", "wiki/concepts/Journal.md"],
        "words are scored, not required: the page with both first"
    );
    assert_eq!(
        lexical(&v, &["+durability", "journal"]),
        ["wiki/concepts/WAL.md"],
        "+word must match"
    );
    let mut scored = lexical(&v, &["\"write-ahead logging\"", "lisbon"]);
    scored.sort();
    assert_eq!(
        scored,
        [
            "wiki/concepts/Journal.md",
            "wiki/concepts/WAL.md",
            "wiki/entities/Cafe.md"
        ],
        "a phrase is scored, not required"
    );
    let mut required = lexical(&v, &["+\"write-ahead logging\"", "lisbon"]);
    required.sort();
    assert_eq!(
        required,
        ["wiki/concepts/Journal.md", "wiki/concepts/WAL.md"],
        "+\"a phrase\" must match"
    );
    assert_eq!(
        lexical(&v, &["+lisbon", "OR", "+eviction", "durability"]),
        ["wiki/concepts/Cache.md", "wiki/entities/Cafe.md"],
        "required alternatives joined by OR: one of them must match"
    );
}

#[test]
fn accents_hyphens_and_cjk() {
    let v = vault();
    assert_eq!(hits(&v, &["cafe"]), ["wiki/entities/Cafe.md"]);
    assert_eq!(hits(&v, &["CRÈME"]), ["wiki/entities/Cafe.md"]);
    assert_eq!(hits(&v, &["gpt-4o"]), ["wiki/entities/Model.md"]);
    assert_eq!(hits(&v, &["co-op"]), ["wiki/entities/Model.md"]);
    assert_eq!(hits(&v, &["知識管理"]), ["wiki/entities/Zh.md"]);
    assert_eq!(
        hits(&v, &["知識"]),
        ["wiki/entities/Zh.md"],
        "two characters: substring"
    );
    for inner in ["管理", "理シス", "ム", "個", "人の知"] {
        assert_eq!(
            hits(&v, &[inner]),
            ["wiki/entities/Zh.md"],
            "{inner}: any run inside a longer one, the last character too"
        );
    }
    assert!(hits(&v, &["管知"]).is_empty(), "the characters in order");
    let j = v.run(&["search", "--json", "管理"]).ok().json();
    assert!(
        j["hits"][0]["snippet"]
            .as_str()
            .unwrap()
            .contains("**管理**"),
        "{j}"
    );
}

#[test]
fn scopes_and_filters() {
    let v = vault();
    assert_eq!(hits(&v, &["idea", "--in", "raw"]), ["raw/ideas/idea.md"]);
    assert!(hits(&v, &["idea"]).is_empty(), "wiki by default");
    assert_eq!(hits(&v, &["write-ahead", "--in", "all"]).len(), 3);
    assert_eq!(hits(&v, &["write-ahead", "--type", "concept"]).len(), 2);
    let j = v
        .run(&[
            "search",
            "write-ahead",
            "--in",
            "all",
            "--limit",
            "1",
            "--json",
        ])
        .ok()
        .json();
    assert_eq!(
        (j["total"].as_u64(), j["truncated"].as_bool()),
        (Some(3), Some(true))
    );
}

#[test]
fn deleted_and_renamed_pages_leave_the_results() {
    let v = vault();
    std::fs::remove_file(v.path("wiki/concepts/Cache.md")).unwrap();
    std::fs::rename(
        v.path("wiki/entities/Cafe.md"),
        v.path("wiki/entities/Coffee.md"),
    )
    .unwrap();
    v.run(&["scan"]).ok();
    assert!(hits(&v, &["eviction"]).is_empty());
    assert_eq!(hits(&v, &["lisbon"]), ["wiki/entities/Coffee.md"]);
}

#[test]
fn punctuation_heavy_queries_never_error() {
    let v = vault();
    for q in [
        "\"",
        "(",
        "AND",
        "NOT",
        "c++",
        "a:b",
        "^",
        "{x}",
        "***",
        "- -",
        "\"unterminated",
        "NEAR(a b)",
        "OR",
        "'",
        ";--",
    ] {
        let run = v.run(&["search", "--json", "--", q]).ok();
        assert!(run.json()["hits"].is_array(), "{q}");
    }
}

#[test]
fn snippets_mark_the_match_and_collisions_are_reported() {
    let v = vault();
    let j = v.run(&["search", "eviction", "--json"]).ok().json();
    assert!(
        j["hits"][0]["snippet"]
            .as_str()
            .unwrap()
            .contains("**Eviction**"),
        "{j}"
    );
    let j = v.run(&["search", "caching", "--json"]).ok().json();
    assert_eq!(j["collisions"][0]["path"], "wiki/concepts/Cache.md");
    snapshot!(v, v.run(&["search", "write-ahead"]).ok().stdout);
    let quoted = v
        .run(&["search", "--json", "write-ahead -durability"])
        .ok()
        .json();
    assert_eq!(quoted["total"], 1, "an exclusion inside a quoted query");
}

#[test]
fn archive_markers_and_separators_never_reach_a_snippet() {
    let v = TestVault::new();
    v.capture(&[
        "2026-04-10\nNotes from the lab visit.",
        "2026-04-10\nZebrafish regrow their fins within weeks.",
        "2026-04-10\nBring the **good** camera next time.",
    ]);
    v.run(&["ingest", "--prepare"]).ok();
    v.run(&["ingest", "--finalize"]).ok();
    let archive = v.read("raw/inbox/2026-04-10.md");
    assert!(archive.contains("<!-- sparks: ingest 1 "), "{archive}");
    let j = v
        .run(&["search", "zebrafish", "--in", "raw", "--json"])
        .ok()
        .json();
    let snippet = j["hits"][0]["snippet"].as_str().unwrap();
    assert!(
        snippet.contains("**Zebrafish** regrow their fins"),
        "{snippet}"
    );
    for syntax in ["-->", "<!--", "---", "sparks:", "blake3", "**good**"] {
        assert!(!snippet.contains(syntax), "{syntax:?} in {snippet:?}");
    }
    // The markers are not text: their words find no archive.
    for word in ["blake3", "entry"] {
        let j = v
            .run(&["search", word, "--in", "raw", "--json"])
            .ok()
            .json();
        assert_eq!(j["total"], 0, "{word}: {j}");
    }
}

#[test]
fn snippets_are_the_text_a_reader_sees() {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Zebrafish.md",
        "Zebrafish",
        "# Zebrafish\n\n![[fin.png]]\n\nThey **regrow** fins; see [[Regeneration|regrowth]] and [[Fins#Rays]].",
    );
    v.run(&["scan"]).ok();
    let j = v.run(&["search", "regrow", "--json"]).ok().json();
    assert_eq!(
        j["hits"][0]["snippet"],
        "fin.png They **regrow** fins; see regrowth and Fins > Rays."
    );
}

#[test]
fn a_snippet_does_not_repeat_the_title_its_hit_shows() {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Alpha.md",
        "Alpha",
        "# alpha\n\nAlpha is the first letter.",
    );
    v.page(
        "wiki/concepts/Beta.md",
        "Beta",
        "# Second letter\n\nBeta follows the first.",
    );
    v.run(&["scan"]).ok();
    let out = v.run(&["search", "first"]).ok().stdout;
    assert!(
        out.contains("(Alpha)\n  Alpha is the **first** letter.\n"),
        "the H1 that repeats the title goes: {out}"
    );
    assert!(
        out.contains("(Beta)\n  Second letter Beta follows the **first**.\n"),
        "an H1 that is not the title stays: {out}"
    );
    let j = v.run(&["search", "first", "--json"]).ok().json();
    let snippets: Vec<&str> = j["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["snippet"].as_str().unwrap())
        .collect();
    assert!(snippets.contains(&"Alpha is the **first** letter."), "{j}");
    assert!(
        snippets.contains(&"Second letter Beta follows the **first**."),
        "{j}"
    );
}

#[test]
fn archives_indexed_with_their_markers_are_indexed_again_after_the_upgrade() {
    let v = TestVault::new();
    v.capture(&["2026-04-10\nZebrafish regrow their fins."]);
    v.run(&["ingest", "--prepare"]).ok();
    v.run(&["ingest", "--finalize"]).ok();
    // The archive as schema 11 indexed it: markers and separators with the captures.
    let text = v.read("raw/inbox/2026-04-10.md");
    crate::old_schemas::undo_schema_13(&v);
    let db = crate::harness::db(&v);
    let rowid: i64 = db
        .query_row(
            "SELECT rowid FROM files WHERE path = 'raw/inbox/2026-04-10.md'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    db.execute("DELETE FROM search_raw WHERE rowid = ?1", [rowid])
        .unwrap();
    db.execute(
        "INSERT INTO search_raw (rowid, title, aliases, tags, body) VALUES (?1, '', '', '', ?2)",
        rusqlite::params![rowid, text],
    )
    .unwrap();
    db.execute_batch("PRAGMA user_version = 11").unwrap();
    drop(db);
    let total = |v: &TestVault| {
        v.run(&["search", "blake3", "--in", "raw", "--json", "--no-refresh"])
            .ok()
            .json()["total"]
            .clone()
    };
    // (Until that scan the index is empty: schema 16 indexes every file again.)
    v.run(&["scan"]).ok();
    assert_eq!(
        total(&v),
        0,
        "read again, the archive is indexed without it"
    );
    let j = v
        .run(&["search", "zebrafish", "--in", "raw", "--json"])
        .ok()
        .json();
    assert_eq!(j["total"], 1, "{j}");
}

/// `count` lines of filler words, about 64 bytes each.
fn filler(count: usize) -> String {
    (0..count)
        .map(|i| format!("line {i:07} of a long capture about gardens, soil and weather\n"))
        .collect()
}

#[test]
fn a_file_over_four_mib_is_searched_to_the_end_and_every_piece_goes_with_it() {
    let v = TestVault::new();
    let archive = "raw/inbox/2026-04-10.md";
    let marker = |n: u32| format!("<!-- sparks: ingest 1 k entry {n} blake3 h -->");
    v.write(
        archive,
        format!(
            "---\n{}\nMarmalade recipe first.\n---\n{}\n{}---\n{}\nZebrafish at the very end.\n",
            marker(1),
            marker(2),
            filler(90_000),
            marker(3)
        ),
    );
    assert!(std::fs::metadata(v.path(archive)).unwrap().len() > 5 << 20);
    v.run(&["scan"]).ok();
    let search = |word: &str| {
        v.run(&["search", word, "--in", "raw", "--json"])
            .ok()
            .json()
    };
    let j = search("zebrafish");
    assert_eq!(j["total"], 1, "{j}");
    assert_eq!(
        j["hits"][0]["snippet"],
        "… 0089999 of a long capture about gardens, soil and weather **Zebrafish** at the very end."
    );
    assert_eq!(search("marmalade")["total"], 1);
    let pieces = crate::harness::rows(
        &v,
        &format!("SELECT indexed FROM files WHERE path = '{archive}'"),
    );
    assert!(pieces[0].parse::<u32>().unwrap() > 4, "{pieces:?}");
    // A word in every piece is one hit, not one a piece.
    assert_eq!(search("gardens")["total"], 1);
    // Shorter again: the pieces it no longer has leave the index.
    v.write(archive, format!("---\n{}\nMarmalade only.\n", marker(1)));
    v.run(&["scan"]).ok();
    assert_eq!(search("zebrafish")["total"], 0);
    assert_eq!(search("gardens")["total"], 0);
    assert_eq!(
        crate::harness::rows(&v, "SELECT count(*) FROM search_raw"),
        ["1"]
    );
    std::fs::remove_file(v.path(archive)).unwrap();
    v.run(&["scan"]).ok();
    assert_eq!(
        crate::harness::rows(&v, "SELECT count(*) FROM search_raw"),
        ["0"]
    );
}

/// The most memory `sparks scan` took in the vault, in KiB.
#[cfg(target_os = "linux")]
fn scan_peak_kib(v: &TestVault) -> u64 {
    crate::harness::peak_kib(v, &["scan", "--full"])
}

#[cfg(target_os = "linux")]
#[test]
fn memory_does_not_grow_with_the_size_of_a_file() {
    let small = TestVault::new();
    small.write("raw/long.md", filler(75_000));
    let large = TestVault::new();
    large.write("raw/long.md", filler(1_200_000));
    let (s, l) = (scan_peak_kib(&small), scan_peak_kib(&large));
    eprintln!("scan's peak: {s} KiB with a 4.6 MiB file, {l} KiB with 73 MiB");
    // Held whole, the larger file would add its 68 MiB more than twice over (the text, and
    // the copy the index is given); read a piece at a time, the index's own caches grow a
    // little and stop.
    assert!(l < s + 34 * 1024, "{s} KiB, then {l} KiB");
    let j = large
        .run(&["search", "1199999", "--in", "raw", "--json"])
        .ok()
        .json();
    assert_eq!(j["total"], 1, "{j}");
}

/// A page's rank does not depend on how often the vault's files were edited: a vault whose
/// pages changed and went, scan after scan, scores a search as a vault scanned once in the
/// same final state (FTS5's own totals would count every row ever indexed), and a manifest an
/// earlier Sparks left with drifted totals is counted anew by its next scan.
#[test]
fn scores_do_not_depend_on_the_history_of_the_files() {
    let edited = TestVault::new();
    let once = TestVault::new();
    let page = |v: &TestVault, rel: &str, title: &str, body: &str| {
        v.page(rel, title, body);
    };
    page(
        &edited,
        "wiki/concepts/gone.md",
        "Gone",
        "oak oak oak birch elm and more words here",
    );
    for round in 0..4 {
        page(
            &edited,
            "wiki/concepts/trees.md",
            "Trees",
            &format!(
                "oak and birch, round {round} of {}",
                "many words ".repeat(round * 5)
            ),
        );
        edited.run(&["scan"]).ok();
    }
    std::fs::remove_file(edited.path("wiki/concepts/gone.md")).unwrap();
    for v in [&edited, &once] {
        page(v, "wiki/concepts/trees.md", "Trees", "oak and birch, final");
        page(v, "wiki/concepts/woods.md", "Woods", "a wood of oak");
        v.run(&["scan"]).ok();
    }
    let scores = |v: &TestVault| -> Vec<(String, f64)> {
        let out = v
            .run(&[
                "search",
                "oak",
                "--mode",
                "lexical",
                "--json",
                "--no-refresh",
            ])
            .ok()
            .json();
        out["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                (
                    h["path"].as_str().unwrap().to_string(),
                    h["score"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    let fresh = scores(&once);
    assert_eq!(fresh.len(), 2, "{fresh:?}");
    assert_eq!(scores(&edited), fresh);

    // A manifest whose totals drifted (as an earlier Sparks left them) is recounted.
    let db = crate::harness::db(&edited);
    db.execute_batch(
        "UPDATE search_wiki_data SET block = x'6464646464' WHERE id = 1;
         DELETE FROM meta WHERE key = 'search_totals_exact';",
    )
    .unwrap();
    drop(db);
    assert_ne!(scores(&edited), fresh, "the planted drift shows");
    edited.run(&["scan"]).ok();
    assert_eq!(scores(&edited), fresh);
}
