//! Tool results. A success carries the same JSON the CLI prints with `--json` (the same report
//! serialized the same way) as its text, and the same value as structured content. A failure
//! is a tool error (`isError: true`) whose text is the message, its causes and a hint, said
//! once, as the CLI says them on stderr ([`Failure::text`]).

use crate::failure::Failure;
use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;

/// A report, as the CLI's `--json` prints it; a report that cannot be serialized is a failure.
pub fn json<T: Serialize>(report: &T) -> CallToolResult {
    let encoded = serde_json::to_string_pretty(report)
        .and_then(|text| serde_json::to_value(report).map(|value| (text, value)));
    match encoded {
        Ok((mut text, value)) => {
            text.push('\n');
            let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
            result.structured_content = Some(value);
            result
        }
        Err(e) => CallToolResult::error(vec![ContentBlock::text(format!(
            "the report could not be encoded: {e}"
        ))]),
    }
}

/// Plain text (the contract).
pub fn text(text: &str) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// A tool error telling this failure.
pub fn failure(failure: &Failure) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(failure.text(super::hint::word))])
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
        let r = json(&serde_json::json!({"b": [], "a": 1}));
        assert_eq!(text_of(&r), "{\n  \"b\": [],\n  \"a\": 1\n}\n");
        assert_eq!(
            r.structured_content,
            Some(serde_json::json!({"b": [], "a": 1}))
        );
        assert_ne!(r.is_error, Some(true));
    }

    #[test]
    fn a_failure_says_its_causes_once_and_its_hint() {
        let f = Failure {
            message: "cannot write x".into(),
            causes: vec!["disk full".into()],
            hint: Some(
                crate::failure::Advice::say("free some space, then ")
                    .then_run(crate::failure::Action::Finalize),
            ),
            usage: false,
        };
        let r = failure(&f);
        assert_eq!(r.is_error, Some(true));
        assert_eq!(
            text_of(&r),
            "cannot write x\n  caused by: disk full\nhint: free some space, then call \
             `sparks_finalize_ingest`"
        );
    }
}
