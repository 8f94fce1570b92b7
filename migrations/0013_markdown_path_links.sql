-- Sparks manifest, schema 13: which pages hold a Markdown link to a path.
--
-- `mv` and `merge` rewrite every reference to the page they change. The manifest records a
-- page's wikilinks, so the pages that wikilink to it are known; an inline Markdown link
-- (`[text](../entities/Page.md)`) is not a link the manifest resolves, so each run read every
-- page of the wiki to find them (at 10,000 pages, a third of `mv`'s time). The scan now notes
-- which pages have one: 1 when the body holds an inline link or image whose destination is a
-- path (no scheme, not only a `#fragment`), 0 when it holds none.
--
-- A page stored before this schema has NULL, "not known": `mv` reads it as before, and the
-- next scan that reads the page, or `scan --rebuild`, fills it in. Nothing is read again now.
ALTER TABLE pages ADD COLUMN path_links INTEGER;

-- The pages `mv` reads for Markdown links, found without reading every row.
CREATE INDEX pages_path_links ON pages(path) WHERE path_links IS NOT 0;
