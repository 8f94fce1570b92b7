#![allow(clippy::unwrap_used)]

use std::path::Path;

use serde_json::{Value, json};

use super::matrix::{Matrix, MatrixError};
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
    assert_eq!(model().tokenizer.len(), 29_528);
    assert_eq!(model().matrix.rows(), 29_528);
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
    let pairs = reference["pairs"].as_array().unwrap();
    assert!(pairs.len() >= 5);
    for pair in pairs {
        let (a, b) = (pair["a"].as_str().unwrap(), pair["b"].as_str().unwrap());
        // The script tokenised as the model does: the same tokens were pooled.
        for (text, want) in [(a, &pair["a_ids"]), (b, &pair["b_ids"])] {
            let ours: Vec<u64> = ids(text).into_iter().map(u64::from).collect();
            let theirs: Vec<u64> = want
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

// The embedding's reference: for every text of a fixed set, a hash of its token ids and of its
// [`Vector`]'s bytes as the model2vec-rs and `tokenizers` crates gave them before Sparks'
// own tokenizer replaced them (`reference.json`). The tokenizer and the pooling must give the
// same ids and the same bytes, bit for bit.
//
// Two parts: hand-written texts (stored with the fixture, always checked), and the queries and
// the first pages (their first 300 characters) of the four evaluation collections in
// `/tmp/evd/`, stored only by collection, id and range (their text is not Sparks' to ship): that
// part is checked where the collections are, and skipped with a note elsewhere.
//
// `SPARKS_WRITE_EMBED_REFERENCE=1 cargo test --lib embed::tests` writes the fixture again.

const FIXTURE: &str = "src/embed/reference.json";
const COLLECTIONS: [&str; 4] = ["cranfield", "cisi", "cacm", "scifact"];
/// The pages of each collection that are checked, in the order of its `pages`.
const PAGES: usize = 600;
/// The characters of a page that are checked, from its start.
const CHARS: usize = 300;

/// The hand-written texts: what a tokenizer and a normaliser get wrong.
fn hand_written() -> Vec<String> {
    let mut texts: Vec<String> = [
        "",
        " ",
        "   \n\t  ",
        "\u{3000}\u{00a0}",
        "Hello, world!",
        "The QUICK brown fox jumps over the lazy dog.",
        "café résumé naïve fiancé Zoë Saldaña",
        "CAFÉ NAÏVE Ünïçödé ACCENTS",
        "e\u{0301} a\u{0300} n\u{0303} x\u{0323}\u{0301}y a\u{0301}\u{0323}b",
        "Straße STRASSE straße GROSS groß",
        "İstanbul ISTANBUL ıi",
        "ﬁle ﬀ ﬄ ﬃ œuvre Æsir",
        "ＦＵＬＬＷＩＤＴＨ ａｂｃ １２３",
        "hello 👋 world 🌍 🙂🙂 🥰 party🎉 🔥emoji",
        "family 👨‍👩‍👧 ZWJ 🇺🇸 flags 👍🏽",
        "你好world世界 sync my notes 知识库里的笔记需要同步",
        "東京Tokyo 一鿿㐀䶿 𠀀 𪛖 豈 mixed",
        "こんにちは カタカナ 안녕하세요 Seoul",
        "Ελληνικά κείμενα and Greek ΟΔΟΣ Σίσυφος",
        "Кириллица СЛОВО and Russian text",
        "ÉCOLE\nÜBER\r\nСЛОВО 東京Tokyo",
        "a\u{0007}b\u{0000}c a\u{000b}b\u{000c}c a\u{007f}b a\u{200b}b\u{feff}c a\u{fffd}b",
        "a\u{00a0}b\u{2009}c\u{0085}d\u{2028}e",
        "\u{0001}\u{0002}\u{0003}",
        "q\u{1D16D}\u{0001}\u{1D165}z x\u{0301}\u{0001}\u{0323}y",
        "Ab\u{00C0}\u{0007}C\td\u{3000}E\u{00A0}f",
        "supercalifragilisticexpialidocious antidisestablishmentarianism",
        "internationalization preprocessing tokenization playing",
        "gpt-4o GPT-4o-mini o1-preview claude-3.5-sonnet",
        "https://example.com/path/to/page?query=1&x=y#frag email@example.com",
        "C++ C# F# .NET node.js $5.00 <html> #hashtag @mention",
        "123 456.78 -90 1e10 3.14159 1,000,000 0x1F 2026-12-07 06:50",
        "don't can't won't it's O'Reilly rock 'n' roll l'été",
        "e.g., i.e. U.S.A. etc. vs. Mr. Dr.",
        "# Heading\n\n- item *emph* **bold** `code` [link](http://x.y) > quote\n| a | b |\n|---|---|",
        "!!!??? ((())) [a]{b} ... --- ___ ***",
        "«guillemets» \u{201c}smart\u{201d} \u{2018}quotes\u{2019} em—dash en–dash …ellipsis",
        "a≤b x→y n≠m ±5 °C µm Å Ω",
        "$100 €50 £20 ¥30 ₹40 ₿1",
        "ᚠᚢᚦ 𐐀𐐁 zzqxjk qwxz",
        "क्षत्रि Devanagari marks",
        "hello [MASK] world [mask] [CLS] hi [SEP] [PAD][UNK][MASK] foo[SEP]bar text[MASK]here",
        "[unk] [Cls] lowercase specials",
        "MiXeD CaSe WoRdS 42",
        "keep notes in sync between laptop and phone",
        "  leading and trailing  ",
    ]
    .map(String::from)
    .into();
    texts.push("a".repeat(100));
    texts.push("a".repeat(101));
    texts.push(format!("short {} words after", "b".repeat(150)));
    texts.push("é".repeat(100));
    texts.push("é".repeat(101));
    texts.push("字".repeat(200));
    texts.push("the weather was mild and the garden grew. ".repeat(200));
    texts
}

/// The token ids of `text` as the tokenizer gives them (unknown words as the unk id).
fn ids(text: &str) -> Vec<u32> {
    let mut ids = Vec::new();
    model().tokenizer.encode(text, &mut ids);
    ids
}

/// A short hash: the first 12 hex digits of BLAKE3.
fn hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex()[..12].to_string()
}

/// `[hash of the token ids, hash of the vector's bytes or "none"]`.
fn digest(text: &str) -> Value {
    let ids: Vec<u8> = ids(text).iter().flat_map(|i| i.to_le_bytes()).collect();
    let vector = embed(text).map_or("none".to_string(), |v| hash(&v.to_bytes()));
    json!([hash(&ids), vector])
}

/// The first `n` characters of `text`.
fn prefix(text: &str, n: usize) -> &str {
    text.char_indices().nth(n).map_or(text, |(i, _)| &text[..i])
}

/// The texts of one collection: (`q:` and the query's id, or `p:` and the page's path; text).
fn collection(name: &str) -> Option<Vec<(String, String)>> {
    let dir = Path::new("/tmp/evd").join(name);
    let json: Value =
        serde_json::from_str(&fs_err::read_to_string(dir.join("collection.json")).ok()?).ok()?;
    let mut out = Vec::new();
    for (id, text) in json["queries"].as_object()? {
        out.push((format!("q:{id}"), text.as_str()?.to_string()));
    }
    for path in json["pages"].as_object()?.keys().take(PAGES) {
        let text = fs_err::read_to_string(dir.join("vault").join(path)).ok()?;
        out.push((format!("p:{path}"), prefix(&text, CHARS).to_string()));
    }
    Some(out)
}

fn write_fixture() {
    let hand: Vec<Value> = hand_written()
        .iter()
        .map(|t| json!([t, digest(t)]))
        .collect();
    let mut collections = serde_json::Map::new();
    for name in COLLECTIONS {
        let texts =
            collection(name).unwrap_or_else(|| panic!("/tmp/evd/{name} is needed to write"));
        let entries: serde_json::Map<String, Value> = texts
            .iter()
            .map(|(key, text)| (key.clone(), digest(text)))
            .collect();
        collections.insert(name.to_string(), Value::Object(entries));
    }
    let fixture = json!({
        "about": "token ids and vector bytes (BLAKE3, 12 hex digits) of model2vec-rs 0.4 + tokenizers 0.21; src/embed/tests.rs",
        "page_chars": CHARS,
        "hand_written": hand,
        "collections": collections,
    });
    let text = serde_json::to_string(&fixture)
        .unwrap()
        .replace("],[", "],\n[")
        .replace("],\"", "],\n\"");
    fs_err::write(FIXTURE, text + "\n").unwrap();
}

fn fixture() -> Value {
    serde_json::from_str(include_str!("reference.json")).unwrap()
}

/// The differences between `want` (a fixture's digest) and this build's, for one text.
fn compare(
    label: &str,
    text: &str,
    want: &Value,
    ids_differ: &mut Vec<String>,
    vectors_differ: &mut Vec<String>,
) {
    let got = digest(text);
    if got[0] != want[0] {
        ids_differ.push(format!("{label}: {text:?}"));
    }
    if got[1] != want[1] {
        vectors_differ.push(format!("{label}: {text:?}"));
    }
}

#[test]
fn hand_written_texts_give_the_reference_ids_and_vectors() {
    if std::env::var_os("SPARKS_WRITE_EMBED_REFERENCE").is_some() {
        write_fixture();
    }
    let fixture = fixture();
    let cases = fixture["hand_written"].as_array().unwrap();
    let texts = hand_written();
    assert_eq!(
        cases.len(),
        texts.len(),
        "the fixture has every hand-written text"
    );
    let (mut ids_differ, mut vectors_differ) = (Vec::new(), Vec::new());
    for (case, text) in cases.iter().zip(&texts) {
        assert_eq!(case[0].as_str(), Some(text.as_str()));
        compare(
            "hand-written",
            text,
            &case[1],
            &mut ids_differ,
            &mut vectors_differ,
        );
    }
    assert!(
        ids_differ.is_empty(),
        "token ids differ:\n{}",
        ids_differ.join("\n")
    );
    assert!(
        vectors_differ.is_empty(),
        "vectors differ:\n{}",
        vectors_differ.join("\n")
    );
}

#[test]
fn the_collections_give_the_reference_ids_and_vectors() {
    let fixture = fixture();
    let (mut ids_differ, mut vectors_differ, mut checked) = (Vec::new(), Vec::new(), 0);
    for name in COLLECTIONS {
        let Some(texts) = collection(name) else {
            println!("skipped: /tmp/evd/{name} is not on this machine");
            continue;
        };
        let want = fixture["collections"][name].as_object().unwrap();
        assert_eq!(
            want.len(),
            texts.len(),
            "{name}: the fixture has every text"
        );
        for (key, text) in &texts {
            compare(
                &format!("{name} {key}"),
                text,
                &want[key],
                &mut ids_differ,
                &mut vectors_differ,
            );
            checked += 1;
        }
    }
    println!("checked {checked} collection texts");
    assert!(
        ids_differ.is_empty(),
        "token ids differ ({}):\n{}",
        ids_differ.len(),
        ids_differ.join("\n")
    );
    assert!(
        vectors_differ.is_empty(),
        "vectors differ ({}):\n{}",
        vectors_differ.len(),
        vectors_differ.join("\n")
    );
}

/// A safetensors file of `header` (JSON) and `data`, leaked for the `'static` the matrix needs.
fn safetensors(header: &Value, data: &[u8]) -> &'static [u8] {
    let header = serde_json::to_vec(header).unwrap();
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend(header);
    bytes.extend(data);
    bytes.leak()
}

