//! Link resolution, as Obsidian does it: a path-form target (`[[folder/T]]`) by path suffix;
//! otherwise by title, then alias, then file name (pages under `wiki/` first, then the
//! shortest path). Names compare as
//! [`crate::key`] keys. Two equally good candidates make the link ambiguous: reported, never
//! guessed.

use super::{At, Manifest, Result};
use rusqlite::{Connection, OptionalExtension};
use std::collections::HashMap;

/// How a link target resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// To this path.
    Resolved(String),
    /// To nothing.
    Broken,
    /// To this many equally good candidates.
    Ambiguous(usize),
}

impl Manifest {
    /// A wikilink that leads to the file at `path`, shown as `title`: `[[Title]]` when the
    /// title resolves to it; otherwise its path (inside `wiki/` when that is unambiguous, else
    /// from the vault root) labelled with the title.
    pub fn link_to(&self, path: &str, title: &str) -> Result<String> {
        link_to(&self.conn, path, title).at(&self.path)
    }

    /// What `name` (a vault-relative path, or link text as in `[[name]]`) refers to.
    pub fn resolve_name(&self, name: &str) -> Result<Resolution> {
        resolve_name(&self.conn, name).at(&self.path)
    }

    /// A resolver that answers from the candidate tables read into memory once: for a command
    /// that resolves a name for every page (`index`), a hash look-up each instead of three or
    /// four statements.
    pub fn resolver(&self) -> Result<Resolver> {
        Ok(Resolver {
            names: InMemory::load(&self.conn).at(&self.path)?,
            path: self.path.clone(),
        })
    }
}

/// Names resolved as [`Manifest::resolve_name`] resolves them, from memory.
pub struct Resolver {
    names: InMemory,
    /// The manifest they were read from, for errors.
    path: std::path::PathBuf,
}

impl Resolver {
    /// See [`Manifest::link_to`].
    pub fn link_to(&self, path: &str, title: &str) -> Result<String> {
        link_to(&self.names, path, title).at(&self.path)
    }

    /// See [`Manifest::resolve_name`].
    pub fn resolve_name(&self, name: &str) -> Result<Resolution> {
        resolve_name(&self.names, name).at(&self.path)
    }
}

fn link_to(c: &dyn Candidates, path: &str, title: &str) -> rusqlite::Result<String> {
    let here = Resolution::Resolved(path.to_string());
    let plain = !title.is_empty() && !title.contains(['|', '#', '[', ']', '\n', '\r']);
    if plain && resolve_name(c, title)? == here {
        return Ok(format!("[[{title}]]"));
    }
    let full = match path.len().checked_sub(3) {
        Some(n) if path[n..].eq_ignore_ascii_case(".md") => &path[..n],
        _ => path,
    };
    let target = match full.strip_prefix("wiki/").filter(|s| s.contains('/')) {
        Some(short) if resolve_name(c, short)? == here => short,
        _ => full,
    };
    let label = if title.is_empty()
        || title.contains("]]")
        || title.contains("[[")
        || title.contains(['\n', '\r'])
    {
        full.rsplit('/').next().unwrap_or(full)
    } else {
        title
    };
    Ok(format!("[[{target}|{label}]]"))
}

fn resolve_name(c: &dyn Candidates, name: &str) -> rusqlite::Result<Resolution> {
    if let Some(p) = c.live(name.trim())? {
        return Ok(Resolution::Resolved(p));
    }
    resolve_key(c, &crate::key::link_key(name))
}

/// Where link resolution finds its candidates: the database, or the same tables read into
/// memory once.
pub(super) trait Candidates {
    /// The live file at exactly this path, if there is one.
    fn live(&self, path: &str) -> rusqlite::Result<Option<String>>;
    /// Live files named `name_key`, with their path keys.
    fn named(&self, name_key: &str) -> rusqlite::Result<Vec<(String, String)>>;
    /// Pages titled `k`, by path.
    fn titled(&self, k: &str) -> rusqlite::Result<Vec<String>>;
    /// Pages with the alias `k`, by path, each once.
    fn aliased(&self, k: &str) -> rusqlite::Result<Vec<String>>;
}

impl Candidates for Connection {
    fn live(&self, path: &str) -> rusqlite::Result<Option<String>> {
        self.prepare_cached("SELECT path FROM files WHERE path = ?1 AND deleted = 0")?
            .query_row([path], |r| r.get(0))
            .optional()
    }

