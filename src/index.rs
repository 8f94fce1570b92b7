//! `index`: rebuild `wiki/index.md`, the catalogue of the wiki's pages grouped by type, from the
//! manifest as the last scan left it.
//!
//! Every page is listed once, under its type's section or under `## Other`, as `[[link]]` and a
//! description. The link is the page's title when that resolves to the page, else its path.
//! What people and agents wrote survives a rebuild: a description stays with the page its old
//! entry's link resolves to (by title, alias, file name or path, so a renamed file or a moved
//! page keeps it), every line that is not an entry is kept, in order, before the sections, and
//! so is the page's frontmatter (`updated` moves to today only when the content changes).
//! Nothing changed means nothing written. Above `[index] shard_above` pages, each type gets its
//! own page `wiki/index/<Type>.md` and `wiki/index.md` becomes a map of them.
//!
//! The index is never written from a manifest that is out of date (a page it does not know
//! would be missing): it brings the manifest up to date first (an incremental scan, cheap when
//! nothing changed), and records what it wrote in the manifest afterwards, so that the next
//! command sees the index as it is.

mod diff;
mod links;
mod page;
mod report;

pub use report::{ByType, FileDiff, IndexReport, ShardReport};

use crate::clock::Now;
use crate::fault;
use crate::fsio;
use crate::key;
use crate::lock::VaultLock;
use crate::manifest::catalog::CatalogPage;
use crate::manifest::{Manifest, ManifestError};
use crate::scan::{self, ScanError};
use crate::vault::{INDEX, Vault};
use links::{Harvest, link_for, shard_line};
use page::OldPage;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Where the per-type pages of a sharded index live.
pub const SHARD_DIR: &str = "wiki/index";

/// How many times the rewrite starts over when an index page is edited while it runs.
const ATTEMPTS: usize = 5;

/// The title of a new `wiki/index.md`.
const INDEX_TITLE: &str = "Index";

/// A section of the index: one of the five page types, or every other page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Group {
    /// `type: entity`
    Entities,
    /// `type: concept`
    Concepts,
    /// `type: summary`
    Summaries,
    /// `type: synthesis`
    Syntheses,
    /// `type: collection`
    Collections,
    /// Any other type, or none.
    Other,
}

/// The sections, in the order the index writes them.
pub const GROUPS: [Group; 6] = [
    Group::Entities,
    Group::Concepts,
    Group::Summaries,
    Group::Syntheses,
    Group::Collections,
    Group::Other,
];

impl Group {
    /// The section of a page with this `type:` (exact: `Entity` is not a type).
    pub fn of(kind: Option<&str>) -> Group {
        GROUPS
            .into_iter()
            .find(|g| *g != Group::Other && kind == Some(g.kind()))
            .unwrap_or(Group::Other)
    }

    /// The `type:` value, or `other`.
    pub fn kind(self) -> &'static str {
        match self {
            Group::Entities => "entity",
            Group::Concepts => "concept",
            Group::Summaries => "summary",
            Group::Syntheses => "synthesis",
            Group::Collections => "collection",
            Group::Other => "other",
        }
    }

    /// The section heading.
    pub fn heading(self) -> &'static str {
        match self {
            Group::Entities => "Entities",
            Group::Concepts => "Concepts",
            Group::Summaries => "Summaries",
            Group::Syntheses => "Syntheses",
            Group::Collections => "Collections",
            Group::Other => "Other",
        }
    }

    /// The vault-relative path of this section's page in a sharded index.
    pub fn shard(self) -> String {
        format!("{SHARD_DIR}/{}.md", self.heading())
    }

    /// The title of this section's page in a sharded index.
    pub fn shard_title(self) -> String {
        match self {
            Group::Other => "Index of Other Pages".into(),
            g => format!("Index of {}", g.heading()),
        }
    }

    /// `1 entity`, `3 entities`, `2 other`.
    pub fn count(self, n: usize) -> String {
        let plural = match self {
            Group::Entities => "entities",
            Group::Concepts => "concepts",
            Group::Summaries => "summaries",
            Group::Syntheses => "syntheses",
            Group::Collections => "collections",
            Group::Other => "other",
        };
        format!("{n} {}", if n == 1 { self.kind() } else { plural })
    }
}

