//! `sparks.toml`: the vault's configuration and root marker. Parsing is strict: an unknown key
//! or collection, a wrong type or an impossible value is an error that names the key and line.

use serde::{Deserialize, Deserializer, de};
use std::path::{Path, PathBuf};

/// The file name of the configuration, which also marks the vault root.
pub const CONFIG_FILE: &str = "sparks.toml";

/// The default number of inbox entries one ingest hands out.
pub const DEFAULT_BATCH_SIZE: usize = 15;

/// The default number of pages above which `index` shards by type.
pub const DEFAULT_SHARD_ABOVE: usize = 500;

/// The default sentence count below which a page is thin (the original's rule).
pub const DEFAULT_THIN_BELOW_SENTENCES: usize = 3;
/// Two pages at least this similar (meaning and titles, 0 to 1) are near-duplicates.
pub const DEFAULT_NEAR_DUPLICATE_ABOVE: f32 = 0.93;

/// A parsed `sparks.toml`; absent keys hold their defaults.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// `[vault]`
    pub vault: VaultSection,
    /// `[raw]`
    pub raw: RawSection,
    /// `[git]`
    pub git: GitSection,
    /// `[ingest]`
    pub ingest: IngestSection,
    /// `[index]`
    pub index: IndexSection,
    /// `[lint]`
    pub lint: LintSection,
    /// `[collections.<name>]`
    pub collections: CollectionsSection,
    /// `[sync]`
    pub sync: SyncSection,
    /// `[publish]`
    pub publish: PublishSection,
}

/// `[publish]`: what `publish` makes of the wiki. Private by default: a page is published when
/// it says `publish: true`, when a glob of `include` matches it, or with `all`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PublishSection {
    /// Every wiki page but those saying `publish: false`.
    pub all: bool,
    /// Globs of vault-relative paths of pages to publish (`*` within a folder, `**` across).
    pub include: Vec<String>,
    /// What the site is about, in a sentence or two: llms.txt's summary, the feed's subtitle.
    pub description: String,
    /// The address the site is served at (`https://you.github.io/notes/`): absolute links,
    /// the sitemap and the feed use it. Unset: links are relative, and the sitemap and feed,
    /// which need absolute addresses, are written with the site's paths alone.
    pub base_url: Option<String>,
}

/// `[sync]`: how `sparks sync` reaches the other devices.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SyncSection {
    /// The remote to sync with (default: the branch's upstream remote, else `origin`).
    pub remote: Option<String>,
    /// `true`: the `git` executable carries every fetch and push; `false`: libgit2 always;
    /// unset: libgit2 for a path, `file://` and `git://`, the `git` executable for ssh and https.
    pub git_cli: Option<bool>,
}

/// `[vault]`: display settings.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VaultSection {
    /// The vault's display name.
    pub name: String,
}

/// `[raw]`: how raw captures are treated. Only `append-only` exists.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawSection {
    /// Always `append-only`.
    pub mode: RawMode,
}

impl Default for RawSection {
    fn default() -> Self {
        RawSection {
            mode: RawMode::AppendOnly,
        }
    }
}

/// The one raw mode.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
pub enum RawMode {
    /// Raw files are never rewritten by Sparks or the agent.
    #[serde(rename = "append-only")]
    AppendOnly,
}

/// `[git]`: commits after finalize and regen.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GitSection {
    /// Commit the vault's changes after `ingest --finalize`.
    pub auto_commit: bool,
}

impl Default for GitSection {
    fn default() -> Self {
        GitSection { auto_commit: true }
    }
}

/// `[ingest]`: the processing budget.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IngestSection {
    /// Entries one `ingest --prepare` hands out; 0 means all of them.
    #[serde(deserialize_with = "whole_number")]
    pub batch_size: usize,
    /// Every finalize is strict: a batch that adds lint issues to its pages is refused.
    pub strict: bool,
}

impl Default for IngestSection {
    fn default() -> Self {
        IngestSection {
            batch_size: DEFAULT_BATCH_SIZE,
            strict: false,
        }
    }
}

