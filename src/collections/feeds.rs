//! Which collections an archived capture feeds. The one place that decides it: prepare's
//! `affected_collections`, the collections finalize regenerates for its batch and the archive
//! files `affected` counts all ask here, and the answer comes from the extractors' own parsers,
//! so a collection is listed exactly when the capture puts something on its page.

use super::{Collection, bookmarks, books, ideas, quotes, reading};

/// The collections that read archived captures, in registry order.
pub const FROM_ARCHIVE: [Collection; 5] = [
    Collection::Quotes,
    Collection::Bookmarks,
    Collection::Books,
    Collection::ReadingList,
    Collection::Ideas,
];

/// The collections the captures in `text` feed, in registry order. `text` is one capture's
/// content or a whole archive file (its markers and separators are skipped).
pub fn fed_by(text: &str) -> Vec<Collection> {
    let quoted = quotes::in_archive(text, "");
    FROM_ARCHIVE
        .into_iter()
        .filter(|c| match c {
            Collection::Quotes => !quoted.is_empty(),
            Collection::Bookmarks => !bookmarks::in_archive(text).is_empty(),
            Collection::Books => {
                books::noted(text).next().is_some()
                    || quoted
                        .iter()
                        .any(|q| q.attribution.as_deref().and_then(books::title_of).is_some())
            }
            Collection::ReadingList => reading::items(text).next().is_some(),
            _ => ideas::captured(text).next().is_some(),
        })
        .collect()
}

/// The collections a batch of captures feeds: what prepare lists and what finalize
/// regenerates for the entries it archives. Sorted by registry key, byte-wise (as the
/// original sorted `affected_collections`).
pub fn fed_by_all<'a>(captures: impl IntoIterator<Item = &'a str>) -> Vec<Collection> {
    let mut out: Vec<Collection> = captures.into_iter().flat_map(fed_by).collect();
    out.sort_by_key(|c| c.name());
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_collection_is_listed_when_its_page_gains_something() {
        let names = |t: &str| {
            fed_by(t)
                .into_iter()
                .map(Collection::name)
                .collect::<Vec<_>>()
        };
        assert_eq!(names("just a thought"), Vec::<&str>::new());
        assert_eq!(
            names("> The best way to predict the future is to invent it.\n— Alan Kay"),
            ["Quotes"]
        );
        assert_eq!(
            names("> Simplicity is prerequisite for reliability.\n— Dijkstra, EWD498"),
            ["Quotes", "Books"]
        );
        assert_eq!(names("see https://example.com/a"), ["Bookmarks"]);
        assert_eq!(
            names("to-read: https://www.rfc-editor.org/rfc/rfc9110 (HTTP Semantics)"),
            ["ReadingList"]
        );
        assert_eq!(
            names("book: Dune\nidea: a seed library"),
            ["Books", "Ideas"]
        );
        assert_eq!(names("- [ ] a task only"), Vec::<&str>::new());
        let marker = crate::archive::marker(1, "k", 1, "h");
        assert_eq!(
            names(&format!("---\n{marker}\nplain\n")),
            Vec::<&str>::new(),
            "markers and separators feed nothing"
        );
    }

    #[test]
    fn a_batch_is_sorted_by_key_and_each_collection_once() {
        let got = fed_by_all([
            "to-read: SICP",
            "> q\n— a",
            "to-read: TAOCP",
            "https://x.io",
        ]);
        assert_eq!(
            got.into_iter().map(Collection::name).collect::<Vec<_>>(),
            ["Bookmarks", "Quotes", "ReadingList"]
        );
    }
}
