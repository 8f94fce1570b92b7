//! The model's embedding matrix, read in place from the compiled-in `model.safetensors`: the
//! int8 rows (`embeddings`, one per token) and their f32 scales (`weights`), neither copied.
//!
//! A safetensors file is an 8-byte little-endian length, a JSON header of that length naming
//! each tensor's dtype, shape and byte range (`data_offsets`, from the end of the header), then
//! the tensors' bytes.

use serde::Deserialize;

use super::DIM;

/// The rows [`Matrix::mean`] adds in one pass.
const BLOCK: usize = 8;

/// Why bytes are not the model's matrix.
#[derive(Debug, thiserror::Error, PartialEq)]
pub(super) enum MatrixError {
    /// The file is shorter than its header says.
    #[error("model.safetensors is cut short: {0}")]
    Short(&'static str),
    /// The header is not the JSON of a safetensors header.
    #[error("model.safetensors' header is not valid: {0}")]
    Header(String),
    /// A tensor is missing, or not of the dtype and shape the model needs.
    #[error("model.safetensors' tensor {name:?} is not {want}")]
    Tensor {
        /// The tensor's name.
        name: &'static str,
        /// What it must be.
        want: String,
    },
}

/// One tensor's entry in the header.
#[derive(Deserialize)]
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: [usize; 2],
}

/// The matrix: a row of [`DIM`] int8 components per token, and the token's scale.
pub(super) struct Matrix {
    /// The rows, one after another (`rows * DIM` bytes, each an i8).
    embeddings: &'static [u8],
    /// The scales, f32 little-endian (`rows * 4` bytes).
    weights: &'static [u8],
}

impl Matrix {
    /// The matrix of the safetensors file `bytes`, which must hold `embeddings` (I8, rows ×
    /// [`DIM`]) and `weights` (F32, rows).
    pub(super) fn new(bytes: &'static [u8]) -> Result<Matrix, MatrixError> {
        let (len, rest) = bytes
            .split_first_chunk::<8>()
            .ok_or(MatrixError::Short("no header length"))?;
        let len = usize::try_from(u64::from_le_bytes(*len))
            .map_err(|_| MatrixError::Short("the header length"))?;
        let (header, data) =
            (rest.split_at_checked(len)).ok_or(MatrixError::Short("the header"))?;
        let mut header: std::collections::HashMap<String, serde_json::Value> =
            serde_json::from_slice(header).map_err(|e| MatrixError::Header(e.to_string()))?;
        let mut tensor = |name: &'static str, dtype: &str, shape: &dyn Fn(&[usize]) -> bool| {
            let want = || MatrixError::Tensor {
                name,
                want: format!("{dtype} of the shape the model needs"),
            };
            let entry: Entry = header
                .remove(name)
                .and_then(|v| serde_json::from_value(v).ok())
                .ok_or_else(want)?;
            if entry.dtype != dtype || !shape(&entry.shape) {
                return Err(want());
            }
            let [start, end] = entry.data_offsets;
            let size: usize =
                entry.shape.iter().product::<usize>() * if dtype == "F32" { 4 } else { 1 };
            match data.get(start..end) {
                Some(b) if b.len() == size => Ok((entry.shape[0], b)),
                Some(_) => Err(want()),
                None => Err(MatrixError::Short(name)),
            }
        };
        let (rows, embeddings) = tensor("embeddings", "I8", &|s| matches!(s, [_, DIM]))?;
        let (scales, weights) = tensor("weights", "F32", &|s| s.len() == 1)?;
        if scales != rows {
            return Err(MatrixError::Tensor {
                name: "weights",
                want: format!("one scale for each of the {rows} rows"),
            });
        }
        Ok(Matrix {
            embeddings,
            weights,
        })
    }

    /// The number of rows (tokens).
    pub(super) fn rows(&self) -> usize {
        self.embeddings.len() / DIM
    }

    /// The row of token `id`: [`DIM`] bytes, each an i8, where they lie in the file (zeros
    /// past the last row).
    pub(super) fn row(&self, id: usize) -> &'static [u8; DIM] {
        self.embeddings
            .get(id * DIM..)
            .and_then(|rest| rest.first_chunk::<DIM>())
            .unwrap_or(&[0; DIM])
    }

    /// The row of token `id` and its scale.
    fn scaled_row(&self, id: u32) -> (&'static [u8; DIM], f32) {
        let id = id as usize;
        let scale = self.weights[id * 4..id * 4 + 4]
            .first_chunk::<4>()
            .map_or(0.0, |b| f32::from_le_bytes(*b));
        (self.row(id), scale)
    }

    /// The mean of the rows of `ids` (each times its scale), made unit length, as model2vec
    /// computes it: each row added in turn, divided by the number of rows, then by the norm.
    /// All zeros when `ids` is empty. Every id must be below [`Matrix::rows`].
    pub(super) fn mean(&self, ids: &[u32]) -> [f32; DIM] {
        let mut sum = [0.0_f32; DIM];
        // Eight rows a pass over `sum`, each component still added row by row in token order
        // (`((s + a) + b) + …`): the same floats as one row a pass, in fewer loads and stores.
        let mut blocks = ids.chunks_exact(BLOCK);
        for block in &mut blocks {
            let rows: [(&[u8; DIM], f32); BLOCK] =
                std::array::from_fn(|k| self.scaled_row(block[k]));
            for (j, s) in sum.iter_mut().enumerate() {
                *s = rows.iter().fold(*s, |s, (row, scale)| {
                    s + f32::from(row[j].cast_signed()) * scale
                });
            }
        }
        for &id in blocks.remainder() {
            let (row, scale) = self.scaled_row(id);
            for (s, &q) in sum.iter_mut().zip(row) {
                *s += f32::from(q.cast_signed()) * scale;
            }
        }
        let count = ids.len().max(1) as f32;
        let mut squares = 0.0_f32;
        for x in &mut sum {
            *x /= count;
            squares += *x * *x;
        }
        let norm = squares.sqrt().max(1e-12);
        for x in &mut sum {
            *x /= norm;
        }
        sum
    }
}
