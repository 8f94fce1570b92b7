//! The plan of an `mv` or `merge`: every file it changes, as hashes and edits, stored in the
//! journal before anything is written; the report made from it; and how `mv` makes its plan.

use super::names::{self, NewName};
use super::refs::{self, Paths, Retarget, Via};
use super::{MoveError, MoveRequest};
use crate::clock::Now;
use crate::collections;
use crate::key;
use crate::manifest::Manifest;
use crate::markdown::edit;
use crate::markdown::frontmatter::{self, Block, Frontmatter};
use crate::markdown::rewrite::{self, Edit, LineChange};
use crate::vault::Vault;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Which command made a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// `sparks mv`.
    Mv,
    /// `sparks merge`.
    Merge,
}

impl Kind {
    /// The journal's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Mv => "mv",
            Kind::Merge => "merge",
        }
    }
}

/// What one file becomes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileOp {
    /// The file, vault-relative.
    pub path: String,
    /// The blake3 hash of its content when the plan was made.
    pub old: String,
    /// Where its new content goes instead (the moved page); `path` is then removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// The hash of its new content; `None`: the file is deleted.
    pub new: Option<String>,
    /// The edits that make the new content from the old.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edits: Vec<Edit>,
}

impl FileOp {
    /// Where the file's content ends up (`None` for a deletion).
    pub fn destination(&self) -> Option<&str> {
        self.new.as_ref()?;
        Some(self.to.as_deref().unwrap_or(&self.path))
    }
}

/// Everything an `mv` or `merge` does, decided before it writes anything.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Plan {
    /// `mv` or `merge`.
    pub kind: Kind,
    /// The page moved, or merged (FROM).
    pub from: String,
    /// Its new path, or INTO's.
    pub to: String,
    /// The page's title before (FROM's title for a merge).
    pub old_title: String,
    /// The title after (INTO's for a merge).
    pub title: String,
    /// Whether the old title was added to `aliases:`.
    pub alias_added: bool,
    /// References rewritten.
    pub links_rewritten: usize,
    /// The files, in the order they are written (deletions last).
    pub files: Vec<FileOp>,
    /// Whether the index listed the page (it is rebuilt).
    pub index: bool,
    /// The collections whose pages listed it or whose sources it is (they are regenerated),
    /// by registry name.
    pub collections: Vec<String>,
    /// Marks the commit, so that a rerun recognises the commit it made.
    pub token: String,
}

/// A plan, with the lines it changes (for `--dry-run`).
#[derive(Debug)]
pub struct Planned {
    /// The plan.
    pub plan: Plan,
    /// Each changed file and its lines.
    pub changes: Vec<FileChange>,
}

/// What `mv` and `merge` report.
#[derive(Debug, Clone, Serialize)]
pub struct MoveReport {
    /// The page's path before (FROM's, for a merge).
    pub from: String,
    /// Its path after (INTO's, for a merge).
    pub to: String,
    /// The page's title after.
    pub title: String,
    /// The page's title before (FROM's, for a merge).
    pub old_title: String,
    /// Whether the old title (FROM's) was added to `aliases:`.
    pub alias_added: bool,
    /// Every file written, by path.
    pub files_changed: Vec<String>,
    /// References rewritten.
    pub links_rewritten: usize,
    /// The commit made, if any.
    pub commit: Option<String>,
    /// Why there is no commit.
    pub commit_skipped: Option<String>,
    /// True when nothing was written on purpose.
    pub dry_run: bool,
    /// True when this run completed an interrupted one.
    pub resumed: bool,
    /// `merge`: FROM, deleted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deleted: Option<String>,
    /// With `--dry-run`: each file that would change, and its lines.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<FileChange>,
}

/// A file that would change, and how.
#[derive(Debug, Clone, Serialize)]
pub struct FileChange {
    /// The file (its new path, for the moved page).
    pub path: String,
    /// The moved page's old path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved_from: Option<String>,
    /// The lines that change, before and after.
    pub lines: Vec<LineChange>,
}

