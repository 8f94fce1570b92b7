//! What a connection works out for a page and keeps while the manifest stays as it is: the
//! viewer's backlink totals of a hub page and the pages related to it are found once per change
//! of the manifest, not once per visit.

use super::{At, Counted, Manifest, Result, view::Backlink};
use std::collections::HashMap;

/// What was worked out for pages on one connection, and the state of the manifest it was
/// worked out in, kept while the manifest stays as it is: a hub page's tens of thousands of
/// backlinks are counted once per change of the manifest, not once per visit, and so are the
/// pages related to it ([`Manifest::remembered`]).
#[derive(Debug)]
pub(super) struct ByPage<T> {
    /// `PRAGMA data_version` (it moves when another connection commits) and the connection's
    /// own count of changed rows, when what is kept was worked out.
    state: (i64, u64),
    /// What was worked out, by page path.
    by_path: HashMap<String, T>,
}

impl<T> Default for ByPage<T> {
    fn default() -> Self {
        ByPage {
            state: (0, 0),
            by_path: HashMap::new(),
        }
    }
}

impl<T: Clone> ByPage<T> {
    /// What is kept for `path` while the manifest is in `state`; everything kept is forgotten
    /// when it is in another, and `state` becomes the one kept values belong to.
    pub(super) fn get(&mut self, state: (i64, u64), path: &str) -> Option<T> {
        if self.state != state {
            self.state = state;
            self.by_path.clear();
        }
        self.by_path.get(path).cloned()
    }

    /// What is kept for `path`, whatever the state (for tests of what is kept).
    #[cfg(test)]
    pub(super) fn kept(&self, path: &str) -> Option<&T> {
        self.by_path.get(path)
    }

    /// Keep `value` for `path`, in the state [`ByPage::get`] last saw.
    pub(super) fn keep(&mut self, path: &str, value: T) {
        self.by_path.insert(path.to_string(), value);
    }
}

impl Manifest {
    /// The list `find` gives for the page at `path`, found once on this connection while the
    /// manifest stays as it is (`counted` keeps it; a list found in error is not kept): what
    /// the viewer shows beside a page, such as the pages related to it, and would otherwise
    /// look for again on every visit.
    pub fn remembered<E: From<super::ManifestError>>(
        &self,
        counted: &Counted,
        path: &str,
        find: impl FnOnce() -> std::result::Result<Vec<Backlink>, E>,
    ) -> std::result::Result<Vec<Backlink>, E> {
        let state = self.read_state()?;
        if let Some(list) = counted.remembered.borrow_mut().get(state, path) {
            return Ok(list);
        }
        let list = find()?;
        counted.remembered.borrow_mut().keep(path, list.clone());
        Ok(list)
    }

    /// What tells this connection's view of the manifest from another: `PRAGMA data_version`
    /// (it moves when another connection commits) and the connection's own count of changed
    /// rows. What a connection counted stays true while these stay the same.
    pub(super) fn read_state(&self) -> Result<(i64, u64)> {
        Ok((
            self.conn
                .pragma_query_value(None, "data_version", |r| r.get(0))
                .at(&self.path)?,
            self.conn.total_changes(),
        ))
    }
}
