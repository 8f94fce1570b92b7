//! Pairs of pages whose meanings nearly coincide, found without comparing every page with
//! every other. Each page's meaning is the direction of its sections' vectors summed; it is
//! hashed by the signs of its components less the vault's mean, in [`TABLES`] groups of
//! [`BITS`] components, and only pages that share a group's hash are compared
//! (locality-sensitive hashing by hyperplanes: two directions `θ` apart fall on one side of a
//! hyperplane with a probability of about `1 - θ/π`). A pair 0.95 similar shares one of the
//! 16 hashes of 16 signs with a probability of about 0.96, a pair 0.98 similar all but
//! surely; two unrelated pages rarely share any, and those that do are mostly told apart by
//! all their signs before their vectors are read. At 100,000 pages it takes about 250 ms,
//! half of it reading the vectors.

use super::scan_tx::section_of;
use super::{Manifest, Result};
use crate::embed::{DIM, Sum, Vector, dot as dot_of, in_place};
use std::collections::BTreeMap;

/// Two pages and the cosine of their meanings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Twin {
    /// One page's rowid (the smaller).
    pub a: i64,
    /// The other's.
    pub b: i64,
    /// The cosine of their meanings less what every page's shares (1 is the same meaning).
    pub similarity: f32,
}

/// Components a hash is made of (a `u16`, a quarter of a 64-bit word of signs).
const BITS: usize = 16;
/// Hashes of each page: every component is in one.
const TABLES: usize = DIM / BITS;
/// The pages after it, in rowid order, that a page is compared with in a group of pages that
/// share a hash (a large group holds pages alike in most directions, such as many stubs).
const GROUP: usize = 64;
/// How many pages the mean taken off every page counts as, less than it is of: see [`Centred`].
const SHRINK: f32 = 20.0;

impl Manifest {
    /// Every page's meaning: the direction of its sections' vectors summed, by rowid (pages
    /// with no vector left out).
    pub fn page_meanings(&self) -> Result<Vec<(i64, Vector)>> {
        let mut out = Vec::new();
        let mut current: Option<(i64, Sum)> = None;
        let settle = |page: Option<(i64, Sum)>, out: &mut Vec<(i64, Vector)>| {
            if let Some((file, sum)) = page
                && let Some(v) = sum.direction()
            {
                out.push((file, v));
            }
        };
        self.each_section(&mut |id, bytes| {
            let Some((scale, q)) = in_place(bytes) else {
                return;
            };
            let (file, _) = section_of(id);
            if current.as_ref().is_none_or(|(f, _)| *f != file) {
                settle(current.replace((file, Sum::default())), &mut out);
            }
            if let Some((_, sum)) = current.as_mut() {
                sum.add_in_place(scale, q);
            }
        })?;
        settle(current, &mut out);
        Ok(out)
    }

    /// Pairs of pages whose meanings are at least `floor` similar (a pair may be missed, as
    /// the module says; one more similar is less likely to be), by rowid.
    pub fn near_twins(&self, floor: f32) -> Result<Vec<Twin>> {
        Ok(twins(&self.page_meanings()?, floor))
    }
}

/// The pairs of `pages` at least `floor` similar, compared less what they share with every
/// page ([`Centred`]), that share a hash, by rowid.
fn twins(pages: &[(i64, Vector)], floor: f32) -> Vec<Twin> {
    if pages.len() < 2 {
        return Vec::new();
    }
    let centred = Centred::of(pages);
    let differ = most_signs_apart(floor);
    let mut found: BTreeMap<(usize, usize), f32> = BTreeMap::new();
    let mut order: Vec<usize> = vec![0; pages.len()];
    let mut starts = vec![0_usize; 1 << BITS];
    for t in 0..TABLES {
        // Table `t`'s hash: its BITS signs, from the 64-bit word that holds them.
        let key =
            |i: usize| usize::from((centred.signs[i][t * BITS / 64] >> (t * BITS % 64)) as u16);
        // The pages by hash, each hash's in rowid order (a counting sort).
        starts.fill(0);
        for i in 0..pages.len() {
            starts[key(i)] += 1;
        }
        let mut at = 0;
        for s in &mut starts {
            (*s, at) = (at, at + *s);
        }
        for i in 0..pages.len() {
            let k = key(i);
            order[starts[k]] = i;
            starts[k] += 1;
        }
        for group in order.chunk_by(|&i, &j| key(i) == key(j)) {
            for (n, &i) in group.iter().enumerate() {
                for &j in group[n + 1..].iter().take(GROUP) {
                    // Most pairs are told apart by their signs alone, read from 32 bytes a
                    // page that stay in the cache; the vectors are read for the rest.
                    if centred.signs_apart(i, j) > differ || found.contains_key(&(i, j)) {
                        continue;
                    }
                    let s = centred.similarity(pages, i, j);
                    if s >= floor {
                        found.insert((i, j), s);
                    }
                }
            }
        }
    }
    found
        .into_iter()
        .map(|((i, j), similarity)| Twin {
            a: pages[i].0,
            b: pages[j].0,
            similarity,
        })
        .collect()
}

/// The most of a page's [`DIM`] signs that may differ from another's when the two are at
/// least `floor` similar, but for a chance in tens of thousands: two directions `θ` apart
/// differ in each sign with a probability of about `θ/π`; four standard deviations above.
fn most_signs_apart(floor: f32) -> u32 {
    let p = floor.clamp(-1.0, 1.0).acos() / std::f32::consts::PI;
    let n = DIM as f32;
    (n * p + 4.0 * (n * p * (1.0 - p)).sqrt()).ceil() as u32
}

