//! The full-text search of a published site: an index written as static files under `search/` and
//! the browser script that reads it ([`SCRIPT`]), so that a site on any static host can be searched
//! without a server. This module owns the index's format, its tokens and the search page's main
//! column; it writes no file (the publisher writes what [`index`] returns) and knows nothing of how
//! a page is rendered.
//!
//! **Tokens.** Text is lowercased, its Latin accents folded (`é` → `e`: the marks of U+0300 to
//! U+036F dropped after canonical decomposition) and cut into runs of letters and digits; CJK runs
//! ([`crate::cjk::is_cjk`]) become their characters and their overlapping pairs
//! (`知識管理` → `知 知識 識 識管 管 管理 理`), so that a query of one character finds its pages
//! as one of two or more finds them by its pairs. Unlike the manifest's index, words are not
//! stemmed: the script would need the same stemmer. `search.js` tokenises a query the same way,
//! and a test holds the two to it.
//!
//! **Files.** All are JSON but the script; every one but `meta.json` and the script is named by the
//! hash of its content, so it never changes under its name and a browser cannot mix two publishes
//! (it asks for `meta.json` afresh at each load of the search page).
//! - `search/meta.json`: the format, the number of pages, the fields' weights, each index chunk's
//!   first token and name, the name of each page chunk and how many pages it holds.
//! - `search/index/<hash>.json`: `[[token, postings], …]`, tokens in code-point order. Postings are
//!   flat `[id, weight, id, weight, …]`, each id the difference from the one before (the first from
//!   0). The weight is a page's BM25 term-frequency part, title and body together (the title
//!   counting three times, `TITLE_WEIGHT`), times ten and rounded: a page's length is measured
//!   against a fixed typical length rather than the site's average, so that a page's postings
//!   depend on that page alone. The script adds the idf from a token's page count, and ranks (see
//!   its opening comment).
//! - `search/docs/<hash>.json`: `[[url, title, excerpt], …]` for 50 pages (`DOCS_PER_CHUNK`) in id
//!   order (ids follow the pages' URLs); fetched only for the hits shown.
//!
//! **Chunks.** Index chunks are cut where the content says, as a content-defined chunker does:
//! after 40,000 bytes (`MIN_CHUNK`), before the next of the tokens a hash of the token picks (one
//! in eight), and always before a token that would take a chunk past 60,000 (`MAX_CHUNK`) (a token
//! whose postings alone are longer stands alone). An edit of one page changes the postings of the
//! tokens it gains, loses or counts differently (all of its tokens when its length leaves its step,
//! see `weight`), and so the few chunks that hold them and its own page chunk, while the cuts
//! elsewhere stay where they were. A page added or removed shifts every later id, and so rewrites
//! most files. The output is a function of the set of pages alone: the same pages give the same
//! bytes. A file the publisher wrote before and [`index`] no longer returns is stale.

use super::spill::{Span, Spill};
use crate::cjk::is_cjk;
use crate::file_error::FileError;
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write;
use unicode_normalization::UnicodeNormalization;

/// One published page, as the search sees it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Doc {
    /// Site-relative URL of the page, e.g. `wiki/concepts/Garden%20Plan/` (no leading slash).
    pub url: String,
    /// The page's title.
    pub title: String,
    /// Plain text of the body.
    pub text: String,
}

/// The browser script (served as `search/search.js`; [`index`] returns it among its files).
pub const SCRIPT: &str = include_str!("assets/search.js");

/// Index chunks are cut at a natural point only once they hold this many bytes.
const MIN_CHUNK: usize = 40_000;
/// No index chunk holds more bytes, but one of a single token.
const MAX_CHUNK: usize = 60_000;
/// Pages a page chunk describes: small, since the 20 hits shown may need 20 chunks.
const DOCS_PER_CHUNK: usize = 50;
/// The longest excerpt, in characters.
const EXCERPT: usize = 160;
/// BM25's saturation of term frequency.
const K1: f64 = 1.2;
/// BM25's length normalisation.
const B: f64 = 0.75;
/// The typical length of a body, in tokens, against which a page's is measured.
const BODY_LENGTH: f64 = 300.0;
/// The typical length of a title, in tokens.
const TITLE_LENGTH: f64 = 4.0;
/// How much more a token in the title counts than one in the body.
const TITLE_WEIGHT: f64 = 3.0;
/// Weights are stored as integers: this many steps to one unit of BM25.
const SCALE: f64 = 10.0;

