//! The fuzzy match of `done`, scored as the original scored it (the sahilm/fuzzy v0.1.1
//! algorithm the original used): a query matches a task when its characters appear in the
//! task in order, case-insensitively (`updrdme` matches "update README"), and scores more the
//! more of them start the text, start a word, follow a lower-case letter in upper case or
//! come in a run, and the shorter the task. The original's sort of the matches is kept too:
//! best first, ties in reverse order.

/// A separator: a match right after one starts a word.
fn is_separator(c: char) -> bool {
    matches!(c, '/' | '-' | '_' | ' ' | '.' | '\\')
}

/// The one character `mapped` yields, or `c` when a case mapping gives several (simple case
/// mapping keeps `ß` as it is).
fn single(mut mapped: impl Iterator<Item = char>, c: char) -> char {
    match (mapped.next(), mapped.next()) {
        (Some(m), None) => m,
        _ => c,
    }
}

/// Equal under simple case folding.
fn fold_eq(a: char, b: char) -> bool {
    a == b
        || single(a.to_lowercase(), a) == single(b.to_lowercase(), b)
        || single(a.to_uppercase(), a) == single(b.to_uppercase(), b)
}

/// The score of `pattern` against `candidate`, or `None` when the pattern's characters do not
/// all appear in it in order. Positions are byte offsets and the arithmetic wraps, as in the
/// original; a NUL ends the candidate.
pub fn score(pattern: &str, candidate: &str) -> Option<i64> {
    let pattern: Vec<char> = pattern.chars().collect();
    let candidate = candidate.split('\0').next().unwrap_or_default();
    let chars: Vec<(i64, char)> = candidate
        .char_indices()
        .map(|(j, c)| (j as i64, c))
        .collect();
    if pattern.is_empty() {
        return None;
    }
    let (mut k, mut total, mut best, mut best_pos, mut run) = (0usize, 0i64, -1i64, -1i64, 0i64);
    let mut committed: Vec<i64> = Vec::new();
    let (mut prev, mut prev_pos): (Option<char>, i64) = (None, 0);
    for (i, &(j, c)) in chars.iter().enumerate() {
        if pattern.get(k).is_some_and(|&p| fold_eq(c, p)) {
            let mut s = 0i64;
            if j == 0 {
                s += 10;
            }
            if prev.is_some_and(char::is_lowercase) && c.is_uppercase() {
                s += 20;
            }
            if j > 0 && prev.is_some_and(is_separator) {
                s += 20;
            }
            if committed.last() == Some(&prev_pos) {
                let bonus = run.wrapping_mul(2).wrapping_add(5);
                run = run.wrapping_add(bonus);
                s = s.wrapping_add(bonus);
            }
            if s > best {
                best = s;
                best_pos = j;
            }
        }
        // The best occurrence so far is taken once the next character is the next one the
        // pattern wants (or the text ends): the last pattern character takes the best to the
        // end. `best_pos` is never reset, as in the original.
        let next_c = chars.get(i + 1).map(|&(_, n)| n);
        let next_p = pattern.get(k + 1);
        let take = match (next_p, next_c) {
            (_, None) => true,
            (Some(&p), Some(n)) => fold_eq(n, p),
            (None, Some(_)) => false,
        };
        if take && best_pos >= 0 {
            if committed.is_empty() {
                best = best.wrapping_add(best_pos.wrapping_mul(-5).max(-15));
            }
            total = total.wrapping_add(best);
            committed.push(best_pos);
            best = -1;
            k += 1;
        }
        prev = Some(c);
        prev_pos = j;
    }
    total = total.wrapping_add(committed.len() as i64 - candidate.len() as i64);
    (committed.len() == pattern.len()).then_some(total)
}

/// The candidates `pattern` matches, as (index, score), best first. Ties come in reverse
/// order, as the original's sort (Go's stable insertion sort with a `>=` comparator) left
/// them for up to 20 matches; past 20 its merge could order ties otherwise, and here they stay
/// in reverse order.
pub fn rank<'a>(pattern: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<(usize, i64)> {
    let mut matches: Vec<(usize, i64)> = candidates
        .into_iter()
        .enumerate()
        .filter_map(|(i, c)| score(pattern, c).map(|s| (i, s)))
        .collect();
    matches.sort_by(|a, b| b.1.cmp(&a.1).then(b.0.cmp(&a.0)));
    matches
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_originals_worked_examples() {
        assert_eq!(score("shp", "ship finalize"), Some(5));
        assert_eq!(score("shp", "ship prepare"), Some(26));
        assert_eq!(score("fxbg", "fix login bug"), Some(21));
        assert_eq!(score("fxbg", "fix logout bug"), Some(20));
        assert_eq!(score("ab", "aXb"), score("ab", "aYb"));
        assert_eq!(score("rdme", "read me later"), Some(26));
        assert_eq!(score("rdme", "update README"), Some(16));
    }

    #[test]
    fn letters_must_come_in_order() {
        assert!(score("updrdme", "update README").is_some());
        assert!(
            score("UPDRDME", "update readme").is_some(),
            "case-insensitive"
        );
        assert!(score("emdrpu", "update README").is_none());
        assert!(score("cat", "fix build").is_none());
        assert!(score("ab", "a").is_none());
        assert!(score("a", "").is_none());
    }

    #[test]
    fn ties_come_in_reverse_order() {
        assert_eq!(rank("ab", ["aXb", "aYb", "zz"]), [(1, 9), (0, 9)]);
        assert_eq!(
            rank("shp", ["ship finalize", "ship prepare"]),
            [(1, 26), (0, 5)]
        );
    }

    #[test]
    fn long_runs_and_nul_do_not_panic() {
        let long = "a".repeat(200);
        assert!(score(&long, &long).is_some());
        assert_eq!(score("ab", "ab\0zzz"), score("ab", "ab"));
    }
}
