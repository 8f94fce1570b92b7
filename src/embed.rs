//! Text to meaning: the static embedding model compiled into the binary, and the vectors it
//! gives.
//!
//! The model is potion-base-8M (MinishLab, MIT; the notice is [`NOTICE`]): a vocabulary of
//! 29,528 English WordPiece tokens, each with a 256-dimensional vector; a text's vector is the
//! mean of its tokens' vectors, made unit length. Its files are in `model/potion-base-8M/`,
//! derived by `scripts/model/derive.py` (the embedding matrix quantised to int8 with one scale
//! per row) and compiled in with `include_bytes!`: nothing is read or fetched at run time. The
//! model is loaded on first use, once per process, in about a millisecond: the tokenizer's
//! vocabulary hashed into a table of ids (`wordpiece`, BERT's WordPiece written for Sparks),
//! the matrix used where it lies in the binary (`matrix`).
//!
//! A [`Vector`] is stored as 256 int8 components and one scale (260 bytes, [`Vector::to_bytes`]),
//! a quarter of the f32 form: a scan of every vector per query reads four times less memory, and
//! its scores are within about 0.002 of the f32 cosine.
//!
//! The model reads English (Latin script). Letters of other scripts are left out before it
//! reads a text, and a text with no Latin letter left, or no token the model knows, has no
//! vector ([`embed`] gives `None`): a page of Chinese is then not similar to anything, rather
//! than similar to every other page of Chinese through a handful of character vectors.

use std::sync::OnceLock;

use matrix::Matrix;
use wordpiece::WordPiece;

mod matrix;
mod wordpiece;

/// The number of components of a [`Vector`].
pub const DIM: usize = 256;

/// The size of [`Vector::to_bytes`]: the scale (f32, little-endian), then the components.
pub const BYTES: usize = 4 + DIM;

/// The model's licence (MIT) and where it comes from, to ship with the binary.
pub const NOTICE: &str = include_str!("../model/potion-base-8M/LICENSE");

/// The tokenizer's vocabulary, one token a line (`src/embed/wordpiece.rs`).
const VOCAB: &str = include_str!("../model/potion-base-8M/vocab.txt");
/// The int8 embedding matrix and its row scales, read in place (`src/embed/matrix.rs`).
const MATRIX: &[u8] = include_bytes!("../model/potion-base-8M/model.safetensors");

/// A text's meaning: a unit vector of [`DIM`] components, each `q[i] * scale`.
///
/// The components are the f32 unit vector quantised to int8 (the largest at ±127) and the
/// scale makes the int8 vector itself unit length, so [`similarity`] of a vector with itself
/// is 1.
#[derive(Clone, Debug, PartialEq)]
pub struct Vector {
    scale: f32,
    q: [i8; DIM],
}

/// Why bytes are not a [`Vector`].
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum VectorError {
    /// The bytes are not [`BYTES`] long.
    #[error("a vector is {BYTES} bytes, these are {0}")]
    Length(usize),
    /// The scale is not a finite number of at least 0.
    #[error("a vector's scale must be a finite number of at least 0, not {0}")]
    Scale(f32),
}

impl Vector {
    /// The vector of the direction of `v` (unit length or not), quantised: `None` when its
    /// components are all 0 or one is not finite.
    pub fn from_f32(v: &[f32; DIM]) -> Option<Vector> {
        let top = v.iter().fold(0.0_f32, |m, x| m.max(x.abs()));
        if !(top.is_finite() && top > 0.0) {
            return None;
        }
        let mut q = [0_i8; DIM];
        let mut squares = 0_i32;
        for (out, x) in q.iter_mut().zip(v) {
            // In [-127, 127] by construction: |x| <= top.
            *out = round(x / top * 127.0) as i8;
            squares += i32::from(*out) * i32::from(*out);
        }
        Some(Vector {
            scale: 1.0 / (squares as f32).sqrt(),
            q,
        })
    }

    /// The vector as [`BYTES`] bytes, for a SQLite blob: the scale (f32, little-endian), then
    /// the [`DIM`] int8 components.
    pub fn to_bytes(&self) -> [u8; BYTES] {
        let mut out = [0_u8; BYTES];
        out[..4].copy_from_slice(&self.scale.to_le_bytes());
        for (o, q) in out[4..].iter_mut().zip(self.q) {
            *o = q.to_le_bytes()[0];
        }
        out
    }

