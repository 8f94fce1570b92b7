//! The YAML frontmatter block of a page. A bad block is described, never fatal: the scan
//! records what it could read and lint reports the rest, so one wrong field never drops a
//! page out of the graph.

use serde_yaml::Value;

/// The keys Sparks knows, in their canonical order: `fmt --check` reports a block in another
/// order and `fmt --fix` restores it. The contract's frontmatter example is written in this
/// order (a test runs `fmt --check` on it).
pub const KEY_ORDER: [&str; 8] = [
    "title", "type", "maturity", "tags", "aliases", "sources", "created", "updated",
];

/// Whether `s` is a real calendar date written `YYYY-MM-DD`.
pub fn is_date(s: &str) -> bool {
    s.len() == 10 && chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok()
}

/// The frontmatter fields Sparks knows. Fields that are absent are `None` or empty.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frontmatter {
    /// `title:`
    pub title: Option<String>,
    /// `type:` (entity, concept, summary, synthesis, collection)
    pub kind: Option<String>,
    /// `maturity:` (seed, working, stable, historical)
    pub maturity: Option<String>,
    /// `created:` as written
    pub created: Option<String>,
    /// `updated:` as written
    pub updated: Option<String>,
    /// `tags:`
    pub tags: Vec<String>,
    /// `aliases:`
    pub aliases: Vec<String>,
    /// `sources:`
    pub sources: Vec<String>,
    /// `publish:` — `Some(true)` or `Some(false)` as written, `None` when absent; a value that
    /// is not `true` or `false` reads as `Some(false)` (a page is never published by mistake)
    /// and is reported in [`Self::problems`].
    pub publish: Option<bool>,
    /// Fields that were present but not of the expected shape.
    pub problems: Vec<Problem>,
    /// The 1-based file line of each known key present.
    pub lines: Vec<(String, usize)>,
}

impl Frontmatter {
    /// The file line of `key`, if it is present.
    pub fn line_of(&self, key: &str) -> Option<usize> {
        self.lines.iter().find(|(k, _)| k == key).map(|(_, l)| *l)
    }
}

/// A field of a readable block that has the wrong shape.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Problem {
    /// The key concerned.
    pub key: String,
    /// The 1-based line of the key in the file.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

/// What the top of a file holds.
#[derive(Debug, Clone, PartialEq)]
// One value per page being parsed, never stored in bulk: boxing would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum Block {
    /// The file does not start with a `---` line.
    None,
    /// A block is there but cannot be read.
    Invalid {
        /// The 1-based line of the error in the file.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A readable block.
    Valid(Frontmatter),
}

/// A file split into its frontmatter block and body.
#[derive(Debug, Clone)]
pub struct Split<'a> {
    /// The block.
    pub block: Block,
    /// Everything after the closing `---` (the whole file when there is no valid block).
    pub body: &'a str,
    /// The 1-based line on which the body starts.
    pub body_line: usize,
}

/// Split `text` into frontmatter and body. A UTF-8 byte-order mark and CRLF line endings are
/// accepted. The block opens with a first line of exactly `---` and closes with `---` or `...`.
pub fn split(text: &str) -> Split<'_> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match locate(text) {
        Located::None => none(text),
        Located::Block {
            yaml,
            body,
            body_line,
        } => Split {
            block: parse_yaml(&text[yaml]),
            body: &text[body..],
            body_line,
        },
        Located::Unclosed => Split {
            block: Block::Invalid {
                line: 1,
                message: "the frontmatter block opened on line 1 is never closed with `---`".into(),
            },
            body: text,
            body_line: 1,
        },
    }
}

/// The body of `text` and the line it starts on, as [`split`] finds them, without reading the
/// block's YAML: for a caller that wants only the body (a link rewriter, the text the search
/// index and snippets read, a collection page's content).
pub fn body(text: &str) -> (&str, usize) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match locate(text) {
        Located::Block {
            body, body_line, ..
        } => (&text[body..], body_line),
        Located::None | Located::Unclosed => (text, 1),
    }
}

/// Where a block is, by its lines alone.
enum Located {
    /// The first line is not `---`.
    None,
    /// The YAML between the fences, and where the body starts.
    Block {
        yaml: std::ops::Range<usize>,
        body: usize,
        body_line: usize,
    },
    /// Opened and never closed.
    Unclosed,
}

fn locate(text: &str) -> Located {
    let mut lines = LineIter { text, pos: 0 };
    let Some((_, first)) = lines.next() else {
        return Located::None;
    };
    if trim_line(first) != "---" {
        return Located::None;
    }
    let yaml_start = lines.pos;
    let mut line_no = 1;
    while let Some((start, line)) = lines.next() {
        line_no += 1;
        let t = trim_line(line);
        if t == "---" || t == "..." {
            return Located::Block {
                yaml: yaml_start..start,
                body: lines.pos,
                body_line: line_no + 1,
            };
        }
    }
    Located::Unclosed
}

fn none(text: &str) -> Split<'_> {
    Split {
        block: Block::None,
        body: text,
        body_line: 1,
    }
}

