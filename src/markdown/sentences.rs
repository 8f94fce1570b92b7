//! Sentences of prose, the measure of a thin page. The rule is the original's: every `.`, `!`
//! and `?` ends a sentence (so `...` counts three and `e.g.` two), and so do the CJK
//! terminators `。`, `！` and `？`. What is not prose does not count: a URL or an e-mail
//! address (`https://a.example/x.y`), a wikilink or embed (`![[diagram.png]]`), the dot inside
//! a number (`3.14`, `v0.3`). Code and headings never reach this function (see
//! [`super::outline`]).

/// The characters that end a sentence.
fn is_terminator(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '。' | '！' | '？')
}

/// Characters that may close a sentence after a URL without being part of it.
fn is_trailing(c: char) -> bool {
    is_terminator(c)
        || matches!(
            c,
            ',' | ';' | ':' | ')' | ']' | '}' | '"' | '\'' | '»' | '」' | '』'
        )
}

/// How many sentences `prose` holds.
pub fn count(prose: &str) -> usize {
    let mut lines = Lines::default();
    lines.add(prose);
    lines.sentences
}

/// Sentences counted a piece of prose at a time, each piece ending where the prose has white
/// space (a line break): as [`count`] counts the pieces joined by line breaks, without them
/// ever joined.
#[derive(Debug, Default)]
pub struct Lines {
    /// The sentences counted so far.
    pub sentences: usize,
    /// Whether a `[[` was left open: its wikilinks and all after it count as prose, as in the
    /// text whole.
    open: bool,
}

impl Lines {
    /// Count the sentences of `piece`, the next piece of the prose.
    pub fn add(&mut self, piece: &str) {
        let plain = without_wikilinks(piece, &mut self.open);
        self.sentences += plain.split_whitespace().map(count_token).sum::<usize>();
    }
}

/// `text` with each `[[…]]` (and the `!` of an embed) on one line replaced by a space: a link
/// target is an address, not prose. After a `[[` not closed on its line (`open` then set, or
/// set already), nothing more is replaced.
fn without_wikilinks<'t>(text: &'t str, open: &mut bool) -> std::borrow::Cow<'t, str> {
    if *open || !text.contains("[[") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("[[") {
        let Some(len) = rest[i + 2..]
            .find("]]")
            .filter(|&e| !rest[i + 2..i + 2 + e].contains('\n'))
        else {
            *open = true;
            break;
        };
        let before = &rest[..i];
        out.push_str(before.strip_suffix('!').unwrap_or(before));
        out.push(' ');
        rest = &rest[i + 4 + len..];
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// Sentences ended in one whitespace-free token.
fn count_token(token: &str) -> usize {
    // Most words end nothing: no need to look for an address in them.
    if !token.contains(is_terminator) {
        return 0;
    }
    match address_start(token) {
        Some(start) => {
            let end = token.trim_end_matches(is_trailing).len().max(start);
            count_plain(&token[..start]) + count_plain(&token[end..])
        }
        None => count_plain(token),
    }
}

/// Terminators in `text`, a dot between two digits excepted.
fn count_plain(text: &str) -> usize {
    let mut n = 0;
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let in_number = c == '.'
            && prev.is_some_and(|p| p.is_ascii_digit())
            && chars.peek().is_some_and(char::is_ascii_digit);
        if is_terminator(c) && !in_number {
            n += 1;
        }
        prev = Some(c);
    }
    n
}

/// Where a URL or e-mail address starts in `token`, if it holds one: a `scheme://`, `www.`,
/// `mailto:` or `name@host.domain`.
fn address_start(token: &str) -> Option<usize> {
    // Walk back from `i` over the characters a scheme or a mailbox name is made of.
    let back = |i: usize, ok: fn(char) -> bool| {
        token[..i]
            .char_indices()
            .rev()
            .take_while(|&(_, c)| ok(c))
            .last()
            .map_or(i, |(j, _)| j)
    };
    if let Some(i) = token.find("://") {
        let s = back(i, |c| {
            c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')
        });
        if s < i {
            return Some(s);
        }
    }
    for prefix in ["www.", "mailto:"] {
        if let Some(i) = token.find(prefix) {
            return Some(i);
        }
    }
    let at = token.find('@')?;
    let s = back(at, |c| {
        c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '%' | '+' | '-')
    });
    (s < at && token[at..].contains('.')).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::{Lines, count};

    #[test]
    fn prose_counted_a_line_at_a_time_counts_as_the_lines_joined() {
        let texts = [
            "One. Two!\nThree? [[a.b]] four.\n\n![[c.png]]. Five.",
            "An open [[link. Then\n[[closed.one]] counts. And [[x.y]].",
            "A link [[across\nlines.md]] and [[after.md]] here.\nEnd.",
            "No links. v0.3 and 3.14.\nhttps://a.example/x.y. Last",
            "",
        ];
        for text in texts {
            let mut lines = Lines::default();
            for line in text.split('\n') {
                lines.add(line);
            }
            assert_eq!(lines.sentences, count(text), "{text:?}");
        }
    }

    #[test]
    fn every_terminator_counts_as_the_original_counted_them() {
        assert_eq!(count("One. Two! Three?"), 3);
        assert_eq!(count("Wait... what?!"), 5);
        assert_eq!(count("Use it, e.g. here."), 3);
        assert_eq!(count("这是第一句。这是第二句！这是第三句？"), 3);
        assert_eq!(count("no terminator at all"), 0);
    }

    #[test]
    fn urls_and_addresses_are_not_sentences() {
        assert_eq!(count("https://a.example/x.y"), 0);
        assert_eq!(count("See https://a.example/x.y."), 1);
        assert_eq!(count("(https://a.example/search?q=1.2)."), 1);
        assert_eq!(count("www.example.com and mailto:me@example.com"), 0);
        assert_eq!(count("Write to me.too@example.com today."), 1);
        assert_eq!(count("第一句。见https://a.example/x.y。"), 2);
        assert_eq!(count("not a url: a.b"), 1);
    }

    #[test]
    fn dots_inside_numbers_are_not_sentences() {
        assert_eq!(count("Pi is 3.14 and we ship v0.3 and 1.2.3"), 0);
        assert_eq!(count("It was 3.14."), 1);
        assert_eq!(count("Chapter 3. Then 4."), 2);
    }

    #[test]
    fn wikilinks_and_embeds_are_addresses() {
        assert_eq!(count("![[diagram.png]]"), 0);
        assert_eq!(count("See [[Pebble.md]] and [[Note#Why?|why?]]."), 1);
        assert_eq!(count("Hey! [[unclosed. Yes."), 3);
    }
}
