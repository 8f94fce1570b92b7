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
    let ours = repo.head().and_then(|h| h.peel_to_commit()).map_err(&git)?;
    let theirs = repo
        .find_commit(Oid::from_str(theirs).map_err(&git)?)
        .map_err(&git)?;
    let base = match repo.merge_base(ours.id(), theirs.id()) {
        Ok(b) => Some(repo.find_commit(b).and_then(|c| c.tree()).map_err(&git)?),
        Err(e) if e.code() == git2::ErrorCode::NotFound => None,
        Err(e) => return Err(git(e)),
    };
    let read = |tree: Option<&Tree<'_>>| file(&repo, tree, path).map_err(&git);
    Ok([
        read(base.as_ref())?,
        read(Some(&ours.tree().map_err(&git)?))?,
        read(Some(&theirs.tree().map_err(&git)?))?,
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
        let mut pages: Vec<String> = diff
            .deltas()
            .filter_map(|d| {
                d.new_file()
                    .path()
                    .and_then(Path::to_str)
                    .map(str::to_string)
            })
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
