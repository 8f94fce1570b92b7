//! Reading source files for the extractors: which files, their text, and line helpers.

use crate::manifest::{Fresh, Manifest, ManifestError, Resolver};
use crate::vault::Vault;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;

/// The build whose findings the manifest's extracts hold: a finding of another build (whose
/// extractors may differ) is never used.
const BUILD: &str = concat!(env!("CARGO_PKG_VERSION"), " ", env!("SPARKS_COMMIT"));

/// What the extractors read: the vault's live files (as the last scan saw them), what each
/// extractor found in them before (kept in the manifest with the content it came from), and
/// the text of the files that changed since, each read once.
pub struct Inputs<'a> {
    /// The vault.
    pub vault: &'a Vault,
    /// Its manifest.
    pub manifest: &'a Manifest,
    cache: RefCell<HashMap<String, Option<String>>>,
    fresh: RefCell<Vec<Fresh>>,
    names: OnceCell<Resolver>,
}

impl<'a> Inputs<'a> {
    /// The inputs of `vault`.
    pub fn new(vault: &'a Vault, manifest: &'a Manifest) -> Inputs<'a> {
        Inputs {
            vault,
            manifest,
            cache: RefCell::new(HashMap::new()),
            fresh: RefCell::new(Vec::new()),
            names: OnceCell::new(),
        }
    }

    /// A wikilink to `path` shown as `title` ([`Manifest::link_to`]), resolved from memory:
    /// a collection links every entry, and the candidates are read once for all of them.
    pub fn link_to(&self, path: &str, title: &str) -> Result<String, ManifestError> {
        let names = match self.names.get() {
            Some(n) => n,
            None => {
                let loaded = self.manifest.resolver()?;
                self.names.get_or_init(|| loaded)
            }
        };
        names.link_to(path, title)
    }

    /// What extractor `kind` finds (`find`, given a file's text and path) in each live file
    /// under one of `prefixes` that `keep` accepts, by path; `None` for a file that cannot be
    /// read. A conflict copy a sync left is no source (its entries would be listed twice)
    /// until it is reconciled into its file. Only the files whose content changed since the last run are read: the cost is
    /// that of the files that changed and of the findings, not of reading every source.
    pub fn extract<T: Serialize + DeserializeOwned>(
        &self,
        kind: &'static str,
        prefixes: &[&str],
        keep: impl Fn(&str) -> bool,
        find: impl Fn(&str, &str) -> T,
    ) -> Result<Vec<(String, Option<T>)>, ManifestError> {
        let mut rows = Vec::new();
        for prefix in prefixes {
            rows.extend(self.manifest.extracts(kind, prefix, BUILD)?);
        }
        rows.sort_by(|a, b| a.path.cmp(&b.path));
        rows.dedup_by(|a, b| a.path == b.path);
        let mut out = Vec::new();
        for row in rows
            .into_iter()
            .filter(|r| keep(&r.path) && !crate::vault::is_conflict_copy(&r.path))
        {
            let kept = row
                .data
                .as_deref()
                .and_then(|d| serde_json::from_str::<T>(d).ok());
            let found = match kept {
                Some(found) => Some(found),
                None => self.text(&row.path).map(|text| {
                    let found = find(&text, &row.path);
                    if let Ok(data) = serde_json::to_string(&found) {
                        // The hash of what was read, which the scan's hash of the file
                        // matches as long as the file stays as it is now.
                        self.fresh.borrow_mut().push(Fresh {
                            kind,
                            path: row.path.clone(),
                            hash: blake3::hash(text.as_bytes()).to_hex().to_string(),
                            data,
                        });
                    }
                    found
                }),
            };
            out.push((row.path, found));
        }
        Ok(out)
    }

    /// Keep in the manifest what was found in the files read, for the next run.
    pub fn keep(self) -> Result<(), ManifestError> {
        self.manifest.keep_extracts(BUILD, &self.fresh.into_inner())
    }

    /// The text of a vault file (invalid UTF-8 replaced), or `None` if it cannot be read.
    fn text(&self, rel: &str) -> Option<String> {
        if let Some(t) = self.cache.borrow().get(rel) {
            return t.clone();
        }
        let t = crate::fsio::read(&self.vault.path(rel))
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned());
        self.cache.borrow_mut().insert(rel.to_string(), t.clone());
        t
    }
}

/// The body of a Markdown file: its lines after a frontmatter block, CR removed.
pub fn body_lines(text: &str) -> Vec<&str> {
    let body = crate::markdown::frontmatter::body(text).0;
    body.lines().map(|l| l.trim_end_matches('\r')).collect()
}

/// The capture lines of an archive file: separators and block markers left out.
pub use crate::archive::capture_lines as archive_lines;

