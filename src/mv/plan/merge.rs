//! How `merge` makes its plan. FROM's body is appended to INTO under `## <FROM's title>`,
//! without FROM's leading H1 when that repeats the title (it would be there twice, the second
//! an H1 mid-page); FROM's title and aliases join INTO's aliases, its tags and sources join
//! INTO's (INTO's first); every reference to FROM names INTO instead (`[[From#H]]` →
//! `[[Into#H]]`); a block id of FROM that INTO has too is renamed (`^id` → `^id-2`) and its
//! links follow; FROM is deleted. A link to a heading that both pages have would change
//! meaning: refused.

use super::{Drafted, FileOp, Kind, Page, Planned, with_frontmatter};
use crate::clock::Now;
use crate::key;
use crate::manifest::{Manifest, Resolution};
use crate::markdown::Document;
use crate::markdown::frontmatter::Frontmatter;
use crate::markdown::rewrite::{self, Edit};
use crate::markdown::title::{skip_blank_lines, without_title};
use crate::mv::names;
use crate::mv::plan;
use crate::mv::refs::{self, Retarget};
use crate::mv::{MergeRequest, MoveError};
use crate::vault::Vault;
use std::collections::{HashMap, HashSet};

/// Plan `sparks merge`.
pub fn plan_merge(
    vault: &Vault,
    manifest: &Manifest,
    now: &Now,
    req: &MergeRequest,
) -> Result<Planned, MoveError> {
    let from = Page::resolve(vault, manifest, &req.from)?;
    let into = Page::resolve(vault, manifest, &req.into)?;
    if from.path == into.path {
        return Err(MoveError::SamePage(from.path));
    }
    let Some(into_fm) = &into.fm else {
        return Err(MoveError::Frontmatter {
            path: into.path,
            key: "aliases",
            why: "it has no frontmatter block".into(),
        });
    };
    let from_doc = Document::parse(&from.text);
    let into_doc = Document::parse(&into.text);
    let blocks = renamed_blocks(&from.path, &from_doc, &into_doc)?;
    let retarget = retarget(manifest, &from, &into, blocks)?;

    let today = now.today.to_string();
    let sources = manifest.link_sources_to(&from.path)?;
    let others = plan::referrers(
        vault,
        manifest,
        &retarget,
        &sources,
        &[from.path.as_str(), into.path.as_str()],
        &[from.text.as_str(), into.text.as_str()],
        &today,
        req.dry_run,
    )?;
    let live = &others.live;
    let exists = |p: &str| live.contains(p);
    let (mut count, mut headings) = (others.rewritten, others.headings);
    let into_refs = retarget.find(&into.path, &into.text, None, &exists);
    let moves = names::dir(&from.path) != names::dir(&into.path);
    let from_refs = retarget.find(
        &from.path,
        &from.text,
        moves.then_some(into.path.as_str()),
        &exists,
    );
    count += into_refs.rewritten + from_refs.rewritten;
    headings.extend(into_refs.headings);
    headings.extend(from_refs.headings.iter().cloned());
    refuse_shared_headings(headings, &from_doc, &into_doc)?;

    // FROM's body, its references and block ids rewritten, appended to INTO.
    let mut from_edits = from_refs.edits;
    from_edits.extend(block_definitions(&from.text, &from_doc, &retarget.blocks));
    let appended = appended(
        &into.text,
        &from.title,
        &rewrite::apply(&from.text, &from_edits),
    );
    let mut into_edits = into_refs.edits;
    into_edits.push(Edit {
        range: into.text.len()..into.text.len(),
        text: appended,
    });

    // INTO's frontmatter: names, tags and sources joined, updated today.
    let (aliases, tags, sources, alias_added) = joined(&from, &into, into_fm);
    let lists: Vec<(&str, &[String])> = [
        ("aliases", &into_fm.aliases, &aliases),
        ("tags", &into_fm.tags, &tags),
        ("sources", &into_fm.sources, &sources),
    ]
    .into_iter()
    .filter(|(_, old, new)| old != new)
    .map(|(name, _, new)| (name, new.as_slice()))
    .collect();
    let text = with_frontmatter(&into.path, &into.text, &[], &lists, &today)?;
    into_edits.extend(plan::frontmatter_edits(&into.text, |_| Some(text)));

    let into_op = plan::rewrite_op(&into.path, &into.text, into_edits, None);
    // The page merged away is deleted: it has no lines to show.
    let deleted = FileOp {
        path: from.path.clone(),
        old: plan::hash(from.text.as_bytes()),
        to: None,
        new: None,
        edits: Vec::new(),
    };
    let draft = Drafted {
        kind: Kind::Merge,
        from: &from,
        to: into.path.clone(),
        title: into.title.clone(),
        alias_added,
        links_rewritten: count,
        own: vec![(into_op, into.text.as_str())],
        own_first: false,
        deleted: vec![deleted],
    };
    plan::finish(
        vault,
        now,
        draft,
        (others.files, others.changes),
        req.dry_run,
    )
}

