//! Which task a `done` query names: an exact match, then a unique substring, then the
//! original's fuzzy match (the query's letters in order) with a clear winner.

use super::Task;
use super::file::Lines;
use crate::key::key;

/// A fuzzy match wins only with a score more than this above the runner-up's (the
/// original's margin).
const FUZZY_MARGIN: i64 = 5;

/// How many candidates an ambiguous fuzzy match lists (the original's cap).
const FUZZY_CANDIDATES: usize = 5;

/// The tasks of `file` that `parse` recognises, with their lines.
pub(super) fn tasks_where(file: &Lines, parse: fn(&str) -> Option<&str>) -> Vec<Task> {
    (0..file.lines.len())
        .filter_map(|i| {
            parse(file.line(i)).map(|t| Task {
                text: t.to_string(),
                line: i + 1,
            })
        })
        .collect()
}

pub(super) enum Choice {
    One(Task, &'static str),
    /// The candidates, and how many matched in all.
    Many(Vec<Task>, usize),
    None,
}

pub(super) fn choose(tasks: &[Task], query: &str) -> Choice {
    let q = key(query);
    // Identical tasks are interchangeable: completing the first is no guess. (The original had
    // no exact stage and called these ambiguous; a unique match is the same either way.)
    if let Some(t) = tasks.iter().find(|t| key(&t.text) == q) {
        return Choice::One(t.clone(), "exact");
    }
    let hits: Vec<&Task> = tasks.iter().filter(|t| key(&t.text).contains(&q)).collect();
    match hits.as_slice() {
        [one] => return Choice::One((*one).clone(), "substring"),
        [] => {}
        many => return Choice::Many(many.iter().map(|t| (*t).clone()).collect(), many.len()),
    }
    let ranked = crate::fuzzy::rank(query, tasks.iter().map(|t| t.text.as_str()));
    match ranked.as_slice() {
        [] => Choice::None,
        [(i, _)] => Choice::One(tasks[*i].clone(), "fuzzy"),
        [(i, best), (_, next), ..] if *best > next.saturating_add(FUZZY_MARGIN) => {
            Choice::One(tasks[*i].clone(), "fuzzy")
        }
        all => Choice::Many(
            all.iter()
                .take(FUZZY_CANDIDATES)
                .map(|(i, _)| tasks[*i].clone())
                .collect(),
            all.len(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tasks(texts: &[&str]) -> Vec<Task> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| Task {
                text: t.to_string(),
                line: i + 1,
            })
            .collect()
    }

    fn pick(texts: &[&str], q: &str) -> Option<String> {
        match choose(&tasks(texts), q) {
            Choice::One(t, _) => Some(t.text),
            _ => None,
        }
    }

    #[test]
    fn exact_beats_substring() {
        assert_eq!(
            pick(&["ship", "ship prepare"], "ship").as_deref(),
            Some("ship")
        );
        assert_eq!(
            pick(&["ship prepare", "ship finalize"], "FINALIZE").as_deref(),
            Some("ship finalize")
        );
        assert!(
            matches!(choose(&tasks(&["write tests for ingest", "write tests for scan"]), "write tests"), Choice::Many(c, 2) if c.len() == 2)
        );
    }

    #[test]
    fn fuzzy_needs_the_letters_in_order_and_a_clear_winner() {
        assert_eq!(
            pick(&["update README", "read me later"], "updrdme").as_deref(),
            Some("update README")
        );
        // 26 against 5: a clear winner.
        assert_eq!(
            pick(&["ship prepare", "ship finalize"], "shp").as_deref(),
            Some("ship prepare")
        );
        // 21 against 20: too close, both listed, best first.
        match choose(&tasks(&["fix login bug", "fix logout bug"]), "fxbg") {
            Choice::Many(c, 2) => assert_eq!(c[0].text, "fix login bug"),
            _ => panic!("fxbg is ambiguous"),
        }
        // A typo is not a subsequence: the original found nothing, and so does this.
        assert!(matches!(
            choose(&tasks(&["ship finalize"]), "ship finalzie"),
            Choice::None
        ));
    }

    #[test]
    fn an_ambiguous_fuzzy_match_lists_five_and_counts_all() {
        let many: Vec<String> = (0..8).map(|i| format!("task number {i}")).collect();
        let texts: Vec<&str> = many.iter().map(String::as_str).collect();
        match choose(&tasks(&texts), "tsknm") {
            Choice::Many(c, 8) => assert_eq!(c.len(), 5),
            _ => panic!("eight equal matches are ambiguous"),
        }
    }
}
