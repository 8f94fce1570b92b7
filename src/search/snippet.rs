//! Snippets: a short extract of a file's text around the first place a query's terms occur,
//! as [`Piece`]s with every occurrence a piece of its own, which [`marked`] marks
//! `**like this**` and the viewer marks in HTML. The search index stores no copy of the text,
//! so snippets are cut from the file itself, comparing as the index does: case and accents
//! folded, punctuation and spaces alike, CJK without word boundaries.

use crate::cjk::is_cjk;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Bytes of context kept before the first match, and after it.
const BEFORE: usize = 60;
const AFTER: usize = 100;
/// Bytes shown when no term occurs in the text (it matched by title, alias or tag).
const OPENING: usize = 160;

/// A term to look for: folded text, whether it may continue into a longer word, and for a
/// single English word its stem, so that any word of the same stem is marked, as the index
/// (which stems words) finds it.
#[derive(Debug, Clone)]
pub struct Term {
    chars: Vec<char>,
    prefix: bool,
    stem: Option<Vec<char>>,
}

impl Term {
    /// A term from query text.
    pub fn new(text: &str, prefix: bool) -> Option<Term> {
        let (chars, _) = fold(text);
        let start = chars.iter().position(|c| *c != ' ')?;
        let end = chars.iter().rposition(|c| *c != ' ')? + 1;
        let chars = chars[start..end].to_vec();
        let word = chars.iter().all(|c| c.is_ascii_alphabetic());
        Some(Term {
            stem: (word && !prefix).then(|| stem(&chars)),
            chars,
            prefix,
        })
    }
}

/// The English stem of a folded word.
fn stem(word: &[char]) -> Vec<char> {
    use std::sync::OnceLock;
    static STEMMER: OnceLock<rust_stemmers::Stemmer> = OnceLock::new();
    let stemmer =
        STEMMER.get_or_init(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English));
    let word: String = word.iter().collect();
    stemmer.stem(&word).chars().collect()
}

/// Text folded for comparison: lower case, combining marks dropped, every run of other
/// characters than letters and digits one space; with the byte span in the original text of
/// each folded character.
fn fold(text: &str) -> (Vec<char>, Vec<(usize, usize)>) {
    let mut chars = Vec::with_capacity(text.len());
    let mut spans: Vec<(usize, usize)> = Vec::with_capacity(text.len());
    for (at, c) in text.char_indices() {
        let span = (at, at + c.len_utf8());
        if is_combining_mark(c) {
            // A decomposed accent belongs to the letter before it.
            if let Some(last) = spans.last_mut() {
                last.1 = span.1;
            }
            continue;
        }
        if !c.is_alphanumeric() {
            if chars.last() != Some(&' ') {
                chars.push(' ');
                spans.push(span);
            }
            continue;
        }
        for d in c.to_lowercase().flat_map(|l| std::iter::once(l).nfd()) {
            if !is_combining_mark(d) {
                chars.push(d);
                spans.push(span);
            }
        }
    }
    (chars, spans)
}

/// Where `term` occurs in `text` (folded), as folded-character ranges, honouring word
/// boundaries for letters and digits that are not CJK.
fn occurrences(text: &[char], term: &Term, out: &mut Vec<(usize, usize)>) {
    if let Some(stem) = &term.stem {
        return stemmed(text, stem, out);
    }
    let t = &term.chars;
    if t.is_empty() || t.len() > text.len() {
        return;
    }
    let bounded = |c: char| c == ' ' || is_cjk(c);
    for i in 0..=text.len() - t.len() {
        if text[i..i + t.len()] != t[..] {
            continue;
        }
        let starts = is_cjk(t[0]) || i == 0 || bounded(text[i - 1]);
        let end = i + t.len();
        let last = t[t.len() - 1];
        let ends = term.prefix || is_cjk(last) || end == text.len() || bounded(text[end]);
        if starts && ends {
            out.push((i, end));
        }
    }
}

/// Where a word of the stem `want` occurs in `text` (folded), as folded-character ranges. A
/// word is stemmed only when it begins as the stem does (stemming keeps a word's first
/// letters), so that a long text is not stemmed whole.
fn stemmed(text: &[char], want: &[char], out: &mut Vec<(usize, usize)>) {
    let lead = &want[..want.len().min(2)];
    let mut i = 0;
    while i < text.len() {
        if text[i] == ' ' || is_cjk(text[i]) {
            i += 1;
            continue;
        }
        let end = (i..text.len())
            .find(|&j| text[j] == ' ' || is_cjk(text[j]))
            .unwrap_or(text.len());
        let word = &text[i..end];
        if word.starts_with(lead) && (word == want || stem(word) == want) {
            out.push((i, end));
        }
        i = end;
    }
}

