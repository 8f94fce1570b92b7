//! Three-way merges of the current branch with the commit a sync fetched, done on trees rather
//! than through git's merge machinery, so that no conflict marker can ever reach a file: every
//! path both sides changed differently is handed to the caller's resolver ([`Both`]), which
//! answers with the merged content or asks for a conflict copy ([`Resolution`]); every path
//! only the other side changed takes its version. [`merge`] computes the tree,
//! [`super::worktree::write_paths`] puts it in the work tree (each file whole), and
//! [`commit_merge`] commits it (with what the caller wrote since, such as regenerated pages) as
//! a commit with both parents. [`plan_forward`] and [`move_head`] are the case where this side
//! has nothing the other lacks. [`merge_text`] is git's line merge, for the files no rule of
//! Sparks' knows.

use super::{GitError, changed_paths, open, signatures, vault_prefix};
use git2::{Delta, DiffOptions, FileMode, Index, IndexEntry, IndexTime, Oid, Repository, Tree};
use std::collections::BTreeMap;
use std::path::Path;

/// One path both sides changed, each differently: its three versions (`None` where the path
/// does not exist on that side).
pub struct Both<'a> {
    /// The repository-relative path.
    pub path: &'a str,
    /// The common ancestor's content.
    pub base: Option<&'a [u8]>,
    /// This side's content.
    pub ours: Option<&'a [u8]>,
    /// The other side's content.
    pub theirs: Option<&'a [u8]>,
    /// Whether a repository-relative path is taken on either side (for naming a copy).
    pub taken: &'a dyn Fn(&str) -> bool,
}

/// How a path both sides changed is resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// This content at the path.
    Merged(Vec<u8>),
    /// This side's version stays as it is (deleted, if it deleted the path); the other side's
    /// is written beside it at `copy` (repository-relative).
    Copy {
        /// Where the other side's version goes.
        copy: String,
    },
}

/// How the branch stands to the fetched commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// The fetched commit is already in the branch (or is it).
    UpToDate,
    /// The branch is behind it: a fast-forward.
    Behind,
    /// Both have commits the other lacks: a merge.
    Diverged,
}

/// A merge computed by [`merge`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merge {
    /// The merged tree's id.
    pub tree: String,
    /// Repository-relative paths whose merged content differs from this side's, copies
    /// included.
    pub changed: Vec<String>,
    /// Each conflict copy: the path both sides changed and where the other side's version went.
    pub copies: Vec<(String, String)>,
    /// Paths both sides changed and the resolver merged (not copied).
    pub merged: Vec<String>,
    /// Paths the other side changed that were not taken, and why ([`refusal`]).
    pub refused: Vec<(String, &'static str)>,
    /// This side's tree (HEAD's), which the work tree holds before the merge is written.
    pub ours: String,
}

/// Why the other side's version of `path` (repository-relative; `prefix` is the vault's
/// folder in the work tree, with its `/`) is never taken, whatever it holds: a remote is not
/// trusted. Run-time state is this device's alone (`.sparks/`, the manifest and its side
/// files), and a symbolic link or a submodule would have Sparks read or write outside the
/// vault through it.
pub fn refusal(path: &str, mode: Option<u32>, prefix: &str) -> Option<&'static str> {
    const LINK: u32 = 0o120000;
    const SUBMODULE: u32 = 0o160000;
    if let Some(inner) = path.strip_prefix(prefix) {
        let top = inner.split('/').next().unwrap_or(inner);
        if top == crate::vault::RUN_DIR {
            return Some("run-time state is this device's own");
        }
        if !inner.contains('/') && inner.starts_with(crate::vault::MANIFEST) {
            return Some("the manifest is this device's own");
        }
    }
    match mode {
        Some(LINK) => Some("a symbolic link, which Sparks does not follow"),
        Some(SUBMODULE) => Some("a submodule"),
        _ => None,
    }
}

/// The merge base and HEAD's relation to `theirs` (a commit id).
pub fn relation(vault_root: &Path, theirs: &str) -> Result<Relation, GitError> {
    let git = git_error(vault_root);
    let repo = repo(vault_root)?;
    let ours = head_id(&repo).map_err(&git)?;
    let theirs = Oid::from_str(theirs).map_err(&git)?;
    let Some(ours) = ours else {
        return Ok(Relation::Behind);
    };
    if ours == theirs || repo.graph_descendant_of(ours, theirs).map_err(&git)? {
        return Ok(Relation::UpToDate);
    }
    if repo.graph_descendant_of(theirs, ours).map_err(&git)? {
        return Ok(Relation::Behind);
    }
    Ok(Relation::Diverged)
}

