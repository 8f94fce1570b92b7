//! Scalars: writing a value in a quoting style that reads back as the same string (here and
//! in YAML 1.1 readers), and reading a value's text the way the frontmatter parser keeps it.

use serde_yaml::Value;

/// How a scalar is written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Style {
    Plain,
    Single,
    Double,
}

/// `value` written in `style` where the value allows it: plain falls back to single quotes,
/// single quotes to double quotes (for control characters). `flow` means inside `[…]`.
pub(super) fn render(value: &str, style: Style, flow: bool) -> String {
    match style {
        Style::Plain if plain_ok(value, flow) => value.to_string(),
        Style::Plain | Style::Single if !value.chars().any(is_break) => {
            format!("'{}'", value.replace('\'', "''"))
        }
        _ => {
            let mut out = String::from("\"");
            for c in value.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    '\r' => out.push_str("\\r"),
                    c if is_break(c) => out.push_str(&format!("\\u{:04X}", c as u32)),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        }
    }
}

/// Control characters and the characters YAML 1.1 reads as line breaks or ignores.
pub(super) fn is_break(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
}

/// Whether `value` can be written unquoted and read back as the same string, by this parser
/// and by YAML 1.1 readers (which take `yes`, `on` or `0x1F` for booleans and numbers).
pub(super) fn plain_ok(value: &str, flow: bool) -> bool {
    let Some(first) = value.chars().next() else {
        return false;
    };
    let second = value[first.len_utf8()..].chars().next();
    let lower = value.to_lowercase();
    let reserved = [
        "yes", "no", "y", "n", "on", "off", "true", "false", "null", "~", ".inf", "+.inf", "-.inf",
        ".nan",
    ];
    let digits = |s: &str, radix| !s.is_empty() && s.chars().all(|c| c.is_digit(radix) || c == '_');
    let numeric = value.parse::<f64>().is_ok()
        || ["0x", "0o", "0b"]
            .iter()
            .zip([16, 8, 2])
            .any(|(p, r)| lower.strip_prefix(p).is_some_and(|s| digits(s, r)))
        || (value.chars().any(|c| c.is_ascii_digit())
            && value
                .chars()
                .all(|c| c.is_ascii_digit() || "_:.+-".contains(c))
            && !crate::markdown::frontmatter::is_date(value));
    let needs_quotes = value != value.trim()
        || value.chars().any(is_break)
        || "#,[]{}&*!|>'\"%@`".contains(first)
        || (matches!(first, '-' | '?' | ':')
            && second.is_none_or(|c| c.is_whitespace() || "[]{},".contains(c)))
        || value.contains(": ")
        || value.ends_with(':')
        || value.contains(" #")
        || (flow && value.contains([',', '[', ']', '{', '}', ':', '#']))
        || reserved.contains(&lower.as_str())
        || numeric;
    if needs_quotes {
        return false;
    }
    // The last word is the parser's: the value must read back as exactly this string.
    let yaml = if flow {
        format!("k: [{value}]\n")
    } else {
        format!("k: {value}\n")
    };
    match serde_yaml::from_str::<Value>(&yaml)
        .ok()
        .as_ref()
        .and_then(|m| m.get("k"))
    {
        Some(Value::String(s)) => !flow && s == value,
        Some(Value::Sequence(s)) => flow && s.len() == 1 && s[0].as_str() == Some(value),
        _ => false,
    }
}

/// The text of a scalar as the frontmatter parser keeps it; `None` for null or a collection.
pub(super) fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Tagged(t) => scalar_text(&t.value),
        _ => None,
    }
}

/// A scalar's value from its source text.
pub(super) fn yaml_scalar(src: &str) -> Option<String> {
    scalar_text(&serde_yaml::from_str::<Value>(src).ok()?)
}

pub(super) fn untag(v: Option<Value>) -> Option<Value> {
    match v {
        Some(Value::Tagged(t)) => Some(t.value),
        other => other,
    }
}
