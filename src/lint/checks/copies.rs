//! `sync-conflicts`: the conflict copies a sync left beside a file when two devices changed
//! it in the same lines, one issue each until it is reconciled into its file and deleted.
//!
//! A copy is no page (see `scan::is_page`), so the other checks do not see it: it claims no
//! title or alias, needs no link to it, and its own links are not checked (they are another
//! version of the page's, checked once they are merged into the page).
//!
//! The words fit every device: the copy holds the text of the device whose version did not
//! stay in place, which is the other device's on the one that merged and this device's own on
//! the one that received the merge (and neither's on a third), so it is named for what it is,
//! the version kept beside the file.

use super::{Context, Findings};
use crate::lint::{Check, LintError};

/// Each conflict copy, naming the file it is a copy of and the day the sync made it.
pub(super) fn conflicts(cx: &Context<'_>, out: &mut Findings) -> Result<(), LintError> {
    if !cx.on(Check::SyncConflicts) {
        return Ok(());
    }
    for path in cx.manifest.conflict_copies()? {
        let Some(copy) = crate::vault::conflict_copy(&path) else {
            continue;
        };
        let original = &copy.original;
        let message = match cx.manifest.file_hash(original)? {
            Some(_) => format!(
                "the version of {original} that a sync on {} kept beside it when two devices \
                 changed the same lines (the other version stayed in {original}): merge what \
                 it says into {original}, then delete this copy",
                copy.date
            ),
            None => format!(
                "the version of {original} that a sync on {} kept beside it when two devices \
                 changed the same lines; {original} no longer exists: restore it from this \
                 copy, or delete the copy",
                copy.date
            ),
        };
        out.push(Check::SyncConflicts, &path, None, message);
    }
    Ok(())
}