/// The commits HEAD has that `theirs` lacks (all of HEAD's without `theirs`).
pub fn ahead(vault_root: &Path, theirs: Option<&str>) -> Result<usize, GitError> {
    let git = git_error(vault_root);
    let repo = repo(vault_root)?;
    let Some(ours) = head_id(&repo).map_err(&git)? else {
        return Ok(0);
    };
    let mut walk = repo.revwalk().map_err(&git)?;
    walk.push(ours).map_err(&git)?;
    if let Some(t) = theirs {
        walk.hide(Oid::from_str(t).map_err(&git)?).map_err(&git)?;
    }
    Ok(walk.count())
}

/// The subjects of the commits `theirs` has that HEAD lacks, newest first (at most `limit`),
/// and how many there are.
pub fn incoming(
    vault_root: &Path,
    theirs: &str,
    limit: usize,
) -> Result<(Vec<String>, usize), GitError> {
    let git = git_error(vault_root);
    let repo = repo(vault_root)?;
    let mut walk = repo.revwalk().map_err(&git)?;
    walk.push(Oid::from_str(theirs).map_err(&git)?)
        .map_err(&git)?;
    if let Some(ours) = head_id(&repo).map_err(&git)? {
        walk.hide(ours).map_err(&git)?;
    }
    let (mut subjects, mut n) = (Vec::new(), 0);
    for oid in walk {
        let oid = oid.map_err(&git)?;
        n += 1;
        if subjects.len() < limit {
            let c = repo.find_commit(oid).map_err(&git)?;
            subjects.push(c.summary().ok().flatten().unwrap_or_default().to_string());
        }
    }
    Ok((subjects, n))
}

/// Merge `theirs` (a commit id) into HEAD's tree: the other side's changes where only it
/// changed a path, `resolve`'s answer where both did. Nothing is written but objects.
pub fn merge(
    vault_root: &Path,
    theirs: &str,
    resolve: &mut dyn FnMut(&Both<'_>) -> Resolution,
) -> Result<Merge, GitError> {
    let git = git_error(vault_root);
    let repo = repo(vault_root)?;
    let [base, ours_tree, theirs_tree] = three_trees(&repo, theirs).map_err(&git)?;
    let (ours_tree, theirs_tree) = (
        ours_tree.ok_or_else(|| git(git2::Error::from_str("HEAD has no tree")))?,
        theirs_tree.ok_or_else(|| git(git2::Error::from_str("the commit has no tree")))?,
    );
    let ours_changes = changes(&repo, base.as_ref(), &ours_tree).map_err(&git)?;
    let theirs_changes = changes(&repo, base.as_ref(), &theirs_tree).map_err(&git)?;

    let mut index = Index::new().map_err(&git)?;
    index.read_tree(&ours_tree).map_err(&git)?;
    let blob = |id: Option<(Oid, u32)>| -> Result<Option<Vec<u8>>, GitError> {
        match id {
            None => Ok(None),
            Some((oid, _)) => Ok(Some(repo.find_blob(oid).map_err(&git)?.content().to_vec())),
        }
    };
    let taken = |p: &str| {
        ours_tree.get_path(Path::new(p)).is_ok() || theirs_tree.get_path(Path::new(p)).is_ok()
    };
    let mut out = Merge {
        tree: String::new(),
        changed: Vec::new(),
        copies: Vec::new(),
        merged: Vec::new(),
        refused: Vec::new(),
        ours: ours_tree.id().to_string(),
    };
    let prefix = vault_prefix(&workdir(&repo).map_err(&git)?, vault_root);
    for (path, theirs_side) in &theirs_changes {
        // What a remote may not send stays as this side has it.
        if let Some(why) = refusal(path, theirs_side.map(|(_, m)| m), &prefix) {
            out.refused.push((path.clone(), why));
            continue;
        }
        let ours_side = match ours_changes.get(path) {
            // Only the other side changed it: its version.
            None => {
                set(&mut index, path, *theirs_side).map_err(&git)?;
                out.changed.push(path.clone());
                continue;
            }
            Some(o) => *o,
        };
        if ours_side == *theirs_side {
            continue;
        }
        let base_side = base
            .as_ref()
            .and_then(|t| t.get_path(Path::new(path)).ok())
            .map(|e| (e.id(), e.filemode() as u32));
        let (b, o, t) = (blob(base_side)?, blob(ours_side)?, blob(*theirs_side)?);
        let both = Both {
            path,
            base: b.as_deref(),
            ours: o.as_deref(),
            theirs: t.as_deref(),
            taken: &taken,
        };
        match resolve(&both) {
            Resolution::Merged(content) => {
                let mode = ours_side.or(*theirs_side).map_or(0o100644, |(_, m)| m);
                let id = repo.blob(&content).map_err(&git)?;
                set(&mut index, path, Some((id, mode))).map_err(&git)?;
                if o.as_deref() != Some(content.as_slice()) {
                    out.changed.push(path.clone());
                }
                out.merged.push(path.clone());
            }
            Resolution::Copy { copy } => {
                if let Some(side) = theirs_side {
                    set(&mut index, &copy, Some(*side)).map_err(&git)?;
                    out.changed.push(copy.clone());
                    out.copies.push((path.clone(), copy));
                }
            }
        }
    }
    out.tree = index.write_tree_to(&repo).map_err(&git)?.to_string();
    out.changed.sort();
    Ok(out)
}

/// The trees of a merge of the commit `theirs` into HEAD: the merge base's (`None` without a
/// common ancestor), HEAD's and `theirs`'s.
pub(super) fn three_trees<'r>(
    repo: &'r Repository,
    theirs: &str,
) -> Result<[Option<Tree<'r>>; 3], git2::Error> {
    let ours = repo.head().and_then(|h| h.peel_to_commit())?;
    let theirs = repo.find_commit(Oid::from_str(theirs)?)?;
    let base = match repo.merge_base(ours.id(), theirs.id()) {
        Ok(b) => Some(repo.find_commit(b).and_then(|c| c.tree())?),
        Err(e) if e.code() == git2::ErrorCode::NotFound => None,
        Err(e) => return Err(e),
    };
    Ok([base, Some(ours.tree()?), Some(theirs.tree()?)])
}

