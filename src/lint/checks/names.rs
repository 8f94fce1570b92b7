//! The identity checks: `duplicate-titles` and `duplicate-aliases` (a name several pages
//! claim makes every link to it ambiguous).

use super::{Context, Found};
use crate::lint::{Check, LintError};

/// Names claimed by several pages: a title twice is a duplicate title, else a duplicate
/// alias; each claimant gets an issue naming the others. The shared names are held (they are
/// the vault's, found by name), and each claimant's issues are given by page.
pub(super) fn duplicates(cx: &Context<'_>, out: &mut Found<'_, '_>) -> Result<(), LintError> {
    let claims: Vec<_> = cx
        .manifest
        .shared_names(cx.scope)?
        .into_iter()
        .filter(|claim| {
            let titled = claim
                .claimants
                .iter()
                .filter(|(_, how)| *how == "title")
                .count();
            let check = match titled > 1 {
                true => Check::DuplicateTitles,
                false => Check::DuplicateAliases,
            };
            check == out.check()
        })
        .collect();
    // Each claimant (its claim and place in it), by page and then in the claims' order.
    let mut by_page: Vec<(u32, u32)> = Vec::new();
    for (c, claim) in claims.iter().enumerate() {
        by_page.extend((0..claim.claimants.len()).map(|i| (c as u32, i as u32)));
    }
    by_page.sort_by(|a, b| {
        let path = |(c, i): &(u32, u32)| &claims[*c as usize].claimants[*i as usize].0;
        path(a).cmp(path(b))
    });
    for (c, i) in by_page {
        let claim = &claims[c as usize];
        let (path, how) = &claim.claimants[i as usize];
        let others: Vec<String> = claim
            .claimants
            .iter()
            .filter(|(p, _)| p != path)
            .map(|(p, h)| format!("{p} ({h})"))
            .collect();
        let message = format!(
            "{how} {:?} is also claimed by {}",
            claim.name,
            others.join(", ")
        );
        if out.push(path, None, message).is_break() {
            break;
        }
    }
    Ok(())
}