/// `index` failed; no file was left half-written.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The manifest failed.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// Bringing the manifest up to date (before) or recording what was written (after) failed.
    #[error(transparent)]
    Scan(#[from] ScanError),
    /// A file could not be read or written.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The vault lock could not be taken.
    #[error("cannot lock the vault: {0}")]
    Lock(std::io::Error),
    /// An index page kept changing while it was being rewritten.
    #[error("{} changed {ATTEMPTS} times while index was rewriting it", .0.display())]
    Busy(PathBuf),
}

impl IndexError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            IndexError::Scan(s) => s.hint(),
            IndexError::Manifest(m) => m.hint(),
            _ => None,
        }
    }
}

/// Bring the manifest up to date, then rebuild the index (or, with `dry_run`, work out what
/// would change and write nothing).
pub fn index(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
    dry_run: bool,
) -> Result<IndexReport, IndexError> {
    let _lock = if dry_run {
        None
    } else {
        Some(VaultLock::acquire(&vault.root).map_err(IndexError::Lock)?)
    };
    let seen = scan::refresh(vault, manifest, now)?;
    let report = build(vault, manifest, now, dry_run)?;
    Ok(IndexReport { seen, ..report })
}

/// Rebuild the index from the manifest as it is, for a command that holds the vault lock and
/// brought the manifest up to date itself (`mv` and `merge`, after their writes).
pub fn rebuild(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
) -> Result<IndexReport, IndexError> {
    build(vault, manifest, now, false)
}

fn build(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
    dry_run: bool,
) -> Result<IndexReport, IndexError> {
    let seen = scan::Seen::default();
    let catalog = manifest.catalog_pages()?;
    let today = now.today.format("%Y-%m-%d").to_string();
    for _ in 0..ATTEMPTS {
        let plan = plan(vault, manifest, &catalog, &today)?;
        if dry_run {
            return Ok(plan.report(false, true, seen).at(vault));
        }
        if apply(vault, &plan)? {
            let written: Vec<String> = plan
                .outputs
                .iter()
                .filter(|o| o.changed())
                .map(|o| o.path.clone())
                .collect();
            if !written.is_empty() {
                scan::scan_paths(vault, manifest, &written, now.ns)?;
            }
            return Ok(plan.report(true, false, seen).at(vault));
        }
    }
    Err(IndexError::Busy(vault.path(INDEX)))
}

/// Whether `index` writes this path itself (so it is no entry of the index).
pub fn is_generated(path: &str) -> bool {
    let shard = path
        .strip_prefix(SHARD_DIR)
        .and_then(|r| r.strip_prefix('/'))
        .and_then(|r| r.strip_suffix(".md"));
    path == INDEX || shard.is_some_and(|s| GROUPS.iter().any(|g| g.heading() == s))
}

/// A page as the index lists it.
struct Listed<'a> {
    path: &'a str,
    title: String,
    group: Group,
}

/// A file as the index will leave it.
struct Output {
    path: String,
    old: Option<Vec<u8>>,
    /// `None`: remove the file.
    new: Option<String>,
    /// The section and page count of a shard.
    shard: Option<(Group, usize)>,
}

impl Output {
    fn changed(&self) -> bool {
        match (&self.old, &self.new) {
            (Some(old), Some(new)) => old != new.as_bytes(),
            (None, None) => false,
            _ => true,
        }
    }
}

/// Everything one run would write, with its numbers.
struct Plan {
    /// The shards written, the index, the shards removed.
    outputs: Vec<Output>,
    pages: usize,
    by_type: ByType,
    descriptions_kept: usize,
    kept: usize,
    removed: usize,
}