fn trim_line(line: &str) -> &str {
    line.trim_end_matches(['\n', '\r', ' ', '\t'])
}

/// Lines with their byte offsets, each including its line ending.
struct LineIter<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Iterator for LineIter<'a> {
    type Item = (usize, &'a str);
    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.text.len() {
            return None;
        }
        let start = self.pos;
        let end = self.text[start..]
            .find('\n')
            .map_or(self.text.len(), |i| start + i + 1);
        self.pos = end;
        Some((start, &self.text[start..end]))
    }
}

fn parse_yaml(yaml: &str) -> Block {
    // Line 1 of the YAML text is line 2 of the file.
    if let Err(refused) = super::limits::check(yaml) {
        return Block::Invalid {
            line: refused.line + 1,
            message: refused.message,
        };
    }
    let value: Value = match serde_yaml::from_str(yaml) {
        Ok(v) => v,
        Err(e) => {
            let line = e.location().map_or(2, |l| l.line() + 1);
            let message = e.to_string();
            let message = message.split(" at line ").next().unwrap_or(&message);
            return Block::Invalid {
                line,
                message: format!("frontmatter is not valid YAML: {message}"),
            };
        }
    };
    let map = match value {
        Value::Null => return Block::Valid(Frontmatter::default()),
        Value::Mapping(m) => m,
        other => {
            return Block::Invalid {
                line: 2,
                message: format!(
                    "frontmatter is {}, not a mapping of keys to values",
                    describe(&other)
                ),
            };
        }
    };
    let mut fm = Frontmatter::default();
    for (k, v) in map {
        let Some(key) = k.as_str() else { continue };
        let line = key_line(yaml, key);
        if KEY_ORDER.contains(&key) {
            fm.lines.push((key.to_string(), line));
        }
        let mut problem = |message: String| {
            fm.problems.push(Problem {
                key: key.to_string(),
                line,
                message,
            })
        };
        match key {
            "title" | "type" | "maturity" | "created" | "updated" => match scalar(&v) {
                Ok(s) => {
                    let slot = match key {
                        "title" => &mut fm.title,
                        "type" => &mut fm.kind,
                        "maturity" => &mut fm.maturity,
                        "created" => &mut fm.created,
                        _ => &mut fm.updated,
                    };
                    *slot = s;
                }
                Err(found) => problem(format!("`{key}` must be a single value, not {found}")),
            },
            "publish" => match &v {
                Value::Null => {}
                Value::Bool(b) => fm.publish = Some(*b),
                other => {
                    fm.publish = Some(false);
                    let found = match other {
                        Value::String(s) => format!("{s:?}"),
                        Value::Number(n) => n.to_string(),
                        other => describe(other).to_string(),
                    };
                    problem(format!(
                        "`publish` must be true or false, not {found}; the page is not published"
                    ));
                }
            },
            "tags" | "aliases" | "sources" => {
                let (items, issue) = list(&v);
                if let Some(issue) = issue {
                    problem(format!("`{key}` {issue}"));
                }
                match key {
                    "tags" => fm.tags = items,
                    "aliases" => fm.aliases = items,
                    _ => fm.sources = items,
                }
            }
            _ => {}
        }
    }
    Block::Valid(fm)
}

fn describe(v: &Value) -> &'static str {
    match v {
        Value::Null => "empty",
        Value::Bool(_) | Value::Number(_) | Value::String(_) => "a single value",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

fn scalar(v: &Value) -> Result<Option<String>, &'static str> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s.clone())),
        Value::Number(n) => Ok(Some(n.to_string())),
        Value::Bool(b) => Ok(Some(b.to_string())),
        Value::Tagged(t) => scalar(&t.value),
        other => Err(describe(other)),
    }
}

/// A list field's items, and what is wrong with its shape if anything. A single value is
/// taken as a one-item list (and reported, so that `fmt --fix` can make it a list).
fn list(v: &Value) -> (Vec<String>, Option<String>) {
    match v {
        Value::Null => (Vec::new(), None),
        Value::Sequence(items) => {
            let mut out = Vec::new();
            let mut issue = None;
            for item in items {
                match scalar(item) {
                    Ok(Some(s)) => out.push(s),
                    Ok(None) => {}
                    Err(found) => {
                        issue = Some(format!("must be a list of single values, not of {found}s"))
                    }
                }
            }
            (out, issue)
        }
        Value::Tagged(t) => list(&t.value),
        other => match scalar(other) {
            Ok(s) => (
                s.into_iter().collect(),
                Some("must be a list, e.g. `[a, b]`, not a single value".into()),
            ),
            Err(found) => (Vec::new(), Some(format!("must be a list, not {found}"))),
        },
    }
}

