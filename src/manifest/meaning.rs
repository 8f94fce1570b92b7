//! Search by meaning over the table that `scan` keeps (`meanings`, wiki pages only): every
//! section's vector compared with the query's, in one pass over the table in id order (a
//! page's sections are neighbours), each page scored by its closest section. Embedding the
//! query and fusing with the word index is [`crate::search`]'s job.

use super::scan_tx::section_of;
use super::{At, Manifest, Result, Scope};
use crate::embed::{Vector, similarity};

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

impl Manifest {
    /// Every page's (when `scope` holds the wiki) similarity to `query` by its closest section,
    /// among those `keep` accepts, by rowid. Reads every vector once; memory grows with the
    /// pages, not the sections.
    pub fn similarities(
        &self,
        query: &Vector,
        scope: Scope,
        keep: &dyn Fn(i64) -> bool,
    ) -> Result<Vec<Near>> {
        let mut found: Vec<Near> = Vec::new();
        // Raw files have no meanings: they are found by their words.
        if scope == Scope::Raw {
            return Ok(found);
        }
        let mut stmt = self
            .conn
            .prepare_cached("SELECT id, vec FROM meanings ORDER BY id")
            .at(&self.path)?;
        let mut rows = stmt.query([]).at(&self.path)?;
        let mut best: Option<Near> = None;
        let settle = |near: Option<Near>, found: &mut Vec<Near>| {
            if let Some(n) = near.filter(|n| keep(n.file)) {
                found.push(n);
            }
        };
        while let Some(r) = rows.next().at(&self.path)? {
            let id: i64 = r.get(0).at(&self.path)?;
            let bytes = r.get_ref(1).at(&self.path)?;
            // A blob that is no vector (never written by a scan) is no meaning.
            let Ok(v) = bytes
                .as_blob()
                .map_err(drop)
                .and_then(|b| Vector::from_bytes(b).map_err(drop))
            else {
                continue;
            };
            let (file, section) = section_of(id);
            let s = similarity(query, &v);
            match &mut best {
                Some(b) if b.file == file => {
                    if s > b.similarity {
                        (b.section, b.similarity) = (section, s);
                    }
                }
                _ => {
                    settle(best.take(), &mut found);
                    best = Some(Near {
                        file,
                        section,
                        similarity: s,
                    });
                }
            }
        }
        settle(best, &mut found);
        Ok(found)
    }
}