/// `[index]`: the generated index.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IndexSection {
    /// Above this many pages, `index` writes one page per type.
    #[serde(deserialize_with = "whole_number")]
    pub shard_above: usize,
}

impl Default for IndexSection {
    fn default() -> Self {
        IndexSection {
            shard_above: DEFAULT_SHARD_ABOVE,
        }
    }
}

/// `[lint]`: the health checks.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LintSection {
    /// A page with fewer sentences of prose than this is thin (0: no page is).
    #[serde(deserialize_with = "whole_number")]
    pub thin_below_sentences: usize,
    /// Two pages at least this similar, by meaning and titles, are near-duplicates (0 to 1;
    /// 1: only pages that say exactly the same).
    #[serde(deserialize_with = "fraction")]
    pub near_duplicate_above: f32,
}

impl Default for LintSection {
    fn default() -> Self {
        LintSection {
            thin_below_sentences: DEFAULT_THIN_BELOW_SENTENCES,
            near_duplicate_above: DEFAULT_NEAR_DUPLICATE_ABOVE,
        }
    }
}

/// `[collections.<name>]`: source-glob overrides of the collections that have a glob.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CollectionsSection {
    /// `[collections.quotes]`
    pub quotes: Option<CollectionGlob>,
    /// `[collections.bookmarks]`
    pub bookmarks: Option<CollectionGlob>,
    /// `[collections.media]`
    pub media: Option<CollectionGlob>,
    /// `[collections.ideas]`
    pub ideas: Option<CollectionGlob>,
}

/// One collection's source glob, relative to the vault root.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollectionGlob {
    /// e.g. `raw/quotes/**/*.md`
    pub glob: String,
}

/// A count: a whole number, with an error that says so (not "expected usize").
fn whole_number<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    struct WholeNumber;
    impl de::Visitor<'_> for WholeNumber {
        type Value = usize;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a whole number (0 or more)")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<usize, E> {
            usize::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<usize, E> {
            usize::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
        }
    }
    d.deserialize_u64(WholeNumber)
}

/// A share: a number from 0 to 1, with an error that says so.
fn fraction<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
    struct Fraction;
    impl de::Visitor<'_> for Fraction {
        type Value = f32;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a number from 0 to 1")
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<f32, E> {
            match (0.0..=1.0).contains(&v) {
                true => Ok(v as f32),
                false => Err(E::invalid_value(de::Unexpected::Float(v), &self)),
            }
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<f32, E> {
            match v {
                0 | 1 => Ok(v as f32),
                _ => Err(E::invalid_value(de::Unexpected::Signed(v), &self)),
            }
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<f32, E> {
            match v {
                0 | 1 => Ok(v as f32),
                _ => Err(E::invalid_value(de::Unexpected::Unsigned(v), &self)),
            }
        }
    }
    d.deserialize_f64(Fraction)
}

/// Reading or parsing `sparks.toml` failed.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The config file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not valid: the message names the line and key.
    #[error("invalid {}: {message}", path.display())]
    Invalid {
        /// The config file.
        path: PathBuf,
        /// The parser's message, with line, column and key.
        message: String,
    },
}

impl Config {
    /// Read and parse the config file at `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = crate::fsio::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Config::parse(&text).map_err(|message| ConfigError::Invalid {
            path: path.to_path_buf(),
            message,
        })
    }

    /// Parse config text; the error message names the line and key.
    pub fn parse(text: &str) -> Result<Config, String> {
        toml::from_str(text).map_err(|e| e.to_string().trim_end().to_string())
    }
}

