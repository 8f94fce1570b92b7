//! `sparks init` and `sparks describe`.

use crate::harness::{TestVault, command};
use crate::snapshot;
use std::collections::BTreeMap;
use std::path::Path;

/// Every file under `root` with its bytes and mtime.
fn tree(root: &Path) -> BTreeMap<String, (Vec<u8>, std::time::SystemTime)> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(root).unwrap().display().to_string();
            let meta = e.metadata().unwrap();
            (
                rel,
                (std::fs::read(e.path()).unwrap(), meta.modified().unwrap()),
            )
        })
        .collect()
}

#[test]
fn creates_the_layout() {
    let v = TestVault::empty();
    let run = v
        .run_in(v.dir.path(), &["init", "vault", "--agent", "claude"])
        .ok();
    snapshot!(v, run.stdout);
    for dir in [
        "raw/inbox",
        "raw/archive",
        "wiki/entities",
        "wiki/concepts",
        "wiki/summaries",
        "wiki/synthesis",
        "wiki/collections",
    ] {
        assert!(v.path(dir).is_dir(), "{dir}");
    }
    assert!(v.read(".gitignore").lines().any(|l| l == "sparks.db*"));
    assert!(v.read(".gitignore").lines().any(|l| l == ".sparks/"));
    assert!(v.read("inbox.md").ends_with("\n---\n\n"));
    assert_eq!(v.read("CLAUDE.md"), v.run(&["describe"]).ok().stdout);
}

#[test]
fn a_second_init_changes_nothing() {
    let v = TestVault::new();
    v.run(&["init", "--agent", "codex"]).ok();
    let before = tree(&v.root);
    let run = v.run(&["init", "--agent", "codex"]).ok();
    assert!(run.stdout.contains("nothing to do"), "{}", run.stdout);
    assert!(
        run.stdout.contains("already holds the current contract"),
        "{}",
        run.stdout
    );
    let after = tree(&v.root);
    // The manifest is opened (SQLite may touch its sidecar files); nothing else changes.
    let strip = |t: BTreeMap<_, _>| -> BTreeMap<String, _> {
        t.into_iter()
            .filter(|(k, _): &(String, _)| !k.starts_with("sparks.db"))
            .collect()
    };
    assert_eq!(strip(before), strip(after));
}

#[test]
fn an_unknown_agent_creates_nothing() {
    let v = TestVault::empty();
    let run = v
        .run_in(v.dir.path(), &["init", "x", "--agent", "nope"])
        .code(2);
    assert!(run.stderr.contains("nope"), "{}", run.stderr);
    assert!(!v.dir.path().join("x").exists());
}

#[test]
fn init_repairs_what_is_missing_and_keeps_the_rest() {
    let v = TestVault::new();
    v.write("inbox.md", "# My inbox\n---\nkeep me\n");
    std::fs::remove_dir_all(v.path("wiki/concepts")).unwrap();
    std::fs::remove_file(v.path("wiki/log.md")).unwrap();
    let run = v.run(&["init"]).ok();
    assert!(
        run.stdout.starts_with("Repaired the vault"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("created wiki/concepts/") && run.stdout.contains("created wiki/log.md")
    );
    assert_eq!(v.read("inbox.md"), "# My inbox\n---\nkeep me\n");
}

#[test]
fn refuses_a_vault_inside_a_vault() {
    let v = TestVault::new();
    let run = v.run(&["init", "wiki/nested"]).code(1);
    assert!(
        run.stderr.contains(&v.root.display().to_string()),
        "{}",
        run.stderr
    );
    assert!(!v.path("wiki/nested").exists());
}

#[test]
fn agent_files_are_kept_unless_forced() {
    let v = TestVault::new();
    v.write("AGENTS.md", "my own notes\n");
    let run = v.run(&["init", "--agent", "generic"]).ok();
    assert!(run.stdout.contains("kept AGENTS.md"), "{}", run.stdout);
    assert_eq!(v.read("AGENTS.md"), "my own notes\n");
    v.run(&["init", "--agent", "generic", "--force"]).ok();
    assert_eq!(v.read("AGENTS.md"), v.run(&["describe"]).ok().stdout);
    v.run(&["init", "--agent", "gemini"]).ok();
    assert!(v.path("GEMINI.md").exists());
    v.run(&["init", "--force"]).code(2);
}

#[test]
fn names_that_need_escaping_give_a_working_config() {
    let v = TestVault::empty();
    let name = r#"my "notes" \ here"#;
    v.run_in(v.dir.path(), &["init", name]).ok();
    let root = v.dir.path().join(name);
    let run = v.run_in(&root, &["status", "--json"]).ok();
    assert_eq!(run.json()["vault_name"], name);
}

#[test]
fn describe_works_outside_a_vault() {
    let v = TestVault::empty();
    let run = v.run_in(v.dir.path(), &["describe"]).ok();
    assert!(run.stdout.contains("sparks ingest --prepare"));
}

/// `sync` and `capture` are other names of the `devices` topic (where an agent looks for
/// them); a topic that does not exist is a usage error that names it and lists every topic.
#[test]
fn describe_takes_sync_and_capture_and_names_the_topics_for_an_unknown_one() {
    let v = TestVault::empty();
    let here = v.dir.path();
    let devices = v.run_in(here, &["describe", "devices"]).ok().stdout;
    assert!(devices.starts_with("# Devices"), "{devices}");
    for alias in ["sync", "capture"] {
        assert_eq!(v.run_in(here, &["describe", alias]).ok().stdout, devices);
    }
    let run = v.run_in(here, &["describe", "synk"]).code(2);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("'synk'"), "{}", run.stderr);
    let topics = v.run_in(here, &["describe", "--topics"]).ok().stdout;
    let names: Vec<&str> = topics.lines().filter_map(|l| l.split(' ').next()).collect();
    assert!(
        run.stderr
            .contains(&format!("[possible values: {}]", names.join(", "))),
        "{}",
        run.stderr
    );
}

