//! The rows the source checks read: every page's `updated:` and `sources:`, and the live
//! files' modification times, each in one pass of its table. Which pages are stale and which
//! sources dead is `lint`'s rule ([`crate::lint::freshness`]); here, only the rows.

use crate::manifest::{At, Manifest, Result};
use std::collections::HashMap;
use std::ops::ControlFlow;

/// A page's `updated:` and `sources:`.
#[derive(Debug, Clone)]
pub struct Cited {
    /// The page's path.
    pub path: String,
    /// Its `updated:`, as written.
    pub updated: Option<String>,
    /// Its `sources:`, each as written.
    pub sources: Vec<String>,
}

/// The live files' modification times by path, read in one pass of the table: the stale
/// and dead-source checks look up every page's sources, and a seek per source into `files`
/// cost a random page read each (2 s at 100,000 pages); so did a binary search of a sorted
/// list, a cache miss per step.
#[derive(Debug, Default)]
pub struct LiveFiles {
    mtimes: HashMap<String, i64, foldhash::fast::RandomState>,
    /// Every directory holding a live file, built when first asked.
    dirs: std::cell::OnceCell<std::collections::HashSet<String, foldhash::fast::RandomState>>,
}

impl LiveFiles {
    fn load(m: &Manifest) -> Result<LiveFiles> {
        let mut stmt = m
            .conn
            .prepare_cached("SELECT path, mtime_ns FROM files NOT INDEXED WHERE deleted = 0")
            .at(&m.path)?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .at(&m.path)?;
        Ok(LiveFiles {
            mtimes: rows.collect::<rusqlite::Result<_>>().at(&m.path)?,
            dirs: Default::default(),
        })
    }

    /// The modification time (ns) of the live file at `path`.
    pub fn mtime(&self, path: &str) -> Option<i64> {
        self.mtimes.get(path).copied()
    }

    /// Whether a live file lies under the directory `dir` (at any depth).
    pub fn holds(&self, dir: &str) -> bool {
        let dirs = self.dirs.get_or_init(|| {
            let mut dirs = std::collections::HashSet::default();
            for path in self.mtimes.keys() {
                for (i, _) in path.match_indices('/') {
                    dirs.insert(path[..i].to_string());
                }
            }
            dirs
        });
        dirs.contains(dir)
    }
}

impl FromIterator<(String, i64)> for LiveFiles {
    /// Live files from their paths and modification times (ns).
    fn from_iter<I: IntoIterator<Item = (String, i64)>>(files: I) -> LiveFiles {
        LiveFiles {
            mtimes: files.into_iter().collect(),
            dirs: Default::default(),
        }
    }
}

impl Manifest {
    /// The live files (not deleted), with their modification times, in one pass of the table.
    pub fn live_files(&self) -> Result<LiveFiles> {
        LiveFiles::load(self)
    }

    /// Every page's path, `updated:` and `sources:` (each as written; a value that is not a
    /// string as its JSON), in one pass of the table.
    pub fn cited_sources(&self) -> Result<Vec<Cited>> {
        let mut cited = Vec::new();
        self.each_cited(|c| cited.push(c))?;
        Ok(cited)
    }

    /// `f` of each of [`Manifest::cited_sources`], in the table's order, as it is read: held
    /// all at once, at 100,000 pages they were 25 MB of the source checks' peak.
    pub fn each_cited(&self, mut f: impl FnMut(Cited)) -> Result<()> {
        self.each_cited_of(
            "SELECT path, updated, sources FROM pages NOT INDEXED",
            &mut |c| {
                f(c);
                ControlFlow::Continue(())
            },
        )
    }

    /// `give` each of [`Manifest::cited_sources`] by path, as it is read, until it breaks.
    pub fn each_cited_by_path(&self, give: &mut dyn FnMut(Cited) -> ControlFlow<()>) -> Result<()> {
        self.each_cited_of(
            "SELECT path, updated, sources FROM pages ORDER BY path",
            give,
        )
    }

    fn each_cited_of(&self, q: &str, give: &mut dyn FnMut(Cited) -> ControlFlow<()>) -> Result<()> {
        let mut stmt = self.conn.prepare_cached(q).at(&self.path)?;
        let mut rows = stmt.query([]).at(&self.path)?;
        while let Some(r) = rows.next().at(&self.path)? {
            if give(cited(r).at(&self.path)?).is_break() {
                break;
            }
        }
        Ok(())
    }
}

/// A [`Cited`] from the columns `path, updated, sources`.
fn cited(r: &rusqlite::Row<'_>) -> rusqlite::Result<Cited> {
    let sources = r.get_ref(2)?.as_str().unwrap_or_default();
    let sources = match serde_json::from_str::<Vec<String>>(sources) {
        Ok(list) => list,
        Err(_) => serde_json::from_str::<Vec<serde_json::Value>>(sources)
            .unwrap_or_default()
            .into_iter()
            .map(|v| match v {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            })
            .collect(),
    };
    Ok(Cited {
        path: r.get(0)?,
        updated: r.get(1)?,
        sources,
    })
}
