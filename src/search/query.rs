//! The query language, which is never an error: words and `"quoted phrases"` are scored, not
//! required (a page matching more of them, or matching them in its title, ranks higher; a
//! phrase counts only where its words stand together, in order); `+word` and `+"a phrase"`
//! must match; `-word` must not; `prefix*` matches word beginnings; `OR` joins alternatives,
//! so that `+wal OR +journal` requires one of the two. Any other punctuation is text, and a
//! sentence quoting a title, as people write, still finds pages without it. This module turns
//! a query into atoms and each atom into an FTS5 expression; it does no I/O.

use crate::cjk;

/// One term of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Atom {
    pub text: String,
    /// `prefix*`: matches words that begin with the text.
    pub prefix: bool,
    /// `"quoted"`: the words together, in this order.
    pub phrase: bool,
    /// `+word`: required.
    pub plus: bool,
}

/// Alternatives joined by `OR` (or a single atom).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Group {
    pub atoms: Vec<Atom>,
}

impl Group {
    /// Whether a hit must match one of the group's atoms: when one of them carries `+`. Any
    /// other group only adds to the score.
    pub fn required(&self) -> bool {
        self.atoms.iter().any(|a| a.plus)
    }

    /// A single plain word so common in English that it says nothing of a page's subject.
    fn is_stopword(&self) -> bool {
        match self.atoms.as_slice() {
            [a] if !a.phrase && !a.plus && !a.prefix => STOPWORDS
                .binary_search(&a.text.to_lowercase().as_str())
                .is_ok(),
            _ => false,
        }
    }
}

/// A parsed query: groups to score (some required) and atoms no hit may match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Query {
    pub groups: Vec<Group>,
    pub excluded: Vec<Atom>,
}

impl Query {
    /// The query's words as one text, its operators taken away (excluded words left out): what
    /// is embedded for a search by meaning.
    pub fn text(&self) -> String {
        let words: Vec<&str> = self
            .groups
            .iter()
            .flat_map(|g| &g.atoms)
            .map(|a| a.text.as_str())
            .collect();
        words.join(" ")
    }

    /// Whether the query asks for anything beyond scoring its words: a required group or an
    /// exclusion.
    pub fn filters(&self) -> bool {
        !self.excluded.is_empty() || self.groups.iter().any(Group::required)
    }
}

/// Whether `word` (lower case) is a common English word, too common to rank by.
pub(super) fn is_stopword(word: &str) -> bool {
    STOPWORDS.binary_search(&word).is_ok()
}

/// English words too common to rank by, dropped from a query that has other words (sorted,
/// for a binary search). A query of nothing else keeps them.
const STOPWORDS: &[&str] = &[
    "a", "about", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been",
    "being", "but", "by", "can", "could", "did", "do", "does", "doing", "for", "from", "had",
    "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in",
    "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "ours", "she", "should", "so",
    "than", "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this",
    "those", "to", "us", "was", "we", "were", "what", "when", "where", "which", "while", "who",
    "whom", "why", "will", "with", "would", "you", "your", "yours",
];

/// Parse a query. Never fails: text that is not an operator is a word.
pub(super) fn parse(q: &str) -> Query {
    let mut out = Query::default();
    let mut chars = q.chars().peekable();
    let mut pending_or = false;
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let next_is_text = chars.clone().nth(1).is_some_and(|n| !n.is_whitespace());
        let (negate, plus) = (c == '-' && next_is_text, c == '+' && next_is_text);
        if negate || plus {
            chars.next();
        }
        let (text, quoted) = if chars.peek() == Some(&'"') {
            chars.next();
            let t: String = chars.by_ref().take_while(|&x| x != '"').collect();
            (t, true)
        } else {
            let mut t = String::new();
            while let Some(&x) = chars.peek() {
                if x.is_whitespace() {
                    break;
                }
                t.push(x);
                chars.next();
            }
            (t, false)
        };
        if !quoted && !negate && !plus && text == "OR" {
            pending_or = !out.groups.is_empty();
            continue;
        }
        let prefix = !quoted && text.len() > 1 && text.ends_with('*');
        let text = match prefix {
            true => text[..text.len() - 1].to_string(),
            false => text,
        };
        if !text.chars().any(char::is_alphanumeric) {
            pending_or = false;
            continue;
        }
        let atom = Atom {
            text,
            prefix,
            phrase: quoted,
            plus,
        };
        match (negate, pending_or, out.groups.last_mut()) {
            (true, _, _) => out.excluded.push(atom),
            (false, true, Some(g)) => g.atoms.push(atom),
            _ => out.groups.push(Group { atoms: vec![atom] }),
        }
        pending_or = false;
    }
    if out.groups.iter().any(|g| !g.is_stopword()) {
        out.groups.retain(|g| !g.is_stopword());
    }
    out
}