/// The search index's files: (site-relative output path, bytes), every one under `search/`.
pub fn index(docs: &[Doc]) -> Result<Vec<(String, Vec<u8>)>, FileError> {
    let mut builder = Builder::default();
    for doc in docs {
        builder.add(doc)?;
    }
    builder.files()
}

/// The index built one page at a time, holding of each page only what its page chunk says and
/// of its words only their postings, two or three bytes each: the text of a large site is
/// never held at once, nor its index twice.
#[derive(Debug, Default)]
pub struct Builder {
    /// Each token seen, and its number.
    tokens: Counts,
    /// Each token's postings, by token number, in the order added: how many places after the
    /// token's last page the page is among those added (LEB128), then its weight (one byte).
    /// Most words are on many pages, so most postings take two bytes (four, packed, held
    /// 17 million postings in 90 MB at 100,000 pages).
    postings: Vec<Vec<u8>>,
    /// The place of each token's last page, by token number.
    last: Vec<u32>,
    /// The pages added, in the order added.
    pages: Vec<Entry>,
    /// What each page's chunk says of it, put aside until the chunks are written.
    said: Spill,
}

/// The bits of a packed posting that hold its weight (at most 88, see [`weight`]); the others
/// hold the page's number, so that a site may have 2^25 pages.
const WEIGHT_BITS: u32 = 7;

/// A page's words and weights, and what its page chunk says: the part of adding a page to a
/// [`Builder`] that needs no other page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counted {
    url: String,
    title: String,
    excerpt: String,
    /// Each token of the page (title and body) and its weight: the token's bytes, a zero byte,
    /// the weight as one byte ([`Counted::words`]).
    words: Vec<u8>,
}

impl Counted {
    /// Count the page `doc`.
    pub fn of(doc: &Doc) -> Counted {
        let (body, body_length) = counts(&doc.text);
        let (title, title_length) = counts(&doc.title);
        let tokens: BTreeSet<&String> = body.keys().chain(title.keys()).collect();
        let mut words = Vec::new();
        for token in tokens {
            let in_body = body.get(token).copied().unwrap_or(0);
            let in_title = title.get(token).copied().unwrap_or(0);
            words.extend_from_slice(token.as_bytes());
            words.push(0);
            words.push(weight(in_body, body_length, in_title, title_length));
        }
        Counted {
            url: doc.url.clone(),
            title: doc.title.clone(),
            excerpt: excerpt(&doc.text),
            words,
        }
    }

    /// A page counted before, from what [`Counted::parts`] gave (words not in that form count
    /// up to where they stop being so).
    pub fn from_parts(url: String, title: String, excerpt: String, words: Vec<u8>) -> Counted {
        Counted {
            url,
            title,
            excerpt,
            words,
        }
    }

    /// What the page chunk says (title, excerpt) and the words in their packed form, to keep.
    pub fn parts(&self) -> (&str, &str, &[u8]) {
        (&self.title, &self.excerpt, &self.words)
    }

    /// Call `f` with each token and its weight, up to where the words are not well formed (a
    /// token not UTF-8, or without its weight: a damaged cache).
    fn each_word(&self, mut f: impl FnMut(&str, u8)) {
        let mut rest = self.words.as_slice();
        while let Some(end) = rest.iter().position(|&b| b == 0) {
            let (Ok(token), Some(&w)) = (std::str::from_utf8(&rest[..end]), rest.get(end + 1))
            else {
                return;
            };
            f(token, w);
            rest = &rest[end + 2..];
        }
    }
}

