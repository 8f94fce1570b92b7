//! Hostile vaults: huge files, odd names, files vanishing mid-scan, a read-only vault, a full
//! disk. Each must give a clear answer and lose nothing.

use crate::harness::{Run, TestVault, rows};
#[cfg(unix)]
use crate::harness::{chmod, chmod_r, is_root, open_to_nobody, run_unprivileged, tree};
use std::collections::BTreeSet;
use std::io::Write;
#[cfg(unix)]
use std::path::Path;
#[cfg(target_os = "linux")]
use std::path::PathBuf;
use std::process::Stdio;

#[test]
fn a_100_mb_file_and_a_million_line_file_are_scanned() {
    let v = TestVault::new();
    let big = v.path("raw/big.bin");
    let mut f = std::fs::File::create(&big).unwrap();
    let chunk = vec![0xA5u8; 1 << 20];
    for _ in 0..100 {
        f.write_all(&chunk).unwrap();
    }
    drop(f);
    let lines: String = (0..1_000_000).map(|i| format!("{i}\n")).collect();
    v.write("raw/lines.txt", lines);
    v.page("wiki/concepts/A.md", "A", "[[lines.txt]] and ![[big.bin]]");
    let j = v.run(&["scan", "--json"]).ok().json();
    assert_eq!(j["errors"], serde_json::json!([]));
    v.run(&["lint", "--check", "broken-links", "missing-embeds"])
        .ok();
    let again = v.run(&["scan", "--json"]).ok().json();
    assert!(again["hashed"].as_u64().unwrap() <= 3, "{again}");
}

#[cfg(not(target_os = "macos"))]
#[test]
fn names_in_every_normalisation_form_are_twins_reported_not_guessed() {
    let v = TestVault::new();
    v.write("wiki/concepts/Caf\u{e9}.md", "nfc\n")
        .write("wiki/concepts/Cafe\u{301}.md", "nfd\n")
        .write("wiki/concepts/Links.md", "[[Café]]\n");
    v.run(&["scan"]).ok();
    let j = v
        .run(&["lint", "--check", "ambiguous-links", "--json"])
        .code(1)
        .json();
    assert_eq!(j["issues"][0]["path"], "wiki/concepts/Links.md", "{j}");
    let r = v.run(&["query", "--resolve", "CAFÉ", "--json"]).ok().json();
    assert_eq!(r["ambiguous"], true);
    assert_eq!(r["collisions"].as_array().unwrap().len(), 2);
}

#[cfg(target_os = "linux")]
#[test]
fn a_file_name_that_is_not_utf8_is_tracked_and_does_not_break_the_scan() {
    use std::os::unix::ffi::OsStrExt;
    let v = TestVault::new();
    let name = std::ffi::OsStr::from_bytes(b"notes-\xff.md");
    std::fs::write(v.path("raw").join(name), "latin-1 name\n").unwrap();
    let j = v.run(&["scan", "--json"]).ok().json();
    assert_eq!(j["errors"], serde_json::json!([]));
    let again = v.run(&["scan", "--json"]).ok().json();
    assert_eq!(
        again["deleted"], 0,
        "the file is not taken for deleted: {again}"
    );
}

#[test]
fn a_read_only_vault_gives_a_clear_error_and_keeps_the_inbox() {
    let v = TestVault::new();
    v.capture(&["keep me"]);
    let inbox = v.read("inbox.md");
    v.run(&["ingest", "--prepare"]).ok();
    // As root, permission bits do not stop writes; a read-only inbox directory entry is
    // simulated by making raw/inbox a file, so the archive cannot be written.
    std::fs::remove_dir_all(v.path("raw/inbox")).unwrap();
    v.write("raw/inbox", "not a directory");
    let run = v.run(&["ingest", "--finalize"]).code(1);
    assert!(run.stderr.contains("raw/inbox"), "{}", run.stderr);
    assert_eq!(v.read("inbox.md"), inbox, "nothing removed from the inbox");
}

