//! Putting captures back into the inbox (`ingest --revert`): a capture's chunk as the human
//! wrote it, given its capture date as a date line when it had none (so that it keeps its
//! date), and chunks put back right after the header, ahead of everything captured since.

use super::Inbox;

impl Inbox {
    /// The byte offset in the file of entry `i`'s first content line, where a date line goes
    /// when it has none; `None` when it has one.
    fn undated_at(&self, bytes: &[u8], i: usize) -> Option<usize> {
        let e = &self.entries[i];
        if e.dated {
            return None;
        }
        let mut line = 1;
        let mut at = 0;
        while line < e.line && at < bytes.len() {
            match bytes[at..].iter().position(|b| *b == b'\n') {
                Some(n) => at += n + 1,
                None => at = bytes.len(),
            }
            line += 1;
        }
        Some(at)
    }

    /// `bytes` with a date line before the first content line of each listed entry (index,
    /// capture date) that has none.
    pub fn with_date_lines(&self, bytes: &[u8], entries: &[(usize, &str)]) -> Vec<u8> {
        let mut inserts: Vec<(usize, &str)> = entries
            .iter()
            .filter_map(|(i, date)| Some((self.undated_at(bytes, *i)?, *date)))
            .collect();
        inserts.sort();
        let mut out = Vec::with_capacity(bytes.len() + inserts.len() * 11);
        let mut from = 0;
        for (at, date) in inserts {
            out.extend_from_slice(&bytes[from..at]);
            out.extend_from_slice(date.as_bytes());
            out.extend_from_slice(self.newline.as_bytes());
            from = at;
        }
        out.extend_from_slice(&bytes[from..]);
        out
    }

    /// The lines of entry `i`'s chunk (after its separator), with a date line when it has
    /// none of its own.
    pub fn chunk_of(&self, bytes: &[u8], i: usize, date: &str) -> Vec<u8> {
        let body = self.chunks[self.entries[i].chunk].body.clone();
        let mut out = bytes[body.clone()].to_vec();
        if let Some(at) = self.undated_at(bytes, i) {
            let at = at.clamp(body.start, body.end) - body.start;
            out.splice(at..at, format!("{date}{}", self.newline).bytes());
        }
        if !out.ends_with(b"\n") {
            out.extend_from_slice(self.newline.as_bytes());
        }
        out
    }

    /// `bytes` with `chunks` put back right after the header, in order, each after a
    /// separator line, ahead of what the file holds after its header (dropped when it is
    /// only blank lines, as a cleared inbox's is).
    pub fn with_chunks_first(&self, bytes: &[u8], chunks: &[Vec<u8>]) -> Vec<u8> {
        let sep = format!("---{}", self.newline);
        let mut out = bytes[self.head.clone()].to_vec();
        if out.is_empty() {
            // No header at all: a file that was empty.
            out.extend_from_slice(sep.as_bytes());
        } else if !out.ends_with(b"\n") {
            out.extend_from_slice(self.newline.as_bytes());
        }
        for (k, c) in chunks.iter().enumerate() {
            if k > 0 {
                out.extend_from_slice(sep.as_bytes());
            }
            out.extend_from_slice(c);
        }
        let rest = &bytes[self.head.end..];
        if !rest.iter().all(u8::is_ascii_whitespace) {
            if !chunks.is_empty() {
                out.extend_from_slice(sep.as_bytes());
            }
            out.extend_from_slice(rest);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::inbox::Inbox;
    use chrono::NaiveDate;

    fn parse(text: &str) -> Inbox {
        Inbox::parse(
            text.as_bytes(),
            NaiveDate::from_ymd_opt(2026, 5, 1).unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn chunks_put_back_after_a_cleared_inbox_give_the_file_before() {
        let before = "# Inbox\n\nnotes\n\n---\n\n2026-04-10\nFirst\n---\n2026-04-11\nSecond\n";
        let old = parse(before);
        let chunks: Vec<Vec<u8>> = (0..2)
            .map(|i| old.chunk_of(before.as_bytes(), i, "x"))
            .collect();
        let cleared = old.without(before.as_bytes(), &[0, 1]);
        let now = parse(std::str::from_utf8(&cleared).unwrap());
        let back = now.with_chunks_first(&cleared, &chunks);
        assert_eq!(String::from_utf8(back).unwrap(), before);
    }

    #[test]
    fn chunks_go_ahead_of_what_was_captured_since() {
        let text = "# Inbox\n---\nLater\n---\n";
        let now = parse(text);
        let back = now.with_chunks_first(text.as_bytes(), &[b"2026-04-10\nFirst\n".to_vec()]);
        assert_eq!(
            String::from_utf8(back).unwrap(),
            "# Inbox\n---\n2026-04-10\nFirst\n---\nLater\n---\n"
        );
    }

    #[test]
    fn an_undated_capture_gets_its_capture_date_as_a_date_line() {
        let text = "# Inbox\r\n---\r\n\r\nUndated\r\nmore\r\n---\r\n2026-04-10\r\nDated\r\n";
        let inbox = parse(text);
        let chunk = inbox.chunk_of(text.as_bytes(), 0, "2026-04-20");
        assert_eq!(chunk, b"\r\n2026-04-20\r\nUndated\r\nmore\r\n");
        assert_eq!(
            inbox.chunk_of(text.as_bytes(), 1, "2026-04-20"),
            b"2026-04-10\r\nDated\r\n"
        );
        let dated = inbox.with_date_lines(text.as_bytes(), &[(0, "2026-04-20"), (1, "x")]);
        let again = parse(std::str::from_utf8(&dated).unwrap());
        assert_eq!(
            again.entries[0].capture_date,
            NaiveDate::from_ymd_opt(2026, 4, 20).unwrap()
        );
        assert_eq!(again.entries[0].content, "Undated\nmore");
        assert_eq!(again.entries[1].content, "Dated");
    }
}