    /// The vector [`Vector::to_bytes`] wrote.
    pub fn from_bytes(bytes: &[u8]) -> Result<Vector, VectorError> {
        let (scale, rest) = bytes
            .split_first_chunk::<4>()
            .filter(|(_, rest)| rest.len() == DIM)
            .ok_or(VectorError::Length(bytes.len()))?;
        let scale = f32::from_le_bytes(*scale);
        if !(scale.is_finite() && scale >= 0.0) {
            return Err(VectorError::Scale(scale));
        }
        let mut q = [0_i8; DIM];
        for (o, b) in q.iter_mut().zip(rest) {
            *o = i8::from_le_bytes([*b]);
        }
        Ok(Vector { scale, q })
    }

    /// The int8 components (the vector is each times the scale).
    pub fn components(&self) -> &[i8; DIM] {
        &self.q
    }

    /// The components as f32 (unit length).
    pub fn to_f32(&self) -> [f32; DIM] {
        self.q.map(|q| f32::from(q) * self.scale)
    }
}

/// `x.round()` (half away from zero) for `|x|` under 2^23, in instructions every x86-64 has:
/// `f32::round` is a call into libm there (its instruction needs SSE4.1), once for each of a
/// vector's components. The truncation is exact, and so is `x` less it.
fn round(x: f32) -> f32 {
    let whole = x as i32 as f32;
    let rest = x - whole;
    // Without branches: a component's half is as likely up as down.
    whole + f32::from(u8::from(rest >= 0.5)) - f32::from(u8::from(rest <= -0.5))
}

/// The cosine of two vectors, in [-1, 1]: 1 for the same meaning, about 0 for unrelated ones.
///
/// A dot product of the int8 components in integers, then one multiplication by the scales.
pub fn similarity(a: &Vector, b: &Vector) -> f32 {
    dot(a, b).clamp(-1.0, 1.0)
}

/// The dot product of two vectors, as quantised: [`similarity`] before it is clamped to
/// [-1, 1] (a vector's with itself is 1 within a rounding).
pub fn dot(a: &Vector, b: &Vector) -> f32 {
    let dot: i32 =
        a.q.iter()
            .zip(&b.q)
            .map(|(x, y)| i32::from(*x) * i32::from(*y))
            .sum();
    dot as f32 * a.scale * b.scale
}

/// [`similarity`] of `a` and the vector whose [`Vector::to_bytes`] are `bytes`, read in place:
/// `None` when the bytes are no vector (see [`Vector::from_bytes`]).
pub fn similarity_to_bytes(a: &Vector, bytes: &[u8]) -> Option<f32> {
    let (scale, q) = in_place(bytes)?;
    Some(similarity_to(a, scale, q))
}

/// The scale and components of the vector whose [`Vector::to_bytes`] are `bytes`, read in
/// place: `None` when the bytes are no vector (see [`Vector::from_bytes`]).
pub fn in_place(bytes: &[u8]) -> Option<(f32, &[u8; DIM])> {
    let (scale, rest) = bytes.split_first_chunk::<4>()?;
    let q: &[u8; DIM] = rest.try_into().ok()?;
    let scale = f32::from_le_bytes(*scale);
    (scale.is_finite() && scale >= 0.0).then_some((scale, q))
}

/// A vector's components widened to 16 bits, and its scale: a query compared with many vectors
/// read [`in_place`] ([`Widened::similarity_to`]), the widening done once.
#[derive(Debug, Clone)]
pub struct Widened {
    scale: f32,
    q: [i16; DIM],
}

impl Widened {
    /// `v`, widened.
    pub fn of(v: &Vector) -> Widened {
        Widened {
            scale: v.scale,
            q: v.q.map(i16::from),
        }
    }

    /// [`similarity`] of this vector and one read [`in_place`]: the same number as
    /// [`similarity_to`].
    pub fn similarity_to(&self, scale: f32, q: &[u8; DIM]) -> f32 {
        let dot: i32 = self
            .q
            .iter()
            .zip(q)
            .map(|(x, y)| i32::from(*x) * i32::from(i16::from(y.cast_signed())))
            .sum();
        (dot as f32 * self.scale * scale).clamp(-1.0, 1.0)
    }
}

impl Widened {
    /// A vector read [`in_place`], widened: to compare with several queries, widened once.
    pub fn of_bytes(scale: f32, q: &[u8; DIM]) -> Widened {
        Widened {
            scale,
            q: q.map(|b| i16::from(b.cast_signed())),
        }
    }

    /// [`similarity`] of two widened vectors: the same number as [`Widened::similarity_to`].
    pub fn similarity(&self, other: &Widened) -> f32 {
        let dot: i32 = self
            .q
            .iter()
            .zip(&other.q)
            .map(|(x, y)| i32::from(*x) * i32::from(*y))
            .sum();
        (dot as f32 * self.scale * other.scale).clamp(-1.0, 1.0)
    }
}

