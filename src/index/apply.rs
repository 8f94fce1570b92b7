//! Writing a plan: the shards, then the index, then the shards no longer needed, each only if
//! it is still what the plan read (else the caller plans again).

use super::plan::{Output, Plan};
use super::{IndexError, io, read_opt};
use crate::fault;
use crate::fsio;
use crate::vault::Vault;

/// Write what changed: the shards, then the index, then remove the shards no longer needed.
/// Returns false, having written nothing more, when a file changed since it was read: the
/// caller plans again from what is there now.
pub(super) fn apply(vault: &Vault, plan: &Plan) -> Result<bool, IndexError> {
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
            if fs_err::symlink_metadata(&path).is_ok() {
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
