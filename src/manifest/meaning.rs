//! Search by meaning over the table that `scan` keeps (`meanings`, wiki pages only): every
//! section's vector compared with the query's, in one pass in id order (a page's sections are
//! neighbours), each page scored by its closest section. Embedding the query and fusing with
//! the word index is [`crate::search`]'s job.
//!
//! The pass reads a copy of the table kept beside the manifest (`sparks.db-meanings`, one
//! read of 27 MB at 100,000 pages, where SQLite's pages cost a read call each), labelled with
//! the token the scan renews whenever a vector changes (migration 18). A copy whose label is
//! not the manifest's token (older, torn, another manifest's, planted) is never read: the
//! table is, and the copy written again when the vault can be written.

use super::scan_tx::{MEANINGS_TOKEN, section_of};
use super::{At, Manifest, Result, Scope};
use crate::embed::{BYTES, Vector, Widened, in_place, similarity_to_bytes};
use std::path::PathBuf;

/// A file near a query in meaning.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Near {
    /// The file's rowid.
    pub file: i64,
    /// Its section closest to the query.
    pub section: usize,
    /// The cosine of that section and the query (1 is the same meaning).
    pub similarity: f32,
}

/// The copy's first bytes, then its format's version.
const MAGIC: &[u8; 16] = b"sparks-meanings\n";
const VERSION: u32 = 1;
/// A record of the copy: a section's id (i64, little-endian), then its vector's bytes.
const RECORD: usize = 8 + BYTES;
/// Records read at a time.
const BATCH: usize = 4096;

/// The copy's header for `token`: the magic, the version, the token's length and bytes.
fn header(token: &str) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(MAGIC.len() + 8 + token.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    bytes.extend_from_slice(&(token.len() as u32).to_le_bytes());
    bytes.extend_from_slice(token.as_bytes());
    bytes
}

/// The closest section of the file being read, from sections given in id order (a file's
/// sections are neighbours): what [`Closest`] and [`Nearest`] share.
#[derive(Default)]
struct ByFile {
    best: Option<Near>,
}

impl ByFile {
    /// Section `section` of `file`, `similarity` to the query: the previous file's closest
    /// section when this one starts another file.
    fn offer(&mut self, file: i64, section: usize, similarity: f32) -> Option<Near> {
        match &mut self.best {
            Some(b) if b.file == file => {
                if similarity > b.similarity {
                    (b.section, b.similarity) = (section, similarity);
                }
                None
            }
            _ => self.best.replace(Near {
                file,
                section,
                similarity,
            }),
        }
    }

    /// The last file's closest section, at the end.
    fn last(&mut self) -> Option<Near> {
        self.best.take()
    }
}

/// Each file's closest section, from sections given in id order.
struct Closest<'k> {
    query: &'k Vector,
    keep: &'k (dyn Fn(i64) -> bool + Sync),
    by_file: ByFile,
    found: Vec<Near>,
}

impl<'k> Closest<'k> {
    fn new(query: &'k Vector, keep: &'k (dyn Fn(i64) -> bool + Sync)) -> Closest<'k> {
        Closest {
            query,
            keep,
            by_file: ByFile::default(),
            found: Vec::new(),
        }
    }

    /// The section with this id and vector bytes (bytes that are no vector are no meaning).
    fn section(&mut self, id: i64, bytes: &[u8]) {
        let Some(s) = similarity_to_bytes(self.query, bytes) else {
            return;
        };
        let (file, section) = section_of(id);
        if let Some(n) = self.by_file.offer(file, section, s) {
            self.settle(n);
        }
    }

    fn settle(&mut self, n: Near) {
        if (self.keep)(n.file) {
            self.found.push(n);
        }
    }

    fn finish(mut self) -> Vec<Near> {
        if let Some(n) = self.by_file.last() {
            self.settle(n);
        }
        self.found
    }
}

/// The `k` files closest to a query, at least `floor` similar, by their closest section, from
/// sections given in id order.
struct Nearest {
    query: Widened,
    k: usize,
    floor: f32,
    by_file: ByFile,
    /// The closest first, at most `k`.
    top: Vec<Near>,
}

impl Nearest {
    fn new(query: &Vector, k: usize, floor: f32) -> Nearest {
        Nearest {
            query: Widened::of(query),
            k,
            floor,
            by_file: ByFile::default(),
            top: Vec::with_capacity(k + 1),
        }
    }