/// A run of an extract's text: an occurrence of a term (`hit`), or the text between.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// The text, its whitespace collapsed.
    pub text: String,
    /// Whether it is an occurrence of a term.
    pub hit: bool,
}

/// The snippet of `text` for `terms`, its occurrences marked `**like this**`.
#[cfg(test)]
fn snippet(text: &str, terms: &[Term]) -> String {
    marked(&extract(text, terms))
}

/// Pieces as one string, occurrences marked `**like this**`.
pub fn marked(pieces: &[Piece]) -> String {
    let mut out = String::new();
    for p in pieces {
        if p.hit {
            out.push_str("**");
            out.push_str(&p.text);
            out.push_str("**");
        } else {
            out.push_str(&p.text);
        }
    }
    out
}

/// The extract of `text` for `terms`, in pieces: whitespace runs made one space, the ends
/// trimmed, `…` where the text goes on.
#[cfg(test)]
fn extract(text: &str, terms: &[Term]) -> Vec<Piece> {
    collapse(cut(text, terms).1)
}

/// The extract of a long text given in parts (as [`crate::pieces`] cuts it), from the part
/// where the most different terms occur together (the first of equals; the opening of the
/// first part when none occurs). One part is folded at a time.
pub fn extract_parts<S: AsRef<str>>(
    parts: impl IntoIterator<Item = S>,
    terms: &[Term],
) -> Vec<Piece> {
    let mut best: Option<(usize, Vec<Piece>)> = None;
    for part in parts {
        let (seen, raw) = cut(part.as_ref(), terms);
        if best.as_ref().is_none_or(|(most, _)| seen > *most) {
            best = Some((seen, collapse(raw)));
        }
        // Every term is in this part's extract: no later part shows more.
        if seen >= terms.len() {
            break;
        }
    }
    best.map(|(_, pieces)| pieces).unwrap_or_default()
}

/// The extract before its whitespace is collapsed, and how many different terms it shows.
fn cut<'t>(text: &'t str, terms: &[Term]) -> (usize, Vec<(&'t str, bool)>) {
    let (folded, spans) = fold(text);
    // Each occurrence, with the term it is of.
    let mut found: Vec<(usize, usize, usize)> = Vec::new();
    for (n, t) in terms.iter().enumerate() {
        let mut at = Vec::new();
        occurrences(&folded, t, &mut at);
        found.extend(at.into_iter().map(|(s, e)| (s, e, n)));
    }
    found.sort_unstable();
    let Some((seen, hit_start)) = best_start(&found, &spans) else {
        return (
            0,
            vec![(&text[..floor(text, OPENING.min(text.len()))], false)],
        );
    };
    let mut from = floor(text, hit_start.saturating_sub(BEFORE));
    if from > 0 {
        // Start at a word.
        from = text[from..hit_start]
            .find(char::is_whitespace)
            .map_or(from, |i| from + i);
    }
    let mut to = floor(text, (hit_start + AFTER).min(text.len()));
    if to < text.len() {
        to = text[hit_start..to]
            .rfind(char::is_whitespace)
            .map_or(to, |i| hit_start + i);
    }
    let mut out = Vec::new();
    if from > 0 {
        out.push(("…", false));
    }
    let mut at = from;
    let mut last_end = 0;
    for &(s, e, _) in &found {
        let (bs, be) = (spans[s].0, spans[e - 1].1);
        if s < last_end || bs < from || be > to {
            continue;
        }
        out.push((&text[at..bs], false));
        out.push((&text[bs..be], true));
        at = be;
        last_end = e;
    }
    out.push((&text[at..to], false));
    if to < text.len() {
        out.push(("…", false));
    }
    (seen, out)
}

/// Where the extract starts: at the occurrence after which the most different terms occur
/// within the extract's length (the earliest of equals), in bytes of the original text; with
/// how many terms that is.
fn best_start(found: &[(usize, usize, usize)], spans: &[(usize, usize)]) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    for (i, &(s, _, _)) in found.iter().enumerate() {
        let start = spans[s].0;
        let mut seen: Vec<usize> = found[i..]
            .iter()
            .take_while(|(o, _, _)| spans[*o].0 < start + AFTER)
            .map(|&(_, _, n)| n)
            .collect();
        seen.sort_unstable();
        seen.dedup();
        if best.is_none_or(|(count, _)| seen.len() > count) {
            best = Some((seen.len(), start));
        }
    }
    best
}

/// The largest char boundary of `text` at or below `i`.
fn floor(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Whitespace runs made one space across pieces, the ends trimmed; a space at the edge of an
/// occurrence goes to the text beside it, and neighbouring texts become one piece.
fn collapse(raw: Vec<(&str, bool)>) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    let mut space = false;
    for (text, hit) in raw {
        let core = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if core.is_empty() {
            space |= !text.is_empty();
            continue;
        }
        if (space || text.starts_with(char::is_whitespace)) && !out.is_empty() {
            push(&mut out, " ", false);
        }
        push(&mut out, &core, hit);
        space = text.ends_with(char::is_whitespace);
    }
    out
}

