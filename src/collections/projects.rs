//! Projects: entity pages tagged `project`, grouped by maturity. Every project is listed:
//! one with another maturity, or none, goes under "Other".

use super::ExtractError;
use super::page::Body;
use super::text::{Inputs, inline};
use crate::manifest::PageFilter;

const GROUPS: [(&str, &str); 4] = [
    ("working", "Building"),
    ("stable", "Shipped"),
    ("seed", "Exploring"),
    ("historical", "Archived"),
];

/// The Projects page body.
pub fn body(inputs: &Inputs<'_>) -> Result<Body, ExtractError> {
    let (mut pages, _) = inputs.manifest.query_pages(&PageFilter {
        kind: Some("entity".into()),
        tag: Some("project".into()),
        ..PageFilter::default()
    })?;
    let title = |p: &crate::manifest::PageRow| {
        p.title
            .clone()
            .unwrap_or_else(|| super::text::stem(&p.path).to_string())
    };
    pages.sort_by_key(|p| (title(p).to_lowercase(), p.path.clone()));
    let mut text = String::new();
    let known: Vec<&str> = GROUPS.iter().map(|g| g.0).collect();
    let groups = GROUPS
        .iter()
        .map(|(m, label)| (Some(*m), *label))
        .chain([(None, "Other")]);
    for (maturity, label) in groups {
        let members: Vec<_> = pages
            .iter()
            .filter(|p| match maturity {
                Some(m) => p.maturity.as_deref() == Some(m),
                None => !p.maturity.as_deref().is_some_and(|m| known.contains(&m)),
            })
            .collect();
        if members.is_empty() {
            continue;
        }
        text.push_str(&format!("## {label} ({})\n\n", members.len()));
        for p in members {
            text.push_str(&format!(
                "- {}\n",
                inputs.manifest.link_to(&p.path, &inline(&title(p)))?
            ));
        }
        text.push('\n');
    }
    let sources = pages.iter().map(|p| p.path.clone()).collect();
    Ok(Body::new(
        pages.len(),
        ("project", "projects", "tracked"),
        "_No projects yet. Tag an entity page with `project` to list it here._",
        text,
        sources,
    ))
}