    fn named(&self, name_key: &str) -> rusqlite::Result<Vec<(String, String)>> {
        let mut stmt = self.prepare_cached(
            "SELECT path, path_key FROM files WHERE deleted = 0 AND name_key = ?1",
        )?;
        let rows = stmt.query_map([name_key], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect()
    }

    fn titled(&self, k: &str) -> rusqlite::Result<Vec<String>> {
        collect(
            self,
            "SELECT path FROM pages WHERE title_key = ?1 ORDER BY path",
            k,
        )
    }

    fn aliased(&self, k: &str) -> rusqlite::Result<Vec<String>> {
        collect(
            self,
            "SELECT DISTINCT path FROM aliases WHERE alias_key = ?1 ORDER BY path",
            k,
        )
    }
}

/// Names to paths, as loaded: foldhash, as for the scan's file rows (every page's name is
/// hashed once to build these, and looked up again to resolve).
type Names = HashMap<String, Vec<String>, foldhash::fast::RandomState>;

/// Files by name, pages by title and by alias, read in three statements.
#[derive(Default)]
pub(super) struct InMemory {
    named: Names,
    titled: Names,
    aliased: Names,
}

impl InMemory {
    /// Each table is read in its own order (a pass over the table, not a walk of an index
    /// with a look-up in the table per row); the candidates of each name are then sorted by
    /// path, as the database answers them.
    pub(super) fn load(conn: &Connection) -> rusqlite::Result<InMemory> {
        let read = |sql: &str| -> rusqlite::Result<Names> {
            let mut map = Names::default();
            let mut stmt = conn.prepare(sql)?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                map.entry(r.get(0)?).or_default().push(r.get(1)?);
            }
            for paths in map.values_mut().filter(|p| p.len() > 1) {
                paths.sort_unstable();
                paths.dedup();
            }
            Ok(map)
        };
        Ok(InMemory {
            named: read("SELECT name_key, path FROM files NOT INDEXED WHERE deleted = 0")?,
            titled: read(
                "SELECT title_key, path FROM pages NOT INDEXED WHERE title_key IS NOT NULL",
            )?,
            aliased: read("SELECT alias_key, path FROM aliases NOT INDEXED")?,
        })
    }
}

impl Candidates for InMemory {
    fn live(&self, path: &str) -> rusqlite::Result<Option<String>> {
        // A live file is among the files named like it (its name key is the last component
        // of its path key).
        let key = crate::key::link_key(path);
        Ok(self
            .named
            .get(crate::key::last_component(&key))
            .and_then(|paths| paths.iter().find(|p| *p == path).cloned()))
    }

    fn named(&self, name_key: &str) -> rusqlite::Result<Vec<(String, String)>> {
        // Path keys are derived here, not held for every file of the vault.
        Ok(self.named.get(name_key).map_or_else(Vec::new, |paths| {
            paths
                .iter()
                .map(|p| (p.clone(), crate::key::link_key(p)))
                .collect()
        }))
    }

    fn titled(&self, k: &str) -> rusqlite::Result<Vec<String>> {
        Ok(self.titled.get(k).cloned().unwrap_or_default())
    }

    fn aliased(&self, k: &str) -> rusqlite::Result<Vec<String>> {
        Ok(self.aliased.get(k).cloned().unwrap_or_default())
    }
}

/// Resolve a link key: path form by path suffix; otherwise title, alias, then file name.
pub(super) fn resolve_key(c: &dyn Candidates, k: &str) -> rusqlite::Result<Resolution> {
    if k.contains('/') {
        // A path suffix ends in the file's name: the files so named are the candidates, and
        // the suffix is checked here (no index serves a suffix match).
        let suffix = format!("/{k}");
        let by_path: Vec<String> = c
            .named(crate::key::last_component(k))?
            .into_iter()
            .filter(|(_, path_key)| path_key == k || path_key.ends_with(&suffix))
            .map(|(path, _)| path)
            .collect();
        return Ok(shortest(&by_path));
    }
    for found in [c.titled(k)?, c.aliased(k)?] {
        match found.len() {
            0 => {}
            1 => return Ok(Resolution::Resolved(found[0].clone())),
            n => return Ok(Resolution::Ambiguous(n)),
        }
    }
    // By file name, wiki pages before other files (a raw note named like a page should not
    // capture its links), then the shortest path.
    let (wiki, other): (Vec<String>, Vec<String>) = c
        .named(k)?
        .into_iter()
        .map(|(path, _)| path)
        .partition(|p| p.starts_with("wiki/"));
    Ok(shortest(if wiki.is_empty() { &other } else { &wiki }))
}

/// The first column of every row of a one-parameter query.
pub(super) fn collect(conn: &Connection, sql: &str, arg: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map([arg], |r| r.get::<_, String>(0))?;
    rows.collect()
}

/// Candidates sorted by path length: the shortest wins when it is the only one that short.
/// Length is counted in characters of the normalised path, so that a file and its twin in
/// another Unicode normalisation form are equally long: ambiguous, not decided by bytes.
fn shortest(paths: &[String]) -> Resolution {
    let len = |p: &String| crate::key::key(p).chars().count();
    let mut sorted: Vec<(usize, &String)> = paths.iter().map(|p| (len(p), p)).collect();
    sorted.sort();
    match sorted.as_slice() {
        [] => Resolution::Broken,
        [(_, one)] => Resolution::Resolved((*one).clone()),
        [(a, p), (b, _), ..] if a < b => Resolution::Resolved((*p).clone()),
        [(first, _), ..] => {
            Resolution::Ambiguous(sorted.iter().take_while(|(n, _)| n == first).count())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_path_wins_only_when_unique() {
        let s = |v: &[&str]| shortest(&v.iter().map(|p| p.to_string()).collect::<Vec<_>>());
        assert_eq!(s(&[]), Resolution::Broken);
        assert_eq!(
            s(&["wiki/a.md", "wiki/x/a.md"]),
            Resolution::Resolved("wiki/a.md".into())
        );
        assert_eq!(
            s(&["wiki/x/a.md", "wiki/y/a.md", "wiki/zz/a.md"]),
            Resolution::Ambiguous(2)
        );
        assert_eq!(
            s(&["wiki/Caf\u{e9}.md", "wiki/Cafe\u{301}.md"]),
            Resolution::Ambiguous(2)
        );
    }
}
