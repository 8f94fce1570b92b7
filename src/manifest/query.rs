//! `query`: pages by frontmatter and by the link graph, each filter one indexed condition of
//! a single statement; and `--resolve`: what a planned page name would collide with.

use super::{At, Manifest, Result, sql};
use crate::key;
use rusqlite::types::Value;
use std::ops::ControlFlow;

/// Which pages to return; every set field must hold (AND).
#[derive(Debug, Clone, Default)]
pub struct PageFilter {
    /// Title, compared as a key.
    pub title: Option<String>,
    /// An alias, compared as a key.
    pub alias: Option<String>,
    /// A tag, compared as a key (a leading `#` ignored).
    pub tag: Option<String>,
    /// `type:` exactly.
    pub kind: Option<String>,
    /// `maturity:` exactly.
    pub maturity: Option<String>,
    /// Pages the page at this path links to.
    pub linked_from: Option<String>,
    /// Pages that link to the page at this path.
    pub links_to: Option<String>,
    /// Pages with a link whose target has this link key: the links to a name no page has yet.
    pub links_to_name: Option<String>,
    /// Stale pages only.
    pub stale: bool,
    /// Orphans only.
    pub orphan: bool,
    /// Thin pages only: those with fewer sentences of prose than `thin_below`.
    pub thin: bool,
    /// The thin threshold (`[lint] thin_below_sentences`), set by the query from the vault.
    pub thin_below: usize,
    /// At most this many rows.
    pub limit: Option<usize>,
}

impl PageFilter {
    /// Whether any filter (or a limit) is set.
    pub fn any(&self) -> bool {
        [
            &self.title,
            &self.alias,
            &self.tag,
            &self.kind,
            &self.maturity,
            &self.linked_from,
            &self.links_to,
            &self.links_to_name,
        ]
        .iter()
        .any(|f| f.is_some())
            || self.stale
            || self.orphan
            || self.thin
            || self.limit.is_some()
    }
}

/// A page as `query` reports it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PageRow {
    /// Vault-relative path.
    pub path: String,
    /// `title:`
    pub title: Option<String>,
    /// `type:`
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// `maturity:`
    pub maturity: Option<String>,
    /// `tags:`
    pub tags: Vec<String>,
    /// `aliases:`
    pub aliases: Vec<String>,
    /// `sources:`
    pub sources: Vec<String>,
    /// `created:`
    pub created: Option<String>,
    /// `updated:`
    pub updated: Option<String>,
}

/// A page that a planned name would collide with.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Collision {
    /// The page or file.
    pub path: String,
    /// Its title, if it has one.
    pub title: Option<String>,
    /// `title`, `alias`, `file name`, or `similar title` / `similar alias` / `similar file name`
    /// (same but for case, spaces, dashes, underscores or Unicode normalisation).
    pub via: &'static str,
    /// The name that collides.
    pub name: String,
}

/// A page query as SQL: its `FROM` and `WHERE`, its order, and the values of its parameters.
struct PageSql {
    from: &'static str,
    wher: String,
    order: &'static str,
    args: Vec<Value>,
    /// Whether the tag is its only condition (counted in the tag's index alone).
    tag_alone: bool,
}

impl PageSql {
    fn of(f: &PageFilter) -> PageSql {
        let mut conds: Vec<String> = Vec::new();
        let mut args: Vec<Value> = Vec::new();
        let mut arg = |v: String| {
            args.push(Value::Text(v));
            format!("?{}", args.len())
        };
        if let Some(t) = &f.title {
            conds.push(format!("p.title_key = {}", arg(key::key(t))));
        }
        if let Some(a) = &f.alias {
            conds.push(format!(
                "p.path IN (SELECT a.path FROM aliases a WHERE a.alias_key = {})",
                arg(key::key(a))
            ));
        }
        // With a tag, the pages come from the tag's entries in `tags_key` (tag, path), in path
        // order: a limit stops the query after that many, and no list of every page of the
        // tag is gathered first.
        let (from, order) = match &f.tag {
            Some(t) => {
                conds.push(format!(
                    "d.tag_key = {}",
                    arg(key::key(t.trim().trim_start_matches('#')))
                ));
                ("tags d JOIN pages p ON p.path = d.path", "d.path")
            }
            None => ("pages p", "p.path"),
        };
        if let Some(t) = &f.kind {
            conds.push(format!("p.type = {}", arg(t.clone())));
        }
        if let Some(m) = &f.maturity {
            conds.push(format!("p.maturity = {}", arg(m.clone())));
        }
        if let Some(src) = &f.linked_from {
            conds.push(format!(
                "p.path IN (SELECT l.resolved FROM links l WHERE l.source = {})",
                arg(src.clone())
            ));
        }
        if let Some(dst) = &f.links_to {
            conds.push(format!(
                "p.path IN (SELECT l.source FROM links l WHERE l.resolved = {})",
                arg(dst.clone())
            ));
        }
        if let Some(k) = &f.links_to_name {
            conds.push(format!(
                "p.path IN (SELECT l.source FROM links l WHERE l.target_key = {})",
                arg(k.clone())
            ));
        }
        if f.stale {
            conds.push(sql::STALE.into());
        }
        if f.orphan {
            conds.push(format!("{} AND NOT {}", sql::ORPHAN, sql::SYSTEM_PAGE));
        }
        if f.thin {
            conds.push(format!(
                "{} AND NOT {}",
                sql::thin(f.thin_below),
                sql::SYSTEM_PAGE
            ));
        }
        let wher = if conds.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", conds.join(" AND "))
        };
        PageSql {
            from,
            wher,
            order,
            args,
            tag_alone: f.tag.is_some() && conds.len() == 1,
        }
    }
}

