//! Writing to stdout: data only, as JSON (snake_case keys, `[]` for empty lists, a trailing
//! newline) or as human text. Status lines and warnings go to stderr.

use serde::Serialize;
use std::io::Write;

/// Write `value` as pretty JSON and a newline.
pub fn json<T: Serialize>(value: &T) -> anyhow::Result<()> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    write(&text)
}

/// Write text as is.
pub fn write(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Write lines, each followed by a newline.
pub fn lines<I: IntoIterator<Item = S>, S: AsRef<str>>(lines: I) -> anyhow::Result<()> {
    let mut text = String::new();
    for l in lines {
        text.push_str(l.as_ref());
        text.push('\n');
    }
    write(&text)
}

/// A warning on stderr.
pub fn warn(message: &str) {
    eprintln!("warning: {message}");
}

/// `n word` with the right plural (`1 entry`, `2 entries`).
pub fn count(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}
