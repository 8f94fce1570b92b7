//! The seven generated collections: the registry (names, output pages, sources, and the
//! extractor that makes each page: [`Collection::body`]), one module per extractor, the page
//! format, `affected`, which says which need regenerating, and `regen`, which regenerates them.
//! Extractors fail with their own [`ExtractError`]; they know nothing of `regen`.
//!
//! Sources are matched against vault-relative paths with real globs (`*` stays inside one path
//! segment, `**` crosses segments), the file-name part included: `raw/quotes/cover.png` is not
//! a source of Quotes, and an override without `**` such as `raw/media/*.md` matches what it
//! says.

pub mod affected;
pub mod bookmarks;
pub mod books;
pub mod feeds;
pub mod ideas;
pub mod media;
pub mod page;
pub mod projects;
pub mod quotes;
pub mod reading;
pub mod regen;
mod text;

pub use crate::archive::is_archive;
use crate::config::{CollectionGlob, Config};
use crate::manifest::ManifestError;
use globset::{GlobBuilder, GlobMatcher};
use page::Body;
use text::Inputs;

/// A generated collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Collection {
    /// Quotes of the quote files and the archived captures.
    Quotes,
    /// URLs of the web-clipping files and the archived captures.
    Bookmarks,
    /// `book:` lines of the archived captures.
    Books,
    /// `to-read:` lines of the archived captures.
    ReadingList,
    /// One entry per media note.
    Media,
    /// Idea files and archived captures.
    Ideas,
    /// Entity pages tagged `project`.
    Projects,
}

/// Every collection, in registry order (the order of reports and regeneration).
pub const ALL: [Collection; 7] = [
    Collection::Quotes,
    Collection::Bookmarks,
    Collection::Books,
    Collection::ReadingList,
    Collection::Media,
    Collection::Ideas,
    Collection::Projects,
];

/// The archive of processed captures, one file per capture date.
pub const ARCHIVE_GLOB: &str = "raw/inbox/*.md";

/// Where entity pages live.
pub const ENTITIES_DIR: &str = "wiki/entities";

/// Where the collection pages are written.
pub const OUTPUT_DIR: &str = "wiki/collections";

/// Where a collection's entries come from.
#[derive(Debug, Clone)]
pub enum Source {
    /// Files matching a glob.
    Files(Glob),
    /// Archived captures (`raw/inbox/*.md`): a file counts for the collections its captures
    /// feed ([`feeds::fed_by`]).
    Archive,
    /// Markdown pages under `wiki/entities/`.
    Entities,
}

/// A compiled source glob and the text it was compiled from.
#[derive(Debug, Clone)]
pub struct Glob {
    text: String,
    matcher: GlobMatcher,
}

/// A collection's source glob in `sparks.toml` is unusable.
#[derive(Debug, thiserror::Error)]
#[error("sparks.toml [collections.{key}] glob {glob:?}: {message}")]
pub struct GlobError {
    /// The config table's key (`quotes`).
    pub key: &'static str,
    /// The glob as written.
    pub glob: String,
    /// What is wrong with it.
    pub message: String,
}

/// An extractor could not read its sources.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    /// A source glob is invalid.
    #[error(transparent)]
    Glob(#[from] GlobError),
    /// The manifest failed.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
}

impl Glob {
    /// Compile a vault-relative glob. Absolute patterns and `..` are refused: a source never
    /// lies outside the vault.
    pub fn new(text: &str) -> Result<Glob, String> {
        if text.starts_with('/') || text.starts_with('\\') {
            return Err("must be relative to the vault root".into());
        }
        if text.split(['/', '\\']).any(|part| part == "..") {
            return Err("must not leave the vault (`..`)".into());
        }
        let glob = GlobBuilder::new(text)
            .literal_separator(true)
            .build()
            .map_err(|e| e.kind().to_string())?;
        Ok(Glob {
            text: text.to_string(),
            matcher: glob.compile_matcher(),
        })
    }

    /// Whether a vault-relative path (forward slashes) matches.
    pub fn is_match(&self, path: &str) -> bool {
        self.matcher.is_match(path)
    }

    /// The glob as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The directory every match lies under (`raw/quotes/` for `raw/quotes/**/*.md`; empty
    /// when the first segment already holds a wildcard): where to look for matches.
    pub fn prefix(&self) -> &str {
        let literal = self
            .text
            .find(['*', '?', '[', '{', '\\'])
            .map_or(self.text.as_str(), |i| &self.text[..i]);
        literal.rfind('/').map_or("", |i| &literal[..=i])
    }
}

/// The directory of the archive files, as a path prefix.
pub const ARCHIVES: &str = "raw/inbox/";

