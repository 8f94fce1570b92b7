//! Links in the index: reading old entries (what their links resolve to, and the descriptions
//! they carry) and writing new ones that resolve to their page. Resolution is the manifest's,
//! the same rules the scan applies to every link.

use super::page::{self, BodyLine, OldPage};
use super::{GROUPS, Group, IndexError, is_generated};
use crate::key;
use crate::manifest::{Resolution, Resolver};
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

/// What the old index pages hold, read one page after the other.
#[derive(Default)]
pub(super) struct Harvest {
    /// Descriptions by page path (empty when an entry had none).
    pub(super) descriptions: HashMap<String, String>,
    /// Old entries dropped.
    pub(super) removed: usize,
}

/// What an old entry's link leads to.
enum Target {
    /// A page the index lists.
    Page(String),
    /// The index or one of its shards: a line the index writes itself.
    Generated,
    /// Some other file: the line is someone's, not an entry.
    File,
    /// Nothing, or several things.
    Nothing,
}

impl Harvest {
    /// Take the descriptions out of `page` and return its other lines, in order.
    pub(super) fn take(
        &mut self,
        names: &Resolver,
        page: &OldPage,
        listed: &HashSet<&str>,
    ) -> Result<Vec<String>, IndexError> {
        let mut hand = Vec::new();
        for line in &page.lines {
            match line {
                BodyLine::Text(t) => hand.push(t.clone()),
                BodyLine::Section => {}
                BodyLine::Entry(raw, e) => {
                    match target(names, &e.target, e.label.as_deref(), listed)? {
                        Target::Page(path) => match self.descriptions.get_mut(&path) {
                            None => {
                                self.descriptions.insert(path, e.description.clone());
                            }
                            Some(d) => {
                                if d.is_empty() {
                                    d.clone_from(&e.description);
                                }
                                self.removed += 1;
                            }
                        },
                        Target::Generated => {}
                        Target::File => hand.push(raw.clone()),
                        Target::Nothing => self.removed += 1,
                    }
                }
            }
        }
        Ok(hand)
    }
}

/// The link keys that name a shard of the index: its short path, its path, its title.
static GENERATED: LazyLock<HashSet<String>> = LazyLock::new(|| {
    GROUPS
        .iter()
        .flat_map(|g| {
            let short = format!("index/{}", g.heading());
            [
                key::link_key(&format!("wiki/{short}")),
                key::link_key(&short),
                key::key(&g.shard_title()),
            ]
        })
        .collect()
});

/// Resolve an old entry's link as the manifest resolves links; a link that resolves to nothing
/// is tried by its label.
fn target(
    names: &Resolver,
    link: &str,
    label: Option<&str>,
    listed: &HashSet<&str>,
) -> Result<Target, IndexError> {
    if GENERATED.contains(&key::link_key(link)) {
        return Ok(Target::Generated);
    }
    let mut r = names.resolve_name(link)?;
    if let (Resolution::Broken | Resolution::Ambiguous(_), Some(label)) = (&r, label)
        && let Resolution::Resolved(p) = names.resolve_name(label)?
        && listed.contains(p.as_str())
    {
        r = Resolution::Resolved(p);
    }
    Ok(match r {
        Resolution::Resolved(p) if listed.contains(p.as_str()) => Target::Page(p),
        Resolution::Resolved(p) if is_generated(&p) => Target::Generated,
        Resolution::Resolved(_) => Target::File,
        Resolution::Broken | Resolution::Ambiguous(_) => Target::Nothing,
    })
}

/// The link to a page (see [`crate::manifest::Manifest::link_to`]).
pub(super) fn link_for(names: &Resolver, path: &str, title: &str) -> Result<String, IndexError> {
    Ok(names.link_to(path, title)?)
}

/// The map line of a shard in a sharded `wiki/index.md`. The shard may be new (not scanned
/// yet): its short path is used when nothing else answers to it.
pub(super) fn shard_line(names: &Resolver, g: Group, pages: usize) -> Result<String, IndexError> {
    let short = format!("index/{}", g.heading());
    let target = match names.resolve_name(&short)? {
        Resolution::Broken => short,
        Resolution::Resolved(p) if p == g.shard() => short,
        _ => format!("wiki/{short}"),
    };
    let n = if pages == 1 {
        "1 page".to_string()
    } else {
        format!("{pages} pages")
    };
    Ok(format!("- [[{target}|{}]] {} {n}", g.heading(), page::DASH))
}
