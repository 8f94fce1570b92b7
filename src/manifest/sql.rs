//! SQL fragments shared by the read-side queries (query, lint, brief), so that a rule such as
//! "stale" or "orphan" has one definition.

/// A page (alias `p`) that Sparks generates: exempt from the orphan and thin checks.
pub const SYSTEM_PAGE: &str = "(p.path = 'wiki/index.md' OR p.path = 'wiki/log.md'
    OR substr(p.path, 1, 17) = 'wiki/collections/' OR substr(p.path, 1, 11) = 'wiki/index/')";

/// A page (alias `p`) whose `updated:` date is older than the local modification date of
/// one of its sources: `query --stale`'s condition. Lint, `lint --fix` and brief list stale
/// pages with their sources by `lint::freshness`'s rule, over tables read once; a test holds
/// the two to the same pages.
pub const STALE: &str = "(date(p.updated) = p.updated AND EXISTS (
    SELECT 1 FROM json_each(p.sources) s
    CROSS JOIN files f ON f.path =
        (CASE WHEN substr(s.value, 1, 2) = './' THEN substr(s.value, 3) ELSE s.value END)
    WHERE f.deleted = 0 AND date(f.mtime_ns / 1000000000, 'unixepoch', 'localtime') > p.updated))";

/// A page (alias `p`) no other page links to. Links from the index do not count: it links
/// to everything.
pub const ORPHAN: &str = "(NOT EXISTS (
    SELECT 1 FROM links l WHERE l.resolved = p.path AND l.source <> p.path
      AND l.source <> 'wiki/index.md' AND substr(l.source, 1, 11) <> 'wiki/index/'))";

/// A page (alias `p`) with fewer than `below` sentences of prose. A page not counted yet
/// (NULL: the manifest was migrated and not scanned since) is not called thin.
pub fn thin(below: usize) -> String {
    format!("(p.sentences < {below})")
}
