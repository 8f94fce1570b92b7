//! Links that do not lead where they say: unresolved (to nothing, or to several pages) and
//! resolved to a page without the `#heading` or `#^block` they name.

use super::Pages;
use crate::manifest::{At, LinkStatus, Manifest, Result};
use std::collections::HashMap;
use std::ops::ControlFlow;

/// A link that does not lead where it says.
#[derive(Debug, Clone)]
pub struct LinkFinding {
    /// The linking page.
    pub source: String,
    /// The line of the link.
    pub line: usize,
    /// The target as written.
    pub target: String,
    /// `#heading`, if any.
    pub heading: Option<String>,
    /// `#^block`, if any.
    pub block: Option<String>,
    /// `![[…]]`
    pub embed: bool,
    /// Broken, ambiguous or resolved.
    pub status: LinkStatus,
    /// Where it resolved, if it did.
    pub resolved: Option<String>,
    /// How many pages an ambiguous link could mean.
    pub candidates: usize,
}

/// A link whose fragment is not in the page it reaches, by its row number: a broken link's
/// issue is read whole ([`Manifest::links_at`]) when it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BrokenFragment {
    /// The link's row.
    pub rowid: i64,
    /// Whether it names a heading (`#Heading`).
    pub heading: bool,
    /// Whether it names a block (`#^id`).
    pub block: bool,
}

/// A link that resolves to nothing or to several pages, by its row number: its issue is read
/// whole ([`Manifest::links_at`]) when it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnresolvedLink {
    /// The link's row.
    pub rowid: i64,
    /// Broken or ambiguous.
    pub status: LinkStatus,
    /// `![[…]]`
    pub embed: bool,
}

/// A [`LinkFinding`] from the columns `source, line, target, heading, block, embed, status,
/// resolved, candidates`.
fn link_finding(r: &rusqlite::Row<'_>) -> rusqlite::Result<LinkFinding> {
    Ok(LinkFinding {
        source: r.get(0)?,
        line: r.get::<_, i64>(1)? as usize,
        target: r.get(2)?,
        heading: r.get(3)?,
        block: r.get(4)?,
        embed: r.get(5)?,
        status: r.get(6)?,
        resolved: r.get(7)?,
        candidates: r.get::<_, i64>(8)? as usize,
    })
}

impl Manifest {
    /// The links of the pages in `scope` that resolve to nothing or to several pages, by page
    /// and as the page holds them: what [`Manifest::links_at`] reads whole. SQLite sorts the
    /// row numbers alone by page, not the links.
    pub fn unresolved_links(&self, scope: Pages<'_>) -> Result<Vec<UnresolvedLink>> {
        let wher = match scope {
            // The redundant `<> 'resolved'` lets SQLite use the partial index `links_status`.
            Pages::All => "status IN ('broken', 'ambiguous') AND status <> 'resolved'",
            // A few pages' links by their primary key, not every unresolved link of the vault
            // (the unary `+` keeps SQLite off the status index).
            Pages::Only(_) => "+status IN ('broken', 'ambiguous')",
        };
        let sql = format!(
            "SELECT rowid, status, embed FROM links WHERE {wher}{} ORDER BY source, seq",
            scope.and_in("source")
        );
        self.scoped_rows(&sql, scope, |r| {
            Ok(UnresolvedLink {
                rowid: r.get(0)?,
                status: r.get(1)?,
                embed: r.get(2)?,
            })
        })
    }

    /// The resolved links of the pages in `scope` whose `#heading` or `#^block` the target
    /// page does not have, by page and as the page holds them: what [`Manifest::links_at`]
    /// reads whole.
    pub fn broken_fragments(&self, scope: Pages<'_>) -> Result<Vec<BrokenFragment>> {
        if let Pages::All = scope {
            return self.every_broken_fragment();
        }
        // The first condition is the partial index `links_fragments`: only links with a
        // fragment are visited.
        let sql = format!(
            "SELECT l.rowid, l.heading_key IS NOT NULL, l.block IS NOT NULL FROM links l
             WHERE (l.heading_key IS NOT NULL OR l.block IS NOT NULL)
             AND l.status = 'resolved' AND EXISTS (SELECT 1 FROM pages WHERE path = l.resolved) AND (
               (l.heading_key IS NOT NULL AND NOT EXISTS
                 (SELECT 1 FROM headings h WHERE h.path = l.resolved AND h.key = l.heading_key))
               OR (l.block IS NOT NULL AND NOT EXISTS
                 (SELECT 1 FROM blocks b WHERE b.path = l.resolved AND b.block_id = l.block))){}
             ORDER BY l.source, l.seq",
            scope.and_in("l.source")
        );
        self.scoped_rows(&sql, scope, |r| {
            Ok(BrokenFragment {
                rowid: r.get(0)?,
                heading: r.get(1)?,
                block: r.get(2)?,
            })
        })
    }