/// Git's three-way line merge of one text: `None` when the sides changed overlapping lines.
pub fn merge_text(base: &[u8], ours: &[u8], theirs: &[u8]) -> Option<Vec<u8>> {
    let input = |content| {
        let mut i = git2::MergeFileInput::new();
        i.content(content);
        i
    };
    let merged = git2::merge_file(&input(base), &input(ours), &input(theirs), None).ok()?;
    merged.is_automergeable().then(|| merged.content().to_vec())
}

/// The repository-relative paths that differ between HEAD and the commit `theirs`.
pub fn paths_between(vault_root: &Path, theirs: &str) -> Result<Vec<String>, GitError> {
    let git = git_error(vault_root);
    let repo = repo(vault_root)?;
    let old = head_tree(&repo).map_err(&git)?;
    let new = repo
        .find_commit(Oid::from_str(theirs).map_err(&git)?)
        .and_then(|c| c.tree())
        .map_err(&git)?;
    Ok(changes(&repo, old.as_ref(), &new)
        .map_err(&git)?
        .into_keys()
        .collect())
}

/// A fast-forward, planned by [`plan_forward`]: nothing in the work tree or a ref changed yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forward {
    /// HEAD's commit and tree now (`None` on an unborn branch).
    pub from: Option<(String, String)>,
    /// The tree the work tree gets.
    pub tree: String,
    /// The commit the branch moves to once the files are in: `theirs`, or a commit on top of it
    /// that keeps this side's version of what the other side may not send.
    pub head: String,
    /// The repository-relative paths the work tree changes at.
    pub paths: Vec<String>,
    /// The paths the other side changed that are not taken, and why ([`refusal`]).
    pub refused: Vec<(String, &'static str)>,
}

