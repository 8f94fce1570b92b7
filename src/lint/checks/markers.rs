//! `conflict-markers`: the files that hold git's conflict markers, left by a plain `git pull`
//! (or merge, rebase, cherry-pick) that stopped on a conflict. Any file the scan reads is
//! checked as it is read (pages, the inbox, the archive, raw text; see [`crate::markers`]), so
//! this check reads the manifest, not the files.

use super::{Context, Findings};
use crate::lint::{Check, LintError};

/// Each file holding markers, at the line of its first.
pub(super) fn markers(cx: &Context<'_>, out: &mut Findings) -> Result<(), LintError> {
    if !cx.on(Check::ConflictMarkers) {
        return Ok(());
    }
    for (path, line) in cx.manifest.files_with_markers()? {
        out.push(
            Check::ConflictMarkers,
            &path,
            Some(line),
            "git's conflict markers (<<<<<<<, =======, >>>>>>>): keep the text that should stay \
             between them, then delete the marker lines; a sync refuses to commit the file \
             until then"
                .to_string(),
        );
    }
    Ok(())
}
