//! The guard of [`run`]: while an operation is unfinished, a request that may write runs only
//! when it completes that operation; a request that only reads always runs. One ingest is open
//! at a time: a second prepare answers with the open batch (exit 3), not a new one.

use super::*;
use crate::session::Place;

/// A request that says whether it writes and whether it completes the unfinished operation,
/// and reports that it ran.
struct Probe {
    writes: bool,
    resumes: bool,
}

#[derive(Serialize)]
struct Ran;

impl Report for Ran {}

impl Request for Probe {
    type Report = Ran;

    fn writes(&self) -> bool {
        self.writes
    }

    fn resumes(&self, _: &Journaled) -> bool {
        self.resumes
    }

    fn run(self, _: &Session) -> Result<Ran, Failure> {
        Ok(Ran)
    }
}

/// A new vault in a temporary directory, and the place that opens sessions on it.
fn vault() -> (tempfile::TempDir, Place) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    crate::init::init(&crate::init::InitRequest {
        root: dir.path().to_path_buf(),
        agent: None,
        force: false,
        today: "2026-04-01".into(),
        now_ns: 0,
    })
    .expect("a vault");
    let place = Place {
        vault: Some(dir.path().to_path_buf()),
        ..Place::default()
    };
    (dir, place)
}

/// Run `request` in a session of its own at `place`, as both front ends do.
fn run_at<R: Request>(request: R, place: &Place) -> Result<R::Report, Failure> {
    run(request, place.open().expect("a session"))
}

fn mv_a_b() -> crate::operation::Operation {
    crate::operation::Operation::Mv {
        page: "A".into(),
        new: "B".into(),
        no_alias: false,
    }
}

/// `mv A B`, interrupted: its record is in the journal.
fn interrupt(place: &Place) {
    RunDir::of(&place.vault().expect("the vault").root)
        .journal(crate::runstate::Entry {
            operation: &mv_a_b(),
            request: "{}",
            pages: &[],
            plan: "{}",
            started_at: "2026-04-01T10:00:00+00:00",
        })
        .expect("journaled");
}

fn probe(writes: bool, resumes: bool) -> Probe {
    Probe { writes, resumes }
}

#[test]
fn with_nothing_unfinished_every_request_runs() {
    let (_dir, s) = vault();
    assert!(run_at(probe(true, false), &s).is_ok());
    assert!(run_at(probe(false, false), &s).is_ok());
}

#[test]
fn a_write_is_refused_while_an_operation_is_unfinished() {
    let (_dir, s) = vault();
    interrupt(&s);
    let Err(f) = run_at(probe(true, false), &s) else {
        panic!("a write ran while mv was unfinished");
    };
    assert_eq!(
        f.message,
        "the move of \"A\" to \"B\" (started 2026-04-01T10:00:00+00:00) was interrupted; it must be \
         completed before anything else writes to the vault"
    );
    assert!(!f.usage);
    assert_eq!(f.hint, Some(crate::runstate::finish_or_give_up(&mv_a_b())));
    // Worded, it says how to finish, and how to give up what cannot be finished.
    let words = f.hint_words(crate::cli::hint::word).expect("a hint");
    assert_eq!(
        words,
        "run `sparks mv A B` again: it completes what it started, writing nothing twice. If it \
         cannot (its error says why), give it up: remove .sparks/journal.json, and put back the \
         files it changed (`git checkout -- PATH` if they were committed)"
    );
}

#[test]
fn a_read_and_the_rerun_that_completes_it_run_while_an_operation_is_unfinished() {
    let (_dir, s) = vault();
    interrupt(&s);
    assert!(run_at(probe(false, false), &s).is_ok(), "a read");
    assert!(run_at(probe(true, true), &s).is_ok(), "the rerun");
    // Real requests alike: status reads, capture writes.
    assert!(run_at(Status, &s).is_ok());
    let capture = Capture::new("a thought".into(), None).expect("a capture");
    assert!(run_at(capture, &s).is_err());
}

#[test]
fn a_second_prepare_while_an_ingest_is_open_returns_the_open_batch() {
    let (_dir, s) = vault();
    for text in ["one", "two"] {
        let capture = Capture::new(text.into(), None).expect("a capture");
        run_at(capture, &s).expect("captured");
    }
    let first = run_at(Prepare { limit: Some(1) }, &s).expect("prepared");
    assert_eq!(first.ending(), Ending::Done);
    let second = run_at(Prepare { limit: None }, &s).expect("the open batch");
    assert_eq!(second.ending(), Ending::IngestOpen);
    let json = |b: &PreparedBatch| serde_json::to_value(b).expect("json");
    let (first, second) = (json(&first), json(&second));
    assert_eq!(second["already_in_progress"], true);
    assert_eq!(
        (&first["ingest_id"], &first["entries"]),
        (&second["ingest_id"], &second["entries"]),
        "the open batch, not a new one"
    );
    // Closed, the next prepare opens a new one.
    run_at(Abort, &s).expect("aborted");
    let third = run_at(Prepare { limit: None }, &s).expect("prepared");
    assert_eq!(third.ending(), Ending::Done);
}