    /// Hand the section with this id and vector bytes to each of `each`.
    fn feed(each: &mut [Nearest], id: i64, bytes: &[u8], keep: &(dyn Fn(i64) -> bool + Sync)) {
        if let Some((scale, q)) = in_place(bytes) {
            let (file, section) = section_of(id);
            // Widened once for all the queries.
            let v = Widened::of_bytes(scale, q);
            for n in each {
                let s = n.query.similarity(&v);
                if let Some(done) = n.by_file.offer(file, section, s) {
                    n.settle(done, keep);
                }
            }
        }
    }

    fn settle(&mut self, n: Near, keep: &(dyn Fn(i64) -> bool + Sync)) {
        let last = self.top.last().map_or(f32::MIN, |l| l.similarity);
        if n.similarity < self.floor || (self.top.len() == self.k && n.similarity <= last) {
            return;
        }
        if !keep(n.file) {
            return;
        }
        let at = self.top.partition_point(|t| t.similarity >= n.similarity);
        self.top.insert(at, n);
        self.top.truncate(self.k);
    }

    fn finish(mut self, keep: &(dyn Fn(i64) -> bool + Sync)) -> Vec<Near> {
        if let Some(n) = self.by_file.last() {
            self.settle(n, keep);
        }
        self.top
    }
}

/// Where the copy of `meanings` is, and the label it must bear to be read: what a thread
/// beside the manifest's own needs to read it ([`MeaningsCopy::similarities`]).
#[derive(Debug, Clone)]
pub struct MeaningsCopy {
    path: PathBuf,
    token: String,
}

impl MeaningsCopy {
    /// [`Manifest::similarities`] read from the copy alone: `None` when there is no copy, or
    /// it bears another label, or is torn (the manifest's table is then to be read).
    pub fn similarities(
        &self,
        query: &Vector,
        keep: &(dyn Fn(i64) -> bool + Sync),
    ) -> Option<Vec<Near>> {
        let mut closest = Closest::new(query, keep);
        self.each_section(&mut |id, v| closest.section(id, v))?;
        Some(closest.finish())
    }

    /// The copy, open past its header, and the length of its records, when it bears the label
    /// and is whole.
    fn open_current(&self) -> Option<(std::fs::File, usize)> {
        use std::io::Read;
        if self.token.is_empty() {
            return None;
        }
        let mut file = crate::fsio::open_nofollow(&self.path).ok()?;
        let expected = header(&self.token);
        let size = usize::try_from(file.metadata().ok()?.len()).ok()?;
        let body = size.checked_sub(expected.len())?;
        let mut found = vec![0_u8; expected.len()];
        file.read_exact(&mut found).ok()?;
        (found == expected && body.is_multiple_of(RECORD)).then_some((file, body))
    }

    /// [`Manifest::nearest_each`] from the copy alone: `None` when it is not current.
    fn nearest_each(
        &self,
        queries: &[Vector],
        k: usize,
        floor: f32,
        keep: &(dyn Fn(i64) -> bool + Sync),
    ) -> Option<Vec<Vec<Near>>> {
        let mut each: Vec<Nearest> = queries.iter().map(|q| Nearest::new(q, k, floor)).collect();
        self.each_section(&mut |id, v| Nearest::feed(&mut each, id, v, keep))?;
        Some(each.into_iter().map(|n| n.finish(keep)).collect())
    }

    /// Hand every section's id and vector bytes to `each`, in id order, from the copy: `None`
    /// (having handed over some, perhaps) when there is no copy, or it bears another label, or
    /// is torn.
    fn each_section(&self, each: &mut dyn FnMut(i64, &[u8])) -> Option<()> {
        use std::io::Read;
        let (mut file, body) = self.open_current()?;
        let mut buffer = vec![0_u8; BATCH * RECORD];
        let mut left = body;
        while left > 0 {
            let batch = &mut buffer[..left.min(BATCH * RECORD)];
            file.read_exact(batch).ok()?;
            for r in batch.chunks_exact(RECORD) {
                let (id, vector) = r.split_first_chunk::<8>()?;
                each(i64::from_le_bytes(*id), vector);
            }
            left -= batch.len();
        }
        Some(())
    }
}