/// What a reference to FROM becomes: INTO's title, file name or path, each only where it
/// leads to INTO; FROM's block ids that INTO has too renamed (`blocks`).
fn retarget(
    manifest: &Manifest,
    from: &Page,
    into: &Page,
    blocks: HashMap<String, String>,
) -> Result<Retarget, MoveError> {
    let leads = |name: &str| -> Result<bool, MoveError> {
        Ok(manifest.resolve_name(name)? == Resolution::Resolved(into.path.clone()))
    };
    let stem = names::stem(&into.path);
    let min_depth = refs::min_depth(&into.path, &manifest.files_named(&key::link_key(stem))?);
    let by_path = names::suffix(&into.path, min_depth.max(2));
    let title = match leads(&into.title)? {
        true => into.title.clone(),
        false => by_path.clone(),
    };
    Ok(Retarget {
        page: from.path.clone(),
        keys: from.keys(manifest)?,
        stem: if leads(stem)? {
            stem.to_string()
        } else {
            title.clone()
        },
        title,
        path: into.path.clone(),
        min_depth,
        blocks,
        heading: None,
    })
}

/// A link to a heading that FROM and INTO both have would lead elsewhere once FROM is gone:
/// refused, naming the first such link.
fn refuse_shared_headings(
    links: Vec<refs::HeadingLink>,
    from: &Document,
    into: &Document,
) -> Result<(), MoveError> {
    let keys = |doc: &Document| -> HashSet<String> {
        let headings = doc.outline.headings.iter();
        headings.map(|h| key::heading_key(&h.text)).collect()
    };
    let (from_keys, into_keys) = (keys(from), keys(into));
    match links.into_iter().find(|h| {
        let k = key::link_heading_key(&h.heading);
        from_keys.contains(&k) && into_keys.contains(&k)
    }) {
        Some(h) => Err(MoveError::AmbiguousHeading {
            path: h.source,
            line: h.line,
            heading: h.heading,
        }),
        None => Ok(()),
    }
}

/// What INTO (`into_text`) gains at its end: FROM's body (`from_text`, already rewritten)
/// under `## <FROM's title>`, without its leading H1 when that repeats the title, in INTO's
/// line endings.
fn appended(into_text: &str, from_title: &str, from_text: &str) -> String {
    let body = crate::markdown::frontmatter::body(from_text).0;
    let eol = if into_text.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let mut appended = String::new();
    if !into_text.is_empty() && !into_text.ends_with('\n') {
        appended.push_str(eol);
    }
    appended.push_str(&format!("{eol}## {from_title}{eol}"));
    let body = without_title(skip_blank_lines(body), from_title).trim_end();
    if !body.is_empty() {
        appended.push_str(eol);
        appended.push_str(body);
        appended.push_str(eol);
    }
    appended
}

