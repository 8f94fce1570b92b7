//! Sparks builds and tests on Linux, macOS and Windows (README "Other systems"): every use of
//! what only unix has, in `src/` and `tests/`, sits in an item, statement or module gated by
//! `#[cfg(unix)]` (or a `target_os` that is not Windows), and every use of what only Linux has
//! behind `#[cfg(target_os = "linux")]`. Unix-only: `std::os::unix`, `rustix`, `libc`
//! constants, `signal_hook` (a unix-only dependency), tokio's unix signals, and the programs a
//! test or a fallback runs (`sh`, `kill`, `chmod`, …). Linux-only: `/proc`, util-linux's
//! `setpriv` and `script`, GNU `stat`, `mount`. Comments and the text of strings are not read
//! as code, so a comment that names `std::os::unix` is no use of it.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Paths of code that only unix has.
const UNIX_PATHS: [&str; 5] = [
    "os::unix",
    "rustix::",
    "libc::",
    "signal_hook::",
    "signal::unix",
];

/// Programs found on unix systems only (a Windows runner has none of them on its PATH).
const UNIX_PROGRAMS: [&str; 8] = [
    "sh", "kill", "chmod", "chown", "id", "sleep", "touch", "node",
];

/// Programs, paths and flags that only Linux has (util-linux, GNU coreutils, procfs).
const LINUX_PROGRAMS: [&str; 5] = ["setpriv", "script", "stat", "mount", "umount"];
const LINUX_STRINGS: [&str; 2] = ["\"/proc/", "\"/usr/bin/"];

#[test]
fn what_only_unix_or_linux_has_is_gated() {
    let mut found = Vec::new();
    for dir in ["src", "tests"] {
        for file in sources(&Path::new(ROOT).join(dir)) {
            // This file names what it looks for.
            if !file.ends_with("tests/portability.rs") {
                found.extend(ungated(&file));
            }
        }
    }
    assert!(
        found.is_empty(),
        "uses of what only unix (or Linux) has, outside a `#[cfg(unix)]` (or \
         `#[cfg(target_os = \"linux\")]`) item:\n{}",
        found.join("\n")
    );
}

/// Every ungated use in `file`, each as `path:line: what (needs …)`.
fn ungated(file: &Path) -> Vec<String> {
    let text = fs_err::read_to_string(file).unwrap();
    let rel = file
        .strip_prefix(ROOT)
        .unwrap_or(file)
        .display()
        .to_string();
    let gate = file_gate(file, &text);
    let (with_strings, code) = blank(&text);
    let mut out = Vec::new();
    let mut check = |at: usize, what: &str, linux: bool| {
        let need = match linux {
            true => Gate::Linux,
            false => Gate::Unix,
        };
        if gate.max(gate_at(&with_strings, &code, at)) < need {
            let line = text[..at].matches('\n').count() + 1;
            let needs = if linux {
                "target_os = \"linux\""
            } else {
                "unix"
            };
            out.push(format!("{rel}:{line}: {what} (needs cfg({needs}))"));
        }
    };
    for what in UNIX_PATHS {
        for (at, _) in code.match_indices(what) {
            if !code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                check(at, what, false);
            }
        }
    }
    for (programs, linux) in [(&UNIX_PROGRAMS[..], false), (&LINUX_PROGRAMS[..], true)] {
        for program in programs {
            let call = format!("Command::new(\"{program}\")");
            for (at, _) in with_strings.match_indices(&call) {
                check(at, &call, linux);
            }
        }
    }
    for what in LINUX_STRINGS {
        for (at, _) in with_strings.match_indices(what) {
            check(at, what, true);
        }
    }
    out
}

/// How narrowly a piece of code is gated: not at all, to unix, to Linux.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Gate {
    None,
    Unix,
    Linux,
}

