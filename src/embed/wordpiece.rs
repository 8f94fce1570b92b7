//! The model's tokenizer: BERT's uncased WordPiece, as potion-base-8M's `tokenizer.json`
//! configures it, written for Sparks (it replaced the `tokenizers` and model2vec-rs crates).
//!
//! A text goes through four steps, each as the Hugging Face tokenizer does it:
//!
//! 1. The special tokens (`[CLS]`, `[MASK]`, …) written literally in the text are its tokens
//!    as they are (`normalized: false`): the text between them goes through the next steps.
//! 2. BertNormalizer (`clean_text`, `handle_chinese_chars`, `strip_accents` (unset, so as
//!    `lowercase`), `lowercase`): control characters (Cc, Cf, Co, NUL, U+FFFD) are left out and
//!    whitespace becomes a space; CJK ideographs get a space either side; the text is decomposed
//!    (NFD), its nonspacing marks (Mn) left out, and lowercased character by character.
//! 3. BertPreTokenizer: words are split at whitespace, and each punctuation character (ASCII
//!    punctuation or a Unicode P category) is a word of its own.
//! 4. WordPiece: each word is cut greedily into the longest tokens of the vocabulary from its
//!    start, the tokens after the first with the prefix `##`; a word that cannot be cut so, or
//!    of more than [`MAX_CHARS`] characters, is the one token `[UNK]`.
//!
//! The vocabulary is `model/potion-base-8M/vocab.txt` (derived from `tokenizer.json` by
//! `scripts/model/derive.py`: line n holds the token of id n), compiled in and hashed into a
//! table of ids on first use. The Unicode categories are those of the `unicode_categories` crate, the
//! tables the Hugging Face tokenizer uses, so the same characters count as control or
//! punctuation; the decomposition is `unicode-normalization`'s.

use unicode_categories::UnicodeCategories;
use unicode_normalization::UnicodeNormalization;

/// The prefix of a token that continues a word.
const CONTINUATION: &str = "##";

/// A word of more characters than this is `[UNK]` (`max_input_chars_per_word`).
pub(super) const MAX_CHARS: usize = 100;

/// The token of what the vocabulary cannot spell.
pub(super) const UNK: &str = "[UNK]";

/// The special tokens, matched in the raw text (longest first at a position).
pub(super) const SPECIAL: [&str; 5] = ["[MASK]", "[PAD]", "[UNK]", "[CLS]", "[SEP]"];

/// The tokenizer: the vocabulary and what it needs at hand.
pub(super) struct WordPiece {
    /// The vocabulary: token `id` is `vocab[starts[id]..starts[id + 1] - 1]`.
    vocab: &'static str,
    /// Where each token starts in `vocab`, and one past the end of the last line.
    starts: Vec<u32>,
    /// The ids, found by the hash of their token (4 bytes a slot: a quarter of a map of
    /// `&str` to id, for a load in half the time).
    ids: hashbrown::HashTable<u32>,
    /// The ids of [`SPECIAL`], in its order.
    special: [u32; SPECIAL.len()],
    /// The id of [`UNK`].
    unk: u32,
    /// The length in bytes of the longest token, `##` included.
    longest: usize,
}

/// Why a vocabulary (one token a line) is not one this tokenizer can use.
#[derive(Debug, thiserror::Error, PartialEq)]
pub(super) enum VocabError {
    /// A line is empty.
    #[error("the vocabulary's line {0} is empty")]
    Empty(usize),
    /// A token is on two lines.
    #[error("the vocabulary has {0:?} twice")]
    Twice(String),
    /// A token the tokenizer needs is missing.
    #[error("the vocabulary has no {0:?}")]
    Missing(&'static str),
}

impl WordPiece {
    /// The tokenizer of the vocabulary `vocab`: one token a line, line n holding id n.
    pub(super) fn new(vocab: &'static str) -> Result<WordPiece, VocabError> {
        let text = vocab.strip_suffix('\n').unwrap_or(vocab);
        let mut tokenizer = WordPiece {
            vocab,
            starts: Vec::with_capacity(vocab.len() / 6),
            ids: hashbrown::HashTable::with_capacity(vocab.len() / 7),
            special: [0; SPECIAL.len()],
            unk: 0,
            longest: 0,
        };
        let too_many = |t: &str| VocabError::Twice(t.to_string());
        let mut start = 0;
        for (id, token) in text.split('\n').enumerate() {
            if token.is_empty() {
                return Err(VocabError::Empty(id + 1));
            }
            tokenizer
                .starts
                .push(u32::try_from(start).map_err(|_| too_many(token))?);
            start += token.len() + 1;
            if tokenizer.id(token).is_some() {
                return Err(VocabError::Twice(token.to_string()));
            }
            let id = u32::try_from(id).map_err(|_| too_many(token))?;
            let WordPiece {
                vocab, starts, ids, ..
            } = &mut tokenizer;
            ids.insert_unique(hash(token), id, |&id| hash(token_of(vocab, starts, id)));
            tokenizer.longest = tokenizer.longest.max(token.len());
        }
        tokenizer
            .starts
            .push(u32::try_from(start).map_err(|_| too_many(""))?);
        for (k, token) in SPECIAL.iter().enumerate() {
            tokenizer.special[k] = tokenizer.id(token).ok_or(VocabError::Missing(token))?;
        }
        tokenizer.unk = tokenizer.id(UNK).ok_or(VocabError::Missing(UNK))?;
        Ok(tokenizer)
    }

    /// The id of `token`, if the vocabulary has it.
    fn id(&self, token: &str) -> Option<u32> {
        let found = |&id: &u32| token_of(self.vocab, &self.starts, id) == token;
        self.ids.find(hash(token), found).copied()
    }

