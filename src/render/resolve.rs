//! Where a body's wikilinks lead, as the manifest resolved them: the stored resolution of the
//! page's links, and for links the last scan has not seen, the manifest's resolver. Anchors
//! (`#Heading`, `#^block`) are checked against the target as the manifest knows it, or
//! against the file itself for a link within the page. An embed of a Markdown page is found
//! here like a link; [`super::embed`] renders it in place. Without a manifest nothing
//! resolves but links within the page.

use super::html::{file_href, href_for};
use super::paths::is_image;
use super::{Target, block_anchor, fragment, slug};
use crate::key;
use crate::manifest::{Manifest, Resolution};
use crate::markdown::{Link, outline::Outline};
use std::collections::HashMap;

/// The target of every link of `links` (the links of `rel`'s body, or of an excerpt of it), in
/// order; `whole` is the outline of the whole body, which links within the page are checked
/// against, and `host` says whether `rel` is the page shown (not a page embedded in it).
pub(super) fn targets(
    manifest: Option<&Manifest>,
    rel: &str,
    links: &Outline,
    whole: &Outline,
    host: bool,
) -> crate::manifest::Result<Vec<Target>> {
    let Some(m) = manifest else {
        return Ok(links
            .links
            .iter()
            .map(|l| {
                if l.target.is_empty() {
                    self_target(rel, l, whole, host)
                } else {
                    Target::Unknown
                }
            })
            .collect());
    };
    let stored = m.link_resolutions(rel)?;
    let mut fresh: HashMap<String, Resolution> = HashMap::new();
    let mut out = Vec::with_capacity(links.links.len());
    for l in &links.links {
        let target = if l.target.is_empty() {
            self_target(rel, l, whole, host)
        } else {
            let k = key::link_key(&l.target);
            let resolution = match stored.get(&k) {
                Some(r) => r.clone(),
                // A link the last scan has not seen (the file changed, or is not a wiki page).
                None => match fresh.get(&k) {
                    Some(r) => r.clone(),
                    None => {
                        let r = m.resolve_name(&l.target)?;
                        fresh.insert(k, r.clone());
                        r
                    }
                },
            };
            match resolution {
                Resolution::Resolved(path) => found(m, l, path)?,
                Resolution::Broken => Target::Broken,
                Resolution::Ambiguous(n) => Target::Ambiguous(n),
            }
        };
        out.push(target);
    }
    Ok(out)
}

/// A resolved link: its URL, with the anchor of its heading or block when the target has it.
fn found(m: &Manifest, l: &Link, path: String) -> crate::manifest::Result<Target> {
    let mut href = href_for(&path);
    let mut missing = None;
    if let Some(h) = &l.heading {
        let last = h.rsplit('#').next().unwrap_or(h);
        if m.has_heading(&path, &key::heading_key(last))? {
            href.push_str(&fragment(&slug(last)));
        } else {
            missing = Some(format!("heading “{last}”"));
        }
    } else if let Some(b) = &l.block {
        if m.has_block(&path, b)? {
            href.push_str(&fragment(&block_anchor(b)));
        } else {
            missing = Some(format!("block ^{b}"));
        }
    }
    let image = (l.embed && is_image(&path)).then(|| file_href(&path));
    Ok(Target::Found {
        href,
        path,
        image,
        missing_anchor: missing,
    })
}

/// `[[#Heading]]` and `[[#^block]]`: checked against the file as it is now. On the page shown
/// (`host`) the link is its fragment alone; inside an embed it leads to the embedded page.
fn self_target(rel: &str, l: &Link, outline: &Outline, host: bool) -> Target {
    let mut anchor = String::new();
    let mut missing = None;
    if let Some(h) = &l.heading {
        let last = h.rsplit('#').next().unwrap_or(h);
        let want = key::heading_key(last);
        if outline
            .headings
            .iter()
            .any(|x| key::heading_key(&x.text) == want)
        {
            anchor = fragment(&slug(last));
        } else {
            missing = Some(format!("heading “{last}”"));
        }
    } else if let Some(b) = &l.block {
        if outline.blocks.iter().any(|(id, _)| id == b) {
            anchor = fragment(&block_anchor(b));
        } else {
            missing = Some(format!("block ^{b}"));
        }
    }
    let href = if host && !anchor.is_empty() {
        anchor
    } else {
        format!("{}{anchor}", href_for(rel))
    };
    Target::Found {
        href,
        path: rel.to_string(),
        image: None,
        missing_anchor: missing,
    }
}
