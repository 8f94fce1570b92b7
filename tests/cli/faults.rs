//! Crashes: finalize, prepare and abort killed after each of their steps and run again. The
//! races (many prepares at once, a human appending during finalize) are in `races.rs`.

use crate::harness::{Run, TestVault, archive_files, delete_manifest, git};
use serde_json::Value;

/// The prepared batch of every crash test: several capture dates, one of them twice.
const BATCH: &[(&str, &str)] = &[
    ("2026-04-10", "alpha: first capture"),
    ("2026-04-10", "bravo: same day as alpha"),
    ("2026-04-12", "charlie: https://example.com/charlie"),
    ("2026-05-01", "delta: undated, so captured today"),
    ("2026-04-15", "- [ ] echo: a task"),
];

/// Captured after prepare: it must stay in the inbox.
const LATE: &str = "foxtrot: captured while the agent worked";

/// A vault that is its own git repository, with an identity.
fn repo_vault() -> TestVault {
    let v = TestVault::new();
    git(&v, &v.root, &["init", "-q"]);
    git(&v, &v.root, &["config", "user.name", "Test"]);
    git(&v, &v.root, &["config", "user.email", "test@example.com"]);
    v
}

fn run_with_fault(v: &TestVault, args: &[&str], step: &str) -> Run {
    v.cmd(args)
        .env("SPARKS_FAULT_AT", step)
        .output()
        .expect("run sparks")
        .into()
}

fn status(v: &TestVault) -> Value {
    v.run(&["ingest", "--status"]).ok().json()
}

/// What happens to the vault between a crash and the rerun.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disturb {
    /// Nothing.
    Nothing,
    /// `sparks scan --rebuild`.
    Rebuild,
    /// `rm sparks.db*`.
    DeleteManifest,
}

impl Disturb {
    /// Do it to `v`.
    pub fn apply(self, v: &TestVault) {
        match self {
            Disturb::Nothing => {}
            Disturb::Rebuild => {
                v.run(&["scan", "--rebuild"]).ok();
            }
            Disturb::DeleteManifest => delete_manifest(v),
        }
    }
}

/// The finalize steps, each with the step recorded as done when a crash follows it.
const STEPS: &[(&str, Option<&str>)] = &[
    ("plan", Some("plan")),
    ("archive", Some("plan")),
    ("inbox", Some("archive")),
    ("scan", Some("inbox")),
    ("regen", Some("scan")),
    ("commit", Some("regen")),
];

/// Every entry of the prepared `batch` (ingest `id`) is archived exactly once, in the file of
/// its capture date under its marker, and the late capture is not: the ingest's token, as the
/// markers show it.
fn archived_once(v: &TestVault, batch: &Value, id: i64, step: &str) -> String {
    let files = archive_files(v);
    let all: String = files.iter().map(|(_, t)| t.as_str()).collect();
    let marker_lines: Vec<&str> = all
        .lines()
        .filter(|l| l.starts_with("<!-- sparks: "))
        .collect();
    assert_eq!(
        marker_lines.len(),
        BATCH.len(),
        "after a crash at {step}: {marker_lines:?}"
    );
    // Markers read `<!-- sparks: ingest ID TOKEN entry N blake3 HASH -->`; one token per ingest.
    let token = marker_lines[0]
        .strip_prefix(&format!("<!-- sparks: ingest {id} "))
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("marker of ingest {id}: {}", marker_lines[0]))
        .to_string();
    for (i, (date, content)) in BATCH.iter().enumerate() {
        let entry = &batch["entries"][i];
        assert_eq!(entry["content"], *content);
        let marker = format!(
            "<!-- sparks: ingest {id} {token} entry {} blake3 {} -->",
            i + 1,
            entry["hash"].as_str().expect("hash")
        );
        assert_eq!(
            marker_lines.iter().filter(|l| **l == marker).count(),
            1,
            "{marker} in {marker_lines:?}"
        );
        assert_eq!(
            all.matches(content).count(),
            1,
            "{content} archived once after a crash at {step}"
        );
        let (_, text) = files
            .iter()
            .find(|(name, _)| *name == format!("{date}.md"))
            .unwrap_or_else(|| panic!("no archive for {date}: {files:?}"));
        assert!(
            text.contains(&format!("{marker}\n{content}\n")),
            "{date}.md:\n{text}"
        );
    }
    assert!(!all.contains(LATE));
    token
}

