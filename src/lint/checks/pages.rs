//! The page checks: `orphans`, `thin-pages`, `stale-pages`, `dead-sources`.

use super::{Context, Findings};
use crate::lint::{Check, LintError, freshness};
use crate::schema;

/// Pages no other page links to.
pub(super) fn orphans(cx: &Context<'_>, out: &mut Findings) -> Result<(), LintError> {
    if cx.on(Check::Orphans) {
        for p in cx.manifest.orphan_pages()? {
            out.push(Check::Orphans, &p, None, "no other page links here".into());
        }
    }
    Ok(())
}

/// Pages with fewer sentences of prose than `[lint] thin_below_sentences`.
pub(super) fn thin(cx: &Context<'_>, out: &mut Findings) -> Result<(), LintError> {
    if !cx.on(Check::ThinPages) {
        return Ok(());
    }
    let below = cx.vault.config.lint.thin_below_sentences;
    for (p, n) in cx.manifest.thin_pages(below)? {
        let sentences = match n {
            1 => "1 sentence".to_string(),
            n => format!("{n} sentences"),
        };
        out.push(
            Check::ThinPages,
            &p,
            None,
            format!("{sentences} of prose (thin below {below})"),
        );
    }
    Ok(())
}

/// Pages older than one of their sources, and sources that do not exist but for the archive
/// files the open ingest will write (the contract tells the agent to cite them before they
/// exist): one family, as both read every page's sources and the vault's files.
pub(super) fn sources(cx: &Context<'_>, out: &mut Findings) -> Result<(), LintError> {
    let (stale, dead) = match (cx.on(Check::StalePages), cx.on(Check::DeadSources)) {
        (false, false) => return Ok(()),
        (true, false) => (freshness::stale_pages(cx.manifest)?, Vec::new()),
        (false, true) => (Vec::new(), freshness::dead_sources(cx.manifest)?),
        (true, true) => freshness::stale_and_dead(cx.manifest)?,
    };
    for s in stale {
        out.push(
            Check::StalePages,
            &s.path,
            None,
            format!(
                "updated {}, but its source {} changed on {}",
                s.updated, s.source, s.changed
            ),
        );
    }
    if dead.is_empty() {
        return Ok(());
    }
    let pending = cx.manifest.pending_archives()?;
    for d in dead {
        if !pending.contains(schema::source_path(&d.source)) {
            out.push(
                Check::DeadSources,
                &d.page,
                None,
                format!("source {} does not exist", d.source),
            );
        }
    }
    Ok(())
}
