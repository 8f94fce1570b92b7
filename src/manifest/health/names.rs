//! Names (titles and aliases) that more than one page claims.

use super::Pages;
use crate::manifest::{Manifest, Result};

/// A name claimed by more than one page.
#[derive(Debug, Clone)]
pub struct Claim {
    /// The name as written by the first claimant.
    pub name: String,
    /// The pages claiming it, by path, with how (`title` or `alias`).
    pub claimants: Vec<(String, &'static str)>,
}

impl Manifest {
    /// Names (title or alias keys) claimed by more than one page, of which at least one is
    /// in `scope`; every claimant is listed.
    pub fn shared_names(&self, scope: Pages<'_>) -> Result<Vec<Claim>> {
        // Keys and paths from the two indexes first; the names only for the keys that more
        // than one page claims. In a scope, only the keys its pages claim are counted.
        let claims = match scope {
            Pages::All => "claims AS (
                   SELECT title_key AS k, path FROM pages WHERE title_key IS NOT NULL
                   UNION ALL SELECT alias_key, path FROM aliases)"
                .to_string(),
            Pages::Only(_) => format!(
                "mine AS (
                   SELECT title_key AS k FROM pages WHERE title_key IS NOT NULL{only}
                   UNION SELECT alias_key FROM aliases WHERE 1{only}),
                 claims AS (
                   SELECT title_key AS k, path FROM pages WHERE title_key IN mine
                   UNION ALL SELECT alias_key, path FROM aliases WHERE alias_key IN mine)",
                only = scope.and_in("path"),
            ),
        };
        let sql = format!(
            "WITH {claims},
             shared AS (SELECT k FROM claims GROUP BY k HAVING count(DISTINCT path) > 1)
             SELECT title_key AS k, title AS name, path, 'title' AS how FROM pages
             WHERE title_key IN shared
             UNION SELECT alias_key, alias, path, 'alias' FROM aliases WHERE alias_key IN shared
             ORDER BY k, path, how DESC"
        );
        let rows = self.scoped_rows(&sql, scope, |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
            ))
        })?;
        let mut out: Vec<(String, Claim)> = Vec::new();
        for (k, name, path, how) in rows {
            let how = if how == "title" { "title" } else { "alias" };
            match out.last_mut() {
                Some((last, claim)) if *last == k => {
                    if !claim.claimants.iter().any(|(p, h)| *p == path && *h == how) {
                        claim.claimants.push((path, how));
                    }
                }
                _ => out.push((
                    k,
                    Claim {
                        name,
                        claimants: vec![(path, how)],
                    },
                )),
            }
        }
        Ok(out.into_iter().map(|(_, c)| c).collect())
    }
}
