//! The plan of an `mv` or `merge`: every file it changes, as hashes and edits, stored in the
//! journal before anything is written, and the report made from it. Each command's planner
//! sits beside this file (`mv.rs`, `merge.rs`), with what both read: the page they act on
//! (`page.rs`) and the files that refer to it (`referrers.rs`).

mod merge;
mod mv;
mod page;
mod referrers;

pub use merge::plan_merge;
pub use mv::plan_mv;
pub use page::{Page, read_text};
pub use referrers::{referrers, regenerated};

use crate::clock::Now;
use crate::markdown::rewrite::{self, Edit, LineChange};
use crate::markdown::{edit, frontmatter};
use crate::mv::MoveError;
use crate::vault::Vault;
use serde::{Deserialize, Serialize};

/// What a planner drafted (`mv.rs`, `merge.rs`): the pages it acts on rewritten, before the
/// ending both share ([`finish`]).
struct Drafted<'a> {
    kind: Kind,
    /// The page moved, or merged away.
    from: &'a Page,
    /// Its new path, or the page merged into.
    to: String,
    /// The title after.
    title: String,
    alias_added: bool,
    /// References rewritten, in every file.
    links_rewritten: usize,
    /// The rewrites of the pages acted on, each with the text it was planned from (for the
    /// dry run's lines).
    own: Vec<(FileOp, &'a str)>,
    /// Whether those are written before the referring files' (`mv`: the page first) or after
    /// (`merge`: INTO once every reference to FROM names it).
    own_first: bool,
    /// Files deleted once everything else is written.
    deleted: Vec<FileOp>,
}

/// The end of every plan: the files in the order they are written, the lines a dry run
/// shows, the generated pages to regenerate, and the token of its commit.
fn finish(
    vault: &Vault,
    now: &Now,
    draft: Drafted<'_>,
    others: (Vec<FileOp>, Vec<FileChange>),
    dry_run: bool,
) -> Result<Planned, MoveError> {
    let own_changes = match dry_run {
        true => changes(&draft.own.iter().map(|(f, t)| (f, *t)).collect::<Vec<_>>()),
        false => Vec::new(),
    };
    let own_files = draft.own.into_iter().map(|(f, _)| f);
    let (others_files, others_changes) = others;
    let (mut files, lines): (Vec<FileOp>, Vec<FileChange>) = match draft.own_first {
        true => (
            own_files.chain(others_files).collect(),
            own_changes.into_iter().chain(others_changes).collect(),
        ),
        false => (
            others_files.into_iter().chain(own_files).collect(),
            others_changes.into_iter().chain(own_changes).collect(),
        ),
    };
    files.extend(draft.deleted);
    let from = draft.from;
    let (index, collections) = regenerated(vault, &files, &[&from.path, &draft.to])?;
    Ok(Planned {
        plan: Plan {
            kind: draft.kind,
            token: token(now, &from.path, &draft.to),
            from: from.path.clone(),
            to: draft.to,
            old_title: from.title.clone(),
            title: draft.title,
            alias_added: draft.alias_added,
            links_rewritten: draft.links_rewritten,
            files,
            index,
            collections,
        },
        changes: lines,
    })
}

/// The text of the page at `path` with the frontmatter `scalars` and `lists` set, in that
/// order, and `updated:` set to `today`; an error names the first key whose form Sparks
/// cannot edit without rewriting the frontmatter.
fn with_frontmatter(
    path: &str,
    text: &str,
    scalars: &[(&'static str, &str)],
    lists: &[(&'static str, &[String])],
    today: &str,
) -> Result<String, MoveError> {
    let fail = |key: &'static str| MoveError::Frontmatter {
        path: path.to_string(),
        key,
        why: "its frontmatter is not in a form Sparks can edit without rewriting it".into(),
    };
    let mut text = text.to_string();
    for (key, value) in scalars {
        text = edit::set_scalar(&text, key, value).ok_or_else(|| fail(key))?;
    }
    for (key, values) in lists {
        text = edit::set_list(&text, key, values).ok_or_else(|| fail(key))?;
    }
    Ok(edit::set_scalar(&text, "updated", today).unwrap_or(text))
}

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

impl Plan {
    /// Every path the plan reads or writes stays in the vault: relative, without `..`, and
    /// with no symbolic link on the way (a plan from a journal is checked before it runs).
    pub fn check_paths(&self, vault: &crate::vault::Vault) -> Result<(), crate::vault::PathError> {
        let paths = [&self.from, &self.to].into_iter().chain(
            self.files
                .iter()
                .flat_map(|f| std::iter::once(&f.path).chain(f.to.as_ref())),
        );
        for p in paths {
            vault.checked(p)?;
        }
        Ok(())
    }
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