/// Plan moving the branch to `theirs`, which has everything it has. What the other side may
/// not send ([`refusal`]) is not taken: the branch then moves to a commit on top of `theirs`
/// that keeps this side's version of those paths, so the work tree, the index and the branch
/// agree, and the next push undoes the planting on the remote too. The files are written by
/// [`super::worktree::write_paths`], the branch moved by [`move_head`].
pub fn plan_forward(vault_root: &Path, theirs: &str) -> Result<Forward, GitError> {
    let git = git_error(vault_root);
    let repo = repo(vault_root)?;
    let target = repo
        .find_commit(Oid::from_str(theirs).map_err(&git)?)
        .map_err(&git)?;
    let old = head_tree(&repo).map_err(&git)?;
    let from = match head_id(&repo).map_err(&git)? {
        Some(id) => Some((
            id.to_string(),
            repo.find_commit(id).map_err(&git)?.tree_id().to_string(),
        )),
        None => None,
    };
    let new = target.tree().map_err(&git)?;
    let workdir = workdir(&repo).map_err(&git)?;
    let prefix = vault_prefix(&workdir, vault_root);
    let mut refused = Vec::new();
    let mut paths = Vec::new();
    for (path, side) in changes(&repo, old.as_ref(), &new).map_err(&git)? {
        match refusal(&path, side.map(|(_, m)| m), &prefix) {
            Some(why) => refused.push((path, why)),
            None => paths.push(path),
        }
    }
    if refused.is_empty() {
        return Ok(Forward {
            from,
            tree: new.id().to_string(),
            head: target.id().to_string(),
            paths,
            refused,
        });
    }
    // Their tree with this side's version of what was refused.
    let mut index = Index::new().map_err(&git)?;
    index.read_tree(&new).map_err(&git)?;
    for (path, _) in &refused {
        // Only a file of this side's is put back: where a folder stands here, the other side's
        // link simply goes.
        let ours = old
            .as_ref()
            .and_then(|t| t.get_path(Path::new(path)).ok())
            .filter(|e| e.kind() == Some(git2::ObjectType::Blob))
            .map(|e| (e.id(), e.filemode() as u32));
        set(&mut index, path, ours).map_err(&git)?;
    }
    let tree_id = index.write_tree_to(&repo).map_err(&git)?;
    let tree = repo.find_tree(tree_id).map_err(&git)?;
    let (author, committer) = signatures(&repo, &workdir)?;
    let listed: Vec<String> = refused
        .iter()
        .map(|(p, why)| format!("{p}: {why}"))
        .collect();
    let message = format!(
        "sparks sync: leave out what the remote may not send\n\n{}",
        listed.join("\n")
    );
    let head = repo
        .commit(None, &author, &committer, &message, &tree, &[&target])
        .map_err(&git)?;
    Ok(Forward {
        from,
        tree: tree_id.to_string(),
        head: head.to_string(),
        paths,
        refused,
    })
}

/// Where HEAD's branch stands: its commit id (`None` on an unborn branch).
pub fn head(vault_root: &Path) -> Result<Option<String>, GitError> {
    let git = git_error(vault_root);
    let repo = repo(vault_root)?;
    Ok(head_id(&repo).map_err(&git)?.map(|id| id.to_string()))
}

/// Move HEAD's branch to `to` (a fast-forward whose files are in), creating the branch on an
/// unborn HEAD.
pub fn move_head(vault_root: &Path, to: &str) -> Result<(), GitError> {
    let git = git_error(vault_root);
    let repo = repo(vault_root)?;
    let to = Oid::from_str(to).map_err(&git)?;
    let message = format!(
        "sparks sync: fast-forward to {}",
        super::short(&to.to_string())
    );
    match repo.head() {
        Ok(mut head) => {
            head.set_target(to, &message).map_err(&git)?;
        }
        Err(_) => {
            // An unborn branch: HEAD names it; create it at the commit.
            let name = repo
                .find_reference("HEAD")
                .ok()
                .and_then(|r| r.symbolic_target().ok().flatten().map(str::to_string))
                .unwrap_or_else(|| "refs/heads/main".into());
            repo.reference(&name, to, true, &message).map_err(&git)?;
        }
    }
    Ok(())
}

