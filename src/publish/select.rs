//! Which files a publish may show: private by default (decision 23). A wiki page is published
//! when its frontmatter says `publish: true` or a glob of `[publish] include` matches its path;
//! with `--all` (or `[publish] all = true`) every wiki page is, but one whose frontmatter says
//! `publish: false`. Some files are never published, whatever a page or the configuration says:
//! the inbox and `raw/`, the log, Tasks, the vault's own index (it lists every page: a publish
//! writes an index of the published ones), conflict copies, the run-time records and the
//! manifest and configuration. Nothing outside `wiki/` is a page to publish.

use crate::vault::{INDEX, LOG, TASKS};
use globset::{GlobBuilder, GlobMatcher};

/// What decides whether a page is published, besides the page's own `publish:`.
#[derive(Debug, Clone)]
pub struct Rules {
    /// Every wiki page unless it says `publish: false`.
    all: bool,
    /// `[publish] include`: each glob as written and compiled.
    include: Vec<(String, GlobMatcher)>,
}

/// A glob of `[publish] include` that is no glob.
#[derive(Debug, thiserror::Error)]
#[error("[publish] include: {glob:?} is not a glob: {source}")]
pub struct BadGlob {
    /// The glob as written.
    pub glob: String,
    /// What is wrong with it.
    pub source: globset::Error,
}

impl Rules {
    /// The rules of `all` and the `include` globs (vault-relative; `*` stays within a folder,
    /// `**` crosses them).
    pub fn new(all: bool, include: &[String]) -> Result<Rules, BadGlob> {
        let include = include
            .iter()
            .map(|glob| {
                GlobBuilder::new(glob)
                    .literal_separator(true)
                    .build()
                    .map(|g| (glob.clone(), g.compile_matcher()))
                    .map_err(|source| BadGlob {
                        glob: glob.clone(),
                        source,
                    })
            })
            .collect::<Result<_, _>>()?;
        Ok(Rules { all, include })
    }

    /// Whether the file at `path` (vault-relative) is published, its frontmatter saying
    /// `publish: says` (`None`: it says nothing, or it has no readable frontmatter).
    pub fn publishes(&self, path: &str, says: Option<bool>) -> bool {
        if never(path) {
            return false;
        }
        match says {
            Some(says) => says,
            None => self.all || self.include.iter().any(|(_, g)| g.is_match(path)),
        }
    }
}

/// Whether the file at `path` is never published, whatever is said: anything outside `wiki/`,
/// the log, Tasks, the vault's index and its shards, a conflict copy, a file that is no
/// Markdown page.
pub fn never(path: &str) -> bool {
    !crate::scan::is_page(path)
        || path == LOG
        || path == TASKS
        || path == INDEX
        || path.starts_with("wiki/index/")
        || crate::vault::is_conflict_copy(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(all: bool, include: &[&str]) -> Rules {
        let include: Vec<String> = include.iter().map(|s| s.to_string()).collect();
        Rules::new(all, &include).expect("globs")
    }

    #[test]
    fn a_page_is_private_unless_it_or_the_configuration_says_otherwise() {
        let none = rules(false, &[]);
        assert!(!none.publishes("wiki/concepts/A.md", None));
        assert!(none.publishes("wiki/concepts/A.md", Some(true)));
        let some = rules(false, &["wiki/concepts/*.md"]);
        assert!(some.publishes("wiki/concepts/A.md", None));
        assert!(
            !some.publishes("wiki/concepts/deep/A.md", None),
            "* stays in a folder"
        );
        assert!(!some.publishes("wiki/concepts/A.md", Some(false)));
        assert!(!some.publishes("wiki/entities/B.md", None));
        let all = rules(true, &[]);
        assert!(all.publishes("wiki/entities/B.md", None));
        assert!(!all.publishes("wiki/entities/B.md", Some(false)));
    }

    #[test]
    fn what_is_never_published_stays_so_whatever_is_said() {
        let all = rules(true, &["**"]);
        for path in [
            "inbox.md",
            "raw/inbox/2026-05-01.md",
            "raw/quotes/q.md",
            "wiki/log.md",
            "wiki/collections/Tasks.md",
            "wiki/index.md",
            "wiki/index/concept.md",
            "wiki/concepts/A (conflict 2026-05-01).md",
            ".sparks/journal.json",
            "sparks.toml",
            "sparks.db",
            "wiki/pic.png",
        ] {
            assert!(!all.publishes(path, Some(true)), "{path}");
        }
        assert!(all.publishes("wiki/collections/Quotes.md", None));
    }

    #[test]
    fn a_glob_that_is_no_glob_is_named() {
        let err = Rules::new(false, &["wiki/[".to_string()]).unwrap_err();
        assert!(err.to_string().contains("\"wiki/[\""), "{err}");
    }
}