impl Plan {
    /// The report of this plan, before the commit.
    pub fn report(&self, changes: Vec<FileChange>, dry_run: bool, resumed: bool) -> MoveReport {
        let mut files: Vec<String> = self
            .files
            .iter()
            .filter_map(|f| f.destination().map(str::to_string))
            .collect();
        files.sort();
        MoveReport {
            from: self.from.clone(),
            to: self.to.clone(),
            title: self.title.clone(),
            old_title: self.old_title.clone(),
            alias_added: self.alias_added,
            files_changed: files,
            links_rewritten: self.links_rewritten,
            commit: None,
            commit_skipped: None,
            dry_run,
            resumed,
            deleted: (self.kind == Kind::Merge).then(|| self.from.clone()),
            changes,
        }
    }

    /// The commit's subject: `mv: Old → New`, `merge: From → Into`.
    pub fn subject(&self) -> String {
        let (a, b) = match self.old_title == self.title && self.kind == Kind::Mv {
            true => (&self.from, &self.to),
            false => (&self.old_title, &self.title),
        };
        format!("{}: {a} → {b}", self.kind.name())
    }

    /// The line in the commit message that identifies this operation.
    pub fn trailer(&self) -> String {
        format!("Sparks-Operation: {} {}", self.kind.name(), self.token)
    }
}

/// The blake3 hash of some bytes, hex.
pub fn hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// A page read for planning.
pub struct Page {
    /// Its path.
    pub path: String,
    /// Its text.
    pub text: String,
    /// Its frontmatter, when it has a readable block.
    pub fm: Option<Frontmatter>,
    /// Its title: `title:`, else the file name.
    pub title: String,
}

impl Page {
    /// The page `name` names, which must be a wiki page Sparks does not generate.
    pub fn resolve(vault: &Vault, manifest: &Manifest, name: &str) -> Result<Page, MoveError> {
        let path = crate::query::page_path(manifest, name)?;
        if !crate::scan::is_page(&path) {
            return Err(MoveError::NotAPage(path));
        }
        if crate::schema::is_system_page(&path) || crate::index::is_generated(&path) {
            return Err(MoveError::Generated(path));
        }
        let text = read_text(vault, &path)?;
        let fm = match frontmatter::split(&text).block {
            Block::Valid(fm) => Some(fm),
            Block::None => None,
            Block::Invalid { line, message } => {
                return Err(MoveError::Frontmatter {
                    path,
                    key: "title",
                    why: format!("its frontmatter does not read (line {line}: {message})"),
                });
            }
        };
        let title = fm
            .as_ref()
            .and_then(|f| f.title.clone())
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| names::stem(&path).to_string());
        Ok(Page {
            path,
            text,
            fm,
            title,
        })
    }

    /// How the links that resolve to the page reach it.
    pub fn keys(&self, manifest: &Manifest) -> Result<HashMap<String, Via>, MoveError> {
        let title_key = key::link_key(&self.title);
        let aliases: Vec<String> = self
            .fm
            .iter()
            .flat_map(|f| &f.aliases)
            .map(|a| key::link_key(a))
            .collect();
        Ok(manifest
            .link_keys_to(&self.path)?
            .into_iter()
            .map(|k| {
                let via = Via::of(&k, &title_key, &aliases);
                (k, via)
            })
            .collect())
    }
}

/// A file's text; a file that is not UTF-8 cannot be rewritten.
pub fn read_text(vault: &Vault, path: &str) -> Result<String, MoveError> {
    let bytes = fs_err::read(vault.path(path)).map_err(|source| MoveError::Io {
        action: "read",
        path: vault.path(path),
        source,
    })?;
    String::from_utf8(bytes).map_err(|_| MoveError::NotText(path.to_string()))
}

/// The edits of a file's frontmatter block that `change` makes (it edits the whole text and
/// must leave the body as it is), one per changed run of lines.
pub fn frontmatter_edits(text: &str, change: impl FnOnce(&str) -> Option<String>) -> Vec<Edit> {
    let (body, _) = frontmatter::body(text);
    let Some(new) = change(text) else {
        return Vec::new();
    };
    match new.strip_suffix(body) {
        Some(head) => rewrite::line_edits(&text[..text.len() - body.len()], head, 0),
        None => Vec::new(),
    }
}

/// `f` of every item, on as many threads as there are cores, in order.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    par_map_on(items, threads, 64, f)
}

