//! `sparks tasks add`, `tasks list` and `sparks done` on wiki/collections/Tasks.md: sections, duplicates,
//! byte-for-byte preservation, matching, and failures that change nothing.

use crate::harness::{Run, TestVault};
use crate::snapshot;

const TASKS: &str = "wiki/collections/Tasks.md";

fn add(v: &TestVault, section: &str, text: &str) -> Run {
    v.run(&["tasks", "add", "--section", section, "--text", text])
}

fn tasks(v: &TestVault) -> String {
    v.read(TASKS)
}

fn output(r: &Run) -> String {
    format!("--- stdout\n{}--- stderr\n{}", r.stdout, r.stderr)
}

/// A task list with three sections, frontmatter, notes and a done task.
const LIST: &str = "---\ntitle: Tasks\ntype: collection\nmaturity: working\n---\n\n# Tasks\n\n\
## Home\n\n- [ ] renew passport\n- [x] buy milk\nA note about home.\n\n\
## Work\n\n- [ ] write tests for ingest\n- [ ] write tests for scan\n* [ ] ship finalize\n\n\
## Notes\n\nTrailing text.\n";

#[test]
fn add_creates_the_section_and_keeps_the_file_before_it() {
    let v = TestVault::new();
    let before = tasks(&v);
    let r = add(&v, "[[Sparks]]", "Write the fuzz targets").ok();
    let after = tasks(&v);
    assert_eq!(
        after,
        format!("{before}\n## [[Sparks]]\n\n- [ ] Write the fuzz targets\n")
    );
    let line: usize = r
        .stdout
        .split("(line ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the line is reported");
    assert_eq!(
        after.lines().nth(line - 1),
        Some("- [ ] Write the fuzz targets")
    );
    snapshot!(v, r.stdout);

    let json = v
        .run(&[
            "tasks",
            "add",
            "--section",
            "[[Sparks]]",
            "--text",
            "Ship it",
            "--json",
        ])
        .ok()
        .json();
    assert_eq!(json["section_created"], false);
    assert_eq!(json["line"], line as u64 + 1);
    assert!(tasks(&v).ends_with("- [ ] Write the fuzz targets\n- [ ] Ship it\n"));
}

#[test]
fn an_identical_open_task_is_not_added_twice() {
    let v = TestVault::new();
    add(&v, "Home", "Call mum").ok();
    let before = tasks(&v);
    let r = add(&v, "Home", "Call mum").ok();
    assert!(r.stdout.starts_with("Already open: "), "{}", r.stdout);
    assert_eq!(tasks(&v), before);
    // Case and surrounding space do not make it another task.
    let r = add(&v, "home", "  call MUM ").ok();
    assert!(r.stdout.starts_with("Already open: "), "{}", r.stdout);
    assert_eq!(tasks(&v), before);
    assert_eq!(before.matches("Call mum").count(), 1);
    // A done task with the same text does not count as open; another section is another list.
    let text = before.replace("- [ ] Call mum", "- [x] Call mum");
    v.write(TASKS, &text);
    add(&v, "Home", "Call mum").ok();
    assert!(
        tasks(&v).ends_with("- [x] Call mum\n- [ ] Call mum\n"),
        "{}",
        tasks(&v)
    );
    add(&v, "Errands", "Call mum").ok();
    assert_eq!(tasks(&v).matches("- [ ] Call mum").count(), 2);
}

#[test]
fn sections_match_case_insensitively() {
    let v = TestVault::new();
    v.write(TASKS, LIST);
    let r = add(&v, "WORK", "write tests for git").ok();
    assert!(!r.stdout.contains("Created section"), "{}", r.stdout);
    // The section is echoed as Tasks.md writes it, in text and JSON alike.
    assert_eq!(
        r.stdout,
        "Added: write tests for git (line 20 under Work)\n"
    );
    let j = v
        .run(&[
            "tasks",
            "add",
            "--section",
            "home",
            "--text",
            "call mum",
            "--json",
        ])
        .ok()
        .json();
    assert_eq!(j["section"], "Home");
    v.write(TASKS, LIST);
    add(&v, "WORK", "write tests for git").ok();
    let after = tasks(&v);
    assert_eq!(after.matches("## Work").count(), 1, "{after}");
    assert!(!after.contains("WORK"), "{after}");
    assert_eq!(
        after,
        LIST.replace(
            "* [ ] ship finalize\n",
            "* [ ] ship finalize\n- [ ] write tests for git\n"
        )
    );
    // `###` headings are sections too.
    v.write(
        TASKS,
        "# Tasks\n\n### Errands\n\n- [ ] post the letter\n\n## Other\n",
    );
    add(&v, "errands", "buy stamps").ok();
    assert_eq!(
        tasks(&v),
        "# Tasks\n\n### Errands\n\n- [ ] post the letter\n- [ ] buy stamps\n\n## Other\n"
    );
}