#[test]
fn the_matrix_is_read_in_place_and_pooled_as_a_unit_mean() {
    let matrix = Matrix::new(MATRIX).unwrap();
    assert_eq!(matrix.rows(), 29_528);
    // The model's config asks for what `Matrix::mean` does: unit vectors of DIM components.
    let config: Value =
        serde_json::from_str(include_str!("../../model/potion-base-8M/config.json")).unwrap();
    assert_eq!(
        (&config["normalize"], &config["hidden_dim"]),
        (&json!(true), &json!(DIM))
    );
    // Borrowed, not copied: the rows are the compiled-in bytes.
    assert!(
        MATRIX
            .as_ptr_range()
            .contains(&matrix.row(5).as_ptr().cast())
    );
    // Two rows of a hand-made matrix: row 0 all 1 (scale 2), row 1 all -1 (scale 1).
    let mut data = vec![1_u8; DIM];
    data.extend(vec![(-1_i8).cast_unsigned(); DIM]);
    data.extend(2.0_f32.to_le_bytes());
    data.extend(1.0_f32.to_le_bytes());
    let header = json!({
        "embeddings": {"dtype": "I8", "shape": [2, DIM], "data_offsets": [0, 2 * DIM]},
        "weights": {"dtype": "F32", "shape": [2], "data_offsets": [2 * DIM, 2 * DIM + 8]},
    });
    let small = Matrix::new(safetensors(&header, &data)).unwrap();
    let unit = 1.0 / (DIM as f32).sqrt();
    assert_eq!(small.mean(&[0, 1, 0]), [unit; DIM]);
    assert_eq!(small.mean(&[1]), [-unit; DIM]);
    assert_eq!(small.mean(&[]), [0.0; DIM]);
}