/// A page added to a [`Builder`]: what its page chunk says.
#[derive(Debug)]
struct Entry {
    url: String,
    /// Its entry in a page chunk, `[url, title, excerpt]` as JSON ([`Builder::said`]).
    said: Span,
}

impl Builder {
    /// An index whose pages' entries are put aside in `said` until they are written.
    pub fn new(said: Spill) -> Builder {
        Builder {
            said,
            ..Builder::default()
        }
    }

    /// Add a page.
    pub fn add(&mut self, doc: &Doc) -> Result<(), FileError> {
        self.add_counted(Counted::of(doc))
    }

    /// Add a page counted already ([`Counted::of`], which any thread may do).
    pub fn add_counted(&mut self, page: Counted) -> Result<(), FileError> {
        let seq = u32::try_from(self.pages.len()).unwrap_or(u32::MAX);
        let (tokens, postings, last) = (&mut self.tokens, &mut self.postings, &mut self.last);
        page.each_word(|token, w| {
            let number = match tokens.get(token) {
                Some(&n) => n,
                None => {
                    let n = u32::try_from(postings.len()).unwrap_or(u32::MAX);
                    tokens.insert(token.to_string(), n);
                    postings.push(Vec::new());
                    last.push(0);
                    n
                }
            } as usize;
            let list = &mut postings[number];
            // A posting is at most six bytes. Lists grow by a quarter, not double: grown by
            // doubling, they held 67 MB for 36 MB of postings at 100,000 pages.
            if list.capacity() - list.len() < 6 {
                list.reserve_exact(6 + list.len() / 4);
            }
            leb128(list, seq - last[number]);
            list.push(w);
            last[number] = seq;
        });
        let mut said =
            String::with_capacity(page.url.len() + page.title.len() + page.excerpt.len() + 12);
        said.push('[');
        json_string(&mut said, &page.url);
        said.push(',');
        json_string(&mut said, &page.title);
        said.push(',');
        json_string(&mut said, &page.excerpt);
        said.push(']');
        let said = self.said.put(said.as_bytes())?;
        self.pages.push(Entry {
            url: page.url,
            said,
        });
        Ok(())
    }

    /// The index's files: (site-relative output path, bytes), every one under `search/`.
    pub fn files(self) -> Result<Vec<(String, Vec<u8>)>, FileError> {
        let mut files = Vec::new();
        self.write_files(|path, bytes| -> Result<(), FileError> {
            files.push((path.to_string(), bytes.to_vec()));
            Ok(())
        })?;
        // The script and meta.json first, as [`index`] has always listed them.
        let meta = files.iter().position(|(p, _)| p == "search/meta.json");
        if let Some(i) = meta {
            let m = files.remove(i);
            files.insert(1.min(files.len()), m);
        }
        Ok(files)
    }

