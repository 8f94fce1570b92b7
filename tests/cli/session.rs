//! A new user's first session, scripted: init, eight varied captures, prepare, four pages
//! written the way the contract says (its own frontmatter example), `fmt --check`, finalize;
//! then every capture must be where the contract says it goes, and lint must find nothing the
//! session did not cause. Each step is one a person took by hand when this was tried.

use crate::harness::{TODAY, TestVault};
use serde_json::{Value, json};

/// The eight captures, as a person types them into inbox.md.
const CAPTURES: [&str; 8] = [
    "> The best way to predict the future is to invent it.\n— Alan Kay",
    "Two good reads on the storage layer: https://sqlite.org/wal.html and \
     https://www.sqlite.org/atomiccommit.html",
    "to-read: https://www.rfc-editor.org/rfc/rfc9110 (HTTP Semantics)",
    "- [ ] Email Dana the review notes",
    "book: Thinking in Systems / Donella Meadows",
    "idea: a weekly review that starts from the inbox archive",
    "知識管理は小さな習慣から始まる。毎日少しずつ書く。",
    "2026-04-20\nMet Dana about the design review; she leads it.",
];

/// The contract's frontmatter example, as `sparks describe` prints it.
fn contract_example(v: &TestVault) -> String {
    let contract = v.run(&["describe"]).ok().stdout;
    let pages = &contract[contract.find("## 5. Pages").expect("a §5")..];
    let start = pages.find("```yaml\n").expect("a YAML example in §5") + "```yaml\n".len();
    let end = start + pages[start..].find("```").expect("the example ends");
    pages[start..end].to_string()
}

/// A page from the contract's example: its keys in its order, these values put in.
fn page_from_example(example: &str, fields: &[(&str, &str)], body: &str) -> String {
    let mut page = String::new();
    for line in example.lines() {
        let key = line.split(':').next().unwrap_or_default();
        match fields.iter().find(|(k, _)| *k == key) {
            Some((k, value)) => page.push_str(&format!("{k}: {value}\n")),
            None => {
                page.push_str(line);
                page.push('\n');
            }
        }
    }
    format!("{page}\n{body}\n")
}

fn stdout_json(v: &TestVault, args: &[&str]) -> Value {
    v.run(args).ok().json()
}