#[test]
fn a_bad_matrix_says_what_is_wrong() {
    assert_eq!(
        Matrix::new(&[1, 2]).err(),
        Some(MatrixError::Short("no header length"))
    );
    let short: &'static [u8] = safetensors(&json!({}), &[]).split_last().unwrap().1;
    assert_eq!(
        Matrix::new(short).err(),
        Some(MatrixError::Short("the header"))
    );
    let bad_json: &'static [u8] = b"\x02\0\0\0\0\0\0\0{]";
    assert!(matches!(Matrix::new(bad_json), Err(MatrixError::Header(_))));
    let header = |dtype: &str, end: usize| {
        json!({
            "embeddings": {"dtype": dtype, "shape": [1, DIM], "data_offsets": [0, DIM]},
            "weights": {"dtype": "F32", "shape": [1], "data_offsets": [DIM, end]},
        })
    };
    let data = vec![0_u8; DIM + 4];
    let matrix = |dtype: &str, end: usize| Matrix::new(safetensors(&header(dtype, end), &data));
    let bad_tensor = |dtype: &str, end: usize| match matrix(dtype, end) {
        Err(MatrixError::Tensor { name, .. }) => name,
        other => panic!("{:?}", other.err()),
    };
    assert!(matrix("I8", DIM + 4).is_ok());
    assert_eq!(bad_tensor("F16", DIM + 4), "embeddings");
    assert_eq!(bad_tensor("I8", DIM + 2), "weights");
    assert_eq!(
        matrix("I8", DIM + 8).err(),
        Some(MatrixError::Short("weights"))
    );
}