/// Prepare [`BATCH`], capture [`LATE`], crash finalize after `step`, `disturb` the vault,
/// finalize again, and check that nothing was lost or archived twice.
fn crash_after(step: &str, step_recorded: Option<&str>, disturb: Disturb) {
    let v = repo_vault();
    let captures: Vec<String> = BATCH.iter().map(|(d, c)| format!("{d}\n{c}")).collect();
    let refs: Vec<&str> = captures.iter().map(String::as_str).collect();
    v.capture(&refs);
    let batch = v.run(&["ingest", "--prepare"]).ok().json();
    let id = batch["ingest_id"].as_i64().expect("an ingest was opened");
    assert_eq!(batch["total"], BATCH.len() as u64);
    v.capture(&[LATE]);

    let crashed = run_with_fault(&v, &["ingest", "--finalize"], &format!("finalize.{step}"));
    assert_eq!(
        crashed.code, None,
        "finalize was killed after {step}: {crashed:?}"
    );
    assert!(
        crashed
            .stderr
            .contains(&format!("fault injected after step finalize.{step}"))
    );
    disturb.apply(&v);
    let open = status(&v);
    assert_eq!(open["ingest_id"], id, "still open after a crash at {step}");
    assert_eq!(
        open["step"].as_str(),
        step_recorded,
        "the crashed step is not recorded ({disturb:?}): {open}"
    );

    let r = v.run(&["ingest", "--finalize", "--json"]).ok();
    let f = r.json();
    assert_eq!(f["ingest_id"], id);
    assert_eq!(f["resumed"], true, "{f}");
    assert!(
        crate::harness::run_records(&v).is_empty(),
        "no record is left once the ingest is complete: {:?}",
        crate::harness::run_records(&v)
    );
    assert_eq!(f["archived"], BATCH.len() as u64, "{f}");
    assert_eq!(f["remaining"], 1, "{f}");
    assert!(f["commit"].is_string(), "{f}");

    let token = archived_once(&v, &batch, id, step);

    // The inbox holds exactly the capture made after prepare.
    let inbox = v.read("inbox.md");
    for (_, content) in BATCH {
        assert!(
            !inbox.contains(content),
            "{content} left in the inbox after a crash at {step}"
        );
    }
    assert_eq!(inbox.matches(LATE).count(), 1, "{inbox}");

    // The ingest is complete: nothing is open, and the next prepare takes the late capture.
    assert!(status(&v)["ingest_id"].is_null());
    let next = v.run(&["ingest", "--prepare"]).ok().json();
    assert_eq!(next["ingest_id"], id + 1);
    assert_eq!(next["entries"][0]["content"], LATE);
    assert_eq!(next["total"], 1);

    // Exactly one commit carries the ingest's trailer, and it left nothing of the vault out.
    let log = git(&v, &v.root, &["log", "--format=%B%x00"]);
    let trailer = format!("Sparks-Ingest: {id} {token}");
    let carrying = log
        .split('\0')
        .filter(|m| m.lines().any(|l| l.trim() == trailer))
        .count();
    assert_eq!(carrying, 1, "commits after a crash at {step}:\n{log}");
    assert_eq!(
        git(&v, &v.root, &["rev-list", "--count", "HEAD"]).trim(),
        "1"
    );
    assert_eq!(
        git(&v, &v.root, &["status", "--porcelain"]),
        "",
        "everything is committed"
    );
    let tree = git(&v, &v.root, &["ls-tree", "-r", "--name-only", "HEAD"]);
    assert!(!tree.contains("sparks.db"), "{tree}");
}

#[test]
fn crash_after_plan_then_finalize_again() {
    crash_after("plan", Some("plan"), Disturb::Nothing);
}

#[test]
fn crash_after_archive_then_finalize_again() {
    crash_after("archive", Some("plan"), Disturb::Nothing);
}

#[test]
fn crash_after_inbox_then_finalize_again() {
    crash_after("inbox", Some("archive"), Disturb::Nothing);
}

#[test]
fn crash_after_scan_then_finalize_again() {
    crash_after("scan", Some("inbox"), Disturb::Nothing);
}

#[test]
fn crash_after_regen_then_finalize_again() {
    crash_after("regen", Some("scan"), Disturb::Nothing);
}