    /// Hand each of the index's files to `put` as it is made (path, bytes), none held after:
    /// the script, the index chunks, the page chunks, then `meta.json`, which names them.
    pub fn write_files<E: From<FileError>>(
        mut self,
        mut put: impl FnMut(&str, &[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        // Ids follow the pages' URLs (then what their chunks say of them, for two of one URL);
        // a page's id by its place among those added.
        let mut order: Vec<u32> = (0..).take(self.pages.len()).collect();
        let mut failed = None;
        order.sort_by(|&a, &b| {
            let (a, b) = (&self.pages[a as usize], &self.pages[b as usize]);
            a.url
                .cmp(&b.url)
                .then_with(|| match (self.said.text(a.said), self.said.text(b.said)) {
                    (Ok(a), Ok(b)) => a.cmp(&b),
                    (Err(e), _) | (_, Err(e)) => {
                        failed = Some(e);
                        std::cmp::Ordering::Equal
                    }
                })
        });
        if let Some(e) = failed {
            return Err(e.into());
        }
        let mut id_of = vec![0u32; order.len()];
        for (id, &seq) in (0u32..).zip(&order) {
            id_of[seq as usize] = id;
        }
        put("search/search.js", SCRIPT.as_bytes())?;
        let mut seen = BTreeSet::new();
        let mut index_list = Vec::new();
        index_chunks(self.postings(&id_of), |first, bytes| {
            let name = name(&bytes);
            index_list.push((first.to_string(), name.clone()));
            match seen.insert(format!("index/{name}")) {
                true => put(&format!("search/index/{name}.json"), &bytes),
                false => Ok(()),
            }
        })?;
        let mut doc_list = Vec::new();
        let pages: Vec<&Entry> = order.iter().map(|&seq| &self.pages[seq as usize]).collect();
        for bytes in doc_chunks(&pages, &self.said) {
            let bytes = bytes?;
            let name = name(&bytes);
            doc_list.push(name.clone());
            if seen.insert(format!("docs/{name}")) {
                put(&format!("search/docs/{name}.json"), &bytes)?;
            }
        }
        put(
            "search/meta.json",
            meta(self.pages.len(), &index_list, &doc_list).as_bytes(),
        )
    }

    /// Each token and its postings, packed with the page's id (`id_of` its place among those
    /// added) in id order, tokens in code-point order: each token's list made when it is
    /// reached, its packed form given back as it is.
    fn postings<'a>(
        &'a mut self,
        id_of: &'a [u32],
    ) -> impl Iterator<Item = (String, Vec<u32>)> + 'a {
        let mut tokens: Vec<(String, u32)> = std::mem::take(&mut self.tokens).into_iter().collect();
        tokens.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        tokens.into_iter().map(move |(token, number)| {
            let bytes = std::mem::take(&mut self.postings[number as usize]);
            let mut list = Vec::with_capacity(bytes.len() / 2);
            let (mut seq, mut rest) = (0u32, bytes.as_slice());
            while let Some((after, tail)) = read_leb128(rest)
                && let Some((&w, tail)) = tail.split_first()
            {
                seq += after;
                list.push(id_of[seq as usize] << WEIGHT_BITS | u32::from(w));
                rest = tail;
            }
            list.sort_unstable();
            (token, list)
        })
    }
}

