//! The inbox rule: `inbox.md` merged by entry, so that a capture made on one device while the
//! other ingested survives, and what the other archived does not come back.
//!
//! An entry is known by its content's hash, as ingest knows it (the date line aside). An entry
//! either side removed (archived or deleted) stays removed; one either side added is kept, once
//! if both added the same text. This device's file stays byte for byte but for the entries the
//! other removed (taken out as finalize takes them out), and the other's new entries follow at
//! the end, written as `capture` writes them (their date lines kept). The header is this
//! device's.

use super::{RuleError, Side, keyed};
use crate::inbox::Inbox;
use chrono::NaiveDate;

/// The date undated entries are parsed with: never written, since an entry keeps its date line
/// only if it had one.
const UNDATED: NaiveDate = NaiveDate::MIN;

/// Merge three versions of the inbox at `path`.
pub(super) fn merge(
    path: &str,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> Result<String, RuleError> {
    let parse = |side: Side, bytes: &[u8]| {
        Inbox::parse(bytes, UNDATED).map_err(|source| RuleError::Inbox {
            path: path.to_string(),
            side,
            source,
        })
    };
    let o = parse(Side::Ours, ours.as_bytes())?;
    let t = parse(Side::Theirs, theirs.as_bytes())?;
    let b = base.map(|b| parse(Side::Base, b.as_bytes())).transpose()?;
    let hashes = |i: &Inbox| i.entries.iter().map(|e| e.hash.clone()).collect::<Vec<_>>();
    let (keep, add) = keyed(
        &b.as_ref().map(hashes).unwrap_or_default(),
        &hashes(&o),
        &hashes(&t),
    );
    let remove: Vec<usize> = (0..keep.len()).filter(|&i| !keep[i]).collect();
    let mut bytes = o.without(ours.as_bytes(), &remove);
    for i in add {
        let entry = &t.entries[i];
        let date = entry.dated.then_some(entry.capture_date);
        bytes = parse(Side::Ours, &bytes)?.with_capture(&bytes, &entry.content, date);
    }
    // Every piece is a whole line of a `str`, so this never replaces anything.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::super::{Rule, assert_unchanged_sides_give_back_the_other};
    use super::*;
    use proptest::prelude::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("a date")
    }

    /// `text` with one more capture, as `sparks capture` writes it.
    fn capture(text: &str, capture: &str, date: Option<&str>) -> String {
        let inbox = Inbox::parse(text.as_bytes(), day("2026-05-01")).expect("an inbox");
        let bytes = inbox.with_capture(text.as_bytes(), capture, date.map(day));
        String::from_utf8(bytes).expect("UTF-8")
    }

    /// `text` without the entries `which`, as finalize leaves it.
    fn archive(text: &str, which: &[usize]) -> String {
        let inbox = Inbox::parse(text.as_bytes(), day("2026-05-01")).expect("an inbox");
        String::from_utf8(inbox.without(text.as_bytes(), which)).expect("UTF-8")
    }

    fn contents(text: &str) -> Vec<String> {
        let inbox = Inbox::parse(text.as_bytes(), day("2026-05-01")).expect("merged parses");
        inbox.entries.into_iter().map(|e| e.content).collect()
    }

    fn merged(base: Option<&str>, ours: &str, theirs: &str) -> String {
        super::super::merged(Rule::Inbox, base, ours, theirs)
    }

    fn inbox_of(captures: &[&str]) -> String {
        captures
            .iter()
            .fold("# Inbox\n\nCapture below.\n\n---\n".to_string(), |t, c| {
                capture(&t, c, None)
            })
    }

    #[test]
    fn captures_on_both_devices_are_kept_once_each() {
        let base = inbox_of(&["one"]);
        let ours = capture(&base, "laptop idea", None);
        let theirs = capture(
            &capture(&base, "phone idea", Some("2026-04-30")),
            "two",
            None,
        );
        let out = merged(Some(&base), &ours, &theirs);
        assert_eq!(contents(&out), ["one", "laptop idea", "phone idea", "two"]);
        assert!(out.starts_with(&ours), "ours' bytes stay first: {out}");
        assert!(out.contains("---\n2026-04-30\nphone idea\n"), "{out}");
        assert_eq!(merged(Some(&base), &theirs, &ours).len(), out.len());
    }

    #[test]
    fn a_capture_made_while_the_other_device_ingested_survives_alone() {
        let base = inbox_of(&["entry 1", "entry 2", "entry 3"]);
        let ingested = archive(&base, &[0, 1, 2]);
        let captured = capture(&base, "entry 4", None);
        assert_eq!(
            contents(&merged(Some(&base), &ingested, &captured)),
            ["entry 4"]
        );
        let out = merged(Some(&base), &captured, &ingested);
        assert_eq!(contents(&out), ["entry 4"]);
        assert!(
            out.starts_with("# Inbox\n\nCapture below.\n\n---\n"),
            "{out}"
        );
    }

    #[test]
    fn a_partial_ingest_on_one_side_and_a_deletion_on_the_other() {
        let base = inbox_of(&["a", "b", "c", "d"]);
        let ours = archive(&base, &[1]);
        let theirs = capture(&archive(&base, &[3]), "e", None);
        assert_eq!(
            contents(&merged(Some(&base), &ours, &theirs)),
            ["a", "c", "e"]
        );
    }

    #[test]
    fn unchanged_sides_give_back_the_other_byte_for_byte() {
        let base = inbox_of(&["a", "b"]);
        let ours = capture(&archive(&base, &[0]), "c", None);
        let theirs = capture(&archive(&base, &[1]), "d", Some("2026-04-02"));
        assert_eq!(merged(Some(&base), &base, &base), base);
        assert_unchanged_sides_give_back_the_other(Rule::Inbox, &base, &ours, &theirs);
    }

    #[test]
    fn the_same_text_added_on_both_sides_is_one_entry() {
        let base = inbox_of(&["a"]);
        let ours = capture(&base, "buy milk", None);
        let theirs = capture(&base, "buy milk", Some("2026-04-01"));
        assert_eq!(
            contents(&merged(Some(&base), &ours, &theirs)),
            ["a", "buy milk"]
        );
        // Two copies in base, one archived on one side: one stays.
        let base = inbox_of(&["x", "x"]);
        let ours = archive(&base, &[0]);
        let theirs = capture(&base, "y", None);
        assert_eq!(contents(&merged(Some(&base), &ours, &theirs)), ["x", "y"]);
    }

    #[test]
    fn without_a_base_both_sides_entries_are_kept() {
        let ours = inbox_of(&["a", "b"]);
        let theirs = inbox_of(&["b", "c"]);
        assert_eq!(contents(&merged(None, &ours, &theirs)), ["a", "b", "c"]);
        assert_eq!(contents(&merged(None, "", &theirs)), ["b", "c"]);
    }

    #[test]
    fn crlf_fences_and_dates_survive() {
        let base = "# Inbox\r\n---\r\nkeep\r\n---\r\n";
        let ours = capture(base, "mine", None);
        let fenced = "note\n```yaml\n---\ntitle: x\n---\n```";
        let theirs = capture(base, fenced, Some("2026-03-03"));
        let out = merged(Some(base), &ours, &theirs);
        assert_eq!(contents(&out), ["keep", "mine", fenced]);
        assert!(
            !out.replace("\r\n", "").contains('\n'),
            "CRLF only: {out:?}"
        );
        let inbox = Inbox::parse(out.as_bytes(), day("2026-05-01")).expect("parses");
        assert_eq!(inbox.entries[2].capture_date, day("2026-03-03"));
    }

    #[test]
    fn an_unreadable_side_is_an_error_that_names_it() {
        let err = merge(
            "inbox.md",
            None,
            "# Inbox\n---\n",
            "idea without separator\n",
        )
        .expect_err("refused");
        assert!(matches!(
            err,
            RuleError::Inbox {
                side: Side::Theirs,
                ..
            }
        ));
        let text = err.to_string();
        assert!(
            text.contains("inbox.md") && text.contains("other device"),
            "{text}"
        );
    }

    fn words() -> impl Strategy<Value = String> {
        "[a-z]{1,8}( [a-z]{1,8}){0,3}"
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn added_entries_appear_once_and_removed_ones_never(
            base_words in proptest::collection::vec(words(), 0..8),
            ours_removes in any::<u8>(),
            theirs_removes in any::<u8>(),
            ours_adds in proptest::collection::vec(words(), 0..4),
            theirs_adds in proptest::collection::vec(words(), 0..4),
            crlf in any::<bool>(),
        ) {
            let nl = if crlf { "\r\n" } else { "\n" };
            // Distinct texts, so that "once" and "absent" are about one entry each.
            let named = |p: &str, w: &[String]| -> Vec<String> {
                w.iter().enumerate().map(|(i, w)| format!("{p}{i} {w}")).collect()
            };
            let base_entries = named("base", &base_words);
            let ours_new = named("ours", &ours_adds);
            let theirs_new = named("theirs", &theirs_adds);
            let base = base_entries.iter().fold(format!("# Inbox{nl}---{nl}"), |t, c| capture(&t, c, None));
            let side = |mask: u8, new: &[String]| {
                let gone: Vec<usize> = (0..base_entries.len()).filter(|i| mask & (1 << i) != 0).collect();
                new.iter().fold(archive(&base, &gone), |t, c| capture(&t, c, None))
            };
            let ours = side(ours_removes, &ours_new);
            let theirs = side(theirs_removes, &theirs_new);
            let out = merged(Some(&base), &ours, &theirs);
            let got = contents(&out);
            let mut expected: Vec<String> = base_entries
                .iter()
                .enumerate()
                .filter(|(i, _)| (ours_removes | theirs_removes) & (1 << i) == 0)
                .map(|(_, e)| e.clone())
                .collect();
            expected.extend(ours_new);
            expected.extend(theirs_new);
            prop_assert_eq!(got, expected);
            prop_assert_eq!(merged(Some(&base), &ours, &base), ours.clone());
            prop_assert_eq!(merged(Some(&base), &ours, &ours), ours);
        }
    }
}