/// Add a piece; text beside text joins it.
fn push(out: &mut Vec<Piece>, text: &str, hit: bool) {
    match out.last_mut() {
        Some(last) if !hit && !last.hit => last.text.push_str(text),
        _ => out.push(Piece {
            text: text.to_string(),
            hit,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(list: &[&str]) -> Vec<Term> {
        list.iter().filter_map(|t| Term::new(t, false)).collect()
    }

    #[test]
    fn marks_every_occurrence_keeping_the_original_case() {
        let s = snippet(
            "Eviction policies: LRU; eviction is hard.",
            &terms(&["eviction"]),
        );
        assert_eq!(s, "**Eviction** policies: LRU; **eviction** is hard.");
    }

    #[test]
    fn folds_accents_and_punctuation_like_the_index() {
        let s = snippet("A café serving crème brûlée.", &terms(&["creme brulee"]));
        assert_eq!(s, "A café serving **crème brûlée**.");
        let s = snippet("Cafe\u{301} au lait", &terms(&["café"]));
        assert_eq!(s, "**Cafe\u{301}** au lait");
        let s = snippet("We compared gpt-4o today.", &terms(&["gpt 4o"]));
        assert_eq!(s, "We compared **gpt-4o** today.");
    }

    #[test]
    fn words_match_whole_unless_prefix() {
        assert!(!snippet("category", &terms(&["cat"])).contains("**"));
        let prefix = [Term::new("cat", true).unwrap()];
        assert_eq!(snippet("category", &prefix), "**cat**egory");
    }

    #[test]
    fn a_word_marks_every_word_of_its_stem() {
        assert_eq!(
            snippet("We synced notes; syncing twice syncs.", &terms(&["sync"])),
            "We **synced** notes; **syncing** twice **syncs**."
        );
        assert_eq!(
            snippet("Invalidation invalidates", &terms(&["invalidated"])),
            "**Invalidation** **invalidates**"
        );
        // A stem marks no word that merely begins with it.
        assert_eq!(snippet("synchronise", &terms(&["sync"])), "synchronise");
    }

    #[test]
    fn cjk_matches_inside_runs() {
        assert_eq!(
            snippet("個人の知識管理について。", &terms(&["知識"])),
            "個人の**知識**管理について。"
        );
    }

    #[test]
    fn the_extract_shows_the_most_terms() {
        let text = format!(
            "logging alone here. {} Then write-ahead logging together.",
            "filler ".repeat(30)
        );
        let s = snippet(&text, &terms(&["write ahead", "logging"]));
        assert!(s.contains("**write-ahead** **logging**"), "{s}");
    }

    #[test]
    fn long_text_is_cut_around_the_first_match() {
        let text = format!("{} needle {}", "word ".repeat(100), "tail ".repeat(100));
        let s = snippet(&text, &terms(&["needle"]));
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        assert!(s.contains("**needle**"));
        assert!(s.len() < BEFORE + AFTER + 20, "{}", s.len());
    }

    #[test]
    fn pieces_mark_occurrences_and_collapse_whitespace_between_them() {
        let p = extract(
            "  A  café\n\nserving  crème   brûlée and **bold** crème.  ",
            &terms(&["creme brulee", "bold"]),
        );
        let shown: Vec<(&str, bool)> = p.iter().map(|p| (p.text.as_str(), p.hit)).collect();
        assert_eq!(
            shown,
            [
                ("A café serving ", false),
                ("crème brûlée", true),
                (" and **", false),
                ("bold", true),
                ("** crème.", false)
            ]
        );
        // Literal asterisks of the text stay text in the pieces; only `marked` adds marks.
        assert_eq!(snippet("**bold** x", &terms(&["x"])), "**bold** **x**");
    }

    #[test]
    fn of_many_parts_the_one_showing_the_most_terms_gives_the_extract() {
        let parts = [
            "Nothing here.".to_string(),
            "Only logging here.".to_string(),
            "Write-ahead logging together.".to_string(),
            "Write-ahead logging again.".to_string(),
        ];
        let got = marked(&extract_parts(&parts, &terms(&["write ahead", "logging"])));
        assert_eq!(got, "**Write-ahead** **logging** together.");
        assert_eq!(
            marked(&extract_parts(&parts, &terms(&["absent"]))),
            "Nothing here."
        );
    }

    #[test]
    fn without_a_match_the_opening_is_shown() {
        let text = "é".repeat(200);
        let s = snippet(&text, &terms(&["absent"]));
        assert_eq!(s.chars().count(), OPENING / 2);
    }
}