/// The FTS5 expression of an atom. Every piece of text in it is quoted, so no character of
/// the query is FTS syntax; CJK runs become phrases of character pairs.
pub(super) fn expression(a: &Atom) -> Option<String> {
    let runs = cjk::runs(&a.text);
    let last = runs.len().saturating_sub(1);
    let parts: Vec<String> = runs
        .iter()
        .enumerate()
        .filter_map(|(i, &(is_cjk, run))| {
            if is_cjk {
                return Some(cjk::query(run));
            }
            if !run.chars().any(char::is_alphanumeric) {
                return None;
            }
            let star = if a.prefix && i == last { "*" } else { "" };
            Some(format!("\"{}\"{star}", run.replace('"', "\"\"")))
        })
        .collect();
    match parts.len() {
        0 => None,
        1 => parts.into_iter().next(),
        _ => Some(format!("({})", parts.join(" "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn atom(t: &str) -> Atom {
        Atom {
            text: t.into(),
            prefix: false,
            phrase: false,
            plus: false,
        }
    }

    fn texts(g: &Group) -> Vec<&str> {
        g.atoms.iter().map(|a| a.text.as_str()).collect()
    }

    #[test]
    fn words_phrases_or_exclusions_prefixes_and_plus() {
        let q = parse(r#"cache +"write ahead" wal OR journal -sqlite pre* +must"#);
        let groups: Vec<Vec<&str>> = q.groups.iter().map(texts).collect();
        assert_eq!(
            groups,
            [
                vec!["cache"],
                vec!["write ahead"],
                vec!["wal", "journal"],
                vec!["pre"],
                vec!["must"]
            ]
        );
        let required: Vec<bool> = q.groups.iter().map(Group::required).collect();
        assert_eq!(required, [false, true, false, false, true]);
        assert!(q.groups[1].atoms[0].phrase);
        assert!(q.groups[3].atoms[0].prefix);
        assert!(q.groups[4].atoms[0].plus);
        assert_eq!(q.excluded, [atom("sqlite")]);
        assert!(q.filters());
        assert!(!parse("plain words only").filters());
        // A required atom joined by OR makes its alternatives required together.
        let q = parse(r#"+"write ahead" OR wal"#);
        assert_eq!(q.groups.len(), 1);
        assert!(q.groups[0].required());
        // A phrase alone is scored as a phrase, not required: a sentence quoting a title
        // still finds pages without it.
        let q = parse(r#"articles on "what you see is what you get" editors"#);
        assert!(!q.filters());
        assert!(q.groups.iter().any(|g| g.atoms[0].phrase));
    }

    #[test]
    fn common_words_are_dropped_unless_nothing_else_is_left() {
        let q = parse("how do I keep notes in sync between the laptop and the phone");
        let words: Vec<&str> = q.groups.iter().flat_map(texts).collect();
        assert_eq!(
            words,
            ["keep", "notes", "sync", "between", "laptop", "phone"]
        );
        assert_eq!(parse("what is it").groups.len(), 3);
        // Quoted, required or prefixed, a common word is kept.
        assert_eq!(parse(r#"sync "the" +and in*"#).groups.len(), 4);
        assert!(STOPWORDS.is_sorted(), "binary search needs the list sorted");
    }

    #[test]
    fn the_text_to_embed_has_no_operators() {
        assert_eq!(
            parse(r#"+sync "two devices" -cloud pre* OR x"#).text(),
            "sync two devices pre x"
        );
    }

    #[test]
    fn punctuation_is_text_never_syntax() {
        for q in [
            r#"a AND ( b" NOT c:d ^e {f} +g *"#,
            "\"",
            "OR OR",
            "- -",
            "+ +",
            "***",
            "c++ (x)",
            "NEAR(a b)",
            "知識-(管理)",
            "What's the difference between X and Y? (see: notes, 2024)",
        ] {
            let parsed = parse(q);
            for a in parsed
                .groups
                .iter()
                .flat_map(|g| &g.atoms)
                .chain(&parsed.excluded)
            {
                let e = expression(a).unwrap_or_default();
                let outside: String = e.split('"').step_by(2).collect::<Vec<_>>().concat();
                assert!(
                    outside.chars().all(|c| "()* ".contains(c)),
                    "{q:?} gave {e:?}"
                );
            }
        }
        assert_eq!(parse("***").groups.len(), 0);
    }

    #[test]
    fn cjk_becomes_pairs_beside_quoted_words() {
        assert_eq!(expression(&atom("知識管理")).unwrap(), "\"知識 識管 管理\"");
        assert_eq!(expression(&atom("知")).unwrap(), "\"知\"*");
        assert_eq!(expression(&atom("gpt-4o")).unwrap(), "\"gpt-4o\"");
        assert_eq!(expression(&atom("gpt知識")).unwrap(), "(\"gpt\" \"知識\")");
        let prefix = Atom {
            prefix: true,
            ..atom("inval")
        };
        assert_eq!(expression(&prefix).unwrap(), "\"inval\"*");
    }
}