#[test]
fn crash_after_commit_then_finalize_again() {
    crash_after("commit", Some("regen"), Disturb::Nothing);
}

/// The record of the open ingest (`.sparks/`) outlives the manifest: after `scan --rebuild`
/// at each finalize step, the rerun completes it as if nothing had happened.
#[test]
fn a_finalize_crashed_at_each_step_then_rebuilt_completes_once() {
    for (step, recorded) in STEPS {
        crash_after(step, *recorded, Disturb::Rebuild);
    }
}

/// The same with the manifest deleted: each capture ends archived exactly once or still in the
/// inbox.
#[test]
fn a_finalize_crashed_at_each_step_then_its_manifest_deleted_completes_once() {
    for (step, recorded) in STEPS {
        crash_after(step, *recorded, Disturb::DeleteManifest);
    }
}

#[test]
fn crash_after_prepare_opens_a_resumable_ingest() {
    let v = TestVault::new();
    v.capture(&["one", "two"]);
    let crashed = run_with_fault(&v, &["ingest", "--prepare"], "prepare.open");
    assert_eq!(crashed.code, None);
    let r = v.run(&["ingest", "--prepare"]).code(3);
    let batch = r.json();
    assert_eq!(batch["ingest_id"], 1);
    assert_eq!(batch["total"], 2);
    assert_eq!(batch["already_in_progress"], true);
    let f = v.run(&["ingest", "--finalize", "--json"]).ok().json();
    assert_eq!(f["archived"], 2);
}

#[test]
fn crash_after_abort_leaves_it_aborted() {
    let v = TestVault::new();
    v.capture(&["one", "two"]);
    let before = std::fs::read(v.path("inbox.md")).expect("inbox");
    v.run(&["ingest", "--prepare"]).ok();
    let crashed = run_with_fault(&v, &["ingest", "--abort"], "abort.close");
    assert_eq!(crashed.code, None);
    assert!(status(&v)["ingest_id"].is_null());
    assert_eq!(std::fs::read(v.path("inbox.md")).expect("inbox"), before);
    assert_eq!(v.run(&["ingest", "--prepare"]).ok().json()["ingest_id"], 2);
}

/// A capture identical to one of the batch, made after prepare, is a new capture: finalize
/// must leave it in the inbox even when it resumes after the inbox step.
#[test]
fn a_resumed_finalize_keeps_an_identical_capture_made_after_prepare() {
    let v = TestVault::new();
    v.capture(&["buy milk", "call the plumber"]);
    v.run(&["ingest", "--prepare"]).ok();
    v.capture(&["buy milk"]);
    let crashed = run_with_fault(&v, &["ingest", "--finalize"], "finalize.inbox");
    assert_eq!(crashed.code, None);
    assert_eq!(
        v.read("inbox.md").matches("\nbuy milk\n").count(),
        1,
        "the late capture is there"
    );
    v.run(&["ingest", "--finalize"]).ok();
    let inbox = v.read("inbox.md");
    assert_eq!(
        inbox.matches("\nbuy milk\n").count(),
        1,
        "the late capture was lost:\n{inbox}"
    );
}

/// `rm -rf .sparks sparks.db*`: every record of the open ingest gone with the manifest.
fn delete_every_record(v: &TestVault) {
    delete_manifest(v);
    let run = v.path(".sparks");
    if run.exists() {
        std::fs::remove_dir_all(&run).expect("remove .sparks");
    }
}

/// What an agent does after a finalize that was killed: run it again; told that no ingest is
/// open, prepare (exit 3 hands back the open batch) and finalize that.
fn finish_as_an_agent(v: &TestVault) {
    let again = v.run(&["ingest", "--finalize", "--json"]);
    if again.code == Some(0) {
        return;
    }
    assert!(
        again.stderr.contains("no ingest is open"),
        "{}",
        again.stderr
    );
    let prepared = v.run(&["ingest", "--prepare"]);
    assert!(matches!(prepared.code, Some(0 | 3)), "{prepared:?}");
    if !prepared.json()["ingest_id"].is_null() {
        v.run(&["ingest", "--finalize", "--json"]).ok();
    }
}