/// The captures of an archive file, each as its lines: blocks split at the `---` separators,
/// markers left out, empty blocks dropped. A capture's content never holds a `---` line (the
/// inbox splits there), so each block is one capture, and a quote never runs into the next.
pub fn archive_entries(text: &str) -> Vec<Vec<&str>> {
    let mut out: Vec<Vec<&str>> = vec![Vec::new()];
    for line in text.lines().map(|l| l.trim_end_matches('\r')) {
        if line.trim() == "---" {
            out.push(Vec::new());
        } else if !crate::archive::is_marker(line) {
            out.last_mut().expect("never empty").push(line);
        }
    }
    out.retain(|e| e.iter().any(|l| !l.trim().is_empty()));
    out
}

/// The value after a `label:` at the start of a line (case-insensitive), if not empty.
pub fn labelled<'t>(line: &'t str, label: &str) -> Option<&'t str> {
    let t = line.trim_start();
    let head = t.get(..label.len())?;
    if !head.eq_ignore_ascii_case(label) {
        return None;
    }
    Some(t[label.len()..].trim()).filter(|v| !v.is_empty())
}

/// At most `n` characters of `s`, with `…` when cut; never splits a character.
pub fn shorten(s: &str, n: usize) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= n {
        return one_line;
    }
    let cut: String = one_line.chars().take(n.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

/// Text safe to put in a generated Markdown line: no raw HTML, no line breaks.
pub fn inline(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Text for the `[…]` of a generated Markdown link, as written: one line, what would end or
/// break the link text (`[`, `]`, `\`) escaped with a backslash, and raw HTML made text as
/// on every generated line ([`inline`]), so that it shows as written.
pub fn link_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    for c in inline(s).chars() {
        if matches!(c, '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

pub use crate::key::stem;

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn only_files_that_changed_are_read_again() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path();
        fs_err::write(root.join("sparks.toml"), "").expect("config");
        fs_err::create_dir_all(root.join("raw/quotes")).expect("dirs");
        for name in ["a", "b", "c"] {
            fs_err::write(
                root.join(format!("raw/quotes/{name}.md")),
                format!("> {name}\n"),
            )
            .expect("a quote file");
        }
        let vault = Vault::open(root).expect("the vault");
        let mut m = Manifest::open(&root.join("sparks.db")).expect("the manifest");
        let now = crate::clock::Now::read(None);
        crate::scan::rescan(&vault, &mut m, &now, &crate::progress::Silent).expect("scan");
        let reads = Cell::new(0);
        let run = |m: &Manifest| {
            let inputs = Inputs::new(&vault, m);
            let found = inputs
                .extract(
                    "quotes",
                    &["raw/quotes/"],
                    |_| true,
                    |text, _| {
                        reads.set(reads.get() + 1);
                        text.trim().to_string()
                    },
                )
                .expect("extract");
            inputs.keep().expect("kept");
            found
        };
        let first = run(&m);
        assert_eq!(reads.replace(0), 3);
        assert_eq!(run(&m), first, "the same findings, from the manifest");
        assert_eq!(reads.replace(0), 0, "nothing changed: nothing read");
        fs_err::write(root.join("raw/quotes/b.md"), "> bee\n").expect("an edit");
        crate::scan::scan_paths(
            &vault,
            &mut m,
            &["raw/quotes/b.md".into()],
            now.ns,
            &crate::progress::Silent,
        )
        .expect("scan");
        let again = run(&m);
        assert_eq!(reads.get(), 1, "only the edited file is read");
        assert_eq!(
            again[1],
            ("raw/quotes/b.md".to_string(), Some("> bee".to_string()))
        );
        assert_eq!(again[0], first[0]);
    }

    #[test]
    fn shorten_never_splits_a_character() {
        assert_eq!(shorten("ééééé", 3), "éé…");
        assert_eq!(shorten("a\nb", 10), "a b");
    }

    #[test]
    fn archive_lines_skip_structure() {
        let t = "---\n<!-- sparks: ingest 1 k entry 1 blake3 h -->\nbook: Dune\n";
        assert_eq!(archive_lines(t).collect::<Vec<_>>(), ["book: Dune"]);
    }

    #[test]
    fn archive_entries_split_at_separators() {
        let t = "---\n<!-- sparks: ingest 1 k entry 1 blake3 h -->\n> a\n---\n<!-- sparks: ingest 1 k entry 2 blake3 h -->\n\n— b\n---\n";
        assert_eq!(archive_entries(t), [vec!["> a"], vec!["", "— b"]]);
        assert_eq!(archive_entries("plain\n"), [vec!["plain"]]);
    }

    #[test]
    fn link_text_escapes_only_what_breaks_a_link() {
        assert_eq!(
            link_text("Ink & Switch: [draft] a\\b — <ok>!\nnext"),
            "Ink & Switch: \\[draft\\] a\\\\b — &lt;ok&gt;! next"
        );
    }

    #[test]
    fn inline_escapes_html() {
        assert_eq!(inline("<b>x</b>\ny"), "&lt;b&gt;x&lt;/b&gt; y");
    }
}