/// The 1-based file line of a top-level `key:` in the YAML text.
fn key_line(yaml: &str, key: &str) -> usize {
    yaml.lines()
        .position(|l| {
            l.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map_or(2, |i| i + 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(text: &str) -> Frontmatter {
        match split(text).block {
            Block::Valid(fm) => fm,
            other => panic!("expected a valid block, got {other:?}"),
        }
    }

    #[test]
    fn the_body_alone_is_where_split_finds_it() {
        for text in [
            "---\ntitle: A\n---\nbody\n",
            "\u{feff}---\r\ntitle: A\r\n...\r\nbody",
            "---\ntitle: [unclosed\n---\nbody\n",
            "---\ntitle: A\nnever closed\n",
            "no block\n---\n",
            "",
        ] {
            let s = split(text);
            assert_eq!(body(text), (s.body, s.body_line), "{text:?}");
        }
    }

    #[test]
    fn reads_the_schema() {
        let fm = valid(
            "---\ntitle: Pebble Cache\ntype: concept\nmaturity: seed\ntags: [caching]\n\
             aliases:\n  - pcache\nsources: [raw/ideas/pebble.md]\ncreated: 2026-03-02\n\
             updated: 2026-03-09\n---\nbody\n",
        );
        assert_eq!(fm.title.as_deref(), Some("Pebble Cache"));
        assert_eq!(fm.kind.as_deref(), Some("concept"));
        assert_eq!(fm.created.as_deref(), Some("2026-03-02"));
        assert_eq!(fm.tags, ["caching"]);
        assert_eq!(fm.aliases, ["pcache"]);
        assert!(fm.problems.is_empty());
    }

    #[test]
    fn publish_is_true_false_or_unsaid_and_anything_else_keeps_a_page_private() {
        assert_eq!(valid("---\npublish: true\n---\n").publish, Some(true));
        assert_eq!(valid("---\npublish: false\n---\n").publish, Some(false));
        assert_eq!(valid("---\npublish:\n---\n").publish, None);
        assert_eq!(valid("---\ntitle: A\n---\n").publish, None);
        let fm = valid("---\ntitle: A\npublish: \"yes\"\n---\n");
        assert_eq!(fm.publish, Some(false));
        assert_eq!(fm.problems.len(), 1);
        assert_eq!(
            (fm.problems[0].key.as_str(), fm.problems[0].line),
            ("publish", 3)
        );
        assert!(
            fm.problems[0].message.contains("true or false"),
            "{:?}",
            fm.problems
        );
    }

    #[test]
    fn body_starts_after_the_block() {
        let s = split("---\ntitle: A\n---\n\n# A\n");
        assert_eq!(s.body, "\n# A\n");
        assert_eq!(s.body_line, 4);
    }

    #[test]
    fn bom_and_crlf_are_accepted() {
        let fm = valid("\u{feff}---\r\ntitle: A\r\n---\r\nbody\r\n");
        assert_eq!(fm.title.as_deref(), Some("A"));
    }

    #[test]
    fn no_block_and_thematic_breaks() {
        assert_eq!(split("# Just a page\n").block, Block::None);
        assert_eq!(split("----\ntext\n---\n").block, Block::None);
        assert_eq!(split("").block, Block::None);
    }

    #[test]
    fn unclosed_block_is_invalid_and_keeps_the_body() {
        let s = split("---\ntitle: A\nno end\n");
        assert!(matches!(s.block, Block::Invalid { line: 1, .. }));
        assert_eq!(s.body_line, 1);
    }

    #[test]
    fn yaml_errors_name_the_file_line() {
        let s = split("---\ntitle: A\ntags: [a, b\nmaturity: seed\n---\n");
        match s.block {
            Block::Invalid { line, message } => {
                assert!(line >= 3, "line {line}");
                assert!(message.contains("YAML"), "{message}");
                assert!(!message.contains(" at line "), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_block_nested_too_deep_is_refused_before_the_parser_reads_it() {
        let deep = 100_000;
        let text = format!(
            "---\ntitle: A\na: {}{}\n---\nbody\n",
            "[".repeat(deep),
            "]".repeat(deep)
        );
        let started = std::time::Instant::now();
        let s = split(&text);
        // The parser takes minutes on this; the check, well under a second even unoptimised.
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        match s.block {
            Block::Invalid { line, message } => {
                assert_eq!(line, 3);
                assert!(message.contains("nests more than 128 levels"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(s.body, "body\n");
    }

    #[test]
    fn not_a_mapping() {
        assert!(matches!(
            split("---\n- a\n- b\n---\n").block,
            Block::Invalid { .. }
        ));
    }

    #[test]
    fn one_bad_field_keeps_the_others() {
        let fm = valid("---\ntitle: Acme\ntags: ai\ntype: [entity]\n---\n");
        assert_eq!(fm.title.as_deref(), Some("Acme"));
        assert_eq!(fm.tags, ["ai"]);
        assert_eq!(fm.kind, None);
        let keys: Vec<_> = fm
            .problems
            .iter()
            .map(|p| (p.key.as_str(), p.line))
            .collect();
        assert_eq!(keys, [("tags", 3), ("type", 4)]);
    }

    #[test]
    fn scalars_keep_their_text() {
        let fm = valid("---\ntitle: 42\nmaturity: true\n---\n");
        assert_eq!(fm.title.as_deref(), Some("42"));
        assert_eq!(fm.maturity.as_deref(), Some("true"));
    }

    #[test]
    fn empty_block_is_valid_and_empty() {
        assert_eq!(valid("---\n---\n"), Frontmatter::default());
    }
}
