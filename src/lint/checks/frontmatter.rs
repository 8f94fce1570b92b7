//! The frontmatter checks: `missing-frontmatter` and `invalid-frontmatter`, by the schema
//! `fmt` applies too.

use super::{Context, Found};
use crate::lint::{Check, LintError};
use crate::manifest::FrontmatterState;
use crate::schema::{self, Severity};

/// Pages without a frontmatter block (but `index.md` and `log.md` in any folder, which the
/// original exempts: a catalogue and a log need none), with one that cannot be read, or whose
/// fields break the schema: those of the check asked for.
pub(super) fn frontmatter(cx: &Context<'_>, out: &mut Found<'_, '_>) -> Result<(), LintError> {
    let want = out.check();
    // The records cannot be stopped: once the receiver has had enough, `out` takes no more.
    cx.manifest
        .page_records(cx.scope, |r| match r.frontmatter {
            FrontmatterState::Missing => {
                if want == Check::MissingFrontmatter && !exempt_from_frontmatter(&r.path) {
                    let _ = out.push(&r.path, Some(1), "no frontmatter block".into());
                }
            }
            FrontmatterState::Invalid => {
                if want == Check::InvalidFrontmatter {
                    let error = r.error.clone();
                    let message = error.unwrap_or_else(|| "frontmatter cannot be read".into());
                    let _ = out.push(&r.path, r.error_line, message);
                }
            }
            FrontmatterState::Valid => {
                for i in schema::validate(&r.path, &r.fields) {
                    let check = match i.severity {
                        Severity::Missing => Check::MissingFrontmatter,
                        Severity::Invalid => Check::InvalidFrontmatter,
                    };
                    if check == want {
                        let line = r.line_of(&i.key).or(Some(1));
                        let _ = out.push(&r.path, line, i.message);
                    }
                }
            }
        })?;
    Ok(())
}

/// Whether a page may go without a frontmatter block: `index.md` and `log.md`, in any folder.
fn exempt_from_frontmatter(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name == "index.md" || name == "log.md"
}
