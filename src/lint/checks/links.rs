//! The link checks: `broken-links`, `ambiguous-links`, `missing-embeds` (links whose target
//! does not resolve to one file) and `broken-headings`, `broken-blocks` (links whose fragment
//! is not in the page they reach). Their issues are as many as the links, not the pages:
//! checking keeps the row numbers of their links alone, each read whole from the manifest when
//! its issue is written ([`each`]).

use super::{Context, Findings, Found};
use crate::lint::{Check, LintError};
use crate::manifest::{BrokenFragment, LinkFinding, LinkStatus, Manifest};

/// The checks of links that resolve to nothing or to several pages.
const UNRESOLVED: [Check; 3] = [
    Check::AmbiguousLinks,
    Check::BrokenLinks,
    Check::MissingEmbeds,
];

/// The check of an unresolved link.
fn unresolved_check(status: LinkStatus, embed: bool) -> Check {
    match (status, embed) {
        (LinkStatus::Ambiguous, _) => Check::AmbiguousLinks,
        (_, true) => Check::MissingEmbeds,
        _ => Check::BrokenLinks,
    }
}

/// A link as its page writes it (without the label).
fn as_written(l: &LinkFinding) -> String {
    let fragment = match (&l.heading, &l.block) {
        (Some(h), _) => format!("#{h}"),
        (None, Some(b)) => format!("#^{b}"),
        (None, None) => String::new(),
    };
    format!(
        "{}[[{}{fragment}]]",
        if l.embed { "!" } else { "" },
        l.target
    )
}

/// The links that resolve to nothing, or to several pages (once for the three checks).
pub(super) fn unresolved(cx: &Context<'_>, out: &mut Findings) -> Result<(), LintError> {
    if !UNRESOLVED.iter().any(|c| cx.on(*c)) {
        return Ok(());
    }
    let links = cx.manifest.unresolved_links(cx.scope)?;
    for check in UNRESOLVED.into_iter().filter(|c| cx.on(*c)) {
        let rows = links
            .iter()
            .filter(|l| unresolved_check(l.status, l.embed) == check);
        out.links(check, rows.map(|l| l.rowid).collect());
    }
    Ok(())
}

/// The links whose heading or block is not in the page they reach (found once for both
/// checks).
pub(super) fn fragments(cx: &Context<'_>, out: &mut Findings) -> Result<(), LintError> {
    let (headings, blocks) = (cx.on(Check::BrokenHeadings), cx.on(Check::BrokenBlocks));
    if !headings && !blocks {
        return Ok(());
    }
    let broken = cx.manifest.broken_fragments(cx.scope)?;
    let rows = |has: fn(&BrokenFragment) -> bool| -> Vec<i64> {
        broken.iter().filter(|l| has(l)).map(|l| l.rowid).collect()
    };
    if blocks {
        out.links(Check::BrokenBlocks, rows(|l| l.block));
    }
    if headings {
        out.links(Check::BrokenHeadings, rows(|l| l.heading));
    }
    Ok(())
}

/// Give the issues of the link check `out` is for, the links of `rows` read whole from the
/// manifest as they are given.
pub(super) fn each(
    manifest: &Manifest,
    rows: &[i64],
    out: &mut Found<'_, '_>,
) -> Result<(), LintError> {
    let check = out.check();
    manifest.links_at(rows, &mut |l| {
        let written = as_written(&l);
        let target = l.resolved.as_deref().unwrap_or_default();
        let message = match (check, &l.heading, &l.block) {
            (Check::AmbiguousLinks, _, _) => format!(
                "{written} could mean {} pages; link by path or make the names unique",
                l.candidates
            ),
            (Check::MissingEmbeds, _, _) => format!("{written} embeds a file that does not exist"),
            (Check::BrokenHeadings, Some(h), _) => {
                format!("{written}: {target} has no heading {h:?}")
            }
            (Check::BrokenBlocks, _, Some(b)) => format!("{written}: {target} has no block ^{b}"),
            _ => format!("{written} matches no page or file"),
        };
        out.push(&l.source, Some(l.line), message)
    })?;
    Ok(())
}
