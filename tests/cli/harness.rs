//! A small builder for temporary vaults and a runner for the built binary, with a clean,
//! pinned environment: no user config, HOME inside the temp dir, a fixed date, UTC.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The date every test runs on.
pub const TODAY: &str = "2026-05-01";

/// A temporary directory holding a vault (or not yet).
pub struct TestVault {
    pub dir: tempfile::TempDir,
    pub root: PathBuf,
}

/// The result of running `sparks`.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Assert the exit code and return self.
    #[track_caller]
    pub fn code(self, expected: i32) -> Run {
        assert_eq!(
            self.code,
            Some(expected),
            "exit code\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout,
            self.stderr
        );
        self
    }

    /// Assert success.
    #[track_caller]
    pub fn ok(self) -> Run {
        self.code(0)
    }

    /// stdout parsed as JSON.
    #[track_caller]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }
}

impl From<Output> for Run {
    fn from(o: Output) -> Run {
        Run {
            code: o.status.code(),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

/// The `sparks` binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_sparks")
}

/// A command with a clean environment, run in `cwd`, with HOME at `home`.
pub fn command(cwd: &Path, home: &Path) -> Command {
    let mut c = Command::new(bin());
    c.env_clear()
        .current_dir(cwd)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
        .env("TZ", "UTC")
        .env("SPARKS_TODAY", TODAY);
    c
}

/// The most memory `sparks <args>` took in the vault `v`, in KiB (the kernel's peak resident
/// size of the child, read by Python's `resource`), the least of three runs: a loaded machine
/// adds to a run's peak (threads' transient memory overlapping), never takes from it. It must
/// succeed or find problems (exit 0 or 1), its stdout thrown away.
#[cfg(target_os = "linux")]
pub fn peak_kib(v: &TestVault, args: &[&str]) -> u64 {
    // Each child's own peak, from wait4 (RUSAGE_CHILDREN's is the most of all of them).
    let script = "import os, subprocess, sys\n\
                  peaks = []\n\
                  for _ in range(3):\n\
                  \x20   p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)\n\
                  \x20   _, status, usage = os.wait4(p.pid, 0)\n\
                  \x20   p.returncode = os.waitstatus_to_exitcode(status)\n\
                  \x20   assert p.returncode in (0, 1), p.returncode\n\
                  \x20   peaks.append(usage.ru_maxrss)\n\
                  print(min(peaks))";
    let c = command(&v.root, &v.home());
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(bin())
        .args(args)
        .current_dir(&v.root)
        .env_clear()
        .envs(c.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

/// Run `sparks <args>` (split at spaces) in `cwd` with HOME at `home` on a pseudo-terminal
/// (`script` from util-linux), with the clean environment of [`command`], `TERM=xterm` and
/// `env`; what the terminal showed, stdout and stderr together.
#[cfg(target_os = "linux")]
pub fn on_terminal(cwd: &Path, home: &Path, args: &str, env: &[(&str, &str)]) -> String {
    let mut c = command(cwd, home);
    c.envs(env.iter().copied()).env("TERM", "xterm");
    let cmd = format!("{} {args}", bin());
    let o = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .current_dir(cwd)
        .env_clear()
        .envs(c.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("script (util-linux) runs a command on a pseudo-terminal");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

impl TestVault {
    /// An empty temporary directory; the vault will be `<dir>/vault` once created.
    pub fn empty() -> TestVault {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("vault");
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        TestVault { dir, root }
    }

    /// A freshly initialised vault.
    pub fn new() -> TestVault {
        let v = TestVault::empty();
        v.run_in(v.dir.path(), &["init", "vault"]).ok();
        v
    }

    /// The HOME of commands run here.
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// A `sparks` command run at the vault root.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = command(&self.root, &self.home());
        c.args(args);
        c
    }

    /// Start `sparks` at the vault root, its output piped (for [`finish`], or a kill).
    pub fn spawn(&self, args: &[&str]) -> std::process::Child {
        self.cmd(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn sparks")
    }

    /// Run `sparks` at the vault root.
    pub fn run(&self, args: &[&str]) -> Run {
        self.cmd(args).output().expect("run sparks").into()
    }

    /// Run `sparks` in another directory.
    pub fn run_in(&self, cwd: &Path, args: &[&str]) -> Run {
        let mut c = command(cwd, &self.home());
        c.args(args);
        c.output().expect("run sparks").into()
    }

    /// The absolute path of a vault-relative path.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Write a vault-relative file, creating its directories.
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> &TestVault {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
        self
    }

    /// Read a vault-relative file.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    /// Append captures to the inbox, each its own entry.
    pub fn capture(&self, entries: &[&str]) -> &TestVault {
        let mut text = self.read("inbox.md");
        for e in entries {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            if !text.ends_with("---\n") && !text.ends_with("---\n\n") {
                text.push_str("---\n");
            }
            text.push_str(e);
            text.push('\n');
            text.push_str("---\n");
        }
        std::fs::write(self.path("inbox.md"), text).unwrap();
        self
    }

    /// Set every file's mtime an hour back, so that the racy-timestamp rule (which rereads
    /// files modified in the same clock tick as the last scan) does not apply to fixtures.
    pub fn settle(&self) -> &TestVault {
        let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for entry in walkdir::WalkDir::new(&self.root).into_iter().flatten() {
            if entry.file_type().is_file() {
                let f = std::fs::File::options().write(true).open(entry.path());
                if let Ok(f) = f {
                    let _ = f.set_modified(past);
                }
            }
        }
        self
    }

    /// Set a file's modification time to noon (UTC) of `date` (`YYYY-MM-DD`).
    pub fn set_mtime(&self, rel: &str, date: &str) -> &TestVault {
        let d = chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d").unwrap();
        let secs = d.and_hms_opt(12, 0, 0).unwrap().and_utc().timestamp() as u64;
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
        std::fs::File::options()
            .write(true)
            .open(self.path(rel))
            .unwrap()
            .set_modified(t)
            .unwrap();
        self
    }

    /// A page with valid frontmatter.
    pub fn page(&self, rel: &str, title: &str, body: &str) -> &TestVault {
        self.page_citing(rel, title, &format!("raw/inbox/{TODAY}.md"), body)
    }

    /// A page with valid frontmatter whose one source is `source`.
    pub fn page_citing(&self, rel: &str, title: &str, source: &str, body: &str) -> &TestVault {
        self.write(rel, page_text(title, source, body))
    }
}

/// The text of a page [`TestVault::page_citing`] writes: valid frontmatter, created and updated
/// today (so that a command that touches the page leaves its dates as they are), then `body`.
pub fn page_text(title: &str, source: &str, body: &str) -> String {
    format!(
        "---\ntitle: {title}\ntype: concept\nmaturity: seed\nsources: [{source}]\n\
         created: {TODAY}\nupdated: {TODAY}\n---\n\n{body}\n"
    )
}

/// `git` run in `dir` with the vault's clean configuration: its HOME and global config, no
/// system config, nothing else from the environment.
pub fn git_output(v: &TestVault, dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", v.home())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", v.home().join(".gitconfig"))
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .expect("run git")
}

/// [`git_output`], which must succeed; its stdout.
pub fn git(v: &TestVault, dir: &Path, args: &[&str]) -> String {
    let out = git_output(v, dir, args);
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Make the vault a git repository with an identity and commit everything in it as `base`.
pub fn commit_all(v: &TestVault) {
    git(v, &v.root, &["init", "-q"]);
    git(v, &v.root, &["config", "user.name", "Test"]);
    git(v, &v.root, &["config", "user.email", "test@example.com"]);
    git(v, &v.root, &["add", "-A"]);
    git(v, &v.root, &["commit", "-qm", "base"]);
}

/// Run `args`, which must be refused: exit `code`, `says` on stderr, no file changed and
/// nothing left in the journal of unfinished operations.
#[track_caller]
pub fn refused(v: &TestVault, args: &[&str], code: i32, says: &str) {
    let before = tree(v);
    let r = v.run(args).code(code);
    assert!(r.stderr.contains(says), "{args:?}: {}", r.stderr);
    assert!(tree(v) == before, "{args:?} changed the vault");
    assert!(run_records(v).is_empty(), "{args:?}: {:?}", run_records(v));
}

/// Every file under the vault with its bytes, the manifest left out, and of the run-time
/// directory only its records (journals, the open ingest, a commit under way): not its
/// `.gitignore` nor the life locks of processes.
pub fn tree(v: &TestVault) -> std::collections::BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(&v.root)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| {
            let rel = e.path().strip_prefix(&v.root).ok()?.display().to_string();
            let bytes = std::fs::read(e.path()).expect("read a vault file");
            Some((rel, bytes))
        })
        .filter(|(p, _)| !p.starts_with("sparks.db"))
        .filter(|(p, _)| {
            p != ".sparks/.gitignore"
                && !p.starts_with(".sparks/live/")
                && !p.starts_with(".sparks/keys/")
                && p != ".git/sparks-runstate.key"
        })
        .collect()
}

/// The run-time records left in the vault's `.sparks/` (journals, the open ingest, a commit
/// under way), by name.
pub fn run_records(v: &TestVault) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(v.root.join(".sparks")) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".gitignore")
        .collect();
    names.sort();
    names
}

/// Every file of the vault but git's own, with its bytes (the manifest left out).
pub fn files(v: &TestVault) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut t = tree(v);
    t.retain(|p, _| !p.starts_with(".git/"));
    t
}

/// Every file in `raw/inbox/` (the archive files, and whatever a killed command left there), by
/// name, with its text. None when the directory is not there (a clone before any archive: git
/// keeps no empty directory).
pub fn archive_files(v: &TestVault) -> Vec<(String, String)> {
    if !v.path("raw/inbox").exists() {
        return Vec::new();
    }
    let mut out: Vec<(String, String)> = std::fs::read_dir(v.path("raw/inbox"))
        .expect("raw/inbox")
        .map(|e| {
            let p = e.expect("dir entry").path();
            let name = p.file_name().expect("name").to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).expect("archive file"))
        })
        .collect();
    out.sort();
    out
}