impl Manifest {
    /// Every page's (when `scope` holds the wiki) similarity to `query` by its closest section,
    /// among those `keep` accepts, by rowid. Reads every vector once ([`Manifest::each_section`]).
    /// Memory grows with the pages, not the sections.
    pub fn similarities(
        &self,
        query: &Vector,
        scope: Scope,
        keep: &(dyn Fn(i64) -> bool + Sync),
    ) -> Result<Vec<Near>> {
        // Raw files have no meanings: they are found by their words.
        if scope == Scope::Raw {
            return Ok(Vec::new());
        }
        let mut closest = Closest::new(query, keep);
        self.each_section(&mut |id, v| closest.section(id, v))?;
        Ok(closest.finish())
    }

    /// For each of `queries`, the `k` pages closest to it by their closest section, at least
    /// `floor` similar, among those `keep` accepts, the closest first: one pass over the
    /// vectors for a share of them on each core, from the copy (brought up to date first);
    /// one pass over the table where the copy cannot be written.
    pub fn nearest_each(
        &self,
        queries: &[Vector],
        k: usize,
        floor: f32,
        keep: &(dyn Fn(i64) -> bool + Sync),
    ) -> Result<Vec<Vec<Near>>> {
        if queries.is_empty() {
            return Ok(Vec::new());
        }
        let copy = self.meanings_copy()?;
        if copy.open_current().is_none() {
            // Rebuilt from the table; read from it once more where it cannot be written.
            self.each_section(&mut |_, _| {})?;
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let share = queries.len().div_ceil(cores.min(queries.len()));
        let found: Vec<Option<Vec<Vec<Near>>>> = std::thread::scope(|s| {
            let each: Vec<_> = queries
                .chunks(share)
                .map(|qs| s.spawn(|| copy.nearest_each(qs, k, floor, keep)))
                .collect();
            each.into_iter().map(|h| h.join().ok().flatten()).collect()
        });
        if let Some(all) = found.into_iter().collect::<Option<Vec<_>>>() {
            return Ok(all.into_iter().flatten().collect());
        }
        let mut each: Vec<Nearest> = queries.iter().map(|q| Nearest::new(q, k, floor)).collect();
        self.each_section(&mut |id, v| Nearest::feed(&mut each, id, v, keep))?;
        Ok(each.into_iter().map(|n| n.finish(keep)).collect())
    }

    /// Hand every section's id and vector bytes to `each`, in id order: from the copy beside
    /// the manifest when it is current, else from the table (writing the copy again, where the
    /// vault can be written: a failed write only leaves the next reader to read the table too).
    pub(super) fn each_section(&self, each: &mut dyn FnMut(i64, &[u8])) -> Result<()> {
        let copy = self.meanings_copy()?;
        // The copy is checked whole (label, length) before a section is handed over; a read
        // that fails after that (an I/O error) cannot be taken back, and is an error.
        let mut handed = false;
        let read = copy.each_section(&mut |id, v| {
            handed = true;
            each(id, v);
        });
        match (read, handed) {
            (Some(()), _) => return Ok(()),
            (None, true) => {
                return Err(super::ManifestError::Corrupt {
                    path: copy.path.clone(),
                    what: "the copy of the meanings could not be read to its end; delete it".into(),
                });
            }
            (None, false) => {}
        }
        let mut stmt = self
            .conn
            .prepare_cached("SELECT id, vec FROM meanings ORDER BY id")
            .at(&self.path)?;
        let mut rows = stmt.query([]).at(&self.path)?;
        let mut bytes = header(&copy.token);
        while let Some(r) = rows.next().at(&self.path)? {
            let id: i64 = r.get(0).at(&self.path)?;
            if let Ok(blob) = r.get_ref(1).at(&self.path)?.as_blob()
                && blob.len() == BYTES
            {
                each(id, blob);
                bytes.extend_from_slice(&id.to_le_bytes());
                bytes.extend_from_slice(blob);
            }
        }
        if !copy.token.is_empty() && !self.is_read_only() {
            let _ = crate::fsio::replace_derived(&copy.path, &bytes);
        }
        Ok(())
    }

    /// The copy of `meanings` beside the manifest and the label it must bear. The token is read
    /// before any row: a scan that commits between the two makes a copy's label older than its
    /// rows, and the next reader rebuilds it; never the reverse.
    pub fn meanings_copy(&self) -> Result<MeaningsCopy> {
        let mut name = self.path.clone().into_os_string();
        name.push("-meanings");
        Ok(MeaningsCopy {
            path: PathBuf::from(name),
            token: self.meta(MEANINGS_TOKEN)?.unwrap_or_default(),
        })
    }
}