impl Collection {
    /// The registry key, as `collections regen` and `affected` name it.
    pub fn name(self) -> &'static str {
        match self {
            Collection::Quotes => "Quotes",
            Collection::Bookmarks => "Bookmarks",
            Collection::Books => "Books",
            Collection::ReadingList => "ReadingList",
            Collection::Media => "Media",
            Collection::Ideas => "Ideas",
            Collection::Projects => "Projects",
        }
    }

    /// The page title.
    pub fn title(self) -> &'static str {
        match self {
            Collection::ReadingList => "Reading List",
            other => other.name(),
        }
    }

    /// The collection with this registry key (exact, case-sensitive).
    pub fn from_name(name: &str) -> Option<Collection> {
        ALL.into_iter().find(|c| c.name() == name)
    }

    /// The vault-relative output page, `wiki/collections/<Title>.md`.
    pub fn output(self) -> String {
        format!("{OUTPUT_DIR}/{}.md", self.title())
    }

    /// The default glob of the collections that read files, with their `sparks.toml` key.
    pub fn default_glob(self) -> Option<(&'static str, &'static str)> {
        match self {
            Collection::Quotes => Some(("quotes", "raw/quotes/**/*.md")),
            Collection::Bookmarks => Some(("bookmarks", "raw/weblinks/**/*.md")),
            Collection::Media => Some(("media", "raw/media/**/*.md")),
            Collection::Ideas => Some(("ideas", "raw/ideas/**/*.md")),
            Collection::Books | Collection::ReadingList | Collection::Projects => None,
        }
    }

    /// The glob in effect: the `sparks.toml` override when it is set and not empty, else the
    /// default. `None` for the collections that read no glob.
    pub fn glob(self, config: &Config) -> Result<Option<Glob>, GlobError> {
        let Some((key, default)) = self.default_glob() else {
            return Ok(None);
        };
        let c = &config.collections;
        let configured = match self {
            Collection::Quotes => &c.quotes,
            Collection::Bookmarks => &c.bookmarks,
            Collection::Media => &c.media,
            _ => &c.ideas,
        };
        let text = match configured {
            Some(CollectionGlob { glob }) if !glob.trim().is_empty() => glob.trim(),
            _ => default,
        };
        Glob::new(text).map(Some).map_err(|message| GlobError {
            key,
            glob: text.to_string(),
            message,
        })
    }

    /// Where this collection's entries come from.
    pub fn sources(self, config: &Config) -> Result<Vec<Source>, GlobError> {
        let files = self.glob(config)?.map(Source::Files);
        // Books are also named in quote attributions.
        let files = match self {
            Collection::Books => Collection::Quotes.glob(config)?.map(Source::Files),
            _ => files,
        };
        let archive = feeds::FROM_ARCHIVE
            .contains(&self)
            .then_some(Source::Archive);
        Ok(match self {
            Collection::Projects => vec![Source::Entities],
            _ => files.into_iter().chain(archive).collect(),
        })
    }
}

impl Collection {
    /// The page body of this collection, from its extractor.
    pub fn body(self, inputs: &Inputs<'_>) -> Result<Body, ExtractError> {
        match self {
            Collection::Quotes => quotes::body(inputs),
            Collection::Bookmarks => bookmarks::body(inputs),
            Collection::Books => books::body(inputs),
            Collection::ReadingList => reading::body(inputs),
            Collection::Media => media::body(inputs),
            Collection::Ideas => ideas::body(inputs),
            Collection::Projects => projects::body(inputs),
        }
    }
}

/// Collections as people read them: their titles, comma-separated (`Quotes, Reading List`).
pub fn titles(cs: &[Collection]) -> String {
    cs.iter().map(|c| c.title()).collect::<Vec<_>>().join(", ")
}

/// A collection is written in JSON as its registry key (`ReadingList`), as the original did.
impl serde::Serialize for Collection {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Collection {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Collection, D::Error> {
        let name = String::deserialize(d)?;
        Collection::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("no collection is called {name:?}")))
    }
}

/// Whether a vault-relative path is an entity page.
pub fn is_entity_page(path: &str) -> bool {
    path.strip_prefix(ENTITIES_DIR)
        .is_some_and(|rest| rest.starts_with('/'))
        && crate::scan::is_page(path)
}

