//! The MCP server's errors speak its language (spec decision 20): a refused argument is named
//! as the tool's argument (`date`), never as the command line's flag (`--date`), and no
//! message tells an agent to run a command.

use crate::harness::TestVault;
use crate::mcp::{is_error, refused, run_client, text};
use serde_json::{Value, json};

#[test]
fn a_refused_argument_is_named_as_the_tools_argument_not_a_flag() {
    let v = TestVault::new();
    let cases = [
        (
            "sparks_capture",
            json!({"text": "a thought", "date": "soon"}),
            "date \"soon\" is not a YYYY-MM-DD date",
        ),
        (
            "sparks_sync",
            json!({"remote": "-x"}),
            "remote \"-x\" is not a remote's name",
        ),
        (
            "sparks_tasks_list",
            json!({"section": "  "}),
            "section is empty",
        ),
    ];
    let steps: Vec<_> = cases
        .iter()
        .map(|(tool, args, says)| refused(tool, args.clone(), says))
        .collect();
    let records = run_client(&v, &steps, false);
    let calls: Vec<&Value> = records.iter().filter(|r| r["kind"] == "call").collect();
    assert_eq!(calls.len(), cases.len(), "{records:?}");
    for (call, (tool, _, says)) in calls.iter().zip(&cases) {
        let said = text(&call["result"]);
        assert!(is_error(&call["result"]), "{tool}: {call}");
        assert!(
            said.contains(says),
            "{tool}: {said:?} does not say {says:?}"
        );
        assert!(!said.contains("--"), "{tool} names a flag: {said}");
    }
    assert!(
        !v.read("inbox.md").contains("a thought"),
        "nothing was captured"
    );
}
