//! `near-duplicates`: pairs of pages that say nearly the same thing, by the meaning of their
//! text and of their titles ([`Manifest::near_twins`] finds the candidates without comparing
//! every pair). Each page of a pair gets an issue naming the other, with the hint to merge
//! them; nothing merges them but a person or the agent.

use super::{Context, Findings};
use crate::embed::{self, similarity};
use crate::failure::Action;
use crate::lint::{Check, LintError};
use crate::manifest::Hit;
use crate::search::related::shown;

/// How far titles that mean the same take a pair's similarity from its text's toward 1: a
/// twin pasted under a new title is as near as its text; two pages on one subject by their
/// titles need a text nearly as close.
const TITLES: f32 = 0.5;

/// The pairs of pages at least `[lint] near_duplicate_above` similar.
pub(super) fn near_duplicates(cx: &Context<'_>, out: &mut Findings) -> Result<(), LintError> {
    if !cx.on(Check::NearDuplicates) {
        return Ok(());
    }
    let above = cx.vault.config.lint.near_duplicate_above;
    // Titles that mean the same at most: the text must be this close for the pair to count.
    let floor = (above - TITLES) / (1.0 - TITLES);
    for twin in cx.manifest.near_twins(floor.max(0.0))? {
        let (Some(a), Some(b)) = (
            cx.manifest.search_hit(twin.a, 0.0)?,
            cx.manifest.search_hit(twin.b, 0.0)?,
        ) else {
            continue;
        };
        if !shown(&a.path) || !shown(&b.path) {
            continue;
        }
        // A page without a title is named by its file, as links name it.
        let title = |hit: &Hit| {
            let stem = || crate::key::stem(&hit.path);
            embed::embed(hit.title.as_deref().unwrap_or_else(stem))
        };
        let titles = match (title(&a), title(&b)) {
            (Some(x), Some(y)) => similarity(&x, &y).max(0.0),
            _ => 0.0,
        };
        let text = twin.similarity;
        let score = text + (1.0 - text).max(0.0) * TITLES * titles;
        if score < above {
            continue;
        }
        for (this, other) in [(&a.path, &b.path), (&b.path, &a.path)] {
            out.advise(
                Check::NearDuplicates,
                this,
                format!(
                    "says nearly what {other} says (similarity {score:.2}, text {:.2}, titles \
                     {titles:.2})",
                    twin.similarity
                ),
                Action::Merge,
            );
        }
    }
    Ok(())
}