/// Append `n` to `out` as LEB128: seven bits a byte, low first, the high bit set on all but
/// the last.
fn leb128(out: &mut Vec<u8>, mut n: u32) {
    while n >= 0x80 {
        out.push((n & 0x7f) as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// The LEB128 number `bytes` start with, and the bytes after it.
fn read_leb128(bytes: &[u8]) -> Option<(u32, &[u8])> {
    let mut n = 0u32;
    for (i, &b) in bytes.iter().enumerate().take(5) {
        n |= u32::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some((n, &bytes[i + 1..]));
        }
    }
    None
}

/// The main column of the search page (`search/index.html`): the form, the status line, the
/// results list, a notice for a browser without scripts, and the script, which sits beside the
/// page.
pub fn page_main() -> String {
    concat!(
        "<h1>Search</h1>\n",
        "<form class=\"search-form\" id=\"search-form\" role=\"search\" action=\"\" method=\"get\">\n",
        "<label for=\"search-input\">Search the published pages</label>\n",
        "<input type=\"search\" id=\"search-input\" name=\"q\" autocomplete=\"off\" ",
        "spellcheck=\"false\" autofocus>\n",
        "<button type=\"submit\">Search</button>\n",
        "</form>\n",
        "<p class=\"search-status\" id=\"search-status\" role=\"status\" aria-live=\"polite\"></p>\n",
        "<ol class=\"search-results\" id=\"search-results\"></ol>\n",
        "<noscript><p>The search runs in the browser: it needs JavaScript, ",
        "which is turned off.</p></noscript>\n",
        "<script type=\"module\" src=\"search.js\"></script>\n",
    )
    .to_string()
}

/// `text` lowercased, with the accents of Latin letters folded; its whitespace, which separates
/// tokens, made single spaces. Each piece between whitespace is folded on its own (nothing
/// composes or lowercases across whitespace), and one of ASCII alone the quick way.
fn normalise(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    let mut out = String::with_capacity(text.len());
    for piece in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        if piece.is_ascii() {
            out.extend(piece.chars().map(|c| c.to_ascii_lowercase()));
        } else {
            out.extend(
                piece
                    .to_lowercase()
                    .nfd()
                    .filter(|c| !('\u{300}'..='\u{36f}').contains(c))
                    .nfc(),
            );
        }
    }
    out
}

/// The runs of `text` (normalised) that hold tokens, each marked whether it is CJK, one at a
/// time (a page of millions of words is never held as a list of them).
fn runs(text: &str) -> impl Iterator<Item = (bool, &str)> {
    let mut chars = text.char_indices();
    let mut start: Option<(usize, bool)> = None;
    std::iter::from_fn(move || {
        for (i, c) in chars.by_ref() {
            let kind = if is_cjk(c) {
                Some(true)
            } else if c.is_alphanumeric() {
                Some(false)
            } else {
                None
            };
            match (start, kind) {
                (Some((_, k)), Some(now)) if k == now => {}
                (Some((s, k)), _) => {
                    start = kind.map(|now| (i, now));
                    return Some((k, &text[s..i]));
                }
                (None, Some(now)) => start = Some((i, now)),
                (None, None) => {}
            }
        }
        start.take().map(|(s, k)| (k, &text[s..]))
    })
}

/// Call `f` with each token `text` is indexed by: its words, and each CJK character and pair
/// of neighbouring CJK characters.
fn each_token(text: &str, mut f: impl FnMut(&str)) {
    let text = normalise(text);
    let mut pair = String::new();
    for (cjk, run) in runs(&text) {
        if !cjk {
            f(run);
            continue;
        }
        let mut chars = run.chars().peekable();
        while let Some(c) = chars.next() {
            pair.clear();
            pair.push(c);
            f(&pair);
            if let Some(&next) = chars.peek() {
                pair.push(next);
                f(&pair);
            }
        }
    }
}

/// Tokens and how often each occurs (hashed the quick way: the keys are the vault's words).
type Counts = HashMap<String, u32, foldhash::fast::RandomState>;

/// How often each token occurs in a text, and how many tokens it has.
fn counts(text: &str) -> (Counts, u32) {
    let mut counts = Counts::default();
    let mut length = 0;
    each_token(text, |token| {
        length += 1;
        match counts.get_mut(token) {
            Some(n) => *n += 1,
            None => {
                counts.insert(token.to_string(), 1);
            }
        }
    });
    (counts, length)
}

/// A token's weight in a page: BM25's term-frequency part for the body and for the title (the
/// title's counting [`TITLE_WEIGHT`] times), as an integer of at least 1. Lengths are rounded
/// to an eighth of a doubling first, as Lucene keeps them in a byte: an edit that leaves a
/// page's length in its step leaves the weights of the words it did not touch as they were.
fn weight(in_body: u32, body_length: u32, in_title: u32, title_length: u32) -> u8 {
    let part = |tf: u32, length: u32, typical: f64| {
        let tf = f64::from(tf);
        let length = ((f64::from(length.max(1)).log2() * 8.0).round() / 8.0).exp2();
        tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * length / typical))
    };
    let w = part(in_body, body_length, BODY_LENGTH)
        + TITLE_WEIGHT * part(in_title, title_length, TITLE_LENGTH);
    // At most (1 + TITLE_WEIGHT) * (K1 + 1) * SCALE = 88, so the cast is exact.
    ((w * SCALE).round() as u8).max(1)
}