/// Vectors summed: their direction is what they mean together (a page's sections' vectors:
/// the page's meaning, as `related` and `near-duplicates` take it).
#[derive(Debug, Clone)]
pub struct Sum([f32; DIM]);

impl Default for Sum {
    fn default() -> Self {
        Sum([0.0; DIM])
    }
}

impl Sum {
    /// Add the vector read [`in_place`] with this scale and these components.
    pub fn add_in_place(&mut self, scale: f32, q: &[u8; DIM]) {
        for (s, b) in self.0.iter_mut().zip(q) {
            *s += f32::from(b.cast_signed()) * scale;
        }
    }

    /// Add a vector.
    pub fn add(&mut self, v: &Vector) {
        for (s, q) in self.0.iter_mut().zip(v.q) {
            *s += f32::from(q) * v.scale;
        }
    }

    /// The direction of the sum: `None` when nothing but zeros was added.
    pub fn direction(&self) -> Option<Vector> {
        Vector::from_f32(&self.0)
    }
}

/// [`similarity`] of `a` and a vector read [`in_place`].
pub fn similarity_to(a: &Vector, scale: f32, q: &[u8; DIM]) -> f32 {
    let dot: i32 =
        a.q.iter()
            .zip(q)
            .map(|(x, y)| i32::from(*x) * i32::from(y.cast_signed()))
            .sum();
    (dot as f32 * a.scale * scale).clamp(-1.0, 1.0)
}

/// The model: its tokenizer and its matrix.
struct Model {
    tokenizer: WordPiece,
    matrix: Matrix,
}

thread_local! {
    /// A text's token ids, kept between texts.
    static IDS: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Model {
    /// The model of the compiled-in files.
    fn new() -> Result<Model, String> {
        let tokenizer = WordPiece::new(VOCAB).map_err(|e| e.to_string())?;
        let matrix = Matrix::new(MATRIX).map_err(|e| e.to_string())?;
        if tokenizer.len() != matrix.rows() {
            return Err(format!(
                "{} tokens but {} rows",
                tokenizer.len(),
                matrix.rows()
            ));
        }
        Ok(Model { tokenizer, matrix })
    }

    /// The unit mean of the vectors of `text`'s known tokens; all zeros when it has none.
    fn mean(&self, text: &str) -> [f32; DIM] {
        IDS.with_borrow_mut(|ids| {
            ids.clear();
            self.tokenizer.encode(text, ids);
            let unk = self.tokenizer.unk();
            ids.retain(|&id| id != unk);
            self.matrix.mean(ids)
        })
    }
}

/// The model, loaded on first use.
fn model() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    MODEL.get_or_init(|| {
        // The files are compiled in and their loading is tested (`tests::the_model_loads`):
        // a failure here is a build that lost them, not anything a user did.
        Model::new().unwrap_or_else(|e| {
            panic!("the embedding model compiled in from model/potion-base-8M/ loads: {e}")
        })
    })
}

/// Load the model now rather than on the first [`embed`] (it takes about a millisecond).
pub fn load() {
    model();
}

/// Whether `c` is a letter of a script other than Latin (Greek, Cyrillic, CJK, Arabic, …).
fn other_script(c: char) -> bool {
    c.is_alphabetic() && !matches!(c, '\0'..='\u{24F}' | '\u{1E00}'..='\u{1EFF}')
}

/// `text` with the letters of other scripts left out, if it has a Latin letter.
fn latin(text: &str) -> Option<String> {
    if !text.chars().any(|c| c.is_alphabetic() && !other_script(c)) {
        return None;
    }
    Some(
        text.chars()
            .map(|c| if other_script(c) { ' ' } else { c })
            .collect(),
    )
}

/// The meaning of `text` (all of it: a long text is not cut short), or `None` when it has no
/// Latin letter or no token the model knows (an empty text, a text in another script).
pub fn embed(text: &str) -> Option<Vector> {
    let text = latin(text)?;
    Vector::from_f32(&model().mean(&text))
}

/// [`embed`] of every text, in order, shared out over the cores (`crate::par`): for a scan
/// that embeds many pages at once.
pub fn embed_all<T: AsRef<str> + Sync>(texts: &[T]) -> Vec<Option<Vector>> {
    model();
    crate::par::par_map_on(
        texts,
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        16,
        |t| embed(t.as_ref()),
    )
}

#[cfg(test)]
mod tests;
