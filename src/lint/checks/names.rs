//! The identity checks: `duplicate-titles` and `duplicate-aliases` (a name several pages
//! claim makes every link to it ambiguous).

use super::{Context, Findings};
use crate::lint::{Check, LintError};

/// Names claimed by several pages: a title twice is a duplicate title, else a duplicate
/// alias; each claimant gets an issue naming the others.
pub(super) fn duplicates(cx: &Context<'_>, out: &mut Findings) -> Result<(), LintError> {
    if !cx.on(Check::DuplicateAliases) && !cx.on(Check::DuplicateTitles) {
        return Ok(());
    }
    for claim in cx.manifest.shared_names(cx.scope)? {
        let titled = claim
            .claimants
            .iter()
            .filter(|(_, how)| *how == "title")
            .count();
        let check = match titled > 1 {
            true => Check::DuplicateTitles,
            false => Check::DuplicateAliases,
        };
        if !cx.on(check) {
            continue;
        }
        for (path, how) in &claim.claimants {
            let others: Vec<String> = claim
                .claimants
                .iter()
                .filter(|(p, _)| p != path)
                .map(|(p, h)| format!("{p} ({h})"))
                .collect();
            out.push(
                check,
                path,
                None,
                format!(
                    "{how} {:?} is also claimed by {}",
                    claim.name,
                    others.join(", ")
                ),
            );
        }
    }
    Ok(())
}
