//! Tool results. A success carries the same JSON the CLI prints with `--json` (the same report
//! serialized the same way) as its text, and the same value as structured content. A failure
//! is a tool error (`isError: true`) whose text is the message, its causes and a hint, said
//! once, as the CLI says them on stderr.

use crate::git::GitError;
use crate::index::IndexError;
use crate::ingest::{FinalizeFailed, IngestError};
use crate::manifest::ManifestError;
use crate::vault::VaultError;
use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;

/// A report, as the CLI's `--json` prints it.
pub fn json<T: Serialize>(report: &T) -> anyhow::Result<CallToolResult> {
    let mut text = serde_json::to_string_pretty(report)?;
    text.push('\n');
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(serde_json::to_value(report)?);
    Ok(result)
}

/// Plain text (the contract).
pub fn text(text: &str) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// A tool error with this message.
pub fn failure(message: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// A tool error for `err`: its message, each cause not already in it, and a hint.
pub fn error(err: &anyhow::Error) -> CallToolResult {
    let mut text = err.to_string();
    let mut last = text.clone();
    for cause in err.chain().skip(1) {
        let c = cause.to_string();
        if !last.contains(&c) {
            text.push_str(&format!("\n  caused by: {c}"));
        }
        last = c;
    }
    if let Some(h) = hint(err) {
        text.push_str(&format!("\nhint: {h}"));
    }
    failure(&text)
}

fn hint(err: &anyhow::Error) -> Option<&'static str> {
    err.chain().find_map(|e| {
        if let Some(f) = e.downcast_ref::<FinalizeFailed>() {
            f.error.hint().or(Some(
                "fix the cause and call sparks_finalize_ingest again: it resumes where it stopped",
            ))
        } else if let Some(v) = e.downcast_ref::<VaultError>() {
            v.hint().map(|_| {
                "start `sparks serve` in the vault, or with --vault PATH (or SPARKS_VAULT); \
                 `sparks init` creates one"
            })
        } else if let Some(i) = e.downcast_ref::<IngestError>() {
            i.hint()
        } else if let Some(i) = e.downcast_ref::<IndexError>() {
            i.hint()
        } else if let Some(m) = e.downcast_ref::<ManifestError>() {
            m.hint()
        } else if let Some(g) = e.downcast_ref::<GitError>() {
            g.hint()
        } else {
            None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(r: &CallToolResult) -> String {
        r.content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect()
    }

    #[test]
    fn a_report_is_the_cli_json_and_structured_content() {
        let r = json(&serde_json::json!({"b": [], "a": 1})).unwrap();
        assert_eq!(text_of(&r), "{\n  \"b\": [],\n  \"a\": 1\n}\n");
        assert_eq!(
            r.structured_content,
            Some(serde_json::json!({"b": [], "a": 1}))
        );
        assert_ne!(r.is_error, Some(true));
    }

    #[test]
    fn an_error_says_its_causes_once() {
        let err = anyhow::Error::new(std::io::Error::other("disk full")).context("cannot write x");
        let r = error(&err);
        assert_eq!(r.is_error, Some(true));
        assert_eq!(text_of(&r), "cannot write x\n  caused by: disk full");
    }
}