impl Plan {
    fn report(&self, applied: bool, dry_run: bool, seen: scan::Seen) -> IndexReport {
        let unchanged = self.outputs.iter().all(|o| !o.changed());
        let text = |b: &Option<Vec<u8>>| {
            b.as_deref()
                .map(String::from_utf8_lossy)
                .unwrap_or_default()
                .into_owned()
        };
        IndexReport {
            path: INDEX,
            output_path: PathBuf::new(),
            bytes: self
                .outputs
                .iter()
                .find(|o| o.path == INDEX)
                .and_then(|o| o.new.as_ref())
                .map_or(0, String::len),
            written: applied && !unchanged,
            unchanged,
            pages: self.pages,
            by_type: self.by_type,
            descriptions_kept: self.descriptions_kept,
            descriptions_blank: self.pages - self.descriptions_kept,
            kept: self.kept,
            added: self.pages - self.kept,
            removed: self.removed,
            shards: self
                .outputs
                .iter()
                .filter_map(|o| match (o.shard, &o.new) {
                    (Some((g, pages)), Some(_)) => Some(ShardReport {
                        path: o.path.clone(),
                        kind: g.kind(),
                        pages,
                        unchanged: !o.changed(),
                    }),
                    _ => None,
                })
                .collect(),
            removed_shards: self
                .outputs
                .iter()
                .filter(|o| o.new.is_none() && o.old.is_some())
                .map(|o| o.path.clone())
                .collect(),
            diff: self
                .outputs
                .iter()
                .filter(|o| o.changed())
                .map(|o| FileDiff {
                    path: o.path.clone(),
                    lines: diff::unified(&text(&o.old), o.new.as_deref().unwrap_or("")),
                })
                .collect(),
            dry_run,
            seen,
        }
    }
}

/// The path without its `.md`.
pub(crate) fn stem_path(path: &str) -> &str {
    match path.len().checked_sub(3) {
        Some(i) if path.is_char_boundary(i) && path[i..].eq_ignore_ascii_case(".md") => &path[..i],
        _ => path,
    }
}

/// The title a page is listed under: its frontmatter title, else its file name.
fn display_title(p: &CatalogPage) -> String {
    match p.title.as_deref().map(str::trim) {
        Some(t) if !t.is_empty() => t.to_string(),
        _ => stem_path(&p.path)
            .rsplit('/')
            .next()
            .unwrap_or(&p.path)
            .to_string(),
    }
}

/// An I/O error about `path`, for `map_err`.
fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> IndexError + 'a {
    move |source| IndexError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

fn read_opt(vault: &Vault, rel: &str) -> Result<Option<Vec<u8>>, IndexError> {
    let path = vault.path(rel);
    match std::fs::read(&path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(IndexError::Io {
            action: "read",
            path,
            source,
        }),
    }
}

/// An old page's title (from its frontmatter), or `default`.
fn old_title(page: &OldPage, default: &str) -> String {
    let fm = page
        .frontmatter
        .as_deref()
        .map(crate::markdown::frontmatter::split);
    match fm.map(|s| s.block) {
        Some(crate::markdown::Block::Valid(f)) => f
            .title
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| default.to_string()),
        _ => default.to_string(),
    }
}

/// The page as it will be written: the old frontmatter kept and put right, `updated` bumped
/// only if the page changes.
fn finish(old: Option<&[u8]>, page: &OldPage, body: &str, title: &str, today: &str) -> String {
    let text = page::compose(page.frontmatter.as_deref(), body, title, today);
    if page.frontmatter.is_none() || old == Some(text.as_bytes()) {
        text
    } else {
        page::bump_updated(&text, today)
    }
}

