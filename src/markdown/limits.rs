//! How large and how deeply nested a frontmatter block is, measured in one cheap pass before
//! the YAML parser reads it. The parser's time grows with the square of the nesting (a block
//! nested 200,000 levels deep took it minutes, to end in its own recursion limit of 128), and
//! a page may come from anywhere: a block past [`MAX_BYTES`] or [`MAX_DEPTH`] is refused
//! with the line where it passes the limit, and never reaches the parser.
//!
//! The pass does not parse YAML; it counts what only nesting makes: the indentation levels of
//! block collections (a `- ` or `? ` opening a collection on the line counts as one more, as
//! `- - - a` nests three lists) and the open brackets of flow collections (`[`, `{`), outside
//! quoted scalars, comments and block scalars (`|`, `>`). Where it cannot tell, it counts more
//! rather than less: a block it refuses that the parser would have read is nested more than a
//! hundred levels deep in any reading.

/// The largest frontmatter block read, in bytes.
pub const MAX_BYTES: usize = 256 * 1024;

/// The deepest nesting read: the YAML parser's own limit, so that no block it would read is
/// refused.
pub const MAX_DEPTH: usize = 128;

/// Why a block is not read: the 1-based line of the YAML text where it passes a limit, and
/// what the limit is.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The 1-based line of the YAML text (not of the file).
    pub line: usize,
    /// What is wrong, without the line.
    pub message: String,
}

/// `Ok` when `yaml` is within [`MAX_BYTES`] and [`MAX_DEPTH`]; else where and why not.
pub fn check(yaml: &str) -> Result<(), Refusal> {
    if yaml.len() > MAX_BYTES {
        return Err(Refusal {
            line: 1,
            message: format!(
                "frontmatter is {} KB; Sparks reads at most {} KB of it",
                yaml.len().div_ceil(1024),
                MAX_BYTES / 1024
            ),
        });
    }
    let mut s = Scanner::default();
    for (i, line) in yaml.lines().enumerate() {
        if s.line(line) > MAX_DEPTH {
            return Err(Refusal {
                line: i + 1,
                message: format!(
                    "frontmatter nests more than {MAX_DEPTH} levels deep; Sparks does not read it"
                ),
            });
        }
    }
    Ok(())
}

/// The state carried from line to line.
#[derive(Default)]
struct Scanner {
    /// The columns of the block collections open, innermost last.
    indents: Vec<usize>,
    /// Flow collections open.
    flow: usize,
    /// The quote of a quoted scalar open at the end of the last line.
    quote: Option<u8>,
    /// The indentation of the line that opened a block scalar still running.
    block_scalar: Option<usize>,
}

impl Scanner {
    /// Take one line; the deepest nesting on it.
    fn line(&mut self, line: &str) -> usize {
        let b = line.as_bytes();
        let indent = b.iter().take_while(|&&c| c == b' ').count();
        let blank = b[indent..].iter().all(|c| c.is_ascii_whitespace());
        if let Some(opener) = self.block_scalar {
            if blank || indent > opener {
                return self.indents.len();
            }
            self.block_scalar = None;
        }
        let mut at = 0;
        if self.quote.is_none() && self.flow == 0 {
            if blank || b[indent] == b'#' {
                return self.indents.len();
            }
            while self.indents.last().is_some_and(|&top| top > indent) {
                self.indents.pop();
            }
            if self.indents.last() != Some(&indent) {
                self.indents.push(indent);
            }
            // `- - a`: each indicator opens a collection whose content starts further right.
            at = indent;
            while at + 1 < b.len() && matches!(b[at], b'-' | b'?') && matches!(b[at + 1], b' ') {
                at += 1;
                while at < b.len() && b[at] == b' ' {
                    at += 1;
                }
                self.indents.push(at);
            }
        }
        let mut deepest = self.indents.len() + self.flow;
        // The last indicator before this byte (`-`, `?`, `:`, `,`, a bracket), `b'a'` when
        // plain text came after it, `None` at the start of the line: a bracket or a quote
        // opens something only where a value starts, not inside plain text (`a [b`).
        let mut last: Option<u8> = None;
        let mut i = at;
        while i < b.len() {
            let c = b[i];
            match self.quote {
                Some(b'"') if c == b'\\' => i += 1,
                Some(q) if c == q => {
                    if q == b'\'' && b.get(i + 1) == Some(&b'\'') {
                        i += 1;
                    } else {
                        self.quote = None;
                    }
                }
                Some(_) => {}
                None => {
                    let starts_value =
                        matches!(last, None | Some(b'-' | b':' | b'[' | b'{' | b',' | b'?'));
                    match c {
                        b'#' if i == 0 || matches!(b[i - 1], b' ' | b'\t') => break,
                        b'"' | b'\'' if starts_value => self.quote = Some(c),
                        b'[' | b'{' if self.flow > 0 || starts_value => {
                            self.flow += 1;
                            deepest = deepest.max(self.indents.len() + self.flow);
                        }
                        b']' | b'}' => self.flow = self.flow.saturating_sub(1),
                        b'|' | b'>' if self.flow == 0 && starts_value && block_header(&b[i..]) => {
                            self.block_scalar = Some(indent);
                            break;
                        }
                        _ => {}
                    }
                }
            }
            if self.quote.is_none() && !c.is_ascii_whitespace() {
                let next = b.get(i + 1).copied();
                let ends = next.is_none_or(|n| n.is_ascii_whitespace());
                let indicator = match c {
                    b'[' | b'{' | b']' | b'}' => self.flow > 0 || matches!(c, b']' | b'}'),
                    b'-' | b'?' => ends,
                    b':' => ends || (self.flow > 0 && matches!(next, Some(b',' | b']' | b'}'))),
                    b',' => self.flow > 0,
                    _ => false,
                };
                last = Some(if indicator { c } else { b'a' });
            } else if self.quote.is_some() {
                last = Some(b'a');
            }
            i += 1;
        }
        deepest
    }
}