    /// `f` of each link of `rows` (row numbers) read whole, in turn, until it breaks.
    pub fn links_at(
        &self,
        rows: &[i64],
        f: &mut dyn FnMut(LinkFinding) -> ControlFlow<()>,
    ) -> Result<()> {
        let mut whole = self
            .conn
            .prepare_cached(
                "SELECT source, line, target, heading, block, embed, status, resolved, candidates
                 FROM links WHERE rowid = ?1",
            )
            .at(&self.path)?;
        for rowid in rows {
            if f(whole.query_row([rowid], link_finding).at(&self.path)?).is_break() {
                break;
            }
        }
        Ok(())
    }

    /// [`Manifest::broken_fragments`] of the whole vault, joined in memory. Probing the
    /// headings for each link's heading read every heading row of the target (a table lookup
    /// each: 1.8 s at 100,000 pages), and probing `pages` and `blocks` for each link cost two
    /// index searches a link (40 of the query's 60 ms at 10,000 pages in `sqlite3`). Here the
    /// links with a fragment, the pages, the headings and the blocks are each read in one pass
    /// and joined by the linked page's number; the broken links are kept by row number (what
    /// is built to find them is dropped before they are read whole).
    fn every_broken_fragment(&self) -> Result<Vec<BrokenFragment>> {
        /// What a linked page has that its links' fragments may name.
        #[derive(Default, Clone)]
        struct Target {
            page: bool,
            headings: Vec<String>,
            blocks: Vec<String>,
        }
        struct Fragment {
            rowid: i64,
            /// The linked page's number in `targets`.
            target: u32,
            heading_key: Option<String>,
            block: Option<String>,
        }
        let mut numbers: HashMap<String, u32, foldhash::fast::RandomState> = HashMap::default();
        let mut fragments = Vec::new();
        {
            // The partial index `links_fragments` holds every column read here.
            let mut stmt = self
                .conn
                .prepare(
                    "SELECT rowid, resolved, heading_key, block FROM links
                     WHERE (heading_key IS NOT NULL OR block IS NOT NULL) AND status = 'resolved'
                     ORDER BY source, seq",
                )
                .at(&self.path)?;
            let mut rows = stmt.query([]).at(&self.path)?;
            while let Some(r) = rows.next().at(&self.path)? {
                let resolved = r.get_ref(1).at(&self.path)?.as_str().unwrap_or_default();
                let target = match numbers.get(resolved) {
                    Some(&n) => n,
                    None => {
                        let n = numbers.len() as u32;
                        numbers.insert(resolved.to_string(), n);
                        n
                    }
                };
                fragments.push(Fragment {
                    rowid: r.get(0).at(&self.path)?,
                    target,
                    heading_key: r.get(2).at(&self.path)?,
                    block: r.get(3).at(&self.path)?,
                });
            }
        }
        if fragments.is_empty() {
            return Ok(Vec::new());
        }
        let mut targets = vec![Target::default(); numbers.len()];
        // Each pass reads `path` and, but for the pages, a name; a page's rows come one after
        // the other, so the last path's number is kept.
        let mut pass = |sql: &str, keep: fn(&mut Target, Option<String>)| -> Result<()> {
            let mut stmt = self.conn.prepare(sql).at(&self.path)?;
            let named = stmt.column_count() > 1;
            let mut rows = stmt.query([]).at(&self.path)?;
            let mut last: (String, Option<u32>) = (String::new(), None);
            while let Some(r) = rows.next().at(&self.path)? {
                let path = r.get_ref(0).at(&self.path)?.as_str().unwrap_or_default();
                if path != last.0 {
                    last = (path.to_string(), numbers.get(path).copied());
                }
                if let Some(n) = last.1 {
                    let name = if named {
                        r.get(1).at(&self.path)?
                    } else {
                        None
                    };
                    keep(&mut targets[n as usize], name);
                }
            }
            Ok(())
        };
        pass("SELECT path FROM pages", |t, _| t.page = true)?;
        pass("SELECT path, key FROM headings NOT INDEXED", |t, key| {
            t.headings.extend(key)
        })?;
        pass("SELECT path, block_id FROM blocks", |t, id| {
            t.blocks.extend(id)
        })?;
        let mut broken = Vec::new();
        for link in fragments {
            let t = &targets[link.target as usize];
            // A link to a file that is not a page (its fragment names nothing Sparks reads).
            if !t.page {
                continue;
            }
            let missing = |name: &Option<String>, names: &[String]| {
                name.as_ref().is_some_and(|n| !names.contains(n))
            };
            if missing(&link.heading_key, &t.headings) || missing(&link.block, &t.blocks) {
                broken.push(BrokenFragment {
                    rowid: link.rowid,
                    heading: link.heading_key.is_some(),
                    block: link.block.is_some(),
                });
            }
        }
        Ok(broken)
    }
}
