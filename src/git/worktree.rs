//! Writing a tree's version of some paths into the work tree the way Sparks writes every file:
//! each file whole (a temporary file renamed over it), never truncated and refilled as
//! libgit2's checkout does, so that a kill at any instant leaves each file as it was or as it
//! will be. A file that is neither (someone wrote it since the tree it came from: a capture
//! made after a kill, an editor appending while the sync ran) is never overwritten with an
//! older text: the caller's resolver merges the three versions, as a sync's merge does. Run
//! again after a kill, [`write_paths`] skips what is done and completes the rest.

use super::GitError;
use super::merge::{Both, Resolution, git_error, repo, workdir};
use crate::fsio::FileError;
use git2::{Oid, Tree};
use std::path::Path;

/// What [`write_paths`] did beyond writing the tree's version.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    /// Paths someone had written since: the resolver merged them (their text differs from the
    /// tree's, and is left for the next commit).
    pub merged: Vec<String>,
    /// Paths the resolver could not merge: the local text stays; the tree's went to the copy.
    pub copies: Vec<(String, String)>,
}

/// How many times a file that keeps changing under the write is read again.
const TRIES: usize = 5;

/// Put tree `to`'s version of each of `paths` (repository-relative) in the work tree and the
/// index. `from` is the tree the work tree held before (HEAD's when the work began): a file
/// still as `from` has it, or already as `to` has it, is written or left; any other text is
/// handed to `resolve` with `from`'s as the base and `to`'s as theirs. `step` is called after
/// each file is written (the fault hook).
pub fn write_paths(
    vault_root: &Path,
    from: Option<&str>,
    to: &str,
    paths: &[String],
    resolve: &mut dyn FnMut(&Both<'_>) -> Resolution,
    step: &mut dyn FnMut(),
) -> Result<Written, GitError> {
    let git = git_error(vault_root);
    let repo = repo(vault_root)?;
    let work = workdir(&repo).map_err(&git)?;
    let tree = |id: &str| -> Result<Tree<'_>, GitError> {
        repo.find_tree(Oid::from_str(id).map_err(&git)?)
            .map_err(&git)
    };
    let from = from.map(tree).transpose()?;
    let to = tree(to)?;
    let mut out = Written::default();
    for path in paths {
        let expected = super::history::file(&repo, from.as_ref(), path).map_err(&git)?;
        let wanted = super::history::file(&repo, Some(&to), path).map_err(&git)?;
        let file = crate::vault::checked_under(&work, path).map_err(|e| {
            GitError::Io(FileError::at("write", work.join(path))(
                std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()),
            ))
        })?;
        let taken = |p: &str| to.get_path(Path::new(p)).is_ok() || work.join(p).exists();
        write_one(
            &file,
            path,
            expected.as_deref(),
            wanted.as_deref(),
            &taken,
            resolve,
            &mut out,
        )?;
        step();
    }
    // The index takes the tree's entries: a file the resolver merged differs from them, and
    // the next commit takes it.
    let mut index = repo.index().map_err(&git)?;
    for path in paths {
        let entry = to
            .get_path(Path::new(path))
            .ok()
            .filter(|e| e.kind() == Some(git2::ObjectType::Blob))
            .map(|e| (e.id(), e.filemode() as u32));
        super::merge::set(&mut index, path, entry).map_err(&git)?;
    }
    index.write().map_err(&git)?;
    Ok(out)
}

/// Write one file: `wanted` where it still holds `expected`, else what `resolve` says.
fn write_one(
    file: &Path,
    path: &str,
    expected: Option<&[u8]>,
    wanted: Option<&[u8]>,
    taken: &dyn Fn(&str) -> bool,
    resolve: &mut dyn FnMut(&Both<'_>) -> Resolution,
    out: &mut Written,
) -> Result<(), GitError> {
    let io = |action: &'static str, source| {
        GitError::Io(FileError::at(action, file.to_path_buf())(source))
    };
    for _ in 0..TRIES {
        let now = crate::fsio::read_if_exists(file).map_err(|e| io("read", e))?;
        if now.as_deref() == wanted {
            return Ok(());
        }
        let (content, merged) = if now.as_deref() == expected {
            (wanted.map(<[u8]>::to_vec), false)
        } else {
            let both = Both {
                path,
                base: expected,
                ours: now.as_deref(),
                theirs: wanted,
                taken,
            };
            match resolve(&both) {
                Resolution::Merged(content) => (Some(content), true),
                Resolution::Copy { copy } => {
                    // The local text stays; the tree's goes beside it (a tree without the
                    // file has nothing to put there: the local text alone stays).
                    if let Some(w) = wanted {
                        let at =
                            file.with_file_name(Path::new(&copy).file_name().unwrap_or_default());
                        crate::fsio::write_atomic(&at, w).map_err(|e| io("write", e))?;
                        out.copies.push((path.to_string(), copy));
                    }
                    return Ok(());
                }
            }
        };
        if put(file, now.as_deref(), content.as_deref()).map_err(|e| io("write", e))? {
            if merged {
                out.merged.push(path.to_string());
            }
            return Ok(());
        }
        // Changed between the read and the write: read it again.
    }
    Err(io(
        "write",
        std::io::Error::other("the file kept changing while the sync wrote it"),
    ))
}

/// Replace the file holding `now` (`None`: no file) by `content` (`None`: no file), only if
/// it still holds `now`; `false` when it changed meanwhile.
fn put(file: &Path, now: Option<&[u8]>, content: Option<&[u8]>) -> std::io::Result<bool> {
    match (now, content) {
        (Some(now), Some(content)) => crate::fsio::replace_if_unchanged(file, now, content),
        (None, Some(content)) => {
            if let Some(dir) = file.parent() {
                fs_err::create_dir_all(dir)?;
            }
            crate::fsio::create_atomic(file, content)
        }
        (Some(now), None) => {
            // Removed only while it still holds what was read (a write racing the removal in
            // the instant between is the one case left to the next sync to see as deleted).
            if crate::fsio::read_if_exists(file)?.as_deref() != Some(now) {
                return Ok(false);
            }
            crate::fsio::remove_durably(file)?;
            remove_empty_parents(file);
            Ok(true)
        }
        (None, None) => Ok(true),
    }
}

/// Remove the folders a removal left empty, up to the first that is not.
fn remove_empty_parents(file: &Path) {
    let mut dir = file.parent();
    while let Some(d) = dir {
        if fs_err::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}
