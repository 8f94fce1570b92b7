//! How `mv` makes its plan (`merge.rs` beside it makes merge's).

use super::{
    Drafted, Kind, Page, Planned, finish, frontmatter_edits, referrers, rewrite_op,
    with_frontmatter,
};
use crate::clock::Now;
use crate::key;
use crate::manifest::Manifest;
use crate::markdown::frontmatter;
use crate::markdown::rewrite::Edit;
use crate::mv::names::{self, NewName};
use crate::mv::refs::{self, Retarget};
use crate::mv::{MoveError, MoveRequest};
use crate::vault::Vault;
use std::collections::HashMap;

/// Plan `sparks mv`.
pub fn plan_mv(
    vault: &Vault,
    manifest: &Manifest,
    now: &Now,
    req: &MoveRequest,
) -> Result<Planned, MoveError> {
    let page = Page::resolve(vault, manifest, &req.page)?;
    let (new_path, new_title) = destination(vault, manifest, &page, &req.new)?;
    let stem = names::stem(&new_path).to_string();
    // The H1 that repeats the old title takes the new one, and links to it follow.
    let (body, _) = frontmatter::body(&page.text);
    let at = page.text.len() - body.len();
    let heading = crate::markdown::title::first_h1(body)
        .filter(|h| new_title != page.title && h.repeats(body, &page.title))
        .map(|h| at + h.text.start..at + h.text.end);
    let retarget = Retarget {
        page: page.path.clone(),
        keys: page.keys(manifest)?,
        title: new_title.clone(),
        stem: stem.clone(),
        path: new_path.clone(),
        min_depth: refs::min_depth(&new_path, &manifest.files_named(&key::link_key(&stem))?),
        blocks: HashMap::new(),
        heading: heading
            .as_ref()
            .map(|r| (key::heading_key(&page.text[r.clone()]), new_title.clone())),
    };
    let today = now.today.to_string();
    let sources = manifest.link_sources_to(&page.path)?;
    let others = referrers(
        vault,
        manifest,
        &retarget,
        &sources,
        &[page.path.as_str()],
        &[page.text.as_str()],
        &today,
        req.dry_run,
    )?;
    let live = &others.live;
    let mut count = others.rewritten;

    // The page itself: its own references, its relative links when it changes folder, and
    // its frontmatter (title, aliases, updated).
    let moved = names::dir(&new_path) != names::dir(&page.path);
    let exists = |p: &str| live.contains(p);
    let own = retarget.find(
        &page.path,
        &page.text,
        moved.then_some(new_path.as_str()),
        &exists,
    );
    count += own.rewritten;
    let mut edits = own.edits;
    // A link written inside the heading keeps its own edit; the heading is left as it is.
    if let Some(range) = heading
        && !edits
            .iter()
            .any(|e| e.range.start < range.end && range.start < e.range.end)
    {
        edits.push(Edit {
            range,
            text: new_title.clone(),
        });
    }
    let mut alias_added = false;
    if let Some(fm) = &page.fm {
        let mut aliases: Vec<String> = fm
            .aliases
            .iter()
            .filter(|a| key::key(a) != key::key(&new_title))
            .cloned()
            .collect();
        if !req.no_alias
            && key::key(&page.title) != key::key(&new_title)
            && !aliases.iter().any(|a| key::key(a) == key::key(&page.title))
        {
            aliases.push(page.title.clone());
            alias_added = true;
        }
        let scalars: &[(&str, &str)] = match new_title != page.title {
            true => &[("title", &new_title)],
            false => &[],
        };
        let lists: &[(&str, &[String])] = match aliases != fm.aliases {
            true => &[("aliases", &aliases)],
            false => &[],
        };
        let text = with_frontmatter(&page.path, &page.text, scalars, lists, &today)?;
        edits.extend(frontmatter_edits(&page.text, |_| Some(text)));
    }
    let to = (new_path != page.path).then(|| new_path.clone());
    let own = rewrite_op(&page.path, &page.text, edits, to);
    let draft = Drafted {
        kind: Kind::Mv,
        from: &page,
        to: new_path,
        title: new_title,
        alias_added,
        links_rewritten: count,
        own: vec![(own, page.text.as_str())],
        own_first: true,
        deleted: Vec::new(),
    };
    finish(
        vault,
        now,
        draft,
        (others.files, others.changes),
        req.dry_run,
    )
}

/// Where the page goes (`new` as the command took it: a title or a path) and its title
/// there, checked before anything is journaled: a name the file system would refuse, the page
/// where it is already, a title or file name another page has, a file in the way.
fn destination(
    vault: &Vault,
    manifest: &Manifest,
    page: &Page,
    asked: &str,
) -> Result<(String, String), MoveError> {
    let new = NewName::parse(asked).map_err(MoveError::Name)?;
    let (new_path, new_title) = match &new {
        NewName::Title(t) => {
            let dir = names::dir(&page.path);
            (format!("{dir}/{t}.md"), t.clone())
        }
        NewName::Path(p) => {
            let stem = names::stem(p);
            let keeps = stem == names::stem(&page.path) || key::key(stem) == key::key(&page.title);
            (
                p.clone(),
                if keeps {
                    page.title.clone()
                } else {
                    stem.to_string()
                },
            )
        }
    };
    // The whole path too, before anything is journaled: a write the file system refuses
    // would stop the operation after its plan is recorded.
    names::check_path_length(&vault.path(&new_path).to_string_lossy()).map_err(MoveError::Name)?;
    if new_path == page.path && new_title == page.title {
        return Err(MoveError::Same {
            path: page.path.clone(),
            name: asked.trim().to_string(),
        });
    }
    let others = |name: &str| -> Result<Vec<_>, MoveError> {
        Ok(manifest
            .collisions(name)?
            .into_iter()
            .filter(|c| c.path != page.path)
            .collect())
    };
    for (changed, name) in [
        (new_title != page.title, new_title.as_str()),
        (new_path != page.path, names::stem(&new_path)),
    ] {
        let with = if changed { others(name)? } else { Vec::new() };
        if !with.is_empty() {
            return Err(MoveError::Collision {
                name: name.to_string(),
                with,
            });
        }
    }
    let same_file = key::key(&new_path) == key::key(&page.path);
    if !same_file && fs_err::symlink_metadata(vault.path(&new_path)).is_ok() {
        return Err(MoveError::Exists(new_path));
    }
    Ok((new_path, new_title))
}