/// Work out what every index page becomes: the pages listed from the manifest, the old pages'
/// descriptions and hand-written lines, and the frontmatter each keeps.
fn plan(
    vault: &Vault,
    manifest: &Manifest,
    catalog: &[CatalogPage],
    today: &str,
) -> Result<Plan, IndexError> {
    let mut listed: Vec<Listed<'_>> = catalog
        .iter()
        .filter(|p| !is_generated(&p.path))
        .map(|p| Listed {
            path: &p.path,
            title: display_title(p),
            group: Group::of(p.kind.as_deref()),
        })
        .collect();
    listed.sort_by_cached_key(|p| (key::key(&p.title), p.title.clone(), p.path));
    let mut by_type = ByType::default();
    for p in &listed {
        by_type.add(p.group);
    }
    let sharded = listed.len() > vault.config.index.shard_above;
    let paths: HashSet<&str> = listed.iter().map(|p| p.path).collect();

    // Every old index page gives up its descriptions before anything is written.
    let mut harvest = Harvest::default();
    let mut old_pages = Vec::new();
    for (group, rel) in
        std::iter::once((None, INDEX.to_string())).chain(GROUPS.map(|g| (Some(g), g.shard())))
    {
        let old = read_opt(vault, &rel)?;
        let page = old
            .as_deref()
            .map(|b| page::parse(&String::from_utf8_lossy(b)))
            .unwrap_or_default();
        let hand = harvest.take(manifest, &page, &paths)?;
        old_pages.push((group, rel, old, page, hand));
    }

    let mut entries: HashMap<Group, Vec<String>> = HashMap::new();
    let mut descriptions_kept = 0;
    for p in &listed {
        let link = link_for(manifest, p.path, &p.title)?;
        let line = match harvest.descriptions.get(p.path).map(String::as_str) {
            Some(d) if !d.is_empty() => {
                descriptions_kept += 1;
                format!("- {link} {} {d}", page::DASH)
            }
            _ => format!("- {link}"),
        };
        entries.entry(p.group).or_default().push(line);
    }
    let kept = listed
        .iter()
        .filter(|p| harvest.descriptions.contains_key(p.path))
        .count();

    // Kept shards first, then the index, then the shards no longer needed: what a removed shard
    // held reaches the index before the shard goes.
    let (_, rel, old, page, mut hand) = old_pages.remove(0);
    let mut outputs = Vec::new();
    let mut removals = Vec::new();
    for (group, shard_rel, shard_old, shard_page, shard_hand) in old_pages {
        let Some(g) = group else { continue };
        let lines = entries.get(&g).cloned().unwrap_or_default();
        if sharded && !lines.is_empty() {
            let title = old_title(&shard_page, &g.shard_title());
            let body = page::body(
                &page::preamble(shard_hand, &title),
                &[(None, lines.clone())],
            );
            let new = finish(shard_old.as_deref(), &shard_page, &body, &title, today);
            outputs.push(Output {
                path: shard_rel,
                old: shard_old,
                new: Some(new),
                shard: Some((g, lines.len())),
            });
        } else if shard_old.is_some() {
            // Its own lines move to the index (once, should a crash make this run again); its
            // title heading does not.
            let own: Vec<String> = shard_hand
                .into_iter()
                .filter(|l| l.trim().is_empty() || (!l.starts_with("# ") && !hand.contains(l)))
                .collect();
            if own.iter().any(|l| !l.trim().is_empty()) {
                hand.push(String::new());
                hand.extend(own);
            }
            removals.push(Output {
                path: shard_rel,
                old: shard_old,
                new: None,
                shard: None,
            });
        }
    }
    let sections: Vec<(Option<&str>, Vec<String>)> = if sharded {
        let map = GROUPS
            .into_iter()
            .filter_map(|g| entries.get(&g).map(|e| shard_line(manifest, g, e.len())))
            .collect::<Result<Vec<_>, _>>()?;
        vec![(None, map)]
    } else {
        GROUPS
            .into_iter()
            .filter_map(|g| entries.remove(&g).map(|e| (Some(g.heading()), e)))
            .collect()
    };
    let title = old_title(&page, INDEX_TITLE);
    let body = page::body(&page::preamble(hand, &title), &sections);
    let new = finish(old.as_deref(), &page, &body, &title, today);
    outputs.push(Output {
        path: rel,
        old,
        new: Some(new),
        shard: None,
    });
    outputs.append(&mut removals);
    Ok(Plan {
        outputs,
        pages: listed.len(),
        by_type,
        descriptions_kept,
        kept,
        removed: harvest.removed,
    })
}

