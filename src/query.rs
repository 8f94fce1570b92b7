//! `query`: structured lookup of pages from the manifest, and `query --resolve`, the check an
//! agent makes before it creates a page. A streamed answer ([`Holding::Streamed`]) whose pages
//! weigh more than [`HELD`] holds none of them: it counts them, then reads them again from the
//! manifest as they are written.

use crate::failure::{Action, Advice, Hint};
pub use crate::holding::Holding;
use crate::key::link_key;
use crate::manifest::{Collision, Manifest, ManifestError, PageFilter, PageRow, Resolution};
use serde::{Serialize, Serializer};
use std::ops::ControlFlow;

/// The most a streamed answer holds of its pages' text, in bytes: below it, one query answers.
pub const HELD: usize = 256 * 1024;

/// A query, with page names not yet resolved.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// The frontmatter and flag filters (`linked_from`/`links_to` hold names here).
    pub filter: PageFilter,
    /// Whether the answer holds its pages, or reads them as they are written.
    pub holding: Holding,
}

/// The answer to a query.
#[derive(Debug, Serialize)]
pub struct QueryReport {
    /// Pages that matched in all.
    pub total: usize,
    /// True when `--limit` cut the list.
    pub truncated: bool,
    /// The pages, by path.
    pub pages: Pages,
}

/// The pages of an answer.
#[derive(Debug)]
pub enum Pages {
    /// All of them.
    Held(Vec<PageRow>),
    /// None: they are read from the manifest, by the resolved filter, as they are written.
    Streamed(Box<(Manifest, PageFilter)>),
}

impl Pages {
    /// Give each page, by path, until `give` breaks; streamed pages are read from the
    /// manifest (and fail as that does).
    pub fn each(
        &self,
        give: &mut dyn FnMut(&PageRow) -> ControlFlow<()>,
    ) -> Result<(), QueryError> {
        match self {
            Pages::Held(rows) => {
                let _ = rows.iter().try_for_each(give);
                Ok(())
            }
            Pages::Streamed(s) => Ok(s.0.each_page(&s.1, &mut |r| give(&r))?),
        }
    }
}

impl Serialize for Pages {
    /// The pages as a list, written as they are read.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let len = match self {
            Pages::Held(rows) => Some(rows.len()),
            Pages::Streamed(_) => None,
        };
        crate::holding::list(s, len, |give| self.each(give))
    }
}

impl QueryReport {
    /// How many pages it lists: all that matched, or as many as the limit lets through.
    pub fn shown(&self) -> usize {
        match &self.pages {
            Pages::Held(rows) => rows.len(),
            Pages::Streamed(s) => s.1.limit.map_or(self.total, |n| n.min(self.total)),
        }
    }
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
/// the original did): what an agent wants to know before it creates that page. A streamed
/// answer whose pages weigh more than [`HELD`] keeps `manifest` to read them as they are
/// written.
pub fn query(manifest: Manifest, req: &Request) -> Result<QueryReport, QueryError> {
    let mut f = req.filter.clone();
    if let Some(n) = &f.linked_from {
        f.linked_from = Some(page_path(&manifest, n)?);
    }
    if let Some(n) = f.links_to.take() {
        match page_path(&manifest, &n) {
            Ok(path) => f.links_to = Some(path),
            Err(QueryError::UnknownPage(_)) => f.links_to_name = Some(link_key(&n)),
            Err(e) => return Err(e),
        }
    }
    if req.holding == Holding::Whole {
        let (pages, total) = manifest.query_pages(&f)?;
        return Ok(QueryReport {
            total,
            truncated: pages.len() < total,
            pages: Pages::Held(pages),
        });
    }
    let (mut pages, mut weight) = (Vec::new(), 0);
    manifest.each_page(&f, &mut |row| {
        weight += weight_of(&row);
        pages.push(row);
        match weight > HELD {
            true => ControlFlow::Break(()),
            false => ControlFlow::Continue(()),
        }
    })?;
    let over = weight > HELD;
    if over {
        pages = Vec::new();
    }
    // Counted apart only when the rows were let go or the limit may have cut them.
    let total = match !over && f.limit.is_none_or(|n| pages.len() < n) {
        true => pages.len(),
        false => manifest.count_pages(&f)?,
    };
    Ok(QueryReport {
        total,
        truncated: f.limit.is_some_and(|n| n < total),
        pages: match over {
            true => Pages::Streamed(Box::new((manifest, f))),
            false => Pages::Held(pages),
        },
    })
}

/// About what a page row takes in memory: its text, and a pointer and lengths per string.
fn weight_of(row: &PageRow) -> usize {
    let text = |s: &Option<String>| s.as_ref().map_or(0, |s| s.len() + 24);
    let list = |l: &[String]| l.iter().map(|s| s.len() + 24).sum::<usize>();
    row.path.len()
        + text(&row.title)
        + text(&row.kind)
        + text(&row.maturity)
        + text(&row.created)
        + text(&row.updated)
        + list(&row.tags)
        + list(&row.aliases)
        + list(&row.sources)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;
    use crate::vault::Vault;

    /// A streamed answer writes what a held one holds, with and without a limit, whether it
    /// holds its pages (few) or reads them as it writes them (many, or heavy).
    #[test]
    fn a_streamed_answer_writes_what_a_held_one_holds() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path();
        fs_err::write(root.join("sparks.toml"), "").expect("config");
        fs_err::create_dir_all(root.join("wiki/concepts")).expect("dirs");
        // 30 pages of 1,000 sources each, about 32 KB a row held: more than HELD in all.
        let sources = vec!["raw/a.md"; 1000].join(", ");
        for i in 0..30 {
            let tag = if i % 10 == 0 { "few" } else { "many" };
            let text = format!(
                "---\ntitle: P{i:02}\ntype: concept\ntags: [{tag}, all]\nsources: [{sources}]\n---\nText.\n"
            );
            fs_err::write(root.join(format!("wiki/concepts/P{i:02}.md")), text).expect("a page");
        }
        let vault = Vault::open(root).expect("the vault");
        let mut m = Manifest::open(&root.join("sparks.db")).expect("the manifest");
        let now = crate::clock::Now::read(None);
        crate::scan::rescan(&vault, &mut m, &now, &Silent).expect("scan");
        for tag in ["few", "all"] {
            for limit in [
                None,
                Some(0),
                Some(2),
                Some(3),
                Some(4),
                Some(29),
                Some(30),
                Some(31),
            ] {
                let answer = |holding| {
                    let filter = PageFilter {
                        tag: Some(tag.into()),
                        limit,
                        ..PageFilter::default()
                    };
                    let reader = m.another_reader().expect("a reader");
                    query(reader, &Request { filter, holding }).expect("a query")
                };
                let (whole, streamed) = (answer(Holding::Whole), answer(Holding::Streamed));
                let heavy = tag == "all" && limit.is_none_or(|n| n > 10);
                assert_eq!(
                    matches!(streamed.pages, Pages::Streamed(_)),
                    heavy,
                    "{tag} {limit:?}"
                );
                assert_eq!(streamed.shown(), whole.shown(), "{tag} {limit:?}");
                let json = |a: &QueryReport| serde_json::to_string_pretty(a).expect("JSON");
                assert_eq!(json(&streamed), json(&whole), "{tag} {limit:?}");
            }
        }
    }
}