impl Source {
    /// Whether a path is an input of this source (for an archive source: could be, until the
    /// file is read).
    pub fn covers(&self, path: &str) -> bool {
        match self {
            Source::Files(g) => g.is_match(path),
            Source::Archive => is_archive(path),
            Source::Entities => is_entity_page(path),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(toml: &str) -> Config {
        Config::parse(toml).expect("the test config parses")
    }

    /// The glob in effect for `c`, which must have one.
    fn glob(c: Collection, config: &Config) -> Glob {
        c.glob(config)
            .expect("a valid glob")
            .expect("a collection with a glob")
    }

    #[test]
    fn names_titles_and_outputs() {
        assert_eq!(
            ALL.map(Collection::name).join(","),
            "Quotes,Bookmarks,Books,ReadingList,Media,Ideas,Projects"
        );
        assert_eq!(
            Collection::ReadingList.output(),
            "wiki/collections/Reading List.md"
        );
        assert_eq!(Collection::Quotes.output(), "wiki/collections/Quotes.md");
        assert_eq!(
            Collection::from_name("ReadingList"),
            Some(Collection::ReadingList)
        );
        assert_eq!(Collection::from_name("Reading List"), None);
        assert_eq!(Collection::from_name("Tasks"), None);
    }

    #[test]
    fn default_globs_match_the_whole_path() {
        let g = glob(Collection::Quotes, &Config::default());
        assert!(g.is_match("raw/quotes/a.md"));
        assert!(g.is_match("raw/quotes/books/deep/a.md"));
        assert!(
            !g.is_match("raw/quotes/cover.png"),
            "the file-name part counts"
        );
        assert!(!g.is_match("raw/quotes.md"));
        assert!(!g.is_match("raw/quotesx/a.md"));
    }

    #[test]
    fn overrides_replace_the_default_and_star_stays_in_one_segment() {
        let c = config("[collections.media]\nglob = \"raw/media/*.md\"\n");
        let g = glob(Collection::Media, &c);
        assert_eq!(g.as_str(), "raw/media/*.md");
        assert!(g.is_match("raw/media/film.md"));
        assert!(!g.is_match("raw/media/podcasts/ep12.md"));
        let c = config("[collections.media]\nglob = \"\"\n");
        assert_eq!(glob(Collection::Media, &c).as_str(), "raw/media/**/*.md");
    }

    #[test]
    fn globs_know_the_directory_their_matches_lie_under() {
        let prefix = |g: &str| Glob::new(g).expect("a valid glob").prefix().to_string();
        assert_eq!(prefix("raw/quotes/**/*.md"), "raw/quotes/");
        assert_eq!(prefix("raw/media/*.md"), "raw/media/");
        assert_eq!(prefix("raw/**/quotes/*.md"), "raw/");
        assert_eq!(prefix("raw/q[0-9]/*.md"), "raw/");
        assert_eq!(prefix("**/*.md"), "");
        assert_eq!(prefix("raw/ideas/one.md"), "raw/ideas/");
        assert_eq!(ARCHIVES, format!("{}/", crate::vault::ARCHIVE_DIR));
        assert!(is_archive(&format!("{ARCHIVES}2026-05-01.md")));
    }

    #[test]
    fn directory_parts_after_double_star_count() {
        let g = Glob::new("raw/**/quotes/*.md").expect("a valid glob");
        assert!(g.is_match("raw/x/quotes/a.md"));
        assert!(!g.is_match("raw/inbox/2026-05-01.md"));
    }

    #[test]
    fn globs_that_leave_the_vault_or_do_not_parse_are_errors() {
        for bad in ["../notes/*.md", "/etc/*.md", "raw/[quotes/*.md"] {
            let c = config(&format!("[collections.quotes]\nglob = \"{bad}\"\n"));
            let err = Collection::Quotes
                .glob(&c)
                .expect_err("the glob is refused");
            assert!(err.to_string().contains("[collections.quotes]"), "{err}");
        }
    }

    #[test]
    fn sources() {
        let c = Config::default();
        for with_files in [
            Collection::Quotes,
            Collection::Bookmarks,
            Collection::Books,
            Collection::Ideas,
        ] {
            assert!(matches!(
                with_files.sources(&c).expect("sources")[..],
                [Source::Files(_), Source::Archive]
            ));
        }
        assert!(matches!(
            Collection::ReadingList.sources(&c).expect("sources")[..],
            [Source::Archive]
        ));
        assert!(matches!(
            Collection::Media.sources(&c).expect("sources")[..],
            [Source::Files(_)]
        ));
        assert!(matches!(
            Collection::Projects.sources(&c).expect("sources")[..],
            [Source::Entities]
        ));
        assert!(is_archive("raw/inbox/2026-05-01.md"));
        assert!(!is_archive("raw/inbox/old/2026-05-01.md") && !is_archive("raw/inboxes/a.md"));
        assert!(is_entity_page("wiki/entities/people/Ada.md"));
        assert!(!is_entity_page("wiki/entities.md") && !is_entity_page("wiki/entities/logo.png"));
    }
}