#[test]
fn the_rest_of_the_file_is_kept_byte_for_byte_with_crlf() {
    let v = TestVault::new();
    let crlf = LIST.replace('\n', "\r\n");
    v.write(TASKS, &crlf);
    add(&v, "Home", "book the dentist").ok();
    let expected = crlf.replace(
        "- [x] buy milk\r\nA note about home.\r\n",
        "- [x] buy milk\r\nA note about home.\r\n- [ ] book the dentist\r\n",
    );
    assert_eq!(tasks(&v), expected);
    add(&v, "Garden", "mow the lawn").ok();
    assert_eq!(
        tasks(&v),
        format!("{expected}\r\n## Garden\r\n\r\n- [ ] mow the lawn\r\n")
    );

    v.run(&["done", "dentist"]).ok();
    let done = tasks(&v);
    assert_eq!(
        done,
        format!("{expected}\r\n## Garden\r\n\r\n- [ ] mow the lawn\r\n")
            .replace("[ ] book the", "[x] book the")
    );
    assert!(
        !done.replace("\r\n", "").contains('\n'),
        "no bare LF was written"
    );
}

#[test]
fn bad_task_input_is_refused_and_changes_nothing() {
    let v = TestVault::new();
    let before = tasks(&v);
    let r = add(&v, "Home", "first line\nsecond line").code(1);
    snapshot!(v, r.stderr, @"error: the task text must be a single line");
    let r = add(&v, "Two\nlines", "task").code(1);
    snapshot!(v, r.stderr, @"error: the section must be a single line");
    let r = add(&v, "Home", "   ").code(1);
    snapshot!(v, r.stderr, @"error: the task text is empty");
    assert_eq!(tasks(&v), before);

    std::fs::remove_file(v.path(TASKS)).expect("remove Tasks.md");
    add(&v, "Home", "a\r\nb").code(1);
    assert!(!v.path(TASKS).exists(), "a refused add creates no file");
    // A valid add recreates the file from the seed.
    let json = v
        .run(&[
            "tasks",
            "add",
            "--section",
            "Home",
            "--text",
            "ok",
            "--json",
        ])
        .ok()
        .json();
    assert_eq!(json["file_created"], true);
    assert!(
        tasks(&v).starts_with("---\ntitle: Tasks\n"),
        "{}",
        tasks(&v)
    );
}

#[test]
fn done_completes_a_unique_substring_match_and_prints_it() {
    let v = TestVault::new();
    v.write(TASKS, LIST);
    let r = v.run(&["done", "passport"]).ok();
    assert_eq!(r.stdout, "Done: renew passport (line 11)\n");
    assert_eq!(
        tasks(&v),
        LIST.replace("- [ ] renew passport", "- [x] renew passport")
    );
    // It is done now: the same query says so, changes nothing, and exits 1 (nothing was
    // completed, as the original's "no match").
    let r = v.run(&["done", "passport"]).code(1);
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        "error: \"renew passport\" (line 11) is already done; nothing was changed\n"
    );
    let j = v.run(&["done", "passport", "--json"]).code(1).json();
    assert_eq!(j["result"], "already_done");
    assert_eq!(j["task"]["line"], 11);
    // A task done by hand counts too.
    let r = v.run(&["done", "milk"]).code(1);
    assert!(
        r.stderr.contains("\"buy milk\" (line 12) is already done"),
        "{}",
        r.stderr
    );
    // Words are joined; case does not matter; `*` items count.
    let r = v.run(&["done", "SHIP", "finalize"]).ok();
    assert_eq!(r.stdout, "Done: ship finalize (line 19)\n");
    assert!(tasks(&v).contains("\n* [x] ship finalize\n"));
}