/// The whole number in the environment variable `var`, or `default` when it is unset: how
/// the long tests learn their rounds (`make stress` sets them).
pub fn number_from_env(var: &str, default: usize) -> usize {
    match std::env::var(var) {
        Ok(n) => n
            .parse()
            .unwrap_or_else(|_| panic!("{var}={n:?} is not a number")),
        Err(_) => default,
    }
}

/// Wait for `child`, killing it and failing after 60 s.
pub fn finish(mut child: std::process::Child, what: &str) -> Run {
    let started = std::time::Instant::now();
    while child.try_wait().expect("try_wait").is_none() {
        if started.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{what}: still running after 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.wait_with_output().expect("wait").into()
}

/// The vault's manifest, opened directly.
pub fn db(v: &TestVault) -> rusqlite::Connection {
    rusqlite::Connection::open(v.path("sparks.db")).unwrap()
}

/// Rows of a query, each row's columns joined with " | ".
pub fn rows(v: &TestVault, sql: &str) -> Vec<String> {
    let c = db(v);
    let mut stmt = c.prepare(sql).unwrap();
    let n = stmt.column_count();
    stmt.query_map([], |r| {
        Ok((0..n)
            .map(|i| match r.get_ref(i).unwrap() {
                rusqlite::types::ValueRef::Null => "NULL".to_string(),
                rusqlite::types::ValueRef::Integer(x) => x.to_string(),
                rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                other => format!("{other:?}"),
            })
            .collect::<Vec<_>>()
            .join(" | "))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

// Permissions: running as `nobody` so that permission bits apply when the tests run as root.

/// Whether the tests run as root (permission bits then do not stop anything).
#[cfg(unix)]
pub fn is_root() -> bool {
    let out = std::process::Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

/// Let `nobody` work in the vault, for [`run_unprivileged`].
#[cfg(unix)]
pub fn open_to_nobody(v: &TestVault) {
    if is_root() {
        chmod_r(v.dir.path(), "a+rwX");
    }
}

/// `chmod -R MODE path`.
#[cfg(unix)]
pub fn chmod_r(path: &std::path::Path, mode: &str) {
    assert!(
        std::process::Command::new("chmod")
            .arg("-R")
            .arg(mode)
            .arg(path)
            .status()
            .unwrap()
            .success(),
        "chmod -R {mode} {}",
        path.display()
    );
}

/// Run `sparks` so that permission bits apply: as `nobody` when the tests run as root.
#[cfg(unix)]
pub fn run_unprivileged(v: &TestVault, args: &[&str]) -> Run {
    if !is_root() {
        return v.run(args);
    }
    as_nobody(v, args)
}

/// Run `sparks` as `nobody` (util-linux's `setpriv`).
#[cfg(target_os = "linux")]
fn as_nobody(v: &TestVault, args: &[&str]) -> Run {
    let mut c = command(&v.root, &v.home());
    let cmd = c.get_program().to_owned();
    let mut wrapped = std::process::Command::new("setpriv");
    wrapped
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(cmd)
        .args(args)
        .current_dir(&v.root)
        .env_clear()
        .envs(
            c.get_envs()
                .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v.to_owned()))),
        );
    let _ = &mut c;
    wrapped.output().unwrap().into()
}

/// Elsewhere (macOS) root is not given up: these tests need another user than root there.
#[cfg(all(unix, not(target_os = "linux")))]
fn as_nobody(_: &TestVault, _: &[&str]) -> Run {
    panic!("the tests run as root: permission bits apply only to another user (run them as one)")
}

/// `chmod MODE path`.
#[cfg(unix)]
pub fn chmod(path: &std::path::Path, mode: &str) {
    assert!(
        std::process::Command::new("chmod")
            .arg(mode)
            .arg(path)
            .status()
            .unwrap()
            .success()
    );
}

/// `rm sparks.db*`: the manifest, its WAL and shared memory, and its lock file.
pub fn delete_manifest(v: &TestVault) {
    for entry in std::fs::read_dir(&v.root).expect("the vault") {
        let path = entry.expect("an entry").path();
        if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("sparks.db"))
        {
            std::fs::remove_file(&path).expect("remove a manifest file");
        }
    }
}

/// `body` (one line of JSON) as Sparks on this vault's device writes the run-time record
/// `name`: with its seal, under the vault's key (made here, as Sparks makes it, when there is
/// none yet). A test that leaves a record by hand, as a killed Sparks would, writes it so.
pub fn sealed_record(v: &TestVault, name: &str, body: &str) -> String {
    let key_path = match v.root.join(".git").is_dir() {
        true => v.path(".git/sparks-runstate.key"),
        false => v.path(".sparks/keys/runstate.key"),
    };
    if !key_path.exists() {
        std::fs::create_dir_all(key_path.parent().unwrap()).unwrap();
        let key: String = blake3::hash(key_path.to_string_lossy().as_bytes())
            .to_hex()
            .to_string();
        std::fs::write(&key_path, key).unwrap();
    }
    let hex = std::fs::read_to_string(&key_path).unwrap();
    let hex = hex.trim();
    let mut key = [0u8; 32];
    for (i, b) in key.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
    }
    let body = format!("{}\n", body.trim_end_matches('\n'));
    let mut h = blake3::Hasher::new_keyed(&key);
    h.update(name.as_bytes());
    h.update(&[0]);
    h.update(body.as_bytes());
    format!("{body}sparks-seal: {}\n", h.finalize().to_hex())
}