/// How many archive blocks hold exactly `content`: a block is a `---` line, its marker, then
/// the capture up to the next `---` line.
fn archived(v: &TestVault, content: &str) -> usize {
    let mut n = 0;
    for (_, text) in archive_files(v) {
        let mut block: Option<Vec<&str>> = None;
        for line in text.lines().chain(["---"]) {
            if line == "---" {
                if let Some(b) = block.take() {
                    n += usize::from(b.get(1..).is_some_and(|c| c.join("\n") == content));
                }
                block = Some(Vec::new());
            } else if let Some(b) = &mut block {
                b.push(line);
            }
        }
    }
    n
}

/// With the manifest and `.sparks/` both gone after a crash, the archive's markers (batch
/// token and entry numbers) tell which inbox entries an interrupted finalize archived already:
/// each capture ends archived exactly once or still in the inbox, never both, never neither.
#[test]
fn a_finalize_crashed_at_each_step_with_every_record_lost_archives_each_capture_once() {
    for (step, _) in STEPS {
        let v = repo_vault();
        let captures: Vec<String> = BATCH.iter().map(|(d, c)| format!("{d}\n{c}")).collect();
        let refs: Vec<&str> = captures.iter().map(String::as_str).collect();
        v.capture(&refs);
        v.run(&["ingest", "--prepare"]).ok();
        v.capture(&[LATE]);
        let crashed = run_with_fault(&v, &["ingest", "--finalize"], &format!("finalize.{step}"));
        assert_eq!(crashed.code, None, "{step}");
        delete_every_record(&v);
        finish_as_an_agent(&v);
        let inbox = v.read("inbox.md");
        for content in BATCH.iter().map(|(_, c)| *c).chain([LATE]) {
            let (kept, filed) = (inbox.matches(content).count(), archived(&v, content));
            assert_eq!(
                kept + filed,
                1,
                "after a crash at {step}, {content:?} is in the inbox {kept} times and archived \
                 {filed} times\ninbox:\n{inbox}"
            );
        }
        assert!(crate::harness::run_records(&v).is_empty(), "{step}");
    }
}

/// An interrupted batch is found by position as well as by hash and date: the same text
/// captured again later (below the batch in the inbox) is a new entry, never taken for the
/// archived one.
#[test]
fn a_capture_repeated_after_an_interrupted_finalize_is_a_new_entry() {
    let v = repo_vault();
    v.capture(&["2026-04-10\nbuy milk", "2026-04-10\ncall the plumber"]);
    v.run(&["ingest", "--prepare"]).ok();
    let crashed = run_with_fault(&v, &["ingest", "--finalize"], "finalize.archive");
    assert_eq!(crashed.code, None);
    v.capture(&["2026-04-10\nbuy milk"]);
    delete_every_record(&v);
    let reopened = v.run(&["ingest", "--prepare"]).code(3);
    let batch = reopened.json();
    assert_eq!(batch["total"], 2, "{batch}");
    assert!(
        batch["warnings"][0]
            .as_str()
            .is_some_and(|w| w.contains("was interrupted after archiving 2")),
        "{batch}"
    );
    let f = v.run(&["ingest", "--finalize", "--json"]).ok().json();
    assert_eq!(f["resumed"], true, "{f}");
    assert_eq!(archived(&v, "buy milk"), 1);
    assert_eq!(archived(&v, "call the plumber"), 1);
    let inbox = v.read("inbox.md");
    assert_eq!(inbox.matches("buy milk").count(), 1, "{inbox}");
    assert!(!inbox.contains("call the plumber"), "{inbox}");
}

/// After a completed ingest and every record lost, the same text captured again on a later day
/// is a new entry: the archive's block of the first one never swallows it.
#[test]
fn a_capture_repeated_on_a_later_day_is_never_taken_for_an_archived_one() {
    let v = TestVault::new();
    v.capture(&["2026-04-10\nbuy milk"]);
    v.run(&["ingest", "--prepare"]).ok();
    v.run(&["ingest", "--finalize"]).ok();
    delete_every_record(&v);
    v.capture(&["2026-04-20\nbuy milk"]);
    let batch = v.run(&["ingest", "--prepare"]).ok().json();
    assert_eq!(batch["already_in_progress"], false, "{batch}");
    assert_eq!(batch["entries"][0]["capture_date"], "2026-04-20");
    v.run(&["ingest", "--finalize"]).ok();
    assert_eq!(archived(&v, "buy milk"), 2);
    assert!(!v.read("inbox.md").contains("buy milk"));
}
