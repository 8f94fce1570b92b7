//! The link checks: `broken-links`, `ambiguous-links`, `missing-embeds` (links whose target
//! does not resolve to one file) and `broken-headings`, `broken-blocks` (links whose fragment
//! is not in the page they reach).

use super::{Context, Found};
use crate::lint::{Check, LintError};
use crate::manifest::{LinkFinding, LinkStatus};
use std::ops::ControlFlow;

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

/// Links that resolve to nothing, or to several pages: those of the check asked for.
pub(super) fn unresolved(cx: &Context<'_>, out: &mut Found<'_, '_>) -> Result<(), LintError> {
    cx.manifest.unresolved_links(cx.scope, |l| {
        let check = match (l.status, l.embed) {
            (LinkStatus::Ambiguous, _) => Check::AmbiguousLinks,
            (_, true) => Check::MissingEmbeds,
            _ => Check::BrokenLinks,
        };
        if check != out.check() {
            return ControlFlow::Continue(());
        }
        let written = as_written(&l);
        let message = match check {
            Check::AmbiguousLinks => format!(
                "{written} could mean {} pages; link by path or make the names unique",
                l.candidates
            ),
            Check::MissingEmbeds => format!("{written} embeds a file that does not exist"),
            _ => format!("{written} matches no page or file"),
        };
        out.push(&l.source, Some(l.line), message)
    })?;
    Ok(())
}

/// Links whose heading (or block, as the check asked for says) is not in the page they reach.
pub(super) fn fragments(cx: &Context<'_>, out: &mut Found<'_, '_>) -> Result<(), LintError> {
    let headings = out.check() == Check::BrokenHeadings;
    cx.manifest.broken_fragments(cx.scope, |l| {
        let target = l.resolved.as_deref().unwrap_or_default();
        match (&l.heading, &l.block, headings) {
            (Some(h), _, true) => out.push(
                &l.source,
                Some(l.line),
                format!("{}: {target} has no heading {h:?}", as_written(&l)),
            ),
            (_, Some(b), false) => out.push(
                &l.source,
                Some(l.line),
                format!("{}: {target} has no block ^{b}", as_written(&l)),
            ),
            _ => ControlFlow::Continue(()),
        }
    })?;
    Ok(())
}
