//! What a sync reads of the two sides' histories beyond their trees: one file's three versions
//! (the common ancestor's, HEAD's, the other side's), and the pages an ingest's commit wrote,
//! found by the trailer finalize gives it.

use super::GitError;
use super::merge::{git_error, repo, workdir};
use git2::{Oid, Repository, Tree};
use std::path::Path;

/// The three versions of `path` (repository-relative): the merge base's, HEAD's and the commit
/// `theirs`'s (`None` where it has no file).
pub type Versions = [Option<Vec<u8>>; 3];

/// [`Versions`] of `path` for a merge of `theirs` into HEAD.
pub fn versions(vault_root: &Path, theirs: &str, path: &str) -> Result<Versions, GitError> {
    let git = git_error(vault_root);
    let repo = repo(vault_root)?;
    let [base, ours, theirs] = super::merge::three_trees(&repo, theirs).map_err(&git)?;
    let read = |tree: Option<&Tree<'_>>| file(&repo, tree, path).map_err(&git);
    Ok([
        read(base.as_ref())?,
        read(ours.as_ref())?,
        read(theirs.as_ref())?,
    ])
}

/// The vault-relative pages under `wiki/` that the ingest with `token` wrote, read from its
/// finalize commit (the one whose trailer names the token) among the commits of `tip` (HEAD
/// when `None`) that `theirs`'s merge base with HEAD lacks.
pub fn ingest_pages(
    vault_root: &Path,
    tip: Option<&str>,
    theirs: &str,
    token: &str,
) -> Result<Vec<String>, GitError> {
    let git = git_error(vault_root);
    let repo = repo(vault_root)?;
    let head = repo
        .head()
        .and_then(|h| h.peel_to_commit())
        .map_err(&git)?
        .id();
    let other = Oid::from_str(theirs).map_err(&git)?;
    let start = match tip {
        Some(t) => Oid::from_str(t).map_err(&git)?,
        None => head,
    };
    let mut walk = repo.revwalk().map_err(&git)?;
    walk.push(start).map_err(&git)?;
    if let Ok(base) = repo.merge_base(head, other) {
        walk.hide(base).map_err(&git)?;
    }
    let prefix = super::vault_prefix(&workdir(&repo).map_err(&git)?, vault_root);
    let wiki = format!("{prefix}wiki/");
    for oid in walk {
        let commit = repo.find_commit(oid.map_err(&git)?).map_err(&git)?;
        let names_it = commit.message().unwrap_or_default().lines().any(|l| {
            l.strip_prefix("Sparks-Ingest: ")
                .and_then(|rest| rest.split_whitespace().nth(1))
                == Some(token)
        });
        if !names_it {
            continue;
        }
        let tree = commit.tree().map_err(&git)?;
        let parent = commit.parent(0).and_then(|p| p.tree()).ok();
        let diff = repo
            .diff_tree_to_tree(parent.as_ref(), Some(&tree), None)
            .map_err(&git)?;
        let mut pages: Vec<String> = super::new_paths(&diff)
            .filter_map(|p| p.strip_prefix(&wiki).map(|rest| format!("wiki/{rest}")))
            .filter(|p| {
                p != "wiki/log.md" && p != "wiki/index.md" && !p.starts_with("wiki/collections/")
            })
            .collect();
        pages.sort();
        return Ok(pages);
    }
    Ok(Vec::new())
}

pub(super) fn file(
    repo: &Repository,
    tree: Option<&Tree<'_>>,
    path: &str,
) -> Result<Option<Vec<u8>>, git2::Error> {
    let Some(entry) = tree.and_then(|t| t.get_path(Path::new(path)).ok()) else {
        return Ok(None);
    };
    if entry.kind() != Some(git2::ObjectType::Blob) {
        return Ok(None);
    }
    Ok(Some(repo.find_blob(entry.id())?.content().to_vec()))
}

/// A finalize commit found in HEAD's history: the ingest its trailer names, and what the commit
/// changed in the vault.
#[derive(Debug, Clone)]
pub struct IngestCommit {
    /// The ingest's number on the device that made it.
    pub number: i64,
    /// Its token.
    pub token: String,
    /// The commit.
    pub commit: String,
    /// Its first parent.
    pub parent: Option<String>,
    /// When it was made: seconds since the epoch, and the offset in minutes.
    pub time: (i64, i32),
    /// The vault-relative paths it changed, with their content before and after (`None` where
    /// the file was not there).
    pub files: Files,
}