#[test]
fn an_exact_match_wins_over_substrings() {
    let v = TestVault::new();
    v.write(
        TASKS,
        "## A\n\n- [ ] ship prepare\n- [ ] ship\n- [ ] ship finalize\n",
    );
    let json = v.run(&["done", "ship", "--json"]).ok().json();
    assert_eq!(json["result"], "completed");
    assert_eq!(json["matched_by"], "exact");
    assert_eq!(json["task"]["line"], 4);
    assert_eq!(
        tasks(&v),
        "## A\n\n- [ ] ship prepare\n- [x] ship\n- [ ] ship finalize\n"
    );
}

#[test]
fn an_ambiguous_query_lists_candidates_and_changes_nothing() {
    let v = TestVault::new();
    v.write(TASKS, LIST);
    let r = v.run(&["done", "write", "tests"]).code(1);
    assert!(
        r.stderr.contains("  - write tests for ingest (line 17)"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("  - write tests for scan (line 18)"),
        "{}",
        r.stderr
    );
    assert_eq!(tasks(&v), LIST);
    snapshot!(v, output(&r));
    let json = v.run(&["done", "write", "tests", "--json"]).code(1).json();
    assert_eq!(json["result"], "ambiguous");
    assert_eq!(json["candidates"].as_array().map(Vec::len), Some(2));
    assert_eq!(tasks(&v), LIST);
}

#[test]
fn a_fuzzy_match_is_the_letters_in_order_with_a_clear_winner() {
    let v = TestVault::new();
    // The query's letters in order in exactly one task: it is completed.
    let list = "## A\n\n- [ ] update README\n- [ ] call dentist\n";
    v.write(TASKS, list);
    let json = v.run(&["done", "updrdme", "--json"]).ok().json();
    assert_eq!(json["matched_by"], "fuzzy");
    assert_eq!(json["task"]["text"], "update README");
    // The original's keys too.
    assert_eq!(
        (&json["matched"], &json["line"]),
        (&serde_json::json!("update README"), &serde_json::json!(3))
    );
    assert!(json.get("ambiguous").is_none(), "{json}");
    assert_eq!(tasks(&v), list.replace("- [ ] update", "- [x] update"));

    // Both match, but one scores far better (26 against 5, the original's scores).
    let list = "## A\n\n- [ ] ship prepare\n- [ ] ship finalize\n";
    v.write(TASKS, list);
    let r = v.run(&["done", "shp"]).ok();
    assert_eq!(r.stdout, "Done: ship prepare (line 3)\n");

    // Close scores (21 against 20): ambiguous, best first, nothing completed.
    let close = "## A\n\n- [ ] fix login bug\n- [ ] fix logout bug\n";
    v.write(TASKS, close);
    let j = v.run(&["done", "fxbg", "--json"]).code(1).json();
    assert_eq!(
        (&j["ambiguous"], &j["matched"], &j["line"]),
        (
            &serde_json::json!(true),
            &serde_json::json!(""),
            &serde_json::json!(0)
        ),
        "{j}"
    );
    let r = v.run(&["done", "fxbg"]).code(1);
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        "error: the query matches 2 open tasks; add words to pick one:\n  - fix login bug (line 3)\n  - fix logout bug (line 4)\n"
    );
    assert_eq!(tasks(&v), close, "two near matches: none is completed");
    // Letters out of order, or a typo, match nothing (as in the original).
    v.run(&["done", "ship", "finalzie"]).code(1);
    v.run(&["done", "water", "plants"]).code(1);
    assert_eq!(tasks(&v), close);
}

#[test]
fn an_ambiguous_fuzzy_match_lists_five_and_says_how_many_more() {
    let v = TestVault::new();
    let list: String = (1..=8)
        .map(|i| format!("- [ ] task number {i}\n"))
        .collect();
    v.write(TASKS, &list);
    let r = v.run(&["done", "tsknm"]).code(1);
    assert_eq!(
        r.stderr
            .lines()
            .filter(|l| l.starts_with("  - task number "))
            .count(),
        5
    );
    assert!(r.stderr.ends_with("  … and 3 more\n"), "{}", r.stderr);
    assert!(r.stderr.contains("matches 8 open tasks"), "{}", r.stderr);
    let j = v.run(&["done", "tsknm", "--json"]).code(1).json();
    assert_eq!(j["matches"], 8);
    assert_eq!(j["candidates"].as_array().map(Vec::len), Some(5));
    assert_eq!(tasks(&v), list);
}

