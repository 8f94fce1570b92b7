//! Link resolution, as Obsidian does it: a path-form target (`[[folder/T]]`) by path suffix;
//! otherwise by title, then alias, then file name (pages under `wiki/` first, then the
//! shortest path). Names compare as
//! [`crate::key`] keys. Two equally good candidates make the link ambiguous: reported, never
//! guessed. A conflict copy a sync left ([`crate::vault::is_conflict_copy`]) is no candidate,
//! by path or by file name (nor by title or alias: the scan records no page for it), so that
//! it never makes a link to its page ambiguous.

use super::{At, Manifest, Result};
use crate::vault::is_conflict_copy;
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
    let full = crate::key::strip_md(path).unwrap_or(path);
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
        let found: Option<String> = self
            .prepare_cached("SELECT path FROM files WHERE path = ?1 AND deleted = 0")?
            .query_row([path], |r| r.get(0))
            .optional()?;
        Ok(found.filter(|p| !is_conflict_copy(p)))
    }

    fn named(&self, name_key: &str) -> rusqlite::Result<Vec<(String, String)>> {
        let mut stmt = self.prepare_cached(
            "SELECT path, path_key FROM files WHERE deleted = 0 AND name_key = ?1",
        )?;
        let rows = stmt.query_map([name_key], |r| Ok((r.get(0)?, r.get(1)?)))?;
        let mut found = rows.collect::<rusqlite::Result<Vec<(String, String)>>>()?;
        found.retain(|(path, _)| !is_conflict_copy(path));
        Ok(found)
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

/// Files by name, pages by title and by alias, read in three statements. Each path is held
/// once, in one buffer, and the three maps hold positions in it: as maps of names to lists of
/// path strings they took 77 MB at 100,000 pages (200,000 files), the same paths held up to
/// three times, each in its own allocation.
#[derive(Default)]
pub(super) struct InMemory {
    paths: Arena,
    named: Names,
    titled: Names,
    aliased: Names,
}

/// Names to the positions of their paths: foldhash, as for the scan's file rows (every page's
/// name is hashed once to build these, and looked up again to resolve).
type Names = HashMap<Box<str>, Ids, foldhash::fast::RandomState>;

/// The paths of one name: nearly always one.
enum Ids {
    One(usize),
    Many(Vec<usize>),
}

impl Ids {
    fn as_slice(&self) -> &[usize] {
        match self {
            Ids::One(id) => std::slice::from_ref(id),
            Ids::Many(ids) => ids,
        }
    }
}

/// Strings appended to one buffer, each found by its position.
#[derive(Default)]
struct Arena {
    text: String,
    ends: Vec<usize>,
}

impl Arena {
    fn push(&mut self, s: &str) -> usize {
        self.text.push_str(s);
        self.ends.push(self.text.len());
        self.ends.len() - 1
    }

    fn get(&self, id: usize) -> &str {
        let start = id.checked_sub(1).map_or(0, |before| self.ends[before]);
        &self.text[start..self.ends[id]]
    }
}

impl InMemory {
    /// Each table is read in its own order (a pass over the table, not a walk of an index
    /// with a look-up in the table per row); the candidates of each name are then sorted by
    /// path, as the database answers them.
    pub(super) fn load(conn: &Connection) -> rusqlite::Result<InMemory> {
        let mut paths = Arena::default();
        let mut named = Names::default();
        each_row(
            conn,
            "SELECT name_key, path FROM files NOT INDEXED WHERE deleted = 0",
            |name, path| {
                if !is_conflict_copy(path) {
                    add(&mut named, name, paths.push(path));
                }
            },
        )?;
        // Pages and aliases name the files' paths by text: found by it, while the files'
        // paths are all there is to find.
        let mut titled = Names::default();
        let mut aliased = Names::default();
        let mut elsewhere: Vec<(bool, String, String)> = Vec::new();
        {
            let at: HashMap<&str, usize, foldhash::fast::RandomState> = (0..paths.ends.len())
                .map(|id| (paths.get(id), id))
                .collect();
            for (sql, is_title) in [
                (
                    "SELECT title_key, path FROM pages NOT INDEXED WHERE title_key IS NOT NULL",
                    true,
                ),
                ("SELECT alias_key, path FROM aliases NOT INDEXED", false),
            ] {
                let names = if is_title { &mut titled } else { &mut aliased };
                each_row(conn, sql, |name, path| match at.get(path) {
                    Some(&id) => add(names, name, id),
                    None => elsewhere.push((is_title, name.to_string(), path.to_string())),
                })?;
            }
        }
        for (is_title, name, path) in elsewhere {
            let names = if is_title { &mut titled } else { &mut aliased };
            add(names, &name, paths.push(&path));
        }
        for names in [&mut named, &mut titled, &mut aliased] {
            for ids in names.values_mut() {
                if let Ids::Many(ids) = ids {
                    ids.sort_unstable_by(|a, b| paths.get(*a).cmp(paths.get(*b)));
                    ids.dedup_by(|a, b| paths.get(*a) == paths.get(*b));
                }
            }
        }
        Ok(InMemory {
            paths,
            named,
            titled,
            aliased,
        })
    }

    /// The paths of `name` in `names`, as strings.
    fn paths_of<'a>(&'a self, names: &'a Names, name: &str) -> impl Iterator<Item = &'a str> {
        names
            .get(name)
            .map_or(&[][..], Ids::as_slice)
            .iter()
            .map(|id| self.paths.get(*id))
    }
}

/// `f` of the two text columns of every row of `sql`, read without a copy.
fn each_row(conn: &Connection, sql: &str, mut f: impl FnMut(&str, &str)) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare(sql)?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        f(r.get_ref(0)?.as_str()?, r.get_ref(1)?.as_str()?);
    }
    Ok(())
}

