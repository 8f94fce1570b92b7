//! The page checks: `orphans`, `thin-pages`, `stale-pages`, `dead-sources`.

use super::{Context, Found};
use crate::lint::{LintError, freshness};
use crate::schema;

/// Pages no other page links to.
pub(super) fn orphans(cx: &Context<'_>, out: &mut Found<'_, '_>) -> Result<(), LintError> {
    cx.manifest
        .orphan_pages(|p| out.push(&p, None, "no other page links here".into()))?;
    Ok(())
}

/// Pages with fewer sentences of prose than `[lint] thin_below_sentences`.
pub(super) fn thin(cx: &Context<'_>, out: &mut Found<'_, '_>) -> Result<(), LintError> {
    let below = cx.vault.config.lint.thin_below_sentences;
    cx.manifest.each_thin_page(below, |p, n| {
        let sentences = match n {
            1 => "1 sentence".to_string(),
            n => format!("{n} sentences"),
        };
        out.push(
            &p,
            None,
            format!("{sentences} of prose (thin below {below})"),
        )
    })?;
    Ok(())
}

/// Pages older than one of their sources.
pub(super) fn stale(cx: &Context<'_>, out: &mut Found<'_, '_>) -> Result<(), LintError> {
    freshness::each_stale(cx.manifest, |s| {
        out.push(
            &s.path,
            None,
            format!(
                "updated {}, but its source {} changed on {}",
                s.updated, s.source, s.changed
            ),
        )
    })?;
    Ok(())
}

/// Sources that do not exist but for the archive files the open ingest will write (the
/// contract tells the agent to cite them before they exist).
pub(super) fn dead(cx: &Context<'_>, out: &mut Found<'_, '_>) -> Result<(), LintError> {
    let pending = cx.manifest.pending_archives()?;
    freshness::each_dead(cx.manifest, |d| {
        match pending.contains(schema::source_path(&d.source)) {
            true => std::ops::ControlFlow::Continue(()),
            false => out.push(&d.page, None, format!("source {} does not exist", d.source)),
        }
    })?;
    Ok(())
}