#[test]
fn a_failed_done_never_creates_the_task_list() {
    let v = TestVault::new();
    std::fs::remove_file(v.path(TASKS)).expect("remove Tasks.md");
    let r = v.run(&["done", "anything"]).code(1);
    assert_eq!(r.stdout, "");
    assert_eq!(r.stderr, "error: no open task matches \"anything\"\n");
    assert!(!v.path(TASKS).exists());
    v.run(&["done", "  "]).code(1);
    assert!(!v.path(TASKS).exists());
    snapshot!(v, output(&r));
}

#[test]
fn a_done_that_completes_nothing_fails_on_one_stream() {
    let v = TestVault::new();
    v.write(TASKS, LIST);
    v.run(&["done", "passport"]).ok();
    for (query, says) in [
        (
            "nothing like it",
            "no open task matches \"nothing like it\"",
        ),
        ("passport", "\"renew passport\" (line 11) is already done"),
        ("write tests", "the query matches 2 open tasks"),
    ] {
        // A person reads the failure on stderr, all of it; stdout stays empty.
        let text = v.run(&["done", query]).code(1);
        assert_eq!(text.stdout, "", "{query}");
        assert!(
            text.stderr.starts_with("error: "),
            "{query}: {}",
            text.stderr
        );
        assert!(text.stderr.contains(says), "{query}: {}", text.stderr);
        // An agent reads one JSON object on stdout, the outcome, and nothing else.
        let json = v.run(&["done", query, "--json"]).code(1);
        let j = json.json();
        assert!(j["result"].is_string() && j["line"] == 0, "{query}: {j}");
        assert_eq!(json.stderr, "", "{query}");
    }
    assert_eq!(
        tasks(&v),
        LIST.replace("- [ ] renew passport", "- [x] renew passport")
    );
}

#[test]
fn snapshot_of_add_and_done_text() {
    let v = TestVault::new();
    v.write(TASKS, LIST);
    let added = add(&v, "Work", "review the ingest tests").ok();
    let again = add(&v, "work", "Review the ingest tests").ok();
    let created = add(&v, "Garden", "mow the lawn").ok();
    let done = v.run(&["done", "review", "the", "ingest"]).ok();
    snapshot!(v, [&added, &again, &created, &done].map(output).join(""));
}

#[test]
fn a_file_without_a_final_newline_gets_one_line_per_task() {
    let v = TestVault::new();
    v.write(TASKS, "## A\n- [ ] one");
    add(&v, "A", "two").ok();
    assert_eq!(tasks(&v), "## A\n- [ ] one\n- [ ] two\n");
    v.write(TASKS, "## A\n- [ ] one");
    add(&v, "B", "two").ok();
    assert_eq!(tasks(&v), "## A\n- [ ] one\n\n## B\n\n- [ ] two\n");
}

#[test]
fn a_task_list_that_is_not_utf8_is_refused_naming_the_line() {
    let v = TestVault::new();
    let bytes = b"## A\n\n- [ ] caf\xe9\n".to_vec();
    v.write(TASKS, &bytes);
    let r = add(&v, "A", "tea").code(1);
    assert!(r.stderr.contains("Tasks.md line 3"), "{}", r.stderr);
    let r = v.run(&["done", "caf"]).code(1);
    assert!(r.stderr.contains("Tasks.md line 3"), "{}", r.stderr);
    assert_eq!(std::fs::read(v.path(TASKS)).expect("Tasks.md"), bytes);
}

#[test]
fn a_crash_right_after_the_write_leaves_a_whole_file() {
    let v = TestVault::new();
    v.write(TASKS, LIST);
    let crashed: Run = v
        .cmd(&[
            "tasks",
            "add",
            "--section",
            "Home",
            "--text",
            "water the plants",
        ])
        .env("SPARKS_FAULT_AT", "tasks.write")
        .output()
        .expect("run sparks")
        .into();
    assert_eq!(crashed.code, None, "{crashed:?}");
    let added = LIST.replace(
        "A note about home.\n",
        "A note about home.\n- [ ] water the plants\n",
    );
    assert_eq!(tasks(&v), added);
    let r = add(&v, "Home", "water the plants").ok();
    assert!(r.stdout.starts_with("Already open"), "{}", r.stdout);

    let crashed: Run = v
        .cmd(&["done", "water"])
        .env("SPARKS_FAULT_AT", "done.write")
        .output()
        .expect("run sparks")
        .into();
    assert_eq!(crashed.code, None, "{crashed:?}");
    assert_eq!(tasks(&v), added.replace("[ ] water", "[x] water"));
    let leftovers: Vec<String> = std::fs::read_dir(v.path("wiki/collections"))
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n != "Tasks.md")
        .collect();
    assert!(
        leftovers.is_empty(),
        "no temporary file is left: {leftovers:?}"
    );
}