#[test]
fn a_widened_query_scores_as_the_vector_does() {
    let texts = [
        "keep files the same on two computers",
        "two eggs and butter",
        "compost",
    ];
    let vectors: Vec<Vector> = texts.iter().filter_map(|t| embed(t)).collect();
    assert_eq!(vectors.len(), 3);
    for a in &vectors {
        let wide = Widened::of(a);
        for b in &vectors {
            let bytes = b.to_bytes();
            let (scale, q) = in_place(&bytes).unwrap();
            assert_eq!(wide.similarity_to(scale, q), similarity(a, b));
            assert_eq!(similarity_to_bytes(a, &bytes), Some(similarity(a, b)));
        }
    }
    assert_eq!(in_place(&[0_u8; 3]), None, "too short");
}

#[test]
fn rounding_is_f32_round_for_every_quantised_value() {
    // Every component a quantisation gives is in [-127, 127]: each step of a 1/64 there, the
    // halves and the values a hair either side of them.
    let mut x = -127.0_f32;
    while x <= 127.0 {
        for y in [x, x.next_down(), x.next_up()] {
            assert_eq!(super::round(y), y.round(), "{y}");
        }
        x += 1.0 / 64.0;
    }
    for y in [
        0.5_f32,
        -0.5,
        0.49999997,
        -0.49999997,
        126.5,
        -126.5,
        0.0,
        -0.0,
    ] {
        assert_eq!(super::round(y), y.round(), "{y}");
    }
}

#[test]
fn two_widened_vectors_compare_as_a_widened_query_compares_bytes() {
    let a = vector("keep the laptop and the phone in sync");
    let b = vector("synchronise my notebook across computers");
    let bytes = b.to_bytes();
    let (scale, q) = super::in_place(&bytes).expect("a vector's bytes");
    let query = super::Widened::of(&a);
    assert_eq!(
        query.similarity(&super::Widened::of_bytes(scale, q)),
        query.similarity_to(scale, q)
    );
    assert_eq!(query.similarity_to(scale, q), super::similarity(&a, &b));
}