/// Commit the merge: the tree `tree` with the vault's changes in the work tree since (the
/// pages the caller regenerated), as a commit whose parents are HEAD and `theirs`. Its id.
pub fn commit_merge(
    vault_root: &Path,
    message: &str,
    tree: &str,
    theirs: &str,
) -> Result<String, GitError> {
    let git = git_error(vault_root);
    let repo = repo(vault_root)?;
    let workdir = workdir(&repo).map_err(&git)?;
    let prefix = vault_prefix(&workdir, vault_root);
    let ours = repo.head().and_then(|h| h.peel_to_commit()).map_err(&git)?;
    let theirs = repo
        .find_commit(Oid::from_str(theirs).map_err(&git)?)
        .map_err(&git)?;
    let merged = repo
        .find_tree(Oid::from_str(tree).map_err(&git)?)
        .map_err(&git)?;
    // The index as the checkout left it, with the vault's files as they are now.
    let mut index = repo.index().map_err(&git)?;
    let mut tree_index = Index::new().map_err(&git)?;
    tree_index.read_tree(&merged).map_err(&git)?;
    for p in changed_paths(&repo, &prefix).map_err(&git)? {
        let rel = Path::new(&p);
        if fs_err::symlink_metadata(workdir.join(rel)).is_ok() {
            super::add_path(&mut index, rel).map_err(&git)?;
        } else {
            index.remove_path(rel).map_err(&git)?;
        }
        match index.get_path(rel, 0) {
            Some(entry) => tree_index.add(&entry).map_err(&git)?,
            None => {
                let _ = tree_index.remove_path(rel);
            }
        }
    }
    let tree_id = tree_index.write_tree_to(&repo).map_err(&git)?;
    let tree = repo.find_tree(tree_id).map_err(&git)?;
    let (author, committer) = signatures(&repo, &workdir)?;
    let id = repo
        .commit(
            Some("HEAD"),
            &author,
            &committer,
            message,
            &tree,
            &[&ours, &theirs],
        )
        .map_err(&git)?;
    index.write().map_err(&git)?;
    Ok(id.to_string())
}

/// What changed from `old` to `new`, by repository-relative path: the new blob and mode, or
/// `None` where the path went.
type Changes = BTreeMap<String, Option<(Oid, u32)>>;

fn changes(
    repo: &Repository,
    old: Option<&Tree<'_>>,
    new: &Tree<'_>,
) -> Result<Changes, git2::Error> {
    let mut opts = DiffOptions::new();
    opts.ignore_submodules(true);
    let diff = repo.diff_tree_to_tree(old, Some(new), Some(&mut opts))?;
    let mut out = Changes::new();
    for d in diff.deltas() {
        let (file, gone) = match d.status() {
            Delta::Deleted => (d.old_file(), true),
            _ => (d.new_file(), false),
        };
        let Some(path) = file.path().and_then(Path::to_str) else {
            continue;
        };
        let side = (!gone).then(|| (file.id(), u32::from(file.mode())));
        out.insert(path.to_string(), side);
    }
    Ok(out)
}

/// Put `side` at `path` in `index` (remove the path for `None`).
pub(super) fn set(
    index: &mut Index,
    path: &str,
    side: Option<(Oid, u32)>,
) -> Result<(), git2::Error> {
    match side {
        None => {
            let _ = index.remove_path(Path::new(path));
            Ok(())
        }
        Some((id, mode)) => index.add(&IndexEntry {
            ctime: IndexTime::new(0, 0),
            mtime: IndexTime::new(0, 0),
            dev: 0,
            ino: 0,
            mode: if mode == 0 {
                u32::from(FileMode::Blob)
            } else {
                mode
            },
            uid: 0,
            gid: 0,
            file_size: 0,
            id,
            flags: 0,
            flags_extended: 0,
            path: path.as_bytes().to_vec(),
        }),
    }
}

/// HEAD's tree; `None` on an unborn branch.
fn head_tree(repo: &Repository) -> Result<Option<Tree<'_>>, git2::Error> {
    unborn(repo.head().and_then(|h| h.peel_to_tree()))
}

/// HEAD's commit; `None` on an unborn branch.
fn head_id(repo: &Repository) -> Result<Option<Oid>, git2::Error> {
    unborn(repo.head().and_then(|h| h.peel_to_commit()).map(|c| c.id()))
}

/// What HEAD gave, with "the branch has no commit yet" as `None`.
fn unborn<T>(got: Result<T, git2::Error>) -> Result<Option<T>, git2::Error> {
    match got {
        Ok(t) => Ok(Some(t)),
        Err(e)
            if matches!(
                e.code(),
                git2::ErrorCode::UnbornBranch | git2::ErrorCode::NotFound
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// The repository's work tree (an error for a bare repository).
pub(super) fn workdir(repo: &Repository) -> Result<std::path::PathBuf, git2::Error> {
    repo.workdir()
        .map(Path::to_path_buf)
        .ok_or_else(|| git2::Error::from_str("the repository is bare"))
}

/// The repository holding the vault; an error outside one.
pub(super) fn repo(vault_root: &Path) -> Result<Repository, GitError> {
    open(vault_root)
        .map_err(git_error(vault_root))?
        .ok_or_else(|| GitError::NoRepository {
            vault: vault_root.to_path_buf(),
        })
}

pub(super) fn git_error(vault_root: &Path) -> impl Fn(git2::Error) -> GitError + '_ {
    super::failed(vault_root)
}
