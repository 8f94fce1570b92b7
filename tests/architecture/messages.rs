//! No advice, message or record below the front ends names a command line, a flag or a tool:
//! the core names an `Action` or records an operation, and the CLI, MCP server and viewer word
//! it for their reader.

use crate::code_by_path;

#[test]
fn no_advice_below_the_front_ends_names_a_command_line() {
    let mut found = Vec::new();
    for (rel, code) in code_by_path() {
        if ["cli/", "mcp/", "view/"].iter().any(|f| rel.starts_with(f)) {
            continue;
        }
        for text in advice_texts(&code) {
            if text.contains("`sparks") || text.contains("sparks_") || text.contains("run `") {
                found.push(format!("{rel}: {text}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "advice that names a command line (name an `Action` instead):\n{}",
        found.join("\n")
    );
    assert_eq!(
        advice_texts("Advice::say(\"run `sparks scan` (now)\").then(\" first\")"),
        ["\"run `sparks scan` (now)\"", "\" first\""]
    );
}

/// Files below the front ends whose strings are the text of a file Sparks writes into the vault
/// or of the agent contract, for a person at a shell, not a message or a record: each names
/// the command that maintains it, by design.
const WRITES_CLI_TEXT: [(&str, &str); 7] = [
    (
        "contract.rs",
        "the agent contract, which documents the command line",
    ),
    ("config.rs", "the commented sparks.toml that init writes"),
    ("init.rs", ".gitignore and the agent files init writes"),
    (
        "inbox/mod.rs",
        "the seed inbox.md, which tells a person how to ingest",
    ),
    (
        "tasks/file.rs",
        "the header of the Tasks page a person edits",
    ),
    (
        "collections/page.rs",
        "the footer of a generated collection page",
    ),
    ("index/", "the header of the generated index page"),
];

#[test]
fn no_message_or_record_below_the_front_ends_names_a_command_line() {
    let mut found = Vec::new();
    for (rel, code) in code_by_path() {
        if ["cli/", "mcp/", "view/"].iter().any(|f| rel.starts_with(f))
            || WRITES_CLI_TEXT.iter().any(|(f, _)| rel.starts_with(f))
        {
            continue;
        }
        found.extend(cli_words(&code).into_iter().map(|t| format!("{rel}: {t}")));
    }
    assert!(
        found.is_empty(),
        "a message or record below the front ends names a command line, a flag or a tool \
         (name an `Action`, or record the operation as a `operation::Operation`, for the front \
         end to word):\n{}",
        found.join("\n")
    );
}

#[test]
fn a_planted_command_line_in_a_message_or_a_record_is_caught() {
    let planted = r##"
        #[error("schema version {found} is older; run `sparks scan` to upgrade it")]
        Old { found: u32 },
        let command = format!("sparks ingest --revert {id}");
        let m = "`ingest --list` starts afresh";
        let t = r#"call sparks_scan"#;
        let fine = "sparks sync: merge {}/{}";
        let quote = '"'; let dash = "a -- b"; let path = "a/--x"; let arg = "--no-tags";
    "##;
    assert_eq!(
        cli_words(planted),
        [
            "schema version {found} is older; run `sparks scan` to upgrade it",
            "sparks ingest --revert {id}",
            "`ingest --list` starts afresh",
            "call sparks_scan",
        ]
    );
}

/// The string literals in `code` that name a command line (`` `sparks ``, `sparks ingest`), a
/// flag (` --json`, `` `--list``) or a tool (`sparks_scan`).
fn cli_words(code: &str) -> Vec<String> {
    let flag = |t: &str| {
        t.match_indices("--").any(|(i, _)| {
            let before = t[..i].chars().next_back();
            let after = t[i + 2..].chars().next();
            matches!(before, None | Some(' ' | '`' | '(' | '['))
                && after.is_some_and(|c| c.is_ascii_lowercase())
        })
    };
    let command = |t: &str| {
        t.contains("`sparks ")
            || t.contains("sparks_")
            || t.starts_with("sparks ") && !t.starts_with("sparks sync:")
    };
    // A literal that is one flag alone is an argument given to git's process, not a message.
    let git_argument = |t: &str| t.starts_with("--") && !t.contains(' ');
    string_literals(code)
        .into_iter()
        .filter(|t| command(t) || flag(t) && !git_argument(t))
        .collect()
}

/// The text of every string literal in `code` (plain and raw; char literals skipped).
fn string_literals(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\'' if chars.get(i + 1) == Some(&'\\') => {
                i += chars[i + 2..].iter().position(|c| *c == '\'').unwrap_or(0) + 3;
            }
            '\'' if chars.get(i + 2) == Some(&'\'') => i += 3,
            'r' if matches!(chars.get(i + 1), Some('"' | '#'))
                && !chars[..i]
                    .last()
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_') =>
            {
                let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
                let start = i + 2 + hashes;
                let close: String = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                let rest: String = chars[start..].iter().collect();
                let end = rest.find(&close).unwrap_or(rest.len());
                out.push(rest[..end].to_string());
                i = start + rest[..end].chars().count() + close.len();
            }
            '"' => {
                let mut text = String::new();
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' {
                        i += 1;
                        // A line continuation: the next line's indent is not in the text.
                        if chars.get(i) == Some(&'\n') {
                            while chars.get(i + 1).is_some_and(|c| c.is_whitespace()) {
                                i += 1;
                            }
                            i += 1;
                            continue;
                        }
                    }
                    if let Some(c) = chars.get(i) {
                        text.push(*c);
                    }
                    i += 1;
                }
                out.push(text);
                i += 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// The arguments of every `Advice::say(…)`, `.then(…)` and `.with_hint(…)` in `code`.
fn advice_texts(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for start in ["Advice::say(", ".then(", ".with_hint("] {
        for (i, _) in code.match_indices(start) {
            let rest = &code[i + start.len()..];
            let (mut depth, mut quoted, mut end) = (0, false, rest.len());
            let mut prev = ' ';
            for (j, c) in rest.char_indices() {
                match c {
                    '"' if prev != '\\' => quoted = !quoted,
                    '(' if !quoted => depth += 1,
                    ')' if !quoted && depth == 0 => {
                        end = j;
                        break;
                    }
                    ')' if !quoted => depth -= 1,
                    _ => {}
                }
                prev = c;
            }
            out.push(rest[..end].to_string());
        }
    }
    out
}
