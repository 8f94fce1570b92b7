//! The link checks: `broken-links`, `ambiguous-links`, `missing-embeds` (links whose target
//! does not resolve to one file) and `broken-headings`, `broken-blocks` (links whose fragment
//! is not in the page they reach).

use super::{Context, Issues};
use crate::lint::{Check, LintError};
use crate::manifest::{LinkFinding, LinkStatus};

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

/// Links that resolve to nothing, or to several pages.
pub(super) fn unresolved(cx: &Context<'_>, out: &mut Issues) -> Result<(), LintError> {
    if ![
        Check::BrokenLinks,
        Check::AmbiguousLinks,
        Check::MissingEmbeds,
    ]
    .iter()
    .any(|c| cx.on(*c))
    {
        return Ok(());
    }
    for l in cx.manifest.unresolved_links(cx.scope)? {
        let written = as_written(&l);
        let (check, message) = match (l.status, l.embed) {
            (LinkStatus::Ambiguous, _) => (
                Check::AmbiguousLinks,
                format!(
                    "{written} could mean {} pages; link by path or make the names unique",
                    l.candidates
                ),
            ),
            (_, true) => (
                Check::MissingEmbeds,
                format!("{written} embeds a file that does not exist"),
            ),
            _ => (
                Check::BrokenLinks,
                format!("{written} matches no page or file"),
            ),
        };
        if cx.on(check) {
            out.push(check, &l.source, Some(l.line), message);
        }
    }
    Ok(())
}

/// Links whose heading or block is not in the page they reach.
pub(super) fn fragments(cx: &Context<'_>, out: &mut Issues) -> Result<(), LintError> {
    let (headings, blocks) = (cx.on(Check::BrokenHeadings), cx.on(Check::BrokenBlocks));
    if !headings && !blocks {
        return Ok(());
    }
    for l in cx.manifest.broken_fragments(cx.scope)? {
        let target = l.resolved.as_deref().unwrap_or_default();
        if let (Some(h), true) = (&l.heading, headings) {
            out.push(
                Check::BrokenHeadings,
                &l.source,
                Some(l.line),
                format!("{}: {target} has no heading {h:?}", as_written(&l)),
            );
        }
        if let (Some(b), true) = (&l.block, blocks) {
            out.push(
                Check::BrokenBlocks,
                &l.source,
                Some(l.line),
                format!("{}: {target} has no block ^{b}", as_written(&l)),
            );
        }
    }
    Ok(())
}
