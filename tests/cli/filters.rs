//! The snapshot macro and its filters, which replace what differs between runs (temp paths,
//! times, hashes, durations) so that a snapshot says only what a run decided.

use crate::harness::TestVault;

/// Settings that replace what differs between runs: temp paths, times, hashes, durations.
/// `snapshot!(v, value)` checks a snapshot file; `snapshot!(v, value, @"…")` an inline one,
/// for human output a test reads best beside the command that printed it.
#[macro_export]
macro_rules! snapshot {
    ($vault:expr, $value:expr) => {{
        $crate::filters::filters(&$vault).bind(|| insta::assert_snapshot!($value));
    }};
    ($vault:expr, $value:expr, @$expected:literal) => {{
        $crate::filters::filters(&$vault).bind(|| insta::assert_snapshot!($value, @$expected));
    }};
}

/// The filters of [`snapshot!`] for this vault.
pub fn filters(vault: &TestVault) -> insta::Settings {
    let root = vault.root.display().to_string();
    let dir = vault.dir.path().display().to_string();
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex_escape(&root), "[VAULT]");
    settings.add_filter(&regex_escape(&dir), "[TMP]");
    settings.add_filter(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)",
        "[TIME]",
    );
    settings.add_filter(r"\b[0-9a-f]{64}\b", "[HASH]");
    settings.add_filter(r"\b[0-9a-f]{40}\b", "[SHA]");
    settings.add_filter(r"in \d+ms", "in [N]ms");
    // A manifest set aside by `scan --rebuild`: `sparks.db.old-<the time, digits only>`.
    settings.add_filter(r"\.old-\d{8}T\d+", ".old-[STAMP]");
    settings.add_filter(r#""duration_(ms|ns)": \d+"#, r#""duration_$1": [N]"#);
    settings
}

/// Escape a literal for a regex filter.
pub fn regex_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// What a terminal showed, made stable: each frame of a progress bar (drawn after `\r` and
/// the erase-line `\x1b[2K`) becomes `[bar] <phase>: <unit>` with its count `…/<total>` (a
/// known total) or `…` (none), its spinner and clock dropped and its repeats folded into one;
/// colours are dropped; every other text is kept as shown. A frame not erased before the
/// next text (a bar left under a report) is no frame and is kept whole, `\r`s and all.
pub fn terminal(shown: &str) -> String {
    let plain = without_colours(&shown.replace("\r\n", "\n"));
    let mut out: Vec<String> = Vec::new();
    for piece in plain.split("\r\x1b[2K").filter(|p| !p.is_empty()) {
        match bar_frame(piece) {
            Some(frame) if out.last() == Some(&frame) => {}
            Some(frame) => out.push(frame),
            None => out.extend(piece.lines().map(visible)),
        }
    }
    out.join("\n")
}

/// A line with its carriage returns and escapes written out, as `\r` and `\x1b`.
fn visible(line: &str) -> String {
    line.replace('\r', "\\r").replace('\x1b', "\\x1b")
}

/// `\x1b[…m` (a colour or weight) removed.
fn without_colours(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(at) = rest.find("\x1b[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after.find(|c: char| !c.is_ascii_digit() && c != ';');
        match end {
            Some(e) if after[e..].starts_with('m') => rest = &after[e + 1..],
            _ => {
                out.push_str("\x1b[");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// One frame of the bar, `<spinner> <phase>: <unit> <done>[/<total> [<bar>]] <elapsed>`, as
/// `[bar] <phase>: <unit> …[/<total>]`; `None` for any other text.
fn bar_frame(piece: &str) -> Option<String> {
    let rest = piece.strip_prefix(|c| ('\u{2800}'..='\u{28ff}').contains(&c))?;
    let rest = rest.strip_prefix(' ')?.trim_end_matches(' ');
    let (rest, elapsed) = rest.rsplit_once(' ')?;
    let clock = |w: &str| w.chars().all(|c| c.is_ascii_alphanumeric());
    if !elapsed.split(' ').all(clock) || rest.contains(['\r', '\n']) {
        return None;
    }
    let rest = match rest.split_once(" [") {
        Some((head, bar)) if bar.ends_with(']') => head,
        Some(_) => return None,
        None => rest,
    };
    let (label, count) = rest.rsplit_once(' ')?;
    let digits = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit() || c == ',');
    match count.split_once('/') {
        Some((done, total)) if digits(done) && digits(total) => {
            Some(format!("[bar] {label} …/{total}"))
        }
        None if digits(count) => Some(format!("[bar] {label} …")),
        _ => None,
    }
}