/// The gate of a whole file: its own `#![cfg(…)]`, or the `#[cfg(…)] mod name;` that declares
/// it in its parent (`a/b.rs` in `a.rs`, `a/mod.rs` or `a/main.rs`), and its parent's gate.
fn file_gate(file: &Path, text: &str) -> Gate {
    let (with_strings, code) = blank(text);
    let own = code
        .match_indices("#![cfg(")
        .map(|(i, _)| predicate_gate(&with_strings[i + 3..]))
        .max()
        .unwrap_or(Gate::None);
    let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
    let dir = file.parent().unwrap();
    let (name, parent_dir) = match stem.as_str() {
        "mod" | "main" | "lib" => (
            dir.file_name().unwrap().to_string_lossy().into_owned(),
            dir.parent().unwrap(),
        ),
        _ => (stem, dir),
    };
    let parents = [
        parent_dir.with_extension("rs"),
        parent_dir.join("mod.rs"),
        parent_dir.join("main.rs"),
    ];
    let mut gate = own;
    for parent in parents.iter().filter(|p| p.is_file() && *p != file) {
        let ptext = fs_err::read_to_string(parent).unwrap();
        let (pstrings, pcode) = blank(&ptext);
        for decl in [format!("mod {name};"), format!("mod {name} ;")] {
            for (at, _) in pcode.match_indices(&decl) {
                let word_start = !pcode[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
                if word_start {
                    let declared = gate_at(&pstrings, &pcode, at).max(file_gate(parent, &ptext));
                    gate = gate.max(declared);
                }
            }
        }
    }
    gate
}

/// The gate at byte `at` of `code` (comments and strings blanked; `with_strings` the same
/// with the strings' text, where the attributes are read): the narrowest of the `cfg`
/// attributes of the brace blocks around it and of the statement or item it is in.
fn gate_at(with_strings: &str, code: &str, at: usize) -> Gate {
    // The start of each open block's header (what precedes its `{`), and of the statement.
    let mut headers: Vec<(usize, usize)> = Vec::new();
    let mut stmt = 0;
    for (i, b) in code.bytes().enumerate().take(at) {
        match b {
            b'{' => {
                headers.push((stmt, i));
                stmt = i + 1;
            }
            b'}' => {
                headers.pop();
                stmt = i + 1;
            }
            b';' => stmt = i + 1,
            _ => {}
        }
    }
    headers.push((stmt, at));
    headers
        .iter()
        .map(|&(from, to)| attrs_gate(&code[from..to], &with_strings[from..to]))
        .max()
        .unwrap_or(Gate::None)
}

/// The narrowest gate among the `#[cfg(…)]` attributes in `header` (found in its code, read
/// with their strings).
fn attrs_gate(header: &str, with_strings: &str) -> Gate {
    header
        .match_indices("#[cfg(")
        .map(|(i, _)| predicate_gate(&with_strings[i + 2..]))
        .max()
        .unwrap_or(Gate::None)
}

/// The gate of the `cfg(…)` that `text` starts with.
fn predicate_gate(text: &str) -> Gate {
    let inner = balanced(&text[3..]);
    gate_of(
        &inner
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>(),
    )
}

/// What is between the opening parenthesis `text` starts with and its closing one.
fn balanced(text: &str) -> &str {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 1 => return &text[1..i],
            ')' => depth -= 1,
            _ => {}
        }
    }
    ""
}

/// The gate of a `cfg` predicate without whitespace.
fn gate_of(p: &str) -> Gate {
    if p == "target_os=\"linux\"" {
        return Gate::Linux;
    }
    if p == "unix" || p == "not(windows)" || p == "target_family=\"unix\"" {
        return Gate::Unix;
    }
    if p.starts_with("target_os=") && p != "target_os=\"windows\"" {
        return Gate::Unix;
    }
    let parts = |args: &str| -> Vec<Gate> { split_top(args).into_iter().map(gate_of).collect() };
    if let Some(args) = p.strip_prefix("all(").and_then(|a| a.strip_suffix(')')) {
        return parts(args).into_iter().max().unwrap_or(Gate::None);
    }
    if let Some(args) = p.strip_prefix("any(").and_then(|a| a.strip_suffix(')')) {
        return parts(args).into_iter().min().unwrap_or(Gate::None);
    }
    Gate::None
}

/// `a,b(c,d),e` → `a`, `b(c,d)`, `e`.
fn split_top(args: &str) -> Vec<&str> {
    let (mut out, mut depth, mut from) = (Vec::new(), 0, 0);
    for (i, c) in args.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&args[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    out.push(&args[from..]);
    out.retain(|s| !s.is_empty());
    out
}

/// `text` with its comments blanked, then with its comments and the text of its string and
/// character literals blanked (their quotes kept): both the same length, lines where they were.
fn blank(text: &str) -> (String, String) {
    let b = text.as_bytes();
    let mut comments = vec![false; b.len()];
    let mut strings = vec![false; b.len()];
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                comments[i] = true;
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    comments[i] = true;
                    comments[i + 1] = true;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    comments[i] = true;
                    comments[i + 1] = true;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    comments[i] = true;
                    i += 1;
                }
            }
        } else if let Some(end) = literal_end(b, i) {
            let (open, close) = literal_quotes(b, i, end);
            strings[open..close].iter_mut().for_each(|s| *s = true);
            i = end;
        } else {
            i += 1;
        }
    }
    let out = |hide: &dyn Fn(usize) -> bool| -> String {
        let bytes: Vec<u8> = b
            .iter()
            .enumerate()
            .map(|(i, &c)| if c != b'\n' && hide(i) { b' ' } else { c })
            .collect();
        String::from_utf8(bytes).unwrap()
    };
    (out(&|i| comments[i]), out(&|i| comments[i] || strings[i]))
}

