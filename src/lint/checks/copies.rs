//! `sync-conflicts`: the conflict copies a sync left beside a file when two devices changed
//! it in the same lines, one issue each until it is reconciled into its file and deleted.
//!
//! A copy is no page (see `scan::is_page`), so the other checks do not see it: it claims no
//! title or alias, needs no link to it, and its own links are not checked (they are the other
//! device's version of the page's, checked once they are merged into the page).

use super::{Context, Issues};
use crate::lint::{Check, LintError};

/// Each conflict copy, naming the file it is a copy of and the day the sync made it.
pub(super) fn conflicts(cx: &Context<'_>, out: &mut Issues) -> Result<(), LintError> {
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
                "the other device's version of {original}, kept by a sync on {}: merge what it \
                 says into {original}, then delete this copy",
                copy.date
            ),
            None => format!(
                "the other device's version of {original}, kept by a sync on {}; {original} \
                 no longer exists: restore it from this copy, or delete the copy",
                copy.date
            ),
        };
        out.push(Check::SyncConflicts, &path, None, message);
    }
    Ok(())
}