impl Manifest {
    /// The pages matching `f`, by path, and how many matched in all (before the limit).
    pub fn query_pages(&self, f: &PageFilter) -> Result<(Vec<PageRow>, usize)> {
        let mut rows = Vec::new();
        self.each_page(f, &mut |row| {
            rows.push(row);
            ControlFlow::Continue(())
        })?;
        // Counted apart only when the limit may have cut the list.
        if f.limit.is_none_or(|n| rows.len() < n) {
            let total = rows.len();
            return Ok((rows, total));
        }
        let total = self.count_pages(f)?;
        Ok((rows, total))
    }

    /// Give each page matching `f` (at most its limit), by path, as it is read, until `give`
    /// breaks.
    pub fn each_page(
        &self,
        f: &PageFilter,
        give: &mut dyn FnMut(PageRow) -> ControlFlow<()>,
    ) -> Result<()> {
        let PageSql {
            from,
            wher,
            order,
            args,
            ..
        } = PageSql::of(f);
        let limit = f.limit.map_or(-1, |n| n as i64);
        // Tags in key order (case folded), the order of their primary key: no sort per page.
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT p.path, p.title, p.type, p.maturity, p.updated, p.sources, p.created,
                    (SELECT json_group_array(tag) FROM (SELECT tag FROM tags WHERE path = p.path ORDER BY tag_key)),
                    (SELECT json_group_array(alias) FROM (SELECT alias FROM aliases WHERE path = p.path ORDER BY seq))
                 FROM {from} {wher} ORDER BY {order} LIMIT {limit}"
            ))
            .at(&self.path)?;
        let list = |s: String| serde_json::from_str::<Vec<String>>(&s).unwrap_or_default();
        let rows = stmt
            .query_map(rusqlite::params_from_iter(&args), |r| {
                Ok(PageRow {
                    path: r.get(0)?,
                    title: r.get(1)?,
                    kind: r.get(2)?,
                    maturity: r.get(3)?,
                    updated: r.get(4)?,
                    sources: list(r.get(5)?),
                    created: r.get(6)?,
                    tags: list(r.get(7)?),
                    aliases: list(r.get(8)?),
                })
            })
            .at(&self.path)?;
        for row in rows {
            if give(row.at(&self.path)?).is_break() {
                break;
            }
        }
        Ok(())
    }

    /// How many pages match `f`, its limit aside.
    pub fn count_pages(&self, f: &PageFilter) -> Result<usize> {
        let q = PageSql::of(f);
        // A tag alone is counted in its index: every tag row has its page.
        let from = match q.tag_alone {
            true => "tags d",
            false => q.from,
        };
        let total: i64 = self
            .conn
            .query_row(
                &format!("SELECT count(*) FROM {from} {}", q.wher),
                rusqlite::params_from_iter(&q.args),
                |r| r.get(0),
            )
            .at(&self.path)?;
        Ok(total as usize)
    }

    /// Every page or file a page named `name` would collide with.
    pub fn collisions(&self, name: &str) -> Result<Vec<Collision>> {
        let (exact, loose) = (key::link_key(name), key::loose_key(&key::link_key(name)));
        let queries: [(&str, &str, &'static str); 6] = [
            (
                "SELECT path, title, title FROM pages WHERE title_key = ?1",
                &exact,
                "title",
            ),
            (
                "SELECT a.path, p.title, a.alias FROM aliases a JOIN pages p USING (path) WHERE a.alias_key = ?1",
                &exact,
                "alias",
            ),
            (
                "SELECT f.path, p.title, replace(f.path, rtrim(f.path, replace(f.path, '/', '')), '') FROM files f LEFT JOIN pages p USING (path)
                 WHERE f.deleted = 0 AND f.name_key = ?1",
                &exact,
                "file name",
            ),
            (
                "SELECT path, title, title FROM pages WHERE title_loose = ?1",
                &loose,
                "similar title",
            ),
            (
                "SELECT a.path, p.title, a.alias FROM aliases a JOIN pages p USING (path) WHERE a.alias_loose = ?1",
                &loose,
                "similar alias",
            ),
            (
                "SELECT f.path, p.title, replace(f.path, rtrim(f.path, replace(f.path, '/', '')), '') FROM files f LEFT JOIN pages p USING (path)
                 WHERE f.deleted = 0 AND f.name_loose = ?1",
                &loose,
                "similar file name",
            ),
        ];
        let mut out: Vec<Collision> = Vec::new();
        for (q, k, via) in queries {
            let mut stmt = self.conn.prepare_cached(q).at(&self.path)?;
            let found = stmt
                .query_map([k], |r| {
                    Ok(Collision {
                        path: r.get(0)?,
                        title: r.get(1)?,
                        name: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                        via,
                    })
                })
                .at(&self.path)?
                .collect::<rusqlite::Result<Vec<_>>>()
                .at(&self.path)?;
            // A conflict copy is no name a link resolves to (see `links`).
            for c in found
                .into_iter()
                .filter(|c| !crate::vault::is_conflict_copy(&c.path))
            {
                // A page that collides exactly is not listed again as similar.
                if !out
                    .iter()
                    .any(|o| o.path == c.path && o.via == c.via.trim_start_matches("similar "))
                {
                    out.push(c);
                }
            }
        }
        Ok(out)
    }
}