/// Record that `name` is one of path `id`'s names.
fn add(names: &mut Names, name: &str, id: usize) {
    match names.get_mut(name) {
        Some(Ids::Many(ids)) => ids.push(id),
        Some(ids) => *ids = Ids::Many(vec![ids.as_slice()[0], id]),
        None => {
            names.insert(name.into(), Ids::One(id));
        }
    }
}

impl Candidates for InMemory {
    fn live(&self, path: &str) -> rusqlite::Result<Option<String>> {
        // A live file is among the files named like it (its name key is the last component
        // of its path key).
        let key = crate::key::link_key(path);
        Ok(self
            .paths_of(&self.named, crate::key::last_component(&key))
            .find(|p| *p == path)
            .map(str::to_string))
    }

    fn named(&self, name_key: &str) -> rusqlite::Result<Vec<(String, String)>> {
        // Path keys are derived here, not held for every file of the vault.
        Ok(self
            .paths_of(&self.named, name_key)
            .map(|p| (p.to_string(), crate::key::link_key(p)))
            .collect())
    }

    fn titled(&self, k: &str) -> rusqlite::Result<Vec<String>> {
        Ok(self.paths_of(&self.titled, k).map(str::to_string).collect())
    }

    fn aliased(&self, k: &str) -> rusqlite::Result<Vec<String>> {
        Ok(self
            .paths_of(&self.aliased, k)
            .map(str::to_string)
            .collect())
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

    /// The names read into memory answer as the database does: the same candidates, in the
    /// same order, each once, for names with one candidate and with several (files named
    /// alike, a title two pages share, an alias a page lists twice, a path the files table
    /// does not hold).
    #[test]
    fn names_in_memory_answer_as_the_database_does() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path();
        fs_err::write(root.join("sparks.toml"), "").expect("config");
        let file = |path: &str, text: &str| {
            let at = root.join(path);
            fs_err::create_dir_all(at.parent().expect("a parent")).expect("dirs");
            fs_err::write(at, text).expect("a file");
        };
        let page = |title: &str, aliases: &str| {
            format!("---\ntitle: {title}\ntype: concept\naliases: [{aliases}]\n---\nBody.\n")
        };
        file("wiki/b/Note.md", &page("Shared", "Other, other, Third"));
        file("wiki/a/Note.md", &page("Shared", ""));
        file("wiki/Note.md", &page("Single", "Third"));
        file("raw/Note.md", "A raw note.\n");
        file("raw/z/Only.md", "Only here.\n");
        file("wiki/Caf\u{e9}.md", &page("Caf\u{e9}", ""));
        let vault = crate::vault::Vault::open(root).expect("the vault");
        let mut m = Manifest::open(&root.join("sparks.db")).expect("the manifest");
        let now = crate::clock::Now::read(None);
        crate::scan::rescan(&vault, &mut m, &now, &crate::progress::Silent).expect("scan");
        // A page whose file is marked deleted (as between a scan's two passes): its title and
        // alias still name it, and the memory keeps its own copy of its path.
        m.conn
            .execute(
                "UPDATE files SET deleted = 1 WHERE path = 'wiki/Note.md'",
                [],
            )
            .expect("a file marked deleted");
        let memory = InMemory::load(&m.conn).expect("the names");
        let db: &dyn Candidates = &m.conn;
        for name in [
            "note", "shared", "other", "third", "single", "only", "café", "missing",
        ] {
            assert_eq!(
                memory.named(name).unwrap(),
                db.named(name).unwrap(),
                "{name}"
            );
            assert_eq!(
                memory.titled(name).unwrap(),
                db.titled(name).unwrap(),
                "{name}"
            );
            assert_eq!(
                memory.aliased(name).unwrap(),
                db.aliased(name).unwrap(),
                "{name}"
            );
        }
        assert_eq!(memory.titled("shared").unwrap().len(), 2);
        assert_eq!(memory.aliased("other").unwrap(), vec!["wiki/b/Note.md"]);
        assert_eq!(memory.named("note").unwrap().len(), 3);
        assert_eq!(memory.titled("single").unwrap(), vec!["wiki/Note.md"]);
        assert_eq!(
            memory.aliased("third").unwrap(),
            vec!["wiki/Note.md", "wiki/b/Note.md"]
        );
        for path in ["wiki/a/Note.md", "raw/Note.md", "wiki/Note.md", "wiki/x.md"] {
            assert_eq!(memory.live(path).unwrap(), db.live(path).unwrap(), "{path}");
        }
        let resolver = m.resolver().expect("the resolver");
        for name in [
            "Note", "Shared", "Third", "Single", "a/Note", "z/Only", "Café",
        ] {
            assert_eq!(
                resolver.resolve_name(name).unwrap(),
                m.resolve_name(name).unwrap(),
                "{name}"
            );
        }
    }

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