/// Files deleted and created while `sparks scan` walks a vault of a few thousand files, a few
/// rounds: the scan never panics, takes a file removed under it for deleted (exit 0, no
/// error), marks none of the untouched files deleted, and one more scan leaves the manifest
/// agreeing with the files.
#[test]
fn files_vanishing_and_appearing_mid_scan() {
    const FILES: usize = 3000;
    const ROUNDS: usize = 3;
    let v = TestVault::new();
    for i in 0..FILES {
        v.write(
            &format!("wiki/bulk/{:02}/n{i}.md", i % 50),
            format!("# Note {i}\n\nSee [[n{}]].\n", (i + 1) % FILES),
        );
    }
    v.settle();
    v.run(&["scan"]).ok();
    let live = |v: &TestVault| -> BTreeSet<String> {
        rows(
            v,
            "SELECT path FROM files WHERE deleted = 0 AND path LIKE 'wiki/bulk/%'",
        )
        .into_iter()
        .collect()
    };
    let on_disk = |v: &TestVault| -> BTreeSet<String> {
        walkdir::WalkDir::new(v.path("wiki/bulk"))
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                let rel = e.path().strip_prefix(&v.root).expect("in the vault");
                rel.to_string_lossy().into_owned()
            })
            .collect()
    };
    for round in 0..ROUNDS {
        let before = on_disk(&v);
        let mut child = v
            .cmd(&["scan", "--json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn scan");
        // Delete every seventh file (shifted each round) and create a new one for each, about
        // one pair a millisecond, until the scan ends: each change races the walk, the
        // hashing or the reading of that file.
        let mut touched = BTreeSet::new();
        let victims: Vec<&String> = before.iter().skip(round).step_by(7).collect();
        let mut created = 0;
        for (n, victim) in victims.iter().enumerate() {
            if child.try_wait().expect("try_wait").is_some() && n > 0 {
                break;
            }
            std::fs::remove_file(v.path(victim)).expect("delete");
            touched.insert((*victim).clone());
            let new = format!("wiki/bulk/{:02}/r{round}-{n}.md", n % 50);
            v.write(&new, format!("# New {n}\n"));
            touched.insert(new);
            created += 1;
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let run: Run = child.wait_with_output().expect("wait").into();
        eprintln!(
            "round {round}: {created} files deleted and {created} created during the scan, \
             exit {:?}",
            run.code
        );
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
        assert_eq!(
            run.code,
            Some(0),
            "round {round} ({created} created): a vanished file is no error: {run:?}"
        );
        assert_eq!(run.json()["errors"], serde_json::json!([]), "round {round}");
        // Nothing the race did not touch is lost or taken for deleted.
        let after_race = live(&v);
        for p in before.difference(&touched) {
            assert!(after_race.contains(p), "round {round}: {p} marked deleted");
        }
        let again = v.run(&["scan", "--json"]).ok().json();
        assert_eq!(again["errors"], serde_json::json!([]), "round {round}");
        assert_eq!(
            live(&v),
            on_disk(&v),
            "round {round}: manifest and files disagree"
        );
    }
}

/// Give every writing command something to do in `v`: a dated and an undated capture, a
/// page `fmt --fix` would change and a clean one, pages for the index.
#[cfg(unix)]
fn make_busy(v: &TestVault) {
    v.page("wiki/concepts/A.md", "A", "[[B]]")
        .page("wiki/concepts/B.md", "B", "[[A]]")
        .write(
            "wiki/concepts/Scalar.md",
            "---\ntitle: Scalar\ntype: concept\nmaturity: seed\ntags: ai\nsources: [raw/a.md]\n\
             created: 2026-04-01\nupdated: 2026-04-02\n---\nText.\n",
        )
        .write(
            "wiki/concepts/Clean.md",
            "---\ntitle: Clean\ntype: concept\nmaturity: seed\nsources: [raw/a.md]\n\
             created: 2026-04-01\nupdated: 2026-04-02\n---\nText.\n",
        )
        .write("raw/a.md", "a\n")
        .capture(&["2026-04-20\nkeep me", "and me, https://example.org/x"]);
}

/// A vault nobody may write to (as `nobody` when the tests run as root): every writing command
/// fails with exit 1 and an error naming what it could not write, no file changes, and once
/// the vault is writable again the ingest goes through with nothing lost.
#[cfg(unix)]
#[test]
fn a_vault_without_write_permission_refuses_writes_clearly_and_loses_nothing() {
    let v = read_only_vault();
    let before = tree(&v);
    // `fmt --check` reads the files, not the manifest.
    let run = run_unprivileged(&v, &["fmt", "--check", "wiki/concepts/Clean.md"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    for (args, names) in [
        (
            &["tasks", "add", "--section", "Home", "--text", "x"][..],
            "sparks.db-lock",
        ),
        (&["done", "x"], "sparks.db-lock"),
        (&["fmt", "--fix"], "wiki/concepts/Scalar.md"),
        (&["index"], "sparks.db"),
        (&["collections", "regen", "--all"], "sparks.db"),
        (&["ingest", "--prepare"], "sparks.db"),
        (&["scan"], "sparks.db"),
    ] {
        let run = run_unprivileged(&v, args);
        assert_eq!(run.code, Some(1), "{args:?} in a read-only vault: {run:?}");
        assert!(
            run.stderr.contains(names) && !run.stderr.contains("panicked"),
            "{args:?}: the error does not name {names}: {}",
            run.stderr
        );
    }
    chmod_r(&v.root, "u+w");
    assert!(tree(&v) == before, "a file changed in a read-only vault");
    v.run(&["ingest", "--prepare"]).ok();
    v.run(&["ingest", "--finalize"]).ok();
    assert!(v.read("raw/inbox/2026-04-20.md").contains("keep me"));
}

/// The commands that only read answer in a vault nobody may write to.
#[cfg(unix)]
#[test]
fn a_vault_without_write_permission_still_answers_reads() {
    let v = read_only_vault();
    for args in [
        &["status"][..],
        &["ingest", "--status"],
        &["query", "--resolve", "A"],
        &["lint", "--check", "broken-links"],
    ] {
        let run = run_unprivileged(&v, args);
        assert_eq!(run.code, Some(0), "{args:?} in a read-only vault: {run:?}");
    }
    // Lint cannot bring the manifest up to date there, and says so.
    let run = run_unprivileged(&v, &["lint", "--check", "broken-links", "--json"]);
    assert!(run.stderr.contains("read-only"), "{run:?}");
    assert!(run.json()["manifest_as_of"].is_string(), "{run:?}");
}

/// A scanned busy vault, then made read-only for the user commands run as.
#[cfg(unix)]
fn read_only_vault() -> TestVault {
    let v = TestVault::new();
    make_busy(&v);
    v.run(&["scan"]).ok();
    open_to_nobody(&v);
    chmod_r(&v.root, "a-w");
    v
}

/// A small tmpfs mounted on a directory, unmounted on drop whatever the test did.
#[cfg(target_os = "linux")]
struct Tmpfs(PathBuf);

#[cfg(target_os = "linux")]
impl Tmpfs {
    /// Mount `size` of tmpfs on `dir`, or say why not (not root, no mount permission).
    fn mount(dir: &Path, size: &str) -> Result<Tmpfs, String> {
        if !is_root() {
            return Err("the tests do not run as root".into());
        }
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let out = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .output()
            .map_err(|e| format!("mount: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mount: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(Tmpfs(dir.to_path_buf()))
    }
}

#[cfg(target_os = "linux")]
impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

/// Fill the file system holding `dir` to the last block: one big file, then small ones until
/// not even a small one fits. Returns what to delete to free the space again.
#[cfg(target_os = "linux")]
fn fill(dir: &Path) -> Vec<PathBuf> {
    let mut fillers = Vec::new();
    let big = dir.join("filler.bin");
    let mut f = std::fs::File::create(&big).expect("create filler");
    fillers.push(big);
    let chunk = vec![0u8; 64 << 10];
    while f.write_all(&chunk).is_ok() {}
    for size in [4096, 512, 1] {
        for i in 0.. {
            let p = dir.join(format!("filler-{size}-{i}"));
            let Ok(mut f) = std::fs::File::create(&p) else {
                break;
            };
            fillers.push(p);
            if f.write_all(&vec![0u8; size]).is_err() {
                break;
            }
        }
    }
    fillers
}

#[cfg(target_os = "linux")]
fn temp_files(v: &TestVault) -> Vec<String> {
    tree(v)
        .into_keys()
        .filter(|p| p.ends_with(".tmp"))
        .collect()
}

/// A full disk (a 2 MB tmpfs): finalize, `tasks add`, `fmt --fix` and `index` each fail
/// saying the disk is full and to free space, change no file, leave no temporary file, and
/// complete once space is freed; every capture is archived exactly once. Mounting needs root:
/// `make test` runs it as root (`-- --ignored needs_root`), and it fails where it cannot mount.
#[cfg(target_os = "linux")]
#[test]
#[ignore = "needs root to mount a tmpfs: run as root with `cargo test --test cli -- --ignored needs_root` (make test does)"]
fn needs_root_a_full_disk_fails_each_write_cleanly_and_a_rerun_completes() {
    let v = TestVault::empty();
    let _disk = Tmpfs::mount(&v.root, "2m")
        .unwrap_or_else(|why| panic!("cannot fill a disk without a tmpfs of its own: {why}"));
    v.run_in(v.dir.path(), &["init", "vault"]).ok();
    make_busy(&v);
    v.run(&["scan"]).ok();
    v.run(&["ingest", "--prepare"]).ok();
    let before = tree(&v);
    let fillers = fill(&v.root);
    for (args, file) in [
        (&["ingest", "--finalize"][..], "inbox.md"),
        (
            &["tasks", "add", "--section", "Home", "--text", "x"],
            "wiki/collections/Tasks.md",
        ),
        (&["fmt", "--fix"], "wiki/concepts/Scalar.md"),
        (&["index"], "wiki/index.md"),
    ] {
        let run = v.run(args);
        assert_eq!(run.code, Some(1), "{args:?} on a full disk: {run:?}");
        // A full disk is said to be one, whether a write or SQLite met it (SQLite growing its
        // shared-memory file gets a bare "disk I/O error"), and the advice is to free space:
        // never to rebuild the manifest, which would need more space still.
        let (error, hint) = run
            .stderr
            .split_once("\nhint: ")
            .unwrap_or((&run.stderr, ""));
        assert!(
            error.contains("No space left") || error.contains("the disk is full"),
            "{args:?}: not said to be a full disk: {}",
            run.stderr
        );
        assert!(
            hint.starts_with("free some space on the disk that holds the vault, then run"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(!hint.contains("rebuild"), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
        assert_eq!(
            std::fs::read(v.path(file)).ok().as_deref(),
            before.get(file).map(Vec::as_slice),
            "{args:?} changed {file}"
        );
        assert_eq!(temp_files(&v), Vec::<String>::new(), "{args:?}");
    }
    // Free the space: each command, run again, completes, and finalize archives every
    // capture exactly once whatever the failed run had done.
    for f in fillers {
        std::fs::remove_file(f).expect("free the space");
    }
    v.run(&["ingest", "--finalize"]).ok();
    v.run(&["tasks", "add", "--section", "Home", "--text", "x"])
        .ok();
    v.run(&["fmt", "--fix"]).ok();
    v.run(&["scan"]).ok();
    v.run(&["index"]).ok();
    let archived = v.read("raw/inbox/2026-04-20.md") + &v.read("raw/inbox/2026-05-01.md");
    for capture in ["keep me", "and me, https://example.org/x"] {
        assert_eq!(
            archived.matches(capture).count(),
            1,
            "{capture}:\n{archived}"
        );
        assert!(!v.read("inbox.md").contains(capture));
    }
    assert!(v.read("wiki/collections/Tasks.md").contains("- [ ] x\n"));
    assert!(v.read("wiki/concepts/Scalar.md").contains("tags: [ai]"));
    assert_eq!(temp_files(&v), Vec::<String>::new());
}

/// Frontmatter nested deeper than the YAML parser's limit (brackets, or indentation) or larger
/// than 256 KB is refused before the parser reads it (which took minutes, its time growing with
/// the square of the depth): every command finishes, and the file's error names it and its
/// line.
#[test]
fn frontmatter_nested_too_deep_or_too_large_is_that_files_error() {
    let v = TestVault::new();
    let depth = 100_000;
    v.write(
        "wiki/concepts/Deep.md",
        format!(
            "---\ntitle: Deep\na: {}{}\n---\n\nBody.\n",
            "[".repeat(depth),
            "]".repeat(depth)
        ),
    );
    let nested: String = (0..200)
        .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
        .collect();
    v.write(
        "wiki/concepts/Nested.md",
        format!("---\ntitle: Nested\n{nested}---\n\nBody.\n"),
    );
    v.write(
        "wiki/concepts/Large.md",
        format!(
            "---\ntitle: Large\nnote: {}\n---\n\nBody.\n",
            "x".repeat(300 * 1024)
        ),
    );
    v.page(
        "wiki/concepts/Fine.md",
        "Fine",
        "[[Deep]], [[Nested]] and [[Large]].",
    );
    let started = std::time::Instant::now();
    let scan = v.run(&["scan", "--json"]).ok().json();
    assert_eq!(scan["errors"], serde_json::json!([]));
    let deep = "frontmatter nests more than 128 levels deep; Sparks does not read it";
    let large = "frontmatter is 301 KB; Sparks reads at most 256 KB of it";
    let fmt = v.run(&["fmt"]).code(1);
    for said in [
        format!("wiki/concepts/Deep.md:3: {deep}"),
        format!("wiki/concepts/Nested.md:131: {deep}"),
        format!("wiki/concepts/Large.md:2: {large}"),
    ] {
        assert!(fmt.stdout.contains(&said), "{said}\n{}", fmt.stdout);
    }
    let lint = v.run(&["lint", "--check", "invalid-frontmatter"]).code(1);
    assert!(
        lint.stdout
            .contains(&format!("wiki/concepts/Deep.md:3  {deep}")),
        "{}",
        lint.stdout
    );
    // The page is still in the graph: the link to it resolves.
    let q = v
        .run(&["query", "--links-to", "Deep", "--json"])
        .ok()
        .json();
    assert_eq!(q["pages"][0]["path"], "wiki/concepts/Fine.md", "{q}");
    // Generous: unbounded, the parser took minutes on the first file alone.
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

/// The permission bits of `path`.
#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// A `sparks.db` made read-only for a while (chmod 444) leaves its `-wal` and `-shm` read-only:
/// SQLite gives the side files it makes the database's mode. Once `sparks.db` is writable
/// again, writes go through as before (the side files, this user's, made writable again, their
/// content kept); a side file another user owns is named, with what to do, instead of the
/// manifest.
#[cfg(unix)]
#[test]
fn read_only_side_files_of_the_manifest_are_repaired_or_named() {
    let v = TestVault::new();
    v.capture(&["one"]);
    v.run(&["scan"]).ok();
    open_to_nobody(&v);
    let db = v.path("sparks.db");
    let sides = [v.path("sparks.db-wal"), v.path("sparks.db-shm")];
    let leave_read_only_sides = || {
        chmod(&db, "444");
        let run = run_unprivileged(&v, &["status"]);
        assert_eq!(run.code, Some(0), "reads answer: {run:?}");
        for side in &sides {
            assert_eq!(mode(side) & 0o222, 0, "{}: made read-only", side.display());
        }
        chmod(&db, "666");
    };
    leave_read_only_sides();
    for args in [
        &["capture", "two"][..],
        &["tasks", "add", "--section", "Home", "--text", "x"],
        &["scan"],
    ] {
        let run = run_unprivileged(&v, args);
        assert_eq!(run.code, Some(0), "{args:?}: {run:?}");
        assert!(!run.stderr.contains("warning"), "{args:?}: {}", run.stderr);
    }
    let inbox = v.read("inbox.md");
    assert_eq!(inbox.matches("two").count(), 1, "{inbox}");
    // Another user's side file cannot be made writable: it is named.
    if !is_root() {
        return;
    }
    leave_read_only_sides();
    let shm = &sides[1];
    assert!(
        std::process::Command::new("chown")
            .arg("root:root")
            .arg(shm)
            .status()
            .unwrap()
            .success()
    );
    chmod(shm, "644");
    let run = run_unprivileged(&v, &["scan"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    let named = format!(
        "its side file {} cannot be written by this user",
        shm.display()
    );
    assert!(run.stderr.contains(&named), "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "hint: make {} writable for this user",
            shm.display()
        )),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("rebuild"), "{}", run.stderr);
}
