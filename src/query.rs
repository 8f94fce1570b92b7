//! `query`: structured lookup of pages from the manifest, and `query --resolve`, the check an
//! agent makes before it creates a page.

use crate::failure::{Action, Advice, Hint};
use crate::key::link_key;
use crate::manifest::{Collision, Manifest, ManifestError, PageFilter, PageRow, Resolution};
use serde::Serialize;

/// A query, with page names not yet resolved.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// The frontmatter and flag filters (`linked_from`/`links_to` hold names here).
    pub filter: PageFilter,
}

/// The answer to a query.
#[derive(Debug, Clone, Serialize)]
pub struct QueryReport {
    /// Pages that matched in all.
    pub total: usize,
    /// True when `--limit` cut the list.
    pub truncated: bool,
    /// The pages, by path.
    pub pages: Vec<PageRow>,
}

/// What a planned page name would collide with.
#[derive(Debug, Clone, Serialize)]
pub struct ResolveReport {
    /// The name asked about.
    pub name: String,
    /// Whether `[[name]]` already resolves.
    pub exists: bool,
    /// The page `[[name]]` resolves to.
    pub resolves_to: Option<String>,
    /// True when `[[name]]` could mean several pages.
    pub ambiguous: bool,
    /// Every page with the same title, alias or file name, or one that differs only in case,
    /// spaces, dashes, underscores or Unicode normalisation.
    pub collisions: Vec<Collision>,
}

/// A query could not run.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// `--linked-from` names nothing.
    #[error(
        "no page is called {0:?}, so it links to nothing (give a title, an alias, a file name or a vault-relative path)"
    )]
    UnknownPage(String),
    /// `--linked-from` / `--links-to` names several pages.
    #[error("{name:?} could mean {count} pages; give its vault-relative path")]
    Ambiguous {
        /// The name.
        name: String,
        /// How many pages it could mean.
        count: usize,
    },
    /// The manifest failed.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
}

impl Hint for QueryError {
    /// What the user can do about it.
    fn hint(&self) -> Option<Advice> {
        match self {
            QueryError::UnknownPage(_) => Some(
                Advice::run(Action::Search)
                    .then(" to find pages by their title or text; ")
                    .then_run(Action::Scan)
                    .then(" if the page is new"),
            ),
            QueryError::Ambiguous { .. } => Some(
                Advice::run(Action::Resolve)
                    .then(" to list the pages it could mean, with their paths"),
            ),
            QueryError::Manifest(m) => m.hint(),
        }
    }
}

/// The page `name` names (a title, alias, file name or vault-relative path), as
/// `query --links-to` resolves it.
pub fn page_path(manifest: &Manifest, name: &str) -> Result<String, QueryError> {
    match manifest.resolve_name(name)? {
        Resolution::Resolved(p) => Ok(p),
        Resolution::Broken => Err(QueryError::UnknownPage(name.into())),
        Resolution::Ambiguous(count) => Err(QueryError::Ambiguous {
            name: name.into(),
            count,
        }),
    }
}

/// Run a query. `links_to` a name no page has yet finds the pages whose links name it (as
/// the original did): what an agent wants to know before it creates that page.
pub fn query(manifest: &Manifest, req: &Request) -> Result<QueryReport, QueryError> {
    let mut f = req.filter.clone();
    if let Some(n) = &f.linked_from {
        f.linked_from = Some(page_path(manifest, n)?);
    }
    if let Some(n) = f.links_to.take() {
        match page_path(manifest, &n) {
            Ok(path) => f.links_to = Some(path),
            Err(QueryError::UnknownPage(_)) => f.links_to_name = Some(link_key(&n)),
            Err(e) => return Err(e),
        }
    }
    let (pages, total) = manifest.query_pages(&f)?;
    Ok(QueryReport {
        total,
        truncated: pages.len() < total,
        pages,
    })
}

/// What creating a page called `name` would collide with.
pub fn resolve(manifest: &Manifest, name: &str) -> Result<ResolveReport, QueryError> {
    let (resolves_to, ambiguous) = match manifest.resolve_name(name)? {
        Resolution::Resolved(p) => (Some(p), false),
        Resolution::Broken => (None, false),
        Resolution::Ambiguous(_) => (None, true),
    };
    Ok(ResolveReport {
        name: name.into(),
        exists: resolves_to.is_some() || ambiguous,
        resolves_to,
        ambiguous,
        collisions: manifest.collisions(name)?,
    })
}