/// Pages with vectors the model gives any text: long pages' meanings all lean one way (the
/// mean of many words), so that two pages on unrelated subjects may be 0.9 similar. Each page
/// is compared less the pages' mean, weighed by how many pages it is the mean of (`n / (n +
/// SHRINK)`): a vault of a few pages is compared as it is, one of hundreds by what sets its
/// pages apart. Nothing is quantised again: the cosine of two pages less the mean `m` is
/// `(a·b − a·m − b·m + m·m) / (|a − m| |b − m|)`, from their vectors' own dot product.
struct Centred {
    /// The sign of each component of each page less the mean, a bit each.
    signs: Vec<[u64; DIM / 64]>,
    /// Each page's `a·m`.
    dot_mean: Vec<f32>,
    /// Each page's `|a − m|`.
    length: Vec<f32>,
    /// `m·m`.
    mean_squared: f32,
}

impl Centred {
    fn of(pages: &[(i64, Vector)]) -> Centred {
        let mut mean = [0.0_f32; DIM];
        for (_, v) in pages {
            for (m, x) in mean.iter_mut().zip(v.to_f32()) {
                *m += x;
            }
        }
        let weight = 1.0 / (pages.len() as f32 + SHRINK);
        for m in &mut mean {
            *m *= weight;
        }
        let mean_squared: f32 = mean.iter().map(|m| m * m).sum();
        let mut signs = Vec::with_capacity(pages.len());
        let mut dot_mean = Vec::with_capacity(pages.len());
        let mut length = Vec::with_capacity(pages.len());
        for (_, v) in pages {
            let f = v.to_f32();
            let mut bits = [0_u64; DIM / 64];
            let mut dot = 0.0_f32;
            for (d, (x, m)) in f.iter().zip(&mean).enumerate() {
                bits[d / 64] |= u64::from(x > m) << (d % 64);
                dot += x * m;
            }
            let squared = dot_of(v, v) - 2.0 * dot + mean_squared;
            signs.push(bits);
            dot_mean.push(dot);
            length.push(squared.max(0.0).sqrt());
        }
        Centred {
            signs,
            dot_mean,
            length,
            mean_squared,
        }
    }

    /// How many signs pages `i` and `j` differ in.
    fn signs_apart(&self, i: usize, j: usize) -> u32 {
        self.signs[i]
            .iter()
            .zip(&self.signs[j])
            .map(|(a, b)| (a ^ b).count_ones())
            .sum()
    }

    /// The cosine of pages `i` and `j` less the mean (0 for a page that is the mean).
    fn similarity(&self, pages: &[(i64, Vector)], i: usize, j: usize) -> f32 {
        let lengths = self.length[i] * self.length[j];
        if lengths <= f32::EPSILON {
            return 0.0;
        }
        let dot = dot_of(&pages[i].1, &pages[j].1) - self.dot_mean[i] - self.dot_mean[j]
            + self.mean_squared;
        (dot / lengths).clamp(-1.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic direction for `seed`, and one `noise` away from it.
    fn direction(seed: u64) -> [f32; DIM] {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        std::array::from_fn(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 2001) as f32 / 1000.0 - 1.0
        })
    }

    fn near(base: &[f32; DIM], seed: u64, noise: f32) -> Vector {
        let n = direction(seed);
        let v: [f32; DIM] = std::array::from_fn(|d| base[d] + noise * n[d]);
        Vector::from_f32(&v).expect("a direction")
    }

    #[test]
    fn twins_are_found_among_many_pages_and_unrelated_pages_are_not_paired() {
        // 2,000 unrelated pages, and beside 20 of them a twin a little changed.
        let mut pages: Vec<(i64, Vector)> = (0..2000)
            .map(|i| (i, Vector::from_f32(&direction(i as u64 + 1)).expect("v")))
            .collect();
        for i in 0..20 {
            let base = direction(i as u64 * 97 + 1);
            pages.push((10_000 + i, near(&base, 50_000 + i as u64, 0.15)));
        }
        let twins = twins(&pages, 0.9);
        let mut paired: Vec<(i64, i64)> = twins.iter().map(|t| (t.a, t.b)).collect();
        paired.sort_unstable();
        let expected: Vec<(i64, i64)> = (0..20).map(|i| (i * 97, 10_000 + i)).collect();
        assert_eq!(paired, expected, "{twins:?}");
        assert!(twins.iter().all(|t| t.similarity >= 0.9));
    }

    #[test]
    fn in_a_vault_of_three_pages_the_twins_are_paired_and_the_third_page_is_not() {
        let base = direction(7);
        let pages = vec![
            (1, near(&base, 8, 0.1)),
            (2, Vector::from_f32(&direction(9)).expect("v")),
            (3, near(&base, 10, 0.1)),
        ];
        let twins = twins(&pages, 0.9);
        assert_eq!(twins.len(), 1, "{twins:?}");
        assert_eq!((twins[0].a, twins[0].b), (1, 3));
    }

    #[test]
    fn fewer_than_two_pages_have_no_twins() {
        let one = vec![(1, Vector::from_f32(&direction(1)).expect("v"))];
        assert!(twins(&one, 0.5).is_empty());
        assert!(twins(&[], 0.5).is_empty());
    }
}
