//! Which files are pages: what the reader parses, the search index strips of frontmatter and
//! the scan embeds (`super::meaning`).

/// Whether a vault-relative path is a wiki page: Markdown under `wiki/` that is not a
/// conflict copy. A copy ([`crate::vault::is_conflict_copy`]) is a file like any other, its
/// text searched as a page's is, but no page: nothing is derived from it (no title, alias,
/// link or heading), so it never takes a name from the page it is a copy of.
pub fn is_page(rel: &str) -> bool {
    is_wiki_markdown(rel) && !crate::vault::is_conflict_copy(rel)
}

/// Whether a vault-relative path is Markdown under `wiki/`: a page, or a conflict copy of one,
/// whose frontmatter is no text to search either.
pub fn is_wiki_markdown(rel: &str) -> bool {
    rel.strip_prefix("wiki/")
        .and_then(crate::key::strip_md)
        .is_some_and(|stem| !stem.is_empty())
}