/// The `sparks.toml` that `init` writes for a vault called `name`.
pub fn render_default(name: &str) -> String {
    // A TOML basic string, escaped by the TOML library: a name with quotes or backslashes
    // must still give a file that parses.
    let name = toml::Value::String(name.to_string()).to_string();
    format!(
        r#"# Sparks vault configuration. Every key is optional; `sparks describe` explains them.

[vault]
name = {name}

[raw]
mode = "append-only"   # raw captures are never rewritten

[git]
auto_commit = true     # commit the vault after `ingest --finalize`
# Commits use your git identity where git finds it: GIT_AUTHOR_NAME/EMAIL and
# GIT_COMMITTER_NAME/EMAIL in the environment, then `git config user.name` /
# `user.email` (a vault-specific one with `git config --local`), then EMAIL.
# Only paths inside the vault are committed, never sparks.db.

[ingest]
batch_size = {DEFAULT_BATCH_SIZE}        # entries one `ingest --prepare` hands out (0 = all)
strict = false         # true: finalize refuses a batch that adds lint issues (--strict)

[index]
shard_above = {DEFAULT_SHARD_ABOVE}      # above this many pages, one index page per type

[lint]
thin_below_sentences = {DEFAULT_THIN_BELOW_SENTENCES}  # a page with fewer sentences of prose is thin
near_duplicate_above = {DEFAULT_NEAR_DUPLICATE_ABOVE}  # two pages this similar (0 to 1) are near-duplicates

[publish]              # `sparks publish`: pages are private unless they say `publish: true`
all = false            # true: publish every wiki page but those saying `publish: false`
include = []           # globs of pages to publish too, e.g. ["wiki/concepts/**"]
description = ""       # what the site is about: llms.txt's summary, the feed's subtitle
# base_url = "https://you.github.io/notes/"   # where the site is served (default: relative links)

# Collection source globs (relative to the vault root). Omit a section to keep
# the default shown here.
#
# [collections.quotes]
# glob = "raw/quotes/**/*.md"
#
# [collections.bookmarks]
# glob = "raw/weblinks/**/*.md"
#
# [collections.media]
# glob = "raw/media/**/*.md"
#
# [collections.ideas]
# glob = "raw/ideas/**/*.md"
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_file_parses_with_defaults() {
        let c = Config::parse(&render_default("notes")).unwrap();
        assert_eq!(c.vault.name, "notes");
        assert!(c.git.auto_commit);
        assert_eq!(c.ingest.batch_size, 15);
        assert!(!c.ingest.strict);
        assert!(
            Config::parse("[ingest]\nstrict = true\n")
                .unwrap()
                .ingest
                .strict
        );
        assert_eq!(c.index.shard_above, 500);
        assert_eq!(c.lint.thin_below_sentences, 3);
    }

    #[test]
    fn names_with_quotes_and_backslashes_round_trip() {
        for name in [r#"my "notes""#, r"C:\vault", "tab\there"] {
            let c = Config::parse(&render_default(name)).unwrap();
            assert_eq!(c.vault.name, name);
        }
    }

    #[test]
    fn unknown_keys_are_named_with_their_line() {
        let err = Config::parse("[git]\nauto_commit = true\nautocommit = false\n").unwrap_err();
        assert!(err.contains("line 3"), "{err}");
        assert!(err.contains("autocommit"), "{err}");
    }

    #[test]
    fn unknown_collections_are_rejected() {
        let err = Config::parse("[collections.qoutes]\nglob = \"raw/q/*.md\"\n").unwrap_err();
        assert!(err.contains("qoutes"), "{err}");
    }

    #[test]
    fn wrong_types_and_modes_are_errors() {
        assert!(Config::parse("[git]\nauto_commit = \"yes\"\n").is_err());
        assert!(Config::parse("[raw]\nmode = \"rewrite\"\n").is_err());
    }

    #[test]
    fn the_thin_threshold_is_a_whole_number() {
        let c = Config::parse("[lint]\nthin_below_sentences = 5\n").unwrap();
        assert_eq!(c.lint.thin_below_sentences, 5);
        for bad in ["-1", "\"3\"", "2.5"] {
            let err =
                Config::parse(&format!("[lint]\nthin_below_sentences = {bad}\n")).unwrap_err();
            assert!(
                err.contains("line 2")
                    && err.contains("thin_below_sentences")
                    && err.contains("expected a whole number"),
                "{err}"
            );
        }
    }

    /// The keys under `path` (`""` for the top, `sync`, `collections.quotes`) as the parser
    /// itself names them: serde's message for an unknown key lists the fields it expects. A
    /// key that takes a value, not a table, gives no such message: `None`.
    fn fields(path: &str) -> Option<Vec<String>> {
        let header = match path {
            "" => String::new(),
            p => format!("[{p}]\n"),
        };
        let err = Config::parse(&format!("{header}sparks_probe = 0\n")).unwrap_err();
        let (_, listed) = err.split_once("unknown field `sparks_probe`, expected ")?;
        Some(
            listed
                .split('`')
                .skip(1)
                .step_by(2)
                .map(String::from)
                .collect(),
        )
    }

    /// Every key the parser accepts, as `section.key` (`collections.quotes.glob`).
    fn accepted_keys(path: &str, keys: &mut std::collections::BTreeSet<String>) {
        for field in fields(path).unwrap_or_default() {
            let key = match path {
                "" => field,
                p => format!("{p}.{field}"),
            };
            if fields(&key).is_some() {
                accepted_keys(&key, keys);
            } else {
                keys.insert(key);
            }
        }
    }

    /// The keys the config topic's table names: `[sync] remote` as `sync.remote`; a
    /// `<name>` in a section stands for each name the row's meaning quotes.
    fn documented_keys(topic: &str) -> std::collections::BTreeSet<String> {
        let mut keys = std::collections::BTreeSet::new();
        for row in topic.lines().filter(|l| l.starts_with("| `[")) {
            let cells: Vec<&str> = row.split(" | ").collect();
            let (section, key) = cells[0]
                .trim_start_matches("| `[")
                .trim_end_matches('`')
                .split_once("] ")
                .unwrap_or_else(|| panic!("a row names `[section] key`: {row}"));
            let names: Vec<&str> = cells[2].split('`').skip(1).step_by(2).collect();
            match section.split_once("<name>") {
                Some((before, after)) => {
                    keys.extend(names.iter().map(|n| format!("{before}{n}{after}.{key}")))
                }
                None => {
                    keys.insert(format!("{section}.{key}"));
                }
            }
        }
        keys
    }

    /// `sparks describe config` names every key the parser accepts, and no other: the keys
    /// come from the parser's own field lists, so a new key fails here until it is described.
    #[test]
    fn the_config_topic_names_every_key_the_parser_accepts() {
        let mut accepted = std::collections::BTreeSet::new();
        accepted_keys("", &mut accepted);
        for known in ["vault.name", "sync.remote", "collections.ideas.glob"] {
            assert!(accepted.contains(known), "{known} not probed: {accepted:?}");
        }
        let topic = crate::contract::topic("config")
            .expect("the config topic")
            .text;
        let documented = documented_keys(topic);
        let undocumented: Vec<_> = accepted.difference(&documented).collect();
        let unknown: Vec<_> = documented.difference(&accepted).collect();
        assert!(
            undocumented.is_empty() && unknown.is_empty(),
            "contract/topics/config.md lacks {undocumented:?} and names keys the parser \
             refuses: {unknown:?}"
        );
    }

    #[test]
    fn the_near_duplicate_threshold_is_a_number_from_0_to_1() {
        let c = Config::parse("[lint]\nnear_duplicate_above = 0.9\n").unwrap();
        assert_eq!(c.lint.near_duplicate_above, 0.9);
        let c = Config::parse("[lint]\nnear_duplicate_above = 1\n").unwrap();
        assert_eq!(c.lint.near_duplicate_above, 1.0);
        for bad in ["-0.1", "1.5", "2", "\"0.9\""] {
            let err =
                Config::parse(&format!("[lint]\nnear_duplicate_above = {bad}\n")).unwrap_err();
            assert!(
                err.contains("line 2")
                    && err.contains("near_duplicate_above")
                    && err.contains("a number from 0 to 1"),
                "{err}"
            );
        }
    }

    #[test]
    fn missing_sections_take_defaults() {
        let c = Config::parse("").unwrap();
        assert_eq!(c.lint.thin_below_sentences, 3);
        assert_eq!(c.lint.near_duplicate_above, DEFAULT_NEAR_DUPLICATE_ABOVE);
        assert!(c.git.auto_commit);
        assert_eq!(c.raw.mode, RawMode::AppendOnly);
    }
}