#[test]
fn list_shows_open_tasks_with_their_sections_and_lines() {
    let v = TestVault::new();
    v.write(TASKS, LIST);
    let open = v.run(&["tasks", "list"]).ok();
    let all = v.run(&["tasks", "list", "--all"]).ok();
    let work = v
        .run(&["tasks", "list", "--section", "work", "--json"])
        .ok();
    snapshot!(
        v,
        format!(
            "$ sparks tasks list\n{}\n$ sparks tasks list --all\n{}\n$ sparks tasks list --section work --json\n{}",
            output(&open),
            output(&all),
            output(&work)
        )
    );
    // Each line named is the task's line in the file, and `done` completes what list shows.
    let j = v.run(&["tasks", "list", "--json"]).ok().json();
    let file = tasks(&v);
    for t in j["tasks"].as_array().unwrap() {
        let line = file
            .lines()
            .nth(t["line"].as_u64().unwrap() as usize - 1)
            .unwrap();
        assert!(line.ends_with(t["text"].as_str().unwrap()), "{line}");
        assert!(line.contains("[ ]"), "{line}");
    }
    v.run(&["done", "renew passport"]).ok();
    let after = v.run(&["tasks", "list", "--json"]).ok().json();
    assert_eq!(after["open"], 3);
    assert_eq!(after["done"], 2);
    assert!(
        !after["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["text"] == "renew passport")
    );
}

#[test]
fn list_of_a_section_tasks_md_lacks_says_so_and_no_file_is_no_task() {
    let v = TestVault::new();
    let none = v.run(&["tasks", "list", "--json"]).ok();
    assert_eq!(
        none.json(),
        serde_json::json!({"tasks": [], "open": 0, "done": 0, "sections": [], "section": null})
    );
    v.write(TASKS, LIST);
    let r = v.run(&["tasks", "list", "--section", "Garden"]).ok();
    assert_eq!(r.stdout, "");
    assert!(
        r.stderr
            .contains("Tasks.md has no section \"Garden\" (its sections: Home, Work, Notes)"),
        "{}",
        r.stderr
    );
    v.run(&["tasks", "list", "--section", " "]).code(2);
}

/// Text from Tasks.md reaches a terminal as text: its escape sequences and other control
/// characters are written visibly by `tasks list` (coloured or not), and kept as they are in
/// the JSON.
#[cfg(target_os = "linux")]
#[test]
fn list_writes_control_characters_from_the_file_visibly() {
    let v = TestVault::new();
    v.write(
        TASKS,
        "# Tasks\n\n## Ho\u{1b}]0;pwned\u{7}me\n\n- [ ] \u{1b}[31mred\u{1b}[0m alert\u{1b}[2J\n\
         - [ ] hidden\rshown \u{9b}6n\n",
    );
    let r = v.run(&["tasks", "list"]).ok();
    assert_eq!(
        r.stdout,
        "Ho\\x1b]0;pwned\\x07me\n  [ ] \\x1b[31mred\\x1b[0m alert\\x1b[2J (line 5)\n  \
         [ ] hidden\\x0dshown \\x9b6n (line 6)\n"
    );
    // On a terminal, with colour: Sparks' own colours, and no escape from the file.
    let shown = crate::harness::on_terminal(&v.root, &v.home(), "tasks list", &[]);
    // Control characters written as `^[` (escape) and `^G` (bell): any raw one left from the
    // file would show so; the file's own are the text `\x1b` and `\x07`.
    let written_out = shown
        .replace("\r\n", "\n")
        .replace('\x1b', "^[")
        .replace('\u{7}', "^G");
    snapshot!(v, written_out, @r"
    ^[[1mHo\x1b]0;pwned\x07me^[[0m
      [ ] \x1b[31mred^[[0m alert\x1b[2J (line 5)
      [ ] hidden\x0dshown \x9b6n (line 6)
    ");
    let json = v.run(&["tasks", "list", "--json"]).ok().json();
    assert_eq!(
        json["tasks"][0]["text"],
        "\u{1b}[31mred\u{1b}[0m alert\u{1b}[2J"
    );
    assert_eq!(json["tasks"][0]["section"], "Ho\u{1b}]0;pwned\u{7}me");
}
