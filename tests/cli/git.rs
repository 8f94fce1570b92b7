//! Finalize's git commit: scoped to the vault, never the manifest, never the user's other work;
//! its message; and the cases where no commit is made.

use crate::harness::{TestVault, git, git_output};
use crate::snapshot;
use std::path::Path;

fn identity(v: &TestVault, dir: &Path) {
    git(v, dir, &["config", "user.name", "Test"]);
    git(v, dir, &["config", "user.email", "test@example.com"]);
}

/// A vault that is its own repository, with an identity.
fn repo_vault() -> TestVault {
    let v = TestVault::new();
    git(&v, &v.root, &["init", "-q"]);
    identity(&v, &v.root);
    v
}

fn ingest(v: &TestVault, captures: &[&str], finalize: &[&str]) -> serde_json::Value {
    v.capture(captures);
    v.run(&["ingest", "--prepare"]).ok();
    let mut args = vec!["ingest", "--finalize", "--json"];
    args.extend_from_slice(finalize);
    v.run(&args).ok().json()
}

fn lines(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.lines().map(str::to_string).collect();
    v.sort();
    v
}

#[test]
fn a_vault_inside_a_larger_repository_commits_only_its_own_paths() {
    let v = TestVault::new();
    let top = v.dir.path();
    git(&v, top, &["init", "-q"]);
    identity(&v, top);
    v.write("../notes/todo.txt", "original\n");
    v.write("../notes/draft.txt", "draft\n");
    v.capture(&["2026-04-09\nan older capture", "today's capture"]);
    git(
        &v,
        top,
        &["add", "notes/todo.txt", "notes/draft.txt", "vault"],
    );
    git(&v, top, &["commit", "-q", "-m", "base"]);
    let base = git(&v, top, &["rev-parse", "HEAD"]);

    // The user's unrelated work: a modified tracked file, a staged new file, a staged edit
    // with a further unstaged edit on top, and an untracked file.
    v.write("../notes/todo.txt", "original\nedited, not staged\n");
    v.write("../notes/new.txt", "staged, new\n");
    git(&v, top, &["add", "notes/new.txt"]);
    v.write("../notes/draft.txt", "draft, staged\n");
    git(&v, top, &["add", "notes/draft.txt"]);
    v.write("../notes/draft.txt", "draft, staged, then edited\n");
    v.write("../scratch.txt", "untracked\n");
    // A sibling whose name starts with the vault's is not the vault.
    v.write("../vault-old/page.md", "not in the vault\n");
    let outside = |v: &TestVault| -> Vec<String> {
        git(v, top, &["status", "--porcelain", "--untracked-files=all"])
            .lines()
            .filter(|l| !l[3..].starts_with("vault/"))
            .map(str::to_string)
            .collect()
    };
    let before = outside(&v);
    assert_eq!(before.len(), 5, "{before:?}");
    let staged_before = git(&v, top, &["diff", "--cached"]);

    let f = ingest(&v, &[], &[]);
    let sha = f["commit"].as_str().expect("a commit was made").to_string();
    assert_eq!(git(&v, top, &["rev-parse", "HEAD"]).trim(), sha);
    assert_eq!(
        git(&v, top, &["rev-parse", "HEAD^"]),
        base,
        "one commit on top of the user's"
    );

    let names = git(&v, top, &["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(
        lines(&names),
        [
            "vault/inbox.md",
            "vault/raw/inbox/2026-04-09.md",
            "vault/raw/inbox/2026-05-01.md"
        ],
        "the commit holds the vault's changes only"
    );
    let tree = git(&v, top, &["ls-tree", "-r", "--name-only", "HEAD"]);
    assert!(!tree.contains("sparks.db"), "{tree}");
    assert!(!tree.contains("notes/new.txt"), "{tree}");
    assert_eq!(git(&v, top, &["show", "HEAD:notes/todo.txt"]), "original\n");
    assert_eq!(git(&v, top, &["show", "HEAD:notes/draft.txt"]), "draft\n");

    assert_eq!(
        outside(&v),
        before,
        "the user's work is as it was, staged or not"
    );
    assert_eq!(git(&v, top, &["diff", "--cached"]), staged_before);
    assert_eq!(v.read("../notes/draft.txt"), "draft, staged, then edited\n");
    assert_eq!(
        git(&v, top, &["status", "--porcelain", "--", "vault"]),
        "",
        "the vault is committed"
    );
    let fsck = git_output(&v, top, &["fsck", "--strict", "--no-progress"]);
    assert!(
        fsck.status.success(),
        "{}",
        String::from_utf8_lossy(&fsck.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&fsck.stdout), "");
}

#[test]
fn the_manifest_and_the_run_time_records_are_never_committed_even_without_the_ignore_rule() {
    let v = repo_vault();
    std::fs::remove_file(v.path(".gitignore")).expect("remove .gitignore");
    ingest(&v, &["a capture"], &[]);
    let tree = git(&v, &v.root, &["ls-tree", "-r", "--name-only", "HEAD"]);
    assert!(tree.contains("raw/inbox/2026-05-01.md"), "{tree}");
    assert!(!tree.contains("sparks.db"), "{tree}");
    assert!(!tree.contains(".sparks"), "{tree}");
    let status = git(&v, &v.root, &["status", "--porcelain"]);
    assert!(
        status.lines().all(|l| l.starts_with("?? sparks.db")),
        "{status}"
    );
}

#[test]
fn the_default_message_counts_archived_entries() {
    let v = repo_vault();
    let f = ingest(&v, &["just one"], &[]);
    let head = git(&v, &v.root, &["log", "-1", "--format=%H%n%B"]);
    let (sha, message) = head.split_once('\n').expect("sha and message");
    assert_eq!(sha, f["commit"].as_str().expect("sha"));
    let (subject, trailer) = message.split_once("\n\n").expect("subject and trailer");
    assert_eq!(subject, "ingest: 1 entry");
    assert!(trailer.starts_with("Sparks-Ingest: 1 "), "{message}");

    ingest(&v, &["one", "two", "three"], &[]);
    assert_eq!(
        git(&v, &v.root, &["log", "-1", "--format=%s"]),
        "ingest: 3 entries\n"
    );

    // Kept entries are not counted.
    ingest(&v, &["four", "five", "six"], &["--keep", "1"]);
    assert_eq!(
        git(&v, &v.root, &["log", "-1", "--format=%s"]),
        "ingest: 2 entries\n"
    );
    assert_eq!(git(&v, &v.root, &["rev-list", "--count", "HEAD"]), "3\n");
}

#[test]
fn a_message_overrides_the_default() {
    let v = repo_vault();
    v.capture(&["reading notes"]);
    v.run(&["ingest", "--prepare"]).ok();
    let r = v
        .run(&[
            "ingest",
            "--finalize",
            "-m",
            "ingest: reading notes from the weekend",
        ])
        .ok();
    let head = git(&v, &v.root, &["log", "-1", "--format=%h%n%B"]);
    let mut it = head.lines();
    let short = it.next().expect("sha");
    assert!(
        r.stdout.contains(&format!("Committed {short}.")),
        "{}",
        r.stdout
    );
    assert_eq!(it.next(), Some("ingest: reading notes from the weekend"));
    assert!(
        head.contains("\nSparks-Ingest: 1 "),
        "the trailer is kept: {head}"
    );
}

#[test]
fn outside_a_repository_finalize_succeeds_and_says_why_there_is_no_commit() {
    let v = TestVault::new();
    assert!(
        !git_output(&v, &v.root, &["rev-parse", "--git-dir"])
            .status
            .success(),
        "not in a repository"
    );
    v.capture(&["a capture"]);
    v.run(&["ingest", "--prepare"]).ok();
    let r = v.run(&["ingest", "--finalize"]).ok();
    assert!(
        r.stdout
            .contains("Commit skipped: the vault is not inside a git work tree"),
        "{}",
        r.stdout
    );
    assert!(v.path("raw/inbox/2026-05-01.md").exists());
    assert!(!v.path(".git").exists(), "finalize creates no repository");
}

#[test]
fn without_an_identity_finalize_fails_keeps_the_ingest_open_and_resumes() {
    let v = TestVault::new();
    git(&v, &v.root, &["init", "-q"]);
    let name = git_output(&v, &v.root, &["config", "user.name"]);
    assert!(
        !name.status.success(),
        "the test needs no identity anywhere"
    );

    v.capture(&["2026-04-01\nfirst", "second"]);
    v.run(&["ingest", "--prepare"]).ok();
    let r = v.run(&["ingest", "--finalize"]).code(1);
    snapshot!(v, r.stderr, @r#"
    error: finalize of ingest 1 stopped after plan, archive, inbox, scan, regen (nothing is lost; run it again to resume)
      caused by: cannot commit in [VAULT]/: no author identity: no name in GIT_AUTHOR_NAME, author.name or user.name
    hint: run `git config --global user.name "Your Name"` and `git config --global user.email you@example.com`, or set GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL, GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL (or EMAIL) in the environment
    "#);
    let status = v.run(&["ingest", "--status"]).ok().json();
    assert_eq!(status["ingest_id"], 1, "the ingest stays open");
    assert_eq!(status["step"], "regen");
    assert_eq!(git(&v, &v.root, &["rev-list", "--all"]), "", "no commit");

    identity(&v, &v.root);
    let f = v.run(&["ingest", "--finalize", "--json"]).ok().json();
    assert_eq!(f["resumed"], true);
    assert_eq!(f["archived"], 2);
    assert_eq!(
        git(&v, &v.root, &["log", "--format=%s"]),
        "ingest: 2 entries\n"
    );
    assert_eq!(
        git(&v, &v.root, &["log", "-1", "--format=%an <%ae>"]),
        "Test <test@example.com>\n"
    );
    assert!(v.run(&["ingest", "--status"]).ok().json()["ingest_id"].is_null());
    let archive = v.read("raw/inbox/2026-04-01.md");
    assert_eq!(archive.matches("first").count(), 1, "{archive}");
}

#[test]
fn auto_commit_false_makes_no_commit_and_says_so() {
    let v = repo_vault();
    let config = v.read("sparks.toml");
    assert!(config.contains("auto_commit = true"), "{config}");
    v.write(
        "sparks.toml",
        config.replace("auto_commit = true", "auto_commit = false"),
    );
    v.capture(&["a capture"]);
    v.run(&["ingest", "--prepare"]).ok();
    let r = v.run(&["ingest", "--finalize"]).ok();
    assert!(
        r.stdout
            .contains("Commit skipped: auto_commit is false in sparks.toml."),
        "{}",
        r.stdout
    );
    assert_eq!(git(&v, &v.root, &["rev-list", "--all"]), "");
    v.capture(&["another"]);
    v.run(&["ingest", "--prepare"]).ok();
    let f = v.run(&["ingest", "--finalize", "--json"]).ok().json();
    assert!(f["commit"].is_null(), "{f}");
    assert_eq!(f["commit_skipped"], "auto_commit is false in sparks.toml");
}

#[test]
fn a_file_deleted_in_the_vault_is_committed_as_a_deletion() {
    let v = repo_vault();
    ingest(&v, &["first"], &[]);
    std::fs::remove_file(v.path("wiki/log.md")).expect("remove");
    ingest(&v, &["second"], &[]);
    let changes = git(&v, &v.root, &["show", "--name-status", "--format=", "HEAD"]);
    assert_eq!(
        lines(&changes),
        ["D\twiki/log.md", "M\traw/inbox/2026-05-01.md"],
        "{changes}"
    );
    assert_eq!(git(&v, &v.root, &["status", "--porcelain"]), "");
}

/// Run `sparks` at the vault root with extra environment variables.
fn run_env(v: &TestVault, args: &[&str], env: &[(&str, &str)]) -> crate::harness::Run {
    let mut c = v.cmd(args);
    c.envs(env.iter().copied());
    c.output().expect("run sparks").into()
}

/// Author and committer of the last commit, one line each.
fn who(v: &TestVault) -> String {
    git(v, &v.root, &["log", "-1", "--format=%an <%ae>%n%cn <%ce>"])
}

/// The author's and committer's dates of the last commit, as git stores them.
fn when(v: &TestVault) -> Vec<String> {
    lines_of(&git(
        v,
        &v.root,
        &["log", "-1", "--date=raw", "--format=%ad%n%cd"],
    ))
}

fn lines_of(s: &str) -> Vec<String> {
    s.lines().map(str::to_string).collect()
}

/// A repository with no identity anywhere (no gitconfig, no user.name), as in a container.
fn bare_identity_vault() -> TestVault {
    let v = TestVault::new();
    git(&v, &v.root, &["init", "-q"]);
    assert!(
        !git_output(&v, &v.root, &["config", "user.name"])
            .status
            .success(),
        "the test needs no identity anywhere"
    );
    assert!(!v.home().join(".gitconfig").exists());
    v.capture(&["a capture"]);
    v.run(&["ingest", "--prepare"]).ok();
    v
}

#[test]
fn an_identity_in_the_environment_commits_as_git_would() {
    let v = bare_identity_vault();
    let env = [
        ("GIT_AUTHOR_NAME", "Ada Author"),
        ("GIT_AUTHOR_EMAIL", "ada@example.com"),
        ("GIT_AUTHOR_DATE", "@1112911993 +0200"),
        ("GIT_COMMITTER_NAME", "Cy Committer"),
        ("GIT_COMMITTER_EMAIL", "cy@example.com"),
        ("GIT_COMMITTER_DATE", "Thu, 07 Apr 2005 22:13:13 +0200"),
    ];
    let f = run_env(&v, &["ingest", "--finalize", "--json"], &env)
        .ok()
        .json();
    assert!(f["commit"].is_string(), "{f}");
    assert_eq!(
        who(&v),
        "Ada Author <ada@example.com>\nCy Committer <cy@example.com>\n"
    );
    assert_eq!(when(&v), ["1112911993 +0200", "1112904793 +0200"]);
}

#[test]
fn the_environment_comes_before_the_config_and_email_comes_last() {
    let v = bare_identity_vault();
    identity(&v, &v.root);
    // The author from the environment, the committer from the config (as git does).
    let env = [
        ("GIT_AUTHOR_NAME", "Env Author"),
        ("GIT_AUTHOR_EMAIL", "env@example.com"),
        ("GIT_AUTHOR_DATE", "2005-04-07T22:13:13"),
        ("EMAIL", "ignored@example.com"),
    ];
    run_env(&v, &["ingest", "--finalize"], &env).ok();
    assert_eq!(
        who(&v),
        "Env Author <env@example.com>\nTest <test@example.com>\n"
    );
    assert_eq!(
        when(&v)[0],
        "1112911993 +0000",
        "a date without an offset is local time (UTC in the tests)"
    );
    // Only a name configured: EMAIL supplies the address.
    git(&v, &v.root, &["config", "--unset", "user.email"]);
    v.capture(&["another capture"]);
    v.run(&["ingest", "--prepare"]).ok();
    run_env(
        &v,
        &["ingest", "--finalize"],
        &[("EMAIL", "mail@example.com")],
    )
    .ok();
    assert_eq!(
        who(&v),
        "Test <mail@example.com>\nTest <mail@example.com>\n"
    );
}

#[test]
fn a_missing_identity_or_a_bad_date_names_what_to_set() {
    let v = bare_identity_vault();
    // A name but no address anywhere: the error lists where git looks, the hint what to set.
    let r = run_env(
        &v,
        &["ingest", "--finalize"],
        &[("GIT_AUTHOR_NAME", "A"), ("GIT_COMMITTER_NAME", "C")],
    )
    .code(1);
    snapshot!(v, r.stderr, @r#"
        error: finalize of ingest 1 stopped after plan, archive, inbox, scan, regen (nothing is lost; run it again to resume)
          caused by: cannot commit in [VAULT]/: no author identity: no email in GIT_AUTHOR_EMAIL, author.email, user.email or EMAIL
        hint: run `git config --global user.name "Your Name"` and `git config --global user.email you@example.com`, or set GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL, GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL (or EMAIL) in the environment
        "#);
    let ok_env = [
        ("GIT_AUTHOR_NAME", "A"),
        ("GIT_COMMITTER_NAME", "A"),
        ("EMAIL", "a@example.com"),
    ];
    let mut bad_date = ok_env.to_vec();
    bad_date.push(("GIT_COMMITTER_DATE", "next tuesday"));
    let r = run_env(&v, &["ingest", "--finalize"], &bad_date).code(1);
    snapshot!(v, r.stderr, @r#"
        error: finalize of ingest 1 stopped after archive, inbox, scan, regen (nothing is lost; run it again to resume)
          caused by: cannot commit in [VAULT]/: GIT_COMMITTER_DATE="next tuesday" is not a date git accepts
        hint: give RFC 2822 (`Thu, 07 Apr 2005 22:13:13 +0200`), ISO 8601 (`2005-04-07T22:13:13`, with an optional offset) or `@<unix seconds> <+hhmm>`
        "#);
    assert_eq!(git(&v, &v.root, &["rev-list", "--all"]), "", "no commit");
    assert_eq!(v.run(&["ingest", "--status"]).ok().json()["ingest_id"], 1);
    // Fixed, finalize resumes and commits.
    run_env(&v, &["ingest", "--finalize"], &ok_env).ok();
    assert_eq!(who(&v), "A <a@example.com>\nA <a@example.com>\n");
}
