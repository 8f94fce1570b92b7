//! `query`: pages by frontmatter and links, or the collisions of a planned name.

use super::{Refresh, Report, Request};
use crate::failure::Failure;
use crate::manifest::PageFilter;
use crate::query::{Holding, QueryReport, ResolveReport};
use crate::session::Session;
use serde::Serialize;

/// `query`: filter pages, or (`resolve`) list what a new page of a name would collide with.
#[derive(Debug, Clone)]
pub struct Query {
    asked: Asked,
    holding: Holding,
}

/// What a query asks.
#[derive(Debug, Clone)]
enum Asked {
    /// Pages matching every filter (AND); `linked_from`/`links_to` hold names, resolved as
    /// links are.
    Pages(PageFilter),
    /// The pages a new page of this name would collide with.
    Resolve(String),
}

impl Query {
    /// Filters, or a name to resolve; both at once is a usage error.
    pub fn new(filter: PageFilter, resolve: Option<String>) -> Result<Query, Failure> {
        let asked = match resolve {
            Some(_) if filter.any() => {
                return Err(Failure::usage(
                    "resolve cannot be combined with filters or limit",
                ));
            }
            Some(name) => Asked::Resolve(name),
            None => Asked::Pages(filter),
        };
        Ok(Query {
            asked,
            holding: Holding::Whole,
        })
    }

    /// The answer holds its pages as `holding` says (all of them, by default: a reply that
    /// is one message holds them anyway).
    pub fn holding(self, holding: Holding) -> Query {
        Query { holding, ..self }
    }
}

/// What `query` answers.
#[derive(Debug, Serialize)]
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

    fn refresh(&self) -> Refresh {
        Refresh::First
    }

    fn run(self, s: &Session) -> Result<QueryAnswer, Failure> {
        let manifest = s.manifest()?;
        Ok(match self.asked {
            Asked::Resolve(name) => QueryAnswer::Resolve(crate::query::resolve(&manifest, &name)?),
            Asked::Pages(filter) => {
                let filter = PageFilter {
                    thin_below: s.vault.config.lint.thin_below_sentences,
                    ..filter
                };
                let req = crate::query::Request {
                    filter,
                    holding: self.holding,
                };
                QueryAnswer::Pages(crate::query::query(manifest, &req)?)
            }
        })
    }
}

impl Report for QueryAnswer {}
