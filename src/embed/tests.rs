#![allow(clippy::unwrap_used)]

use super::*;

fn vector(text: &str) -> Vector {
    embed(text).unwrap_or_else(|| panic!("no vector for {text:?}"))
}

fn sim(a: &str, b: &str) -> f32 {
    similarity(&vector(a), &vector(b))
}

#[test]
fn the_model_loads() {
    load();
    assert_eq!(model().dim(), DIM);
}

#[test]
fn a_paraphrase_is_closer_than_an_unrelated_sentence() {
    let query = "keep notes in sync between laptop and phone";
    let paraphrase = sim(query, "synchronise my notebook across devices");
    let unrelated = sim(query, "the recipe needs two eggs");
    assert!(
        paraphrase > unrelated + 0.2,
        "paraphrase {paraphrase}, unrelated {unrelated}"
    );
}

#[test]
fn a_synonym_is_closer_than_an_unrelated_word() {
    for (word, synonym, other) in [
        ("car", "automobile", "banana"),
        ("big", "large", "yesterday"),
        ("doctor", "physician", "guitar"),
    ] {
        let near = sim(word, synonym);
        let far = sim(word, other);
        assert!(near > far, "{word}: {synonym} {near}, {other} {far}");
    }
}

/// The f32 model's cosines, which `scripts/model/derive.py` computed from the f32 matrix of
/// the package (`model/reference.json`), against this int8 model's: within 0.003.
#[test]
fn int8_scores_are_within_0_003_of_the_f32_model() {
    let reference: serde_json::Value =
        serde_json::from_str(include_str!("../../model/reference.json")).unwrap();
    let tokenizer = tokenizers::Tokenizer::from_bytes(TOKENIZER).unwrap();
    let pairs = reference["pairs"].as_array().unwrap();
    assert!(pairs.len() >= 5);
    for pair in pairs {
        let (a, b) = (pair["a"].as_str().unwrap(), pair["b"].as_str().unwrap());
        // The script tokenised as the model does: the same tokens were pooled.
        for (text, ids) in [(a, &pair["a_ids"]), (b, &pair["b_ids"])] {
            let ours: Vec<u64> = tokenizer
                .encode(text, false)
                .unwrap()
                .get_ids()
                .iter()
                .map(|&i| u64::from(i))
                .collect();
            let theirs: Vec<u64> = ids
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i.as_u64().unwrap())
                .collect();
            assert_eq!(ours, theirs, "the tokens of {text:?}");
        }
        let f32_cosine = pair["cosine"].as_f64().unwrap() as f32;
        let ours = sim(a, b);
        assert!(
            (ours - f32_cosine).abs() <= 0.003,
            "{a:?} / {b:?}: int8 {ours}, f32 {f32_cosine}"
        );
    }
}

#[test]
fn the_same_text_gives_the_same_vector() {
    let text = "Sparks keeps a wiki of Markdown pages.";
    let first = vector(text);
    assert_eq!(first, vector(text));
    assert_eq!(
        embed_all(&[text, "other", text]),
        vec![Some(first.clone()), embed("other"), Some(first.clone())]
    );
    assert!((similarity(&first, &first) - 1.0).abs() < 1e-5);
}

#[test]
fn a_vector_is_unit_length() {
    let v = vector("a vector of unit length").to_f32();
    let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-5, "{norm}");
}

#[test]
fn no_vector_for_empty_text_or_another_script() {
    for text in [
        "",
        "   \n\t",
        "123 456 !?",
        "知识库里的笔记需要同步",
        "Ελληνικά κείμενα",
        "🙂🙂",
    ] {
        assert_eq!(embed(text), None, "{text:?}");
    }
}

#[test]
fn the_letters_of_other_scripts_are_left_out() {
    assert_eq!(
        embed("sync my notes 知识库里的笔记需要同步"),
        embed("sync my notes")
    );
}

#[test]
fn a_long_text_is_read_to_its_end() {
    let filler = "the weather was mild and the garden grew. ".repeat(200);
    let a = vector(&format!("{filler} quantum chromodynamics"));
    let b = vector(&filler);
    assert_ne!(a, b, "the words after the 512th token count too");
}

#[test]
fn bytes_round_trip() {
    let v = vector("round trip through a blob");
    let bytes = v.to_bytes();
    assert_eq!(bytes.len(), BYTES);
    assert_eq!(Vector::from_bytes(&bytes), Ok(v));
}

#[test]
fn bad_bytes_say_what_is_wrong() {
    assert_eq!(Vector::from_bytes(&[0; 10]), Err(VectorError::Length(10)));
    assert_eq!(
        Vector::from_bytes(&[0; BYTES + 1]),
        Err(VectorError::Length(BYTES + 1))
    );
    let mut bytes = [0_u8; BYTES];
    bytes[..4].copy_from_slice(&f32::NAN.to_le_bytes());
    let err = Vector::from_bytes(&bytes).unwrap_err();
    assert!(err.to_string().contains("scale"), "{err}");
    bytes[..4].copy_from_slice(&(-1.0_f32).to_le_bytes());
    assert_eq!(Vector::from_bytes(&bytes), Err(VectorError::Scale(-1.0)));
}