/// The index chunks, each handed to `chunk` as (its first token, its bytes), in token order;
/// `postings` gives each token's postings packed (see [`Builder`]), in id order.
fn index_chunks<E>(
    postings: impl Iterator<Item = (String, Vec<u32>)>,
    mut chunk: impl FnMut(&str, Vec<u8>) -> Result<(), E>,
) -> Result<(), E> {
    let mut current = String::from("[");
    let mut first: Option<String> = None;
    let mut entry = String::new();
    let mask = (1 << WEIGHT_BITS) - 1;
    for (token, list) in postings {
        entry.clear();
        entry.push('[');
        json_string(&mut entry, &token);
        entry.push_str(",[");
        let mut previous = 0;
        for (i, p) in list.iter().enumerate() {
            if i > 0 {
                entry.push(',');
            }
            let (id, w) = (p >> WEIGHT_BITS, p & mask);
            let _ = write!(entry, "{},{w}", id - previous);
            previous = id;
        }
        entry.push_str("]]");
        if let Some(f) = &first {
            let natural = current.len() >= MIN_CHUNK && cut_before(&token);
            if natural || current.len() + 1 + entry.len() + 1 > MAX_CHUNK {
                current.push(']');
                chunk(f, std::mem::take(&mut current).into_bytes())?;
                current.push('[');
                first = None;
            }
        }
        if first.is_some() {
            current.push(',');
        }
        current.push_str(&entry);
        first.get_or_insert(token);
    }
    if let Some(f) = first {
        current.push(']');
        chunk(&f, current.into_bytes())?;
    }
    Ok(())
}

/// Whether a chunk past its minimum may end before `token`: true for one token in eight, chosen
/// by the token itself so that the cuts stay put when other tokens change.
fn cut_before(token: &str) -> bool {
    blake3::hash(token.as_bytes()).as_bytes()[0] & 7 == 0
}

/// The page chunks' bytes, in id order.
fn doc_chunks<'a>(
    docs: &'a [&Entry],
    said: &'a Spill,
) -> impl Iterator<Item = Result<Vec<u8>, FileError>> + 'a {
    docs.chunks(DOCS_PER_CHUNK).map(|chunk| {
        let mut out = b"[".to_vec();
        for (i, doc) in chunk.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            said.read(doc.said, &mut out)?;
        }
        out.push(b']');
        Ok(out)
    })
}

/// The start of `text`, its white space collapsed, in at most [`EXCERPT`] characters: cut at a
/// space where it is longer, and ended with an ellipsis.
fn excerpt(text: &str) -> String {
    // The words walked one at a time: a page of millions of words is never listed.
    let mut words = text.split_whitespace().peekable();
    let mut out = String::new();
    let mut length = 0;
    let mut first = true;
    while let Some(word) = words.next() {
        let n = word.chars().count();
        let space = usize::from(!first);
        // Room for the ellipsis unless this is the last word.
        let room = match words.peek() {
            None => EXCERPT,
            Some(_) => EXCERPT - 1,
        };
        if length + space + n > room {
            if length == 0 {
                // One word longer than an excerpt: cut inside it.
                out.extend(word.chars().take(EXCERPT - 1));
            }
            out.push('…');
            return out;
        }
        if space == 1 {
            out.push(' ');
        }
        out.push_str(word);
        length += space + n;
        first = false;
    }
    out
}

/// `meta.json`: what the script reads first.
fn meta(count: usize, index: &[(String, String)], docs: &[String]) -> String {
    let mut out = format!(
        "{{\"format\":1,\"count\":{count},\"fields\":{{\"title\":{TITLE_WEIGHT},\"body\":1}},\
         \"scale\":{SCALE},\"index\":["
    );
    for (i, (first, name)) in index.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('[');
        json_string(&mut out, first);
        out.push(',');
        json_string(&mut out, name);
        out.push(']');
    }
    out.push_str(&format!(
        "],\"docs\":{{\"per\":{DOCS_PER_CHUNK},\"chunks\":["
    ));
    for (i, name) in docs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        json_string(&mut out, name);
    }
    out.push_str("]}}");
    out
}

/// A file's name: the start of the hash of its bytes.
fn name(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex()[..16].to_string()
}

/// `s` as a JSON string, appended to `out`. Written here rather than by serde so that a chunk's
/// size is known as it grows, and no serialiser's error has to be handled that cannot happen.
fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests;