/// INTO's aliases, tags and sources joined with FROM's (INTO's first; FROM's title becomes an
/// alias), and whether FROM's title was added.
fn joined(
    from: &Page,
    into: &Page,
    into_fm: &Frontmatter,
) -> (Vec<String>, Vec<String>, Vec<String>, bool) {
    let from_fm = from.fm.clone().unwrap_or_default();
    let into_title = key::key(&into.title);
    let mut aliases = into_fm.aliases.clone();
    let mut alias_added = false;
    for (i, a) in std::iter::once(&from.title)
        .chain(&from_fm.aliases)
        .enumerate()
    {
        let k = key::key(a);
        if k != into_title && !aliases.iter().any(|x| key::key(x) == k) {
            aliases.push(a.clone());
            alias_added |= i == 0;
        }
    }
    let tags = union(&into_fm.tags, &from_fm.tags, |t| {
        key::key(t.trim_start_matches('#'))
    });
    let sources = union(&into_fm.sources, &from_fm.sources, |s| {
        crate::schema::source_path(s).to_string()
    });
    (aliases, tags, sources, alias_added)
}

/// FROM's block ids that INTO has too, each with a new id that neither page has
/// (`^id-2`, `^id-3`, …). A clashing id defined twice in FROM cannot be told apart: refused.
fn renamed_blocks(
    from_path: &str,
    from: &Document,
    into: &Document,
) -> Result<HashMap<String, String>, MoveError> {
    let into_ids: HashSet<&str> = into
        .outline
        .blocks
        .iter()
        .map(|(b, _)| b.as_str())
        .collect();
    let mut taken: HashSet<String> = into_ids.iter().map(|b| b.to_string()).collect();
    taken.extend(from.outline.blocks.iter().map(|(b, _)| b.clone()));
    let mut out = HashMap::new();
    for (id, _) in &from.outline.blocks {
        if !into_ids.contains(id.as_str()) || out.contains_key(id) {
            continue;
        }
        if from.outline.blocks.iter().filter(|(b, _)| b == id).count() > 1 {
            return Err(MoveError::AmbiguousBlock {
                path: from_path.to_string(),
                id: id.clone(),
            });
        }
        let new = (2..)
            .map(|n| format!("{id}-{n}"))
            .find(|n| !taken.contains(n))
            .unwrap_or_default();
        taken.insert(new.clone());
        out.insert(id.clone(), new);
    }
    Ok(out)
}

/// The edits that rename block ids where FROM defines them (`text ^id` at the end of a line).
fn block_definitions(text: &str, doc: &Document, renamed: &HashMap<String, String>) -> Vec<Edit> {
    let mut starts = vec![0];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    doc.outline
        .blocks
        .iter()
        .filter_map(|(id, line)| {
            let new = renamed.get(id)?;
            let start = *starts.get(line - 1)?;
            let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
            let caret = text[start..end].trim_end().rfind('^')? + start;
            Some(Edit {
                range: caret + 1..caret + 1 + id.len(),
                text: new.clone(),
            })
        })
        .collect()
}

/// `first` then the items of `second` that are not in it, compared by `key`.
fn union(first: &[String], second: &[String], key: impl Fn(&str) -> String) -> Vec<String> {
    let mut out = first.to_vec();
    for s in second {
        if !out.iter().any(|o| key(o) == key(s)) {
            out.push(s.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clashing_block_ids_get_new_ones_and_their_definitions_follow() {
        let from_text = "---\ntitle: F\n---\nOne. ^a\n\nTwo. ^b\n";
        let from = Document::parse(from_text);
        let into = Document::parse("---\ntitle: I\n---\nX. ^a\n\nY. ^a-2\n");
        let renamed = renamed_blocks("wiki/F.md", &from, &into).unwrap();
        assert_eq!(
            renamed,
            HashMap::from([("a".to_string(), "a-3".to_string())])
        );
        let edits = block_definitions(from_text, &from, &renamed);
        assert_eq!(
            rewrite::apply(from_text, &edits),
            "---\ntitle: F\n---\nOne. ^a-3\n\nTwo. ^b\n"
        );
        let twice = Document::parse("One. ^a\n\nTwo. ^a\n");
        assert!(matches!(
            renamed_blocks("wiki/F.md", &twice, &into),
            Err(MoveError::AmbiguousBlock { .. })
        ));
    }

    #[test]
    fn unions_keep_the_first_order() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            union(&s(&["a", "B"]), &s(&["b", "c", "#a"]), |t| key::key(
                t.trim_start_matches('#')
            )),
            s(&["a", "B", "c"])
        );
    }
}
