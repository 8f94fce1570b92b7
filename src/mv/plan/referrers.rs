//! The files whose references to a page change, found and rewritten a chunk at a time on
//! every core, and the generated pages to regenerate after an `mv` or `merge`.

use super::{FileChange, FileOp, changes, frontmatter_edits, read_text, rewrite_op};
use crate::collections;
use crate::manifest::Manifest;
use crate::markdown::edit;
use crate::mv::MoveError;
use crate::mv::refs::{self, Paths, Retarget};
use crate::par::par_map;
use crate::vault::Vault;

/// The files of the wiki whose references to a page change.
#[derive(Debug, Default)]
pub struct Referrers {
    /// Each file's rewrite (its `updated:` set to today among its edits). Only these are
    /// kept, not the texts they were planned from: at 100,000 pages a page linked from a
    /// quarter of the wiki has 24,479 of them.
    pub files: Vec<FileOp>,
    /// The lines each rewrite changes, when asked for (`--dry-run`).
    pub changes: Vec<FileChange>,
    /// How many references the edits rewrite.
    pub rewritten: usize,
    /// The links to the page that name a heading, in every file.
    pub headings: Vec<refs::HeadingLink>,
    /// The live files of the vault, compared as keys, when some text needs them (a Markdown
    /// link, whose reading depends on what exists); empty otherwise.
    pub live: Paths,
}

/// How many files [`referrers`] reads and searches at a time: only the texts of the files
/// that refer to the page are kept, so memory grows with the referrers, not the wiki.
const CHUNK: usize = 1024;

/// Every file of the wiki other than `skip` whose references to the page change, each with
/// its edits and its `updated:` set to `today`, read and searched a chunk at a time on every
/// core. `sources` are the files the manifest says link to the page: each must be readable
/// text. The others read are the pages that may hold a Markdown link to a path (the scan
/// notes them); one that is not readable text is left out. `own` are texts searched by the
/// caller (the page itself): they decide, with the wiki's, whether the live files are needed.
/// With `lines`, the lines each rewrite changes are kept too.
#[allow(clippy::too_many_arguments)]
pub fn referrers(
    vault: &Vault,
    manifest: &Manifest,
    retarget: &Retarget,
    sources: &[String],
    skip: &[&str],
    own: &[&str],
    today: &str,
    lines: bool,
) -> Result<Referrers, MoveError> {
    // The files the manifest says link to the page, and the pages that may hold a Markdown
    // link to it (which the manifest does not resolve): no other page can refer to it.
    let mut paths: Vec<String> = manifest
        .pages_with_path_links()?
        .into_iter()
        .chain(sources.iter().filter(|w| w.starts_with("wiki/")).cloned())
        .filter(|p| !skip.contains(&p.as_str()))
        .collect();
    paths.sort_unstable();
    paths.dedup();
    let wanted: std::collections::HashSet<&str> = sources.iter().map(String::as_str).collect();
    let mut out = Referrers::default();
    let mut live: Option<Paths> = None;
    let load = |live: &mut Option<Paths>| -> Result<(), MoveError> {
        if live.is_none() {
            *live = Some(Paths::new(manifest.changed_since(None)?));
        }
        Ok(())
    };
    if own.iter().any(|t| t.contains("](")) {
        load(&mut live)?;
    }
    let empty = Paths::default();
    for chunk in paths.chunks(CHUNK) {
        let mut texts = Vec::with_capacity(chunk.len());
        for (p, r) in chunk.iter().zip(par_map(chunk, |p| read_text(vault, p))) {
            match r {
                Ok(text) => texts.push((p, text)),
                Err(e) if wanted.contains(p.as_str()) => return Err(e),
                Err(_) => {}
            }
        }
        if texts.iter().any(|(_, t)| t.contains("](")) {
            load(&mut live)?;
        }
        let known = live.as_ref().unwrap_or(&empty);
        let exists = |p: &str| known.contains(p);
        // Each file's whole plan (its references found, its `updated:` set, the result
        // hashed) is made on the reading threads: the frontmatter edit parses the YAML.
        let planned = par_map(&texts, |(path, text)| {
            // A file the manifest knows has no wikilink to the page is read only for
            // Markdown links, which the manifest does not resolve.
            let mut f = retarget.find_in(path, text, None, &exists, wanted.contains(path.as_str()));
            let headings = std::mem::take(&mut f.headings);
            if f.edits.is_empty() {
                return (headings, None);
            }
            f.edits.extend(frontmatter_edits(text, |t| {
                edit::set_scalar(t, "updated", today)
            }));
            let op = rewrite_op(path, text, f.edits, None);
            let lines = lines.then(|| changes(&[(&op, text.as_str())]));
            (headings, Some((op, f.rewritten, lines)))
        });
        for (mut headings, op) in planned {
            out.headings.append(&mut headings);
            let Some((op, rewritten, lines)) = op else {
                continue;
            };
            out.rewritten += rewritten;
            out.changes.extend(lines.into_iter().flatten());
            out.files.push(op);
        }
    }
    out.live = live.unwrap_or_default();
    Ok(out)
}

/// The generated pages to regenerate after the plan: the index when it is among the files
/// (it listed the page), and each existing collection page that is, or whose sources hold
/// `paths`.
pub fn regenerated(
    vault: &Vault,
    files: &[FileOp],
    paths: &[&str],
) -> Result<(bool, Vec<String>), MoveError> {
    let touched = |p: &str| files.iter().any(|f| f.path == p);
    let index = files.iter().any(|f| crate::index::is_generated(&f.path));
    let mut chosen = Vec::new();
    for c in collections::ALL {
        let sources = c
            .sources(&vault.config)
            .map_err(crate::collections::regen::RegenError::from)?;
        // A collection page nobody generated is not made here.
        let exists = vault.path(&c.output()).exists();
        if exists
            && (touched(&c.output()) || sources.iter().any(|s| paths.iter().any(|p| s.covers(p))))
        {
            chosen.push(c.name().to_string());
        }
    }
    Ok((index, chosen))
}