/// `f` of every item, on up to `threads` threads when there are at least `min` items, in order.
pub fn par_map_on<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    min: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    if threads < 2 || items.len() < min.max(2) {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|c| s.spawn(|| c.iter().map(&f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

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
/// text; any other that is not is left out. `own` are texts searched by the caller (the page
/// itself): they decide, with the wiki's, whether the live files are needed. With `lines`,
/// the lines each rewrite changes are kept too.
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
    let skipped = |p: &str| skip.contains(&p);
    let mut paths: Vec<String> = manifest
        .catalog_pages()?
        .into_iter()
        .map(|p| p.path)
        .filter(|p| !skipped(p))
        .collect();
    let listed: std::collections::HashSet<&str> = paths.iter().map(String::as_str).collect();
    let unlisted: Vec<String> = sources
        .iter()
        .filter(|w| !listed.contains(w.as_str()) && !skipped(w) && w.starts_with("wiki/"))
        .cloned()
        .collect();
    drop(listed);
    paths.extend(unlisted);
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
        let found = par_map(&texts, |(path, text)| {
            // A file the manifest knows has no wikilink to the page is read only for
            // Markdown links, which the manifest does not record.
            retarget.find_in(path, text, None, &exists, wanted.contains(path.as_str()))
        });
        for ((path, text), mut f) in texts.into_iter().zip(found) {
            out.headings.append(&mut f.headings);
            if f.edits.is_empty() {
                continue;
            }
            out.rewritten += f.rewritten;
            f.edits.extend(frontmatter_edits(&text, |t| {
                edit::set_scalar(t, "updated", today)
            }));
            let op = rewrite_op(path, &text, f.edits, None);
            if lines {
                out.changes.extend(changes(&[(&op, &text)]));
            }
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

/// The token of an operation started now on these paths.
pub fn token(now: &Now, from: &str, to: &str) -> String {
    hash(format!("{}\n{from}\n{to}", now.timestamp).as_bytes())[..16].to_string()
}

/// The lines each file changes, for `--dry-run`.
pub fn changes(files: &[(&FileOp, &str)]) -> Vec<FileChange> {
    files
        .iter()
        .filter(|(f, _)| f.new.is_some())
        .map(|(f, old)| FileChange {
            path: f.destination().unwrap_or(&f.path).to_string(),
            moved_from: f.to.as_ref().map(|_| f.path.clone()),
            lines: rewrite::line_changes(old, &f.edits),
        })
        .collect()
}

/// A file op that rewrites `path` (holding `text`) with `edits`.
pub fn rewrite_op(path: &str, text: &str, edits: Vec<Edit>, to: Option<String>) -> FileOp {
    let new = rewrite::apply(text, &edits);
    FileOp {
        path: path.to_string(),
        old: hash(text.as_bytes()),
        to,
        new: Some(hash(new.as_bytes())),
        edits,
    }
}

/// Plan `sparks mv`.
pub fn plan_mv(
    vault: &Vault,
    manifest: &Manifest,
    now: &Now,
    req: &MoveRequest,
) -> Result<Planned, MoveError> {
    let new = NewName::parse(&req.new).map_err(MoveError::Name)?;
    let page = Page::resolve(vault, manifest, &req.page)?;
    let (new_path, new_title) = match &new {
        NewName::Title(t) => {
            let dir = names::dir(&page.path);
            (format!("{dir}/{t}.md"), t.clone())
        }
        NewName::Path(p) => {
            let stem = names::stem(p);
            let keeps = stem == names::stem(&page.path) || key::key(stem) == key::key(&page.title);
            (
                p.clone(),
                if keeps {
                    page.title.clone()
                } else {
                    stem.to_string()
                },
            )
        }
    };
    if new_path == page.path && new_title == page.title {
        return Err(MoveError::Same {
            path: page.path,
            name: req.new.trim().to_string(),
        });
    }
    let others = |name: &str| -> Result<Vec<_>, MoveError> {
        Ok(manifest
            .collisions(name)?
            .into_iter()
            .filter(|c| c.path != page.path)
            .collect())
    };
    for (changed, name) in [
        (new_title != page.title, new_title.as_str()),
        (new_path != page.path, names::stem(&new_path)),
    ] {
        let with = if changed { others(name)? } else { Vec::new() };
        if !with.is_empty() {
            return Err(MoveError::Collision {
                name: name.to_string(),
                with,
            });
        }
    }
    let same_file = key::key(&new_path) == key::key(&page.path);
    if !same_file && fs_err::symlink_metadata(vault.path(&new_path)).is_ok() {
        return Err(MoveError::Exists(new_path));
    }
    let stem = names::stem(&new_path).to_string();
    // The H1 that repeats the old title takes the new one, and links to it follow.
    let (body, _) = frontmatter::body(&page.text);
    let at = page.text.len() - body.len();
    let heading = crate::markdown::title::first_h1(body)
        .filter(|h| new_title != page.title && h.repeats(body, &page.title))
        .map(|h| at + h.text.start..at + h.text.end);
    let retarget = Retarget {
        page: page.path.clone(),
        keys: page.keys(manifest)?,
        title: new_title.clone(),
        stem: stem.clone(),
        path: new_path.clone(),
        min_depth: refs::min_depth(&new_path, &manifest.files_named(&key::link_key(&stem))?),
        blocks: HashMap::new(),
        heading: heading
            .as_ref()
            .map(|r| (key::heading_key(&page.text[r.clone()]), new_title.clone())),
    };
    let today = now.today.to_string();
    let sources = manifest.link_sources_to(&page.path)?;
    let others = referrers(
        vault,
        manifest,
        &retarget,
        &sources,
        &[page.path.as_str()],
        &[page.text.as_str()],
        &today,
        req.dry_run,
    )?;
    let live = &others.live;
    let mut count = others.rewritten;

    // The page itself: its own references, its relative links when it changes folder, and
    // its frontmatter (title, aliases, updated).
    let moved = names::dir(&new_path) != names::dir(&page.path);
    let exists = |p: &str| live.contains(p);
    let own = retarget.find(
        &page.path,
        &page.text,
        moved.then_some(new_path.as_str()),
        &exists,
    );
    count += own.rewritten;
    let mut edits = own.edits;
    // A link written inside the heading keeps its own edit; the heading is left as it is.
    if let Some(range) = heading
        && !edits
            .iter()
            .any(|e| e.range.start < range.end && range.start < e.range.end)
    {
        edits.push(Edit {
            range,
            text: new_title.clone(),
        });
    }
    let mut alias_added = false;
    if let Some(fm) = &page.fm {
        let mut aliases: Vec<String> = fm
            .aliases
            .iter()
            .filter(|a| key::key(a) != key::key(&new_title))
            .cloned()
            .collect();
        if !req.no_alias
            && key::key(&page.title) != key::key(&new_title)
            && !aliases.iter().any(|a| key::key(a) == key::key(&page.title))
        {
            aliases.push(page.title.clone());
            alias_added = true;
        }
        let title_changes = new_title != page.title;
        let aliases_change = aliases != fm.aliases;
        let path = page.path.clone();
        let fail = |key: &'static str| MoveError::Frontmatter {
            path: path.clone(),
            key,
            why: "its frontmatter is not in a form Sparks can edit without rewriting it".into(),
        };
        let mut text = page.text.clone();
        if title_changes {
            text = edit::set_scalar(&text, "title", &new_title).ok_or_else(|| fail("title"))?;
        }
        if aliases_change {
            text = edit::set_list(&text, "aliases", &aliases).ok_or_else(|| fail("aliases"))?;
        }
        text = edit::set_scalar(&text, "updated", &today).unwrap_or(text);
        edits.extend(frontmatter_edits(&page.text, |_| Some(text)));
    }
    let to = (new_path != page.path).then(|| new_path.clone());
    let mut files = vec![rewrite_op(&page.path, &page.text, edits, to)];
    let mut changes = match req.dry_run {
        true => changes(&[(&files[0], page.text.as_str())]),
        false => Vec::new(),
    };
    files.extend(others.files);
    changes.extend(others.changes);
    let (index, collections) = regenerated(vault, &files, &[&page.path, &new_path])?;
    Ok(Planned {
        plan: Plan {
            kind: Kind::Mv,
            token: token(now, &page.path, &new_path),
            from: page.path,
            to: new_path,
            old_title: page.title,
            title: new_title,
            alias_added,
            links_rewritten: count,
            files,
            index,
            collections,
        },
        changes,
    })
}