/// A revert commit found in HEAD's history: the token of the ingest it took back.
#[derive(Debug, Clone)]
pub struct RevertCommit {
    /// The ingest's token.
    pub token: String,
    /// The commit.
    pub commit: String,
    /// When it was made: seconds since the epoch, and the offset in minutes.
    pub time: (i64, i32),
}

/// What [`ingest_commits`] found.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// HEAD, where the walk began (`None` outside a repository or on an unborn branch).
    pub head: Option<String>,
    /// Finalize commits, oldest first.
    pub ingests: Vec<IngestCommit>,
    /// Revert commits, oldest first.
    pub reverts: Vec<RevertCommit>,
}

/// The finalize and revert commits of HEAD's history since `since` (all of it when `None`, or
/// when `since` is no longer known), each by its trailer (`Sparks-Ingest: N TOKEN`,
/// `Sparks-Revert: N TOKEN`). Only a finalize commit's diff is read.
pub fn ingest_commits(vault_root: &Path, since: Option<&str>) -> Result<Found, GitError> {
    let git = git_error(vault_root);
    let Some(repo) = super::open(vault_root).map_err(&git)? else {
        return Ok(Found::default());
    };
    let Ok(head) = repo.head().and_then(|h| h.peel_to_commit()) else {
        return Ok(Found::default());
    };
    let mut found = Found {
        head: Some(head.id().to_string()),
        ..Found::default()
    };
    if since == found.head.as_deref() {
        return Ok(found);
    }
    let Some(work) = repo.workdir().map(Path::to_path_buf) else {
        return Ok(found);
    };
    let prefix = super::vault_prefix(&work, vault_root);
    let mut walk = repo.revwalk().map_err(&git)?;
    walk.push(head.id()).map_err(&git)?;
    walk.set_sorting(git2::Sort::TOPOLOGICAL | git2::Sort::REVERSE)
        .map_err(&git)?;
    if let Some(old) = since.and_then(|s| Oid::from_str(s).ok())
        && repo.find_commit(old).is_ok()
    {
        walk.hide(old).map_err(&git)?;
    }
    for oid in walk {
        let commit = repo.find_commit(oid.map_err(&git)?).map_err(&git)?;
        let message = commit.message().unwrap_or_default().to_string();
        let time = (commit.time().seconds(), commit.time().offset_minutes());
        for line in message.lines() {
            let trailer = |name: &str| {
                let rest = line.strip_prefix(name)?;
                let mut words = rest.split_whitespace();
                let number: i64 = words.next()?.parse().ok()?;
                let token = words.next()?.to_string();
                Some((number, token))
            };
            if let Some((number, token)) = trailer("Sparks-Ingest: ") {
                let files = changed_files(&repo, &commit, &prefix).map_err(&git)?;
                found.ingests.push(IngestCommit {
                    number,
                    token,
                    commit: commit.id().to_string(),
                    parent: commit.parent_id(0).ok().map(|p| p.to_string()),
                    time,
                    files,
                });
            } else if let Some((_, token)) = trailer("Sparks-Revert: ") {
                found.reverts.push(RevertCommit {
                    token,
                    commit: commit.id().to_string(),
                    time,
                });
            }
        }
    }
    Ok(found)
}

/// Vault-relative paths with their content before and after a commit.
pub type Files = Vec<(String, Option<Vec<u8>>, Option<Vec<u8>>)>;

fn changed_files(
    repo: &Repository,
    commit: &git2::Commit<'_>,
    prefix: &str,
) -> Result<Files, git2::Error> {
    let tree = commit.tree()?;
    let parent = commit.parent(0).and_then(|p| p.tree()).ok();
    let diff = repo.diff_tree_to_tree(parent.as_ref(), Some(&tree), None)?;
    let mut out = Vec::new();
    for d in diff.deltas() {
        let Some(path) = d
            .new_file()
            .path()
            .or_else(|| d.old_file().path())
            .and_then(Path::to_str)
        else {
            continue;
        };
        let Some(rel) = path.strip_prefix(prefix) else {
            continue;
        };
        out.push((
            rel.to_string(),
            file(repo, parent.as_ref(), path)?,
            file(repo, Some(&tree), path)?,
        ));
    }
    Ok(out)
}