/// Where the string, raw string or character literal starting at `i` ends (past its closing
/// quote); `None` when none starts there (a lifetime's `'` included).
fn literal_end(b: &[u8], i: usize) -> Option<usize> {
    let ident_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
    match b[i] {
        b'"' => {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            Some((j + 1).min(b.len()))
        }
        b'r' if !ident_before && matches!(b.get(i + 1), Some(b'"' | b'#')) => {
            let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
            if b.get(i + 1 + hashes) != Some(&b'"') {
                return None;
            }
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let from = i + 2 + hashes;
            let at = b[from..].windows(close.len()).position(|w| w == close)?;
            Some(from + at + close.len())
        }
        b'\'' if b.get(i + 1) == Some(&b'\\') => {
            let at = b[i + 2..].iter().position(|&c| c == b'\'')?;
            Some(i + 2 + at + 1)
        }
        b'\'' => {
            // A character literal is one character then a quote; a lifetime is not.
            let s = std::str::from_utf8(&b[i + 1..(i + 5).min(b.len())]).unwrap_or_default();
            let c = s.chars().next()?;
            (b.get(i + 1 + c.len_utf8()) == Some(&b'\'')).then_some(i + 2 + c.len_utf8())
        }
        _ => None,
    }
}

/// The span inside the quotes of the literal from `start` to `end`.
fn literal_quotes(b: &[u8], start: usize, end: usize) -> (usize, usize) {
    let open = start
        + b[start..end]
            .iter()
            .position(|&c| c == b'"' || c == b'\'')
            .unwrap()
        + 1;
    let close_len = 1 + b[..end].iter().rev().take_while(|&&c| c == b'#').count();
    (open, end.saturating_sub(close_len).max(open))
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .map(walkdir::DirEntry::into_path)
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect()
}

/// The check on planted code: each way of gating is seen, and nothing else passes for one.
#[test]
fn the_check_tells_gated_from_ungated() {
    let planted = |code: &str| -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.rs");
        fs_err::write(&p, code).unwrap();
        ungated(&p)
            .into_iter()
            .map(|l| {
                l.split(": ")
                    .next()
                    .unwrap()
                    .rsplit(':')
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    // Ungated, though comments, strings and other attributes are near.
    let bare = "// #[cfg(unix)]\n#[cfg(test)]\nfn f() {\n    let s = \"#[cfg(unix)] {\";\n    \
                let c = '{';\n    use std::os::unix::fs::PermissionsExt;\n}\n";
    assert_eq!(planted(bare), ["6"], "{bare}");
    assert_eq!(
        planted("#[cfg(unix)] let a = 1;\nlet e = libc::ELOOP;\n"),
        ["2"]
    );
    assert_eq!(
        planted("#[cfg(any(unix, windows))]\nfn f() { rustix::fs::statvfs(p) }"),
        ["2"]
    );
    assert_eq!(
        planted("#[cfg(unix)]\nfn f() { Command::new(\"script\") }"),
        ["2"],
        "util-linux's script needs Linux"
    );
    assert!(planted("// std::os::unix\nlet s = \"libc::X\";\n").is_empty());
    // Gated: an item, a block, a statement, `all(…)`, a file, a module.
    for gated in [
        "#[cfg(unix)]\nfn f() { if x { std::os::unix::fs::symlink(a, b) } }",
        "fn f() {\n    #[cfg(unix)]\n    {\n        let x = libc::O_NOFOLLOW;\n    }\n}",
        "#[cfg(unix)]\nuse signal_hook::iterator::Signals;",
        "#[cfg(all(test, unix))]\nmod t { fn f() { Command::new(\"sh\"); } }",
        "#![cfg(unix)]\nuse rustix::fs;",
        "#[cfg(target_os = \"linux\")]\nfn f() { read(\"/proc/self/stat\") }",
        "#[cfg(unix)]\nmod a {\n    #[cfg(target_os = \"linux\")]\n    fn f() { Command::new(\"setpriv\") }\n}",
        "#[cfg(not(windows))]\nfn f() { tokio::signal::unix::signal(k) }",
    ] {
        assert!(planted(gated).is_empty(), "{gated}: {:?}", planted(gated));
    }
}