/// Whether `rest`, starting at `|` or `>`, is a block scalar's header: the indicator, its
/// chomping and indentation indicators, then nothing but a comment.
fn block_header(rest: &[u8]) -> bool {
    let tail = rest[1..]
        .iter()
        .position(|c| !matches!(c, b'+' | b'-' | b'1'..=b'9'))
        .map_or(&[][..], |p| &rest[1 + p..]);
    let tail = tail.trim_ascii_start();
    tail.is_empty() || tail[0] == b'#'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(yaml: &str) -> usize {
        let mut s = Scanner::default();
        yaml.lines().map(|l| s.line(l)).max().unwrap_or(0)
    }

    #[test]
    fn ordinary_blocks_are_shallow() {
        assert_eq!(depth("title: A\ntags: [a, b]\n"), 2);
        assert_eq!(depth("aliases:\n  - x\n  - y\n"), 3);
        assert_eq!(depth("a:\n  b:\n    c: 1\nd: 2\n"), 3);
        assert!(check("title: A\nsources: [raw/a.md]\ncreated: 2026-05-01\n").is_ok());
    }

    #[test]
    fn brackets_in_text_are_not_nesting() {
        // In quotes, in a plain scalar, in a comment, in a block scalar.
        let text = "title: \"[[[[\"\nalias: 'it''s [[['\nnote: a [[[[ b\n# [[[[\n\
                    body: |\n  [[[[\n  {{{{\nafter: [x]\n";
        assert_eq!(depth(text), 2);
        let many = "[".repeat(MAX_DEPTH * 2);
        let text = format!(
            "title: \"{many}\"\nnote: plain {many}\nbody: >-\n  {many}\n  {many}\n# {many}\n"
        );
        assert!(check(&text).is_ok());
    }

    #[test]
    fn nesting_past_the_limit_is_refused_at_its_line() {
        let deep = format!("title: A\na: {}{}\n", "[".repeat(200), "]".repeat(200));
        let r = check(&deep).unwrap_err();
        assert_eq!(r.line, 2);
        assert!(r.message.contains("more than 128 levels"), "{}", r.message);
        let nested: String = (0..200)
            .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
            .collect();
        assert_eq!(check(&nested).unwrap_err().line, MAX_DEPTH + 1);
        let dashes = format!("a:\n{}x\n", "- ".repeat(200));
        assert_eq!(check(&dashes).unwrap_err().line, 2);
        // Just within the limit, flow and block together.
        let within = format!("{}{}", "[".repeat(MAX_DEPTH - 1), "]".repeat(MAX_DEPTH - 1));
        assert!(check(&format!("a: {within}\n")).is_ok());
        assert!(check(&format!("a: [{within}]\n")).is_err());
    }

    #[test]
    fn a_block_past_the_size_limit_is_refused() {
        let big = format!("title: A\nnote: \"{}\"\n", "x".repeat(MAX_BYTES));
        let r = check(&big).unwrap_err();
        assert_eq!(r.line, 1);
        assert!(r.message.contains("at most 256 KB"), "{}", r.message);
        assert!(check(&format!("note: {}\n", "x".repeat(MAX_BYTES - 20))).is_ok());
    }
}
