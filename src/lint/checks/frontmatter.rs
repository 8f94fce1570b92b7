//! The frontmatter checks: `missing-frontmatter` and `invalid-frontmatter`, by the schema
//! `fmt` applies too.

use super::{Context, Findings};
use crate::lint::{Check, LintError};
use crate::manifest::FrontmatterState;
use crate::schema::{self, Severity};

/// Pages without a frontmatter block (but `index.md` and `log.md` in any folder, which the
/// original exempts: a catalogue and a log need none), with one that cannot be read, or whose
/// fields break the schema.
pub(super) fn frontmatter(cx: &Context<'_>, out: &mut Findings) -> Result<(), LintError> {
    let (missing, invalid) = (
        cx.on(Check::MissingFrontmatter),
        cx.on(Check::InvalidFrontmatter),
    );
    if !missing && !invalid {
        return Ok(());
    }
    let mut found = Findings::default();
    cx.manifest
        .page_records(cx.scope, |r| match r.frontmatter {
            FrontmatterState::Missing if exempt_from_frontmatter(&r.path) => {}
            FrontmatterState::Missing => found.push(
                Check::MissingFrontmatter,
                &r.path,
                Some(1),
                "no frontmatter block".into(),
            ),
            FrontmatterState::Invalid => found.push(
                Check::InvalidFrontmatter,
                &r.path,
                r.error_line,
                r.error
                    .clone()
                    .unwrap_or_else(|| "frontmatter cannot be read".into()),
            ),
            FrontmatterState::Valid => {
                for i in schema::validate(&r.path, &r.fields) {
                    let check = match i.severity {
                        Severity::Missing => Check::MissingFrontmatter,
                        Severity::Invalid => Check::InvalidFrontmatter,
                    };
                    let line = r.line_of(&i.key).or(Some(1));
                    found.push(check, &r.path, line, i.message);
                }
            }
        })?;
    out.held
        .extend(found.held.into_iter().filter(|i| cx.on(i.check)));
    Ok(())
}

/// Whether a page may go without a frontmatter block: `index.md` and `log.md`, in any folder.
fn exempt_from_frontmatter(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name == "index.md" || name == "log.md"
}
