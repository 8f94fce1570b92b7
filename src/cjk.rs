//! CJK text for a word index. Chinese and Japanese put no spaces between words, so a word
//! tokenizer sees a whole run of such characters as one token and cannot find a word inside
//! it. Beside the text, each run is therefore also written as its overlapping character pairs
//! followed by its last character (`知識管理` → `知識 識管 管理 理`): a query of two or more
//! characters is then a phrase of pairs, and a query of one character a prefix of a pair.
//! This module owns that transformation for both sides, the indexed text and the query; it
//! does no I/O.

use std::borrow::Cow;

/// Whether `c` is written without spaces between words: CJK ideographs (with extension A and
/// B and the compatibility block), kana and Hangul syllables.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF
        | 0x20000..=0x2A6DF)
}

/// The text to index: `text` itself, followed, when it has CJK runs, by their pairs.
pub fn with_pairs(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_cjk) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() * 3);
    out.push_str(text);
    out.push('\n');
    for (cjk, run) in runs(text) {
        if cjk {
            out.push_str(&pairs(run));
            out.push('\n');
        }
    }
    Cow::Owned(out)
}

/// A run's pairs and its last character, space-separated.
fn pairs(run: &str) -> String {
    let chars: Vec<char> = run.chars().collect();
    let mut out = String::with_capacity(run.len() * 3);
    for w in chars.windows(2) {
        out.push(w[0]);
        out.push(w[1]);
        out.push(' ');
    }
    if let Some(last) = chars.last() {
        out.push(*last);
    }
    out
}

/// The FTS5 expression that finds the CJK run `run` in text indexed by [`with_pairs`].
pub fn query(run: &str) -> String {
    let chars: Vec<char> = run.chars().collect();
    match chars.len() {
        0 => String::new(),
        // Every occurrence of a character starts a pair, or ends its run alone.
        1 => format!("\"{}\"*", chars[0]),
        2 => format!("\"{run}\""),
        _ => {
            let words: Vec<String> = chars.windows(2).map(|w| w.iter().collect()).collect();
            format!("\"{}\"", words.join(" "))
        }
    }
}

/// `text` cut into maximal runs of CJK and of other characters, in order.
pub fn runs(text: &str) -> Vec<(bool, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut current: Option<bool> = None;
    for (i, c) in text.char_indices() {
        let kind = is_cjk(c);
        match current {
            Some(k) if k == kind => {}
            Some(k) => {
                out.push((k, &text[start..i]));
                start = i;
                current = Some(kind);
            }
            None => current = Some(kind),
        }
    }
    if let Some(k) = current {
        out.push((k, &text[start..]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin_text_is_left_alone() {
        assert!(matches!(
            with_pairs("plain text"),
            Cow::Borrowed("plain text")
        ));
    }

    #[test]
    fn runs_become_pairs_and_a_last_character() {
        assert_eq!(
            with_pairs("个人的知识管理 notes 知"),
            "个人的知识管理 notes 知\n个人 人的 的知 知识 识管 管理 理\n知\n"
        );
    }

    #[test]
    fn queries_by_length() {
        assert_eq!(query("知"), "\"知\"*");
        assert_eq!(query("知識"), "\"知識\"");
        assert_eq!(query("知識管理"), "\"知識 識管 管理\"");
    }

    #[test]
    fn runs_split_at_script_changes() {
        assert_eq!(
            runs("gpt知識x"),
            vec![(false, "gpt"), (true, "知識"), (false, "x")]
        );
        assert!(runs("").is_empty());
    }
}
