//! What one run of `index` would write: every index page worked out from the manifest's
//! catalogue and the old pages (their descriptions, hand-written lines and frontmatter), with
//! the numbers the report gives. Reads the old pages; writes nothing.

use super::links::{Harvest, link_for, shard_line};
use super::page::{self, OldPage};
use super::report::{ByType, FileDiff, IndexReport, ShardReport};
use super::{GROUPS, Group, IndexError, is_generated, read_opt, stem_path};
use crate::diff;
use crate::key;
use crate::manifest::Resolver;
use crate::manifest::catalog::CatalogPage;
use crate::progress::{Phase, Progress};
use crate::scan;
use crate::vault::{INDEX, Vault};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

/// The title of a new `wiki/index.md`.
const INDEX_TITLE: &str = "Index";

/// A page as the index lists it.
pub(super) struct Listed<'a> {
    path: &'a str,
    title: String,
    group: Group,
}

/// A file as the index will leave it.
pub(super) struct Output {
    pub(super) path: String,
    pub(super) old: Option<Vec<u8>>,
    /// `None`: remove the file.
    pub(super) new: Option<String>,
    /// The section and page count of a shard.
    pub(super) shard: Option<(Group, usize)>,
}

impl Output {
    pub(super) fn changed(&self) -> bool {
        match (&self.old, &self.new) {
            (Some(old), Some(new)) => old != new.as_bytes(),
            (None, None) => false,
            _ => true,
        }
    }
}

/// Everything one run would write, with its numbers.
pub(super) struct Plan {
    /// The shards written, the index, the shards removed.
    pub(super) outputs: Vec<Output>,
    pub(super) pages: usize,
    pub(super) by_type: ByType,
    pub(super) descriptions_kept: usize,
    pub(super) kept: usize,
    pub(super) removed: usize,
}

impl Plan {
    pub(super) fn report(&self, applied: bool, dry_run: bool, seen: scan::Seen) -> IndexReport {
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
pub(super) fn plan(
    vault: &Vault,
    names: &Resolver,
    catalog: &[CatalogPage],
    today: &str,
    progress: &dyn Progress,
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
        let hand = harvest.take(names, &page, &paths)?;
        old_pages.push((group, rel, old, page, hand));
    }

    progress.phase(Phase::Writing, Some(listed.len() as u64));
    let (mut entries, descriptions_kept) = entry_lines(names, &listed, &harvest, progress)?;
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
            .filter_map(|g| entries.get(&g).map(|e| shard_line(names, g, e.len())))
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

/// Each listed page's line, by group (its link, and the description a hand wrote on the old
/// index), and how many lines kept a description.
fn entry_lines(
    names: &Resolver,
    listed: &[Listed<'_>],
    harvest: &Harvest,
    progress: &dyn Progress,
) -> Result<(HashMap<Group, Vec<String>>, usize), IndexError> {
    let mut entries: HashMap<Group, Vec<String>> = HashMap::new();
    let mut descriptions_kept = 0;
    for p in listed {
        progress.advance(1);
        let link = link_for(names, p.path, &p.title)?;
        let line = match harvest.descriptions.get(p.path).map(String::as_str) {
            Some(d) if !d.is_empty() => {
                descriptions_kept += 1;
                format!("- {link} {} {d}", page::DASH)
            }
            _ => format!("- {link}"),
        };
        entries.entry(p.group).or_default().push(line);
    }
    Ok((entries, descriptions_kept))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_titles() {
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
