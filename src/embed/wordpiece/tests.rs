#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use super::*;

const TOKENIZER_JSON: &str = include_str!("../../../model/potion-base-8M/tokenizer.json");
const VOCAB: &str = include_str!("../../../model/potion-base-8M/vocab.txt");

fn tokenizer_json() -> Value {
    serde_json::from_str(TOKENIZER_JSON).unwrap()
}

/// What this tokenizer does without reading it from tokenizer.json is what tokenizer.json says.
#[test]
fn the_pipeline_is_the_one_tokenizer_json_configures() {
    let json = tokenizer_json();
    assert_eq!(
        json["normalizer"],
        json!({"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
               "strip_accents": null, "lowercase": true})
    );
    assert_eq!(json["pre_tokenizer"], json!({"type": "BertPreTokenizer"}));
    let model = &json["model"];
    assert_eq!(model["type"], "WordPiece");
    assert_eq!(model["unk_token"], UNK);
    assert_eq!(model["continuing_subword_prefix"], CONTINUATION);
    assert_eq!(model["max_input_chars_per_word"], MAX_CHARS);
    let mut added: Vec<&str> = json["added_tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            // Matched literally in the raw text: none of the flags that change that.
            for flag in ["normalized", "single_word", "lstrip", "rstrip"] {
                assert_eq!(t[flag], false, "{t}");
            }
            t["content"].as_str().unwrap()
        })
        .collect();
    added.sort_unstable();
    let mut special = SPECIAL.to_vec();
    special.sort_unstable();
    assert_eq!(added, special);
    // Longest first, so that no special token hides a longer one.
    assert!(SPECIAL.windows(2).all(|w| w[0].len() >= w[1].len()));
}

#[test]
fn vocab_txt_is_the_vocabulary_of_tokenizer_json() {
    let json = tokenizer_json();
    let vocab = json["model"]["vocab"].as_object().unwrap();
    let lines: Vec<&str> = VOCAB.lines().collect();
    assert_eq!(lines.len(), vocab.len());
    for (token, id) in vocab {
        assert_eq!(lines[id.as_u64().unwrap() as usize], token);
    }
    let tokenizer = WordPiece::new(VOCAB).unwrap();
    assert_eq!(tokenizer.len(), vocab.len());
    assert_eq!(u64::from(tokenizer.unk()), vocab[UNK].as_u64().unwrap());
}

fn encode(tokenizer: &WordPiece, text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    tokenizer.encode(text, &mut out);
    out
}

#[test]
fn words_are_cut_into_the_longest_tokens_first() {
    let tokenizer = WordPiece::new(
        "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nplay\n##ing\n##s\np\n##lay\nun\n##play\n,\n",
    )
    .unwrap();
    assert_eq!(encode(&tokenizer, "Playing, plays"), [5, 6, 12, 5, 7]);
    assert_eq!(encode(&tokenizer, "pplay unplay"), [8, 11, 10, 11]);
    // A word the vocabulary cannot spell is one [UNK], whatever it could spell of it.
    assert_eq!(encode(&tokenizer, "playx"), [1]);
    assert_eq!(encode(&tokenizer, &"p".repeat(MAX_CHARS + 1)), [1]);
    assert_eq!(encode(&tokenizer, "[CLS]play[MASK]"), [2, 5, 4]);
    assert_eq!(encode(&tokenizer, "[cls]"), [1, 1, 1]);
}

#[test]
fn the_text_is_normalised_as_bert_does() {
    let normalized = |text: &str| {
        let mut out = String::new();
        normalize(text, &mut out);
        out
    };
    assert_eq!(normalized("Café\tNAÏVE\u{7}"), "cafe naive");
    assert_eq!(normalized("İ ß ﬁ"), "i ß ﬁ");
    assert_eq!(normalized("a\u{200b}b\u{a0}c"), "ab c");
    assert_eq!(normalized("東京x"), " 東  京 x");
    assert_eq!(
        words("gpt-4o, «x»").collect::<Vec<_>>(),
        ["gpt", "-", "4o", ",", "«", "x", "»"]
    );
}

#[test]
fn a_bad_vocabulary_says_what_is_wrong() {
    assert_eq!(WordPiece::new("a\n\nb\n").err(), Some(VocabError::Empty(2)));
    assert_eq!(
        WordPiece::new("a\nb\na\n").err(),
        Some(VocabError::Twice("a".into()))
    );
    assert_eq!(
        WordPiece::new("[PAD]\n[UNK]\n").err(),
        Some(VocabError::Missing("[MASK]"))
    );
}
