//! `query`: pages by frontmatter and links, or the collisions of a planned name.

use super::{Report, Request};
use crate::failure::Failure;
use crate::manifest::PageFilter;
use crate::query::{QueryReport, ResolveReport};
use crate::session::Session;
use serde::Serialize;

/// The filters of `query` (AND), as given: names for `linked_from` and `links_to`.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    /// Pages with this title.
    pub title: Option<String>,
    /// Pages with this alias.
    pub alias: Option<String>,
    /// Pages with this tag.
    pub tag: Option<String>,
    /// Pages of this type.
    pub kind: Option<String>,
    /// Pages of this maturity.
    pub maturity: Option<String>,
    /// Pages this page links to.
    pub linked_from: Option<String>,
    /// Pages linking to this page, or to this name when no page has it.
    pub links_to: Option<String>,
    /// Pages older than a source.
    pub stale: bool,
    /// Pages no other page links to.
    pub orphan: bool,
    /// Pages with fewer sentences than the vault's threshold.
    pub thin: bool,
    /// At most this many pages.
    pub limit: Option<usize>,
}

impl Filters {
    fn any(&self) -> bool {
        let Filters {
            title,
            alias,
            tag,
            kind,
            maturity,
            linked_from,
            links_to,
            stale,
            orphan,
            thin,
            limit,
        } = self;
        [title, alias, tag, kind, maturity, linked_from, links_to]
            .iter()
            .any(|f| f.is_some())
            || *stale
            || *orphan
            || *thin
            || limit.is_some()
    }
}

/// `query`: filter pages, or (`resolve`) list what a new page of a name would collide with.
#[derive(Debug, Clone)]
pub enum Query {
    /// Pages matching every filter.
    Pages(Filters),
    /// The pages a new page of this name would collide with.
    Resolve(String),
}

impl Query {
    /// Filters, or a name to resolve; both at once is a usage error.
    pub fn new(filters: Filters, resolve: Option<String>) -> Result<Query, Failure> {
        match resolve {
            Some(_) if filters.any() => Err(Failure::usage(
                "resolve cannot be combined with filters or limit",
            )),
            Some(name) => Ok(Query::Resolve(name)),
            None => Ok(Query::Pages(filters)),
        }
    }
}

/// What `query` answers.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum QueryAnswer {
    /// The matching pages.
    Pages(QueryReport),
    /// The collisions of a name.
    Resolve(ResolveReport),
}

impl Request for Query {
    type Report = QueryAnswer;

    fn writes(&self) -> bool {
        false
    }

    fn run(self, s: &Session) -> Result<QueryAnswer, Failure> {
        let manifest = s.manifest()?;
        let f = match self {
            Query::Resolve(name) => {
                return Ok(QueryAnswer::Resolve(crate::query::resolve(
                    &manifest, &name,
                )?));
            }
            Query::Pages(f) => f,
        };
        let filter = PageFilter {
            title: f.title,
            alias: f.alias,
            tag: f.tag,
            kind: f.kind,
            maturity: f.maturity,
            linked_from: f.linked_from,
            links_to: f.links_to,
            stale: f.stale,
            orphan: f.orphan,
            thin: f.thin.then_some(s.vault.config.lint.thin_below_sentences),
            limit: f.limit,
            ..PageFilter::default()
        };
        let req = crate::query::Request { filter };
        Ok(QueryAnswer::Pages(crate::query::query(&manifest, &req)?))
    }
}

impl Report for QueryAnswer {}
