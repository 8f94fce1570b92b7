//! Conflict markers as git writes them into a file it could not merge: a line `<<<<<<< ours`,
//! the one side, `=======`, the other side, `>>>>>>> theirs` (with `||||||| base` and the
//! base between, in the diff3 style). Sparks never writes them (a sync keeps both texts, one in
//! a conflict copy); they come from a plain `git merge`, `pull`, `rebase` or `cherry-pick`
//! that stopped. The scan notes the first in each file it reads (lint's `conflict-markers`),
//! and a commit refuses a file that holds them.
//!
//! A marker is a line that starts with seven `<`, `>` or `|` followed by a space or the line's
//! end, or that is `=======` between an opening and a closing marker (alone, it is a Markdown
//! heading's underline). In Markdown, a line inside a fenced code block is never a marker: a
//! page may show what a conflict looks like.

/// The 1-based numbers of the marker lines of `bytes`, the text of the file at the
/// vault-relative `path` (a Markdown file's fenced code blocks left out); none in a binary
/// file (one with a NUL byte in its first 8,000 bytes, as git judges).
pub fn lines(path: &str, bytes: &[u8]) -> Vec<usize> {
    if bytes[..bytes.len().min(8000)].contains(&0) {
        return Vec::new();
    }
    let markdown = is_markdown(path);
    let mut found = Vec::new();
    let mut fence: Option<(u8, usize)> = None;
    let mut open = false;
    for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if markdown {
            if let Some((c, n)) = fence {
                if closes(line, c, n) {
                    fence = None;
                }
                continue;
            }
            if let Some(f) = opens(line) {
                fence = Some(f);
                continue;
            }
        }
        let marker = match run_of(line) {
            Some(b'<') => {
                open = true;
                true
            }
            Some(b'>') => {
                open = false;
                true
            }
            Some(b'|') => open,
            _ => open && line.trim_ascii_end() == b"=======",
        };
        if marker {
            found.push(i + 1);
        }
    }
    found
}

/// The first marker line of `bytes` (see [`lines`]), or 0 when there is none: what the scan
/// records of a file.
pub fn first(path: &str, bytes: &[u8]) -> usize {
    // Nearly every file has no line that starts so: said in one pass over its bytes.
    let mut starts = std::iter::once(0).chain(
        bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| i + 1),
    );
    if !starts.any(|i| bytes[i..].starts_with(b"<<<<<<<") || bytes[i..].starts_with(b">>>>>>>")) {
        return 0;
    }
    lines(path, bytes).first().copied().unwrap_or(0)
}

/// Whether a vault-relative path is Markdown (`.md`, `.markdown`).
fn is_markdown(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".md") || lower.ends_with(".markdown")
}

/// `<`, `>` or `|` when the line starts with seven of it followed by a space or its end.
fn run_of(line: &[u8]) -> Option<u8> {
    let c = *line.first()?;
    if !matches!(c, b'<' | b'>' | b'|') {
        return None;
    }
    let run = line.iter().take_while(|b| **b == c).count();
    (run == 7 && matches!(line.get(7), None | Some(b' '))).then_some(c)
}

/// The fence a line opens (its character and length): three or more backticks or tildes,
/// indented by at most three spaces.
fn opens(line: &[u8]) -> Option<(u8, usize)> {
    let indent = line.iter().take_while(|b| **b == b' ').count();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let c = *rest.first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = rest.iter().take_while(|b| **b == c).count();
    // A backtick fence's info string holds no backtick.
    let info_ok = c == b'~' || !rest[n..].contains(&b'`');
    (n >= 3 && info_ok).then_some((c, n))
}

/// Whether a line closes the fence of `c` and length `n`: at least `n` of `c`, indented by at
/// most three spaces, and nothing after but spaces.
fn closes(line: &[u8], c: u8, n: usize) -> bool {
    let indent = line.iter().take_while(|b| **b == b' ').count();
    if indent > 3 {
        return false;
    }
    let rest = &line[indent..];
    let run = rest.iter().take_while(|b| **b == c).count();
    run >= n && rest[run..].iter().all(|b| b.is_ascii_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_s_markers_are_found_and_a_heading_underline_is_not() {
        let text = "Intro\n=======\n\n<<<<<<< HEAD\nmine\n||||||| base\nold\n=======\ntheirs\n\
                    >>>>>>> 1a2b3c (a capture)\nafter\n";
        assert_eq!(lines("inbox.md", text.as_bytes()), [4, 6, 8, 10]);
        assert_eq!(first("inbox.md", text.as_bytes()), 4);
        // Windows line ends, and a marker with no label.
        let crlf = "a\r\n<<<<<<<\r\nx\r\n=======\r\ny\r\n>>>>>>>\r\n";
        assert_eq!(lines("notes.txt", crlf.as_bytes()), [2, 4, 6]);
    }

    #[test]
    fn look_alikes_are_no_markers() {
        for text in [
            "Title\n=======\nbody\n",
            "<<<<<<<< eight\n>>>>>>>> eight\n",
            "<<<<<<<x\n>>>>>>>y\n",
            " <<<<<<< indented\n",
            "a <<<<<<< inside\n",
            "=======\n",
            "|||||||\n",
        ] {
            assert_eq!(
                lines("a.md", text.as_bytes()),
                Vec::<usize>::new(),
                "{text:?}"
            );
            assert_eq!(first("a.md", text.as_bytes()), 0, "{text:?}");
        }
        // Binary: no markers, whatever its bytes.
        assert_eq!(lines("a.png", b"\0<<<<<<< x\n"), Vec::<usize>::new());
    }

    #[test]
    fn a_fenced_example_in_markdown_is_no_conflict_but_the_same_text_elsewhere_is() {
        let text = "How a conflict looks:\n\n```text\n<<<<<<< HEAD\nmine\n=======\ntheirs\n\
                    >>>>>>> main\n```\n\n~~~~\n<<<<<<< HEAD\n~~~\nstill inside\n~~~~\n";
        assert_eq!(
            lines("wiki/concepts/Git.md", text.as_bytes()),
            Vec::<usize>::new()
        );
        assert_eq!(
            lines("raw/git.txt", text.as_bytes()),
            [4, 6, 8, 12],
            "not Markdown: fences mean nothing"
        );
        // A marker outside a fence is found though the other side opened one.
        let split = "<<<<<<< HEAD\n```rust\n=======\n```python\n>>>>>>> x\n";
        assert_eq!(lines("wiki/A.md", split.as_bytes()), [1]);
    }
}
