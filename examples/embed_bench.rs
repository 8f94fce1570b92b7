//! Measures the compiled-in embedding model (`sparks::embed`): what issue 51 asks of it.
//!
//! Run optimised: `cargo run --release --example embed_bench` (or `--profile bench`). It prints
//! the first-use load time, the memory the loaded model adds, one query's embedding time
//! (median of many), the pages per second a scan would embed (~1,000-word texts, one thread
//! and all cores), and a brute-force scan of 100,000 random unit vectors per query (median),
//! in the stored int8 form and, for comparison, in f32.
//!
//! `embed_bench --first-use` measures only what a process that embeds one text pays, as
//! `sparks search` does: the load, the first embedding, the resident set before and after (one
//! line, `load_us … first_embed_us … rss_kb … -> …`), then exits. Run it many times, fresh each
//! time, for the median (`hyperfine -N 'target/release/examples/embed_bench --first-use'`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use sparks::embed::{self, DIM, Vector};

/// Deterministic pseudo-random numbers: blake3's extendable output of a seed.
struct Rng(blake3::OutputReader);

impl Rng {
    fn new(seed: &str) -> Rng {
        Rng(blake3::Hasher::new().update(seed.as_bytes()).finalize_xof())
    }

    fn next(&mut self) -> u64 {
        let mut bytes = [0_u8; 8];
        self.0.fill(&mut bytes);
        u64::from_le_bytes(bytes)
    }

    /// Roughly normal, from the sum of uniforms.
    fn normal(&mut self) -> f32 {
        (0..4)
            .map(|_| (self.next() >> 40) as f32 / (1u64 << 24) as f32)
            .sum::<f32>()
            - 2.0
    }
}

/// The resident set of this process, in KB (Linux; 0 elsewhere).
fn rss_kb() -> u64 {
    let status = fs_err::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

const WORDS: &str = "the a of to and in that is for it as with was on be by this are from \
    notes page wiki knowledge search meaning sync laptop phone device garden recipe eggs \
    meeting thursday project deadline budget research paper reading list book author idea \
    capture inbox agent markdown link heading section summary concept entity history travel \
    weather music guitar doctor health exercise sleep coffee morning evening family friend \
    language learning rust python database index query vector model memory performance";

/// A text of `n` words drawn from [`WORDS`], with a full stop every twelve.
fn text(rng: &mut Rng, n: usize) -> String {
    let words: Vec<&str> = WORDS.split_whitespace().collect();
    let mut out = String::new();
    for i in 0..n {
        out.push_str(words[rng.next() as usize % words.len()]);
        out.push_str(if i % 12 == 11 { ". " } else { " " });
    }
    out
}

fn random_unit(rng: &mut Rng) -> [f32; DIM] {
    let mut v = [0.0_f32; DIM];
    v.iter_mut().for_each(|x| *x = rng.normal());
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= norm);
    v
}

fn dot_f32(a: &[f32; DIM], b: &[f32; DIM]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The median time of a scan that gives the best score, over 21 runs.
fn per_query(scan: impl Fn() -> f32) -> Duration {
    median(
        (0..21)
            .map(|_| {
                let t = Instant::now();
                black_box(scan());
                t.elapsed()
            })
            .collect(),
    )
}

fn main() {
    let rss_before = rss_kb();
    let start = Instant::now();
    embed::load();
    let load = start.elapsed();
    if std::env::args().any(|a| a == "--first-use") {
        let start = Instant::now();
        black_box(embed::embed(
            "how do I keep my notes in sync between devices",
        ));
        let first = start.elapsed();
        println!(
            "load_us {} first_embed_us {} rss_kb {rss_before} -> {}",
            load.as_micros(),
            first.as_micros(),
            rss_kb()
        );
        return;
    }
    println!(
        "load (first use): {load:.2?}; RSS {rss_before} KB -> {} KB",
        rss_kb()
    );
    let query = "how do I keep my notes in sync between devices";
    black_box(embed::embed(query));
    println!(
        "RSS after the first embedding: {} KB (+{} KB over the process before the load)",
        rss_kb(),
        rss_kb().saturating_sub(rss_before)
    );

    let times: Vec<Duration> = (0..2000)
        .map(|_| {
            let t = Instant::now();
            black_box(embed::embed(black_box(query)));
            t.elapsed()
        })
        .collect();
    println!(
        "query embedding ({} chars): median {:.1?}",
        query.len(),
        median(times)
    );

    let mut rng = Rng::new("embed_bench");
    let pages: Vec<String> = (0..1000).map(|_| text(&mut rng, 1000)).collect();
    let t = Instant::now();
    for p in &pages {
        black_box(embed::embed(p));
    }
    let one = t.elapsed();
    let t = Instant::now();
    black_box(embed::embed_all(&pages));
    let all = t.elapsed();
    println!(
        "1,000 pages of 1,000 words: one thread {:.0} pages/s, embed_all on {} threads {:.0} pages/s",
        1000.0 / one.as_secs_f64(),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        1000.0 / all.as_secs_f64()
    );

    let n = 100_000;
    let floats: Vec<[f32; DIM]> = (0..n).map(|_| random_unit(&mut rng)).collect();
    let stored: Vec<Vector> = floats
        .iter()
        .map(|v| Vector::from_f32(v).unwrap_or_else(|| unreachable!()))
        .collect();
    let q = embed::embed(query).unwrap_or_else(|| unreachable!());
    let qf = q.to_f32();
    let int8 = per_query(|| {
        stored
            .iter()
            .map(|v| embed::similarity(&q, v))
            .fold(f32::MIN, f32::max)
    });
    let f32s = per_query(|| {
        floats
            .iter()
            .map(|v| dot_f32(&qf, v))
            .fold(f32::MIN, f32::max)
    });
    let worst = floats
        .iter()
        .zip(&stored)
        .map(|(f, s)| (dot_f32(&qf, f) - embed::similarity(&q, s)).abs())
        .fold(0.0_f32, f32::max);
    println!(
        "scan of {n} vectors, one thread, median per query: int8 {int8:.2?} ({} MB), f32 {f32s:.2?} ({} MB); largest score difference {worst:.4}",
        n * embed::BYTES / 1_000_000,
        n * DIM * 4 / 1_000_000
    );
}