/// Write what changed: the shards, then the index, then remove the shards no longer needed.
/// Returns false, having written nothing more, when a file changed since it was read: the
/// caller plans again from what is there now.
fn apply(vault: &Vault, plan: &Plan) -> Result<bool, IndexError> {
    let (shards, rest): (Vec<&Output>, Vec<&Output>) =
        plan.outputs.iter().partition(|o| o.shard.is_some());
    let (index, removals): (Vec<&Output>, Vec<&Output>) =
        rest.into_iter().partition(|o| o.new.is_some());
    for o in shards {
        if !write(vault, o)? {
            return Ok(false);
        }
    }
    fault::reached("index.shards");
    for o in index {
        if !write(vault, o)? {
            return Ok(false);
        }
    }
    fault::reached("index.write");
    for o in removals {
        if !write(vault, o)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Make one file what the plan says, unless it changed since it was read (then false).
fn write(vault: &Vault, o: &Output) -> Result<bool, IndexError> {
    if !o.changed() {
        return Ok(true);
    }
    let path = vault.path(&o.path);
    match (&o.old, &o.new) {
        (Some(old), Some(new)) => {
            fsio::replace_if_unchanged(&path, old, new.as_bytes()).map_err(io("replace", &path))
        }
        (None, Some(new)) => {
            if let Some(dir) = path.parent() {
                fs_err::create_dir_all(dir).map_err(io("create", dir))?;
            }
            if path.symlink_metadata().is_ok() {
                return Ok(false);
            }
            fsio::write_atomic(&path, new.as_bytes()).map_err(io("write", &path))?;
            Ok(true)
        }
        (Some(old), None) => {
            match read_opt(vault, &o.path)? {
                Some(now) if now != *old => return Ok(false),
                Some(_) => fs_err::remove_file(&path).map_err(io("remove", &path))?,
                None => {}
            }
            Ok(true)
        }
        (None, None) => Ok(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_take_exact_types_only() {
        assert_eq!(Group::of(Some("entity")), Group::Entities);
        assert_eq!(Group::of(Some("synthesis")), Group::Syntheses);
        assert_eq!(Group::of(Some("Entity")), Group::Other);
        assert_eq!(Group::of(Some("other")), Group::Other);
        assert_eq!(Group::of(None), Group::Other);
        assert_eq!(Group::Entities.shard(), "wiki/index/Entities.md");
        assert_eq!(Group::Summaries.count(1), "1 summary");
        assert_eq!(Group::Summaries.count(2), "2 summaries");
    }

    #[test]
    fn generated_paths_and_stems() {
        assert!(is_generated("wiki/index.md") && is_generated("wiki/index/Other.md"));
        assert!(!is_generated("wiki/index/Notes.md"));
        assert_eq!(stem_path("wiki/a/B.MD"), "wiki/a/B");
        assert_eq!(stem_path("wiki/a/B.png"), "wiki/a/B.png");
        let page = |path: &str, title: Option<&str>| CatalogPage {
            path: path.into(),
            title: title.map(str::to_string),
            kind: None,
        };
        assert_eq!(display_title(&page("wiki/x/Plain.md", None)), "Plain");
        assert_eq!(
            display_title(&page("wiki/x/Plain.md", Some(" Titled "))),
            "Titled"
        );
    }
}