#[test]
fn a_first_session_puts_every_capture_where_the_contract_says() {
    let v = TestVault::new();
    v.capture(&CAPTURES);

    // Prepare hands out the whole batch and names the collections finalize will regenerate.
    let batch = stdout_json(&v, &["ingest", "--prepare"]);
    assert_eq!(batch["total"], 8, "{batch}");
    assert_eq!(
        batch["affected_collections"],
        json!(["Bookmarks", "Books", "Ideas", "Quotes", "ReadingList"]),
        "{batch}"
    );
    let dates: Vec<&str> = batch["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["capture_date"].as_str().unwrap())
        .collect();
    assert_eq!(dates.iter().filter(|d| **d == "2026-04-20").count(), 1);
    assert_eq!(dates.iter().filter(|d| **d == TODAY).count(), 7);

    write_the_agent_s_pages(&v);

    // The pages pass fmt --check as written, before finalize creates the archives they cite.
    let fmt = v.run(&["fmt", "--check"]);
    assert_eq!(fmt.code, Some(0), "{}\n{}", fmt.stdout, fmt.stderr);

    let finalized = stdout_json(&v, &["ingest", "--finalize", "--json"]);
    assert_eq!(finalized["archived"], 8, "{finalized}");
    assert_eq!(finalized["remaining"], 0, "{finalized}");
    assert_eq!(
        finalized["regenerated"], batch["affected_collections"],
        "finalize regenerated what prepare promised: {finalized}"
    );

    every_capture_is_where_the_contract_says(&v);

    // The new pages are found by name and by text.
    let resolved = stdout_json(&v, &["query", "--resolve", "Dana", "--json"]);
    assert_eq!(
        resolved["resolves_to"], "wiki/entities/Dana Reyes.md",
        "{resolved}"
    );
    let hits = stdout_json(&v, &["search", "習慣", "--json"]);
    assert_eq!(
        hits["hits"][0]["path"], "wiki/concepts/知識管理.md",
        "{hits}"
    );

    // The clock is pinned to TODAY but files get the real time: date the archives finalize
    // wrote as they would be dated in a real session (else every page looks stale).
    for archive in [
        format!("raw/inbox/{TODAY}.md"),
        "raw/inbox/2026-04-20.md".into(),
    ] {
        v.set_mtime(&archive, TODAY);
    }
    // Nothing for lint to say: the session caused no issue, and the vault had none.
    let lint = v.run(&["lint"]);
    assert_eq!(
        (lint.code, lint.stdout.as_str()),
        (Some(0), "Vault health: OK (no lint issues).\n"),
        "{}",
        lint.stderr
    );
    // And the index the agent extended is what `sparks index` keeps.
    let index = stdout_json(&v, &["index", "--json"]);
    assert_eq!(index["descriptions_kept"], 4, "{index}");
}

/// What the agent writes in the first session: its pages, made from the contract's example and
/// citing the archive files finalize will write (the contract says to, before they exist), the
/// index lines, the log block and a task.
fn write_the_agent_s_pages(v: &TestVault) {
    let example = contract_example(v);
    let today_src = format!("[raw/inbox/{TODAY}.md]");
    let pages = [
        (
            "wiki/entities/Dana Reyes.md",
            vec![
                ("title", "Dana Reyes"),
                ("type", "entity"),
                ("tags", "[people, design-review]"),
                ("aliases", "[Dana, D. Reyes]"),
                ("sources", "[raw/inbox/2026-04-20.md]"),
                ("created", "2026-04-20"),
                ("updated", TODAY),
            ],
            "Dana Reyes leads the design review. We met on 2026-04-20 to go through it. \
             She wants the notes by email; see [[Weekly review]] for how they are kept.",
        ),
        (
            "wiki/concepts/Weekly review.md",
            vec![
                ("title", "Weekly review"),
                ("type", "concept"),
                ("tags", "[habits]"),
                ("aliases", "[Weekly reviews]"),
                ("sources", today_src.as_str()),
                ("created", TODAY),
                ("updated", TODAY),
            ],
            "A weekly review starts from the inbox archive. It looks back at what came in. \
             It ends with what to do next, as [[Thinking in Systems]] suggests.",
        ),
        (
            "wiki/summaries/Thinking in Systems.md",
            vec![
                ("title", "Thinking in Systems"),
                ("type", "summary"),
                ("tags", "[books, systems]"),
                ("aliases", "[Thinking in Systems (book)]"),
                ("sources", today_src.as_str()),
                ("created", TODAY),
                ("updated", TODAY),
            ],
            "Donella Meadows wrote a primer on systems thinking. Stocks change only through \
             flows! Feedback loops explain most behaviour; see [[知識管理]] and [[Dana Reyes]].",
        ),
        (
            "wiki/concepts/知識管理.md",
            vec![
                ("title", "知識管理"),
                ("type", "concept"),
                ("tags", "[habits]"),
                ("aliases", "[Knowledge management]"),
                ("sources", today_src.as_str()),
                ("created", TODAY),
                ("updated", TODAY),
            ],
            "知識管理は小さな習慣から始まる。毎日少しずつ書く。[[Weekly review]]と同じ考え方だ。",
        ),
    ];
    for (path, fields, body) in &pages {
        v.write(path, page_from_example(&example, fields, body));
    }
    // The index line per new page and the log block, as the contract's steps 7 and 8 say.
    let mut index = v.read("wiki/index.md");
    for (path, fields, _) in &pages {
        let title = fields.iter().find(|(k, _)| *k == "title").unwrap().1;
        index.push_str(&format!(
            "- [[{title}]] — from the first session ({path})\n"
        ));
    }
    v.write("wiki/index.md", index);
    let mut log = v.read("wiki/log.md");
    log.push_str(&format!(
        "\n## [{TODAY}] ingest | first session\n- created [[Dana Reyes]], [[Weekly review]], \
         [[Thinking in Systems]], [[知識管理]]\n"
    ));
    v.write("wiki/log.md", log);
    // The task goes through sparks, under the page it belongs to (step 9).
    v.run(&[
        "tasks",
        "add",
        "--section",
        "[[Dana Reyes]]",
        "--text",
        "Email Dana the review notes",
    ])
    .ok();
}

/// After finalize: every capture is in the collection the contract names, archived by its day,
/// and gone from the inbox.
fn every_capture_is_where_the_contract_says(v: &TestVault) {
    let page = |name: &str| v.read(&format!("wiki/collections/{name}.md"));
    assert!(
        page("Quotes")
            .contains("> The best way to predict the future is to invent it.\n— Alan Kay"),
        "{}",
        page("Quotes")
    );
    for url in [
        "https://sqlite.org/wal.html",
        "https://www.sqlite.org/atomiccommit.html",
    ] {
        assert!(
            page("Bookmarks").contains(&format!("]({url})")),
            "{url}: {}",
            page("Bookmarks")
        );
    }
    assert!(
        page("Reading List").contains("[HTTP Semantics](https://www.rfc-editor.org/rfc/rfc9110)"),
        "{}",
        page("Reading List")
    );
    assert!(
        page("Books").contains("## Thinking in Systems / Donella Meadows"),
        "{}",
        page("Books")
    );
    assert!(
        page("Ideas").contains("a weekly review that starts from the inbox archive"),
        "{}",
        page("Ideas")
    );
    assert!(
        page("Tasks").contains("## [[Dana Reyes]]\n\n- [ ] Email Dana the review notes\n"),
        "{}",
        page("Tasks")
    );
    let archive = v.read(&format!("raw/inbox/{TODAY}.md"));
    assert!(
        archive.contains("知識管理は小さな習慣から始まる。"),
        "{archive}"
    );
    assert!(
        v.read("raw/inbox/2026-04-20.md")
            .contains("Met Dana about the design review")
    );
    let inbox = v.read("inbox.md");
    assert!(
        !inbox.contains("Alan Kay") && !inbox.contains("知識管理"),
        "{inbox}"
    );
}