    /// The id of [`UNK`], which the model leaves out of a text's mean.
    pub(super) fn unk(&self) -> u32 {
        self.unk
    }

    /// The number of tokens of the vocabulary.
    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    /// The token ids of `text`, appended to `out` (`[UNK]` for each word it cannot spell).
    pub(super) fn encode(&self, text: &str, out: &mut Vec<u32>) {
        let mut normalized = String::new();
        let mut piece = String::new();
        let mut start = 0;
        let mut i = 0;
        while let Some(at) = text[i..].find('[') {
            i += at;
            match SPECIAL.iter().position(|s| text[i..].starts_with(s)) {
                Some(k) => {
                    self.encode_span(&text[start..i], &mut normalized, &mut piece, out);
                    out.push(self.special[k]);
                    i += SPECIAL[k].len();
                    start = i;
                }
                None => i += 1,
            }
        }
        self.encode_span(&text[start..], &mut normalized, &mut piece, out);
    }

    /// Steps 2 to 4 for text without a special token.
    fn encode_span(
        &self,
        span: &str,
        normalized: &mut String,
        piece: &mut String,
        out: &mut Vec<u32>,
    ) {
        if span.is_empty() {
            return;
        }
        normalized.clear();
        normalize(span, normalized);
        for word in words(normalized) {
            self.word(word, piece, out);
        }
    }

    /// Greedy longest-match-first WordPiece of one word.
    fn word(&self, word: &str, piece: &mut String, out: &mut Vec<u32>) {
        if word.len() > MAX_CHARS && word.chars().count() > MAX_CHARS {
            out.push(self.unk);
            return;
        }
        let mark = out.len();
        let mut start = 0;
        while start < word.len() {
            let Some((id, end)) = self.longest_token(word, start, piece) else {
                out.truncate(mark);
                out.push(self.unk);
                return;
            };
            out.push(id);
            start = end;
        }
    }

    /// The longest token that spells `word` from `start` (with the `##` prefix after the
    /// word's start), and where it ends.
    fn longest_token(&self, word: &str, start: usize, piece: &mut String) -> Option<(u32, usize)> {
        let prefix = if start == 0 { "" } else { CONTINUATION };
        let room = self.longest.saturating_sub(prefix.len());
        let mut end = word.len().min(start + room);
        while end > start {
            if word.is_char_boundary(end) {
                piece.clear();
                piece.push_str(prefix);
                piece.push_str(&word[start..end]);
                if let Some(id) = self.id(piece) {
                    return Some((id, end));
                }
            }
            end -= 1;
        }
        None
    }
}

/// Token `id` of `vocab`, which `starts` cuts into lines.
fn token_of<'v>(vocab: &'v str, starts: &[u32], id: u32) -> &'v str {
    let id = id as usize;
    vocab
        .get(starts[id] as usize..starts[id + 1] as usize - 1)
        .unwrap_or_default()
}

/// The hash a token is found by.
fn hash(token: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::default().hash_one(token)
}

/// BertNormalizer with `clean_text`, `handle_chinese_chars`, `strip_accents` and `lowercase`:
/// `text` normalised, appended to `out`.
fn normalize(text: &str, out: &mut String) {
    if text.is_ascii() {
        // NFD is the identity on ASCII, which has no nonspacing mark and no ideograph.
        out.extend(text.bytes().filter_map(|b| match b {
            b'\t' | b'\n' | b'\r' => Some(' '),
            0..=0x1f | 0x7f => None,
            _ => Some(char::from(b.to_ascii_lowercase())),
        }));
        return;
    }
    let cleaned = text.chars().flat_map(|c| {
        if c == '\0' || c == '\u{fffd}' || is_control(c) {
            [None; 3]
        } else if is_whitespace(c) {
            [Some(' '), None, None]
        } else if is_chinese(c) {
            [Some(' '), Some(c), Some(' ')]
        } else {
            [Some(c), None, None]
        }
        .into_iter()
        .flatten()
    });
    for c in cleaned.nfd().filter(|&c| !is_nonspacing_mark(c)) {
        out.extend(c.to_lowercase());
    }
}

/// BertPreTokenizer: the words of `text`, split at whitespace, each punctuation character a
/// word of its own.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(char::is_whitespace).flat_map(|chunk| {
        let mut rest = chunk;
        std::iter::from_fn(move || {
            if rest.is_empty() {
                return None;
            }
            let (i, c) = rest
                .char_indices()
                .find(|&(_, c)| is_punctuation(c))
                .unwrap_or((rest.len(), ' '));
            // A word up to the punctuation, or the punctuation itself.
            let end = if i == 0 { c.len_utf8() } else { i };
            let (word, after) = rest.split_at(end);
            rest = after;
            Some(word)
        })
    })
}

/// Whitespace as BERT counts it: tab, newline and carriage return, and Unicode White_Space.
fn is_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

/// Control as BERT counts it: Cc, Cf or Co, but for tab, newline and carriage return. (ASCII
/// has no Cf or Co, and its Cc are the C0 controls and DEL: no table to search.)
fn is_control(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_control() && !matches!(c, '\t' | '\n' | '\r');
    }
    UnicodeCategories::is_other(c)
}

/// ASCII punctuation, or a character of a Unicode P category. (ASCII's P characters are all
/// ASCII punctuation: no table to search.)
fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    UnicodeCategories::is_punctuation(c)
}

/// A nonspacing mark (Mn), which accent stripping leaves out. (ASCII has none.)
fn is_nonspacing_mark(c: char) -> bool {
    !c.is_ascii() && UnicodeCategories::is_mark_nonspacing(c)
}

/// A CJK ideograph (the blocks BERT puts spaces around).
fn is_chinese(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B920..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests;