#[test]
fn commands_outside_a_vault_say_how_to_make_one() {
    let v = TestVault::empty();
    let run = v.run_in(v.dir.path(), &["status"]).code(1);
    snapshot!(v, run.stderr);
}

#[test]
fn vault_flag_and_env_select_the_vault() {
    let v = TestVault::new();
    let elsewhere = v.dir.path();
    let run = v
        .run_in(
            elsewhere,
            &["--vault", v.root.to_str().unwrap(), "status", "--json"],
        )
        .ok();
    assert_eq!(run.json()["vault_root"], v.root.display().to_string());
    let run: crate::harness::Run = command(elsewhere, &v.home())
        .args(["status", "--json"])
        .env("SPARKS_VAULT", &v.root)
        .output()
        .unwrap()
        .into();
    assert_eq!(run.ok().json()["vault_name"], "vault");
    let run = v
        .run_in(
            elsewhere,
            &["--vault", elsewhere.to_str().unwrap(), "status"],
        )
        .code(1);
    assert!(run.stderr.contains("is not a vault"), "{}", run.stderr);
    // A path that does not exist says so, through the flag and the variable alike.
    let missing = elsewhere.join("no-such-vault");
    let run = v
        .run_in(elsewhere, &["--vault", missing.to_str().unwrap(), "status"])
        .code(1);
    assert!(
        run.stderr
            .starts_with(&format!("error: {} does not exist\n", missing.display())),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("hint: check the path given to --vault"),
        "{}",
        run.stderr
    );
    let run: crate::harness::Run = command(elsewhere, &v.home())
        .args(["status"])
        .env("SPARKS_VAULT", &missing)
        .output()
        .unwrap()
        .into();
    assert!(run.code(1).stderr.contains("does not exist"));
}

#[test]
fn strict_config_errors_name_key_and_line() {
    let v = TestVault::new();
    v.write(
        "sparks.toml",
        "[git]\nauto_commit = true\n\n[collections.qoutes]\nglob = \"raw/q/*.md\"\n",
    );
    let run = v.run(&["status"]).code(1);
    snapshot!(v, run.stderr, @r"
    error: invalid [VAULT]/sparks.toml: TOML parse error at line 4, column 14
      |
    4 | [collections.qoutes]
      |              ^^^^^^
    unknown field `qoutes`, expected one of `quotes`, `bookmarks`, `media`, `ideas`
    ");
}

#[test]
fn an_unknown_fault_step_is_a_usage_error() {
    let v = TestVault::new();
    let run: crate::harness::Run = v
        .cmd(&["status"])
        .env("SPARKS_FAULT_AT", "finalise.archive")
        .output()
        .unwrap()
        .into();
    let run = run.code(2);
    assert!(run.stderr.contains("finalise.archive"), "{}", run.stderr);
}

/// What `init --agent` installs is what an agent can load every session: the ingest protocol,
/// ownership, page and link rules and the never-list, no larger than the original's 13.7 KB;
/// the reference is behind `sparks describe TOPIC`, which the contract names, and drift is
/// still told.
#[test]
fn the_installed_contract_is_small_and_the_reference_is_behind_describe_topics() {
    let v = TestVault::empty();
    v.run_in(v.dir.path(), &["init", "vault", "--agent", "claude"])
        .ok();
    let installed = v.read("CLAUDE.md");
    assert!(installed.len() <= 12_500, "{} bytes", installed.len());
    assert_eq!(installed, v.run(&["describe"]).ok().stdout);
    for kept in [
        "## 7. The ingest protocol",
        "## 2. Who owns what",
        "## 5. Pages",
        "## 6. Links",
        "## 10. Never",
        "sparks ingest --finalize --strict",
    ] {
        assert!(installed.contains(kept), "the contract lacks {kept:?}");
    }
    // The reference moved out: the configuration and exit-code tables, tasks' matching.
    for moved in [
        "| `[ingest] batch_size` |",
        "| 3 | another ingest",
        "`updrdme`",
    ] {
        assert!(!installed.contains(moved), "{moved:?} is still installed");
    }
    let topics = v.run(&["describe", "--topics"]).ok().stdout;
    snapshot!(v, topics);
    let mut seen = Vec::new();
    for line in topics.lines() {
        let (name, summary) = line.split_once("  ").expect("a name, then its summary");
        assert!(!summary.trim().is_empty(), "{line}");
        assert!(
            installed.contains(&format!("`{name}`")),
            "the contract names {name}"
        );
        let text = v.run(&["describe", name]).ok().stdout;
        assert!(text.starts_with("# "), "{name}: {text}");
        seen.push(text);
    }
    let all = seen.concat();
    for moved in [
        "| `[ingest] batch_size` |",
        "| 3 | another ingest",
        "`updrdme`",
    ] {
        assert!(all.contains(moved), "no topic holds {moved:?}");
    }
    v.run(&["describe", "everything"]).code(2);
    // Drift detection still compares the installed file with the contract.
    let status = v.run(&["status", "--json"]).ok().json();
    assert_eq!(status["contract"]["files"][0]["state"], "current");
    v.write("CLAUDE.md", format!("{installed}\nMy own rule.\n"));
    let status = v.run(&["status", "--json"]).ok().json();
    assert_eq!(status["contract"]["files"][0]["state"], "differs");
}
