//! What finalize records of an ingest's batch (the pages it touched, with their contents
//! before when kept, and the lint issues it added), as history and revert read it.

use super::{PageAction, PageChange};
use crate::manifest::{At, Manifest, Result};
use rusqlite::{OptionalExtension, params};

impl Manifest {
    /// The lint issues finalize found ingest `id`'s batch added (JSON), once it has.
    pub fn lint_delta(&self, id: i64) -> Result<Option<String>> {
        self.conn
            .query_row(
                "SELECT lint_delta FROM ingest_provenance WHERE ingest_id = ?1",
                [id],
                |r| r.get(0),
            )
            .optional()
            .at(&self.path)
            .map(Option::flatten)
    }

    /// Record what ingest `id` did to the wiki (replacing what an interrupted finalize
    /// recorded), copying the content before of every page the kept contents hold, and the
    /// lint issues it added (JSON).
    pub fn record_provenance(
        &mut self,
        id: i64,
        changes: &[PageChange],
        lint_delta: &str,
    ) -> Result<()> {
        let path = self.path.clone();
        let tx = self.immediate()?;
        tx.execute("DELETE FROM ingest_pages WHERE ingest_id = ?1", [id])
            .at(&path)?;
        {
            let mut ins = tx
                .prepare(
                    "INSERT INTO ingest_pages (ingest_id, path, action, before_hash, after_hash, before)
                     VALUES (?1, ?2, ?3, ?4, ?5,
                        (SELECT content FROM page_blobs WHERE hash = ?4))",
                )
                .at(&path)?;
            for c in changes {
                ins.execute(params![
                    id,
                    c.path,
                    c.action.as_str(),
                    c.before_hash,
                    c.after_hash
                ])
                .at(&path)?;
            }
        }
        tx.execute(
            "UPDATE ingest_provenance SET lint_delta = ?2 WHERE ingest_id = ?1",
            params![id, lint_delta],
        )
        .at(&path)?;
        tx.commit().at(&path)
    }

    /// The pages ingest `id` touched, by path, with whether their content before is kept.
    pub fn ingest_pages(&self, id: i64) -> Result<Vec<(PageChange, bool)>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT path, action, before_hash, after_hash, before IS NOT NULL
                 FROM ingest_pages WHERE ingest_id = ?1 ORDER BY path",
            )
            .at(&self.path)?;
        let rows = stmt
            .query_map([id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                ))
            })
            .at(&self.path)?;
        let mut out = Vec::new();
        for row in rows {
            let (path, action, before_hash, after_hash, kept) = row.at(&self.path)?;
            let action = PageAction::parse(&action).ok_or_else(|| {
                crate::manifest::ManifestError::Corrupt {
                    path: self.path.clone(),
                    what: format!("ingest {id} page {path} has action {action:?}"),
                }
            })?;
            out.push((
                PageChange {
                    path,
                    action,
                    before_hash,
                    after_hash,
                },
                kept,
            ));
        }
        Ok(out)
    }

    /// The content of `page` before ingest `id`, when it was kept.
    pub fn page_before(&self, id: i64, page: &str) -> Result<Option<Vec<u8>>> {
        self.conn
            .query_row(
                "SELECT before FROM ingest_pages WHERE ingest_id = ?1 AND path = ?2",
                params![id, page],
                |r| r.get(0),
            )
            .optional()
            .at(&self.path)
            .map(Option::flatten)
    }
}
