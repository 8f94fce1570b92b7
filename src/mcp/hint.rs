//! How the MCP server words the core's advice: each [`Action`] as the tool that does it
//! (`call `sparks_prepare_ingest``), or, when no tool does it, as what needs to happen. No
//! wording here is a command line: an agent is never told to run a shell command.

use crate::failure::Action;
use crate::operation::Operation;

/// The arguments of the tool that runs `op` again, as JSON, when they are known (an earlier
/// Sparks journaled a command line, not arguments).
pub fn arguments(op: &Operation) -> Option<serde_json::Value> {
    Some(match op {
        Operation::Mv {
            page,
            new,
            no_alias: true,
        } => serde_json::json!({ "page": page, "new": new, "no_alias": true }),
        Operation::Mv { page, new, .. } => serde_json::json!({ "page": page, "new": new }),
        Operation::Merge { from, into } => serde_json::json!({ "from": from, "into": into }),
        Operation::Revert { id } => serde_json::json!({ "id": id }),
        Operation::Recorded { .. } => return None,
    })
}

/// The tool that does `action`, with the arguments that make it do so, when one does.
pub fn tool(action: &Action) -> Option<&'static str> {
    Some(match action {
        Action::Prepare => "`sparks_prepare_ingest`",
        Action::Finalize => "`sparks_finalize_ingest`",
        Action::Abort => "`sparks_abort_ingest`",
        Action::Sync => "`sparks_sync`",
        Action::ListIngests => "`sparks_ingest_list`",
        Action::Scan => "`sparks_scan`",
        Action::Search => "`sparks_search`",
        Action::Resolve => "`sparks_query` with `resolve`",
        Action::Merge => "`sparks_merge`",
        Action::FmtFix => "`sparks_fmt` with `fix: true`",
        Action::Resume(op) => match op.kind() {
            "mv" => "`sparks_move`",
            "merge" => "`sparks_merge`",
            "revert" => "`sparks_revert_ingest`",
            _ => return None,
        },
        Action::Rebuild
        | Action::SetUpRemote
        | Action::LintChecks
        | Action::Init
        | Action::FindVault
        | Action::CheckVault
        | Action::SetIdentity
        | Action::RestoreFromGit
        | Action::InstallContract { .. }
        | Action::Track { .. }
        | Action::FinishGit { .. }
        | Action::AcceptSetting { .. }
        | Action::Again => return None,
    })
}

/// `action` as the MCP server says it, where a verb phrase goes in a hint.
pub fn word(action: &Action) -> String {
    match action {
        Action::Resume(op) => match (tool(action), arguments(op)) {
            (Some(t), Some(args)) => format!("call {t} again with `{args}`"),
            (Some(t), None) => format!("call {t} again with the same arguments"),
            (None, _) => "call the tool that started it again with the same arguments".into(),
        },
        Action::Again => "call the tool again".into(),
        Action::Rebuild => "have the manifest rebuilt from the files (no tool does this; \
                            whoever runs the server can)"
            .into(),
        Action::LintChecks => "read the description of `sparks_lint`".into(),
        Action::Init => "have the vault initialised again (no tool does this; whoever runs \
                         the server can)"
            .into(),
        Action::FindVault => "start the server inside a vault, or give it the vault's path \
                              (a vault is created by initialising it, which no tool does)"
            .into(),
        Action::CheckVault => "check the vault path the server was started with".into(),
        Action::SetUpRemote => "have the vault's directory made a git repository with a remote \
                                (no tool does this; whoever runs the server can, with git)"
            .into(),
        Action::SetIdentity => "give git an identity: user.name and user.email in git's \
                                configuration, or GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL, \
                                GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL (or EMAIL) in the \
                                server's environment"
            .into(),
        Action::RestoreFromGit => "from git if they were committed".into(),
        Action::FinishGit { operation } => format!(
            "have the unfinished git {operation} finished or aborted (no tool does this; \
             whoever runs the server can, with git)"
        ),
        Action::Track { .. } => "have it added to git if it belongs in the vault (no tool does \
                                 this; whoever runs the server can)"
            .into(),
        Action::AcceptSetting { .. } => "have it accepted on this device if it is trusted (no \
                                         tool does this, as no commit may redirect a sync; \
                                         whoever runs the server can)"
            .into(),
        Action::InstallContract { agent } => format!(
            "have the {agent} instruction file installed again from the contract (no tool \
             does this; whoever runs the server can)"
        ),
        other => match tool(other) {
            Some(t) => format!("call {t}"),
            None => "call the tool that does it".into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::Hint;

    #[test]
    fn every_action_names_a_tool_or_no_command() {
        for a in Action::samples() {
            let w = word(&a);
            assert!(!w.contains("sparks "), "{a:?} is worded {w:?}");
            assert!(!w.contains("--"), "{a:?} is worded {w:?}, with a flag");
            assert!(!w.contains("`git"), "{a:?} is worded {w:?}, with git");
            match tool(&a) {
                Some(t) => assert!(w.contains(t) && t.starts_with("`sparks_"), "{a:?}: {w}"),
                None => assert!(
                    !w.contains('`') || w.contains("`sparks_"),
                    "{a:?} is worded {w:?}, with a command in backticks"
                ),
            }
        }
    }

    #[test]
    fn each_hint_an_mcp_client_can_receive_names_no_command_line() {
        // The advice of every error kind that carries an action, worded for MCP.
        let errors: Vec<crate::failure::Advice> = vec![
            crate::ingest::IngestError::NoOpenIngest.hint().unwrap(),
            crate::ingest::IngestError::UnknownIngest(3).hint().unwrap(),
            crate::ingest::IngestError::InboxMissing("inbox.md".into())
                .hint()
                .unwrap(),
        ];
        for e in errors {
            let w = e.words(word);
            assert!(!w.contains("sparks ") && !w.contains("--"), "{w}");
        }
        let w = crate::ingest::IngestError::NoOpenIngest
            .hint()
            .unwrap()
            .words(word);
        assert_eq!(w, "call `sparks_prepare_ingest` first");
        // An interrupted operation, in its message and its hint: the tool and its arguments.
        let mv = Operation::Mv {
            page: "A".into(),
            new: "B".into(),
            no_alias: false,
        };
        for failure in [
            crate::failure::Failure::from(crate::mv::MoveError::Unfinished(mv.clone())),
            crate::failure::Failure::from(crate::runstate::RunStateError::Unfinished(mv.clone())),
        ] {
            let text = failure.text(word);
            assert!(
                !text.contains("sparks mv") && !text.contains("--"),
                "{text}"
            );
            assert!(
                text.contains(r#"call `sparks_move` again with `{"page":"A","new":"B"}`"#),
                "{text}"
            );
        }
        let revert = Action::Resume(Operation::Revert { id: 3 });
        assert_eq!(
            word(&revert),
            r#"call `sparks_revert_ingest` again with `{"id":3}`"#
        );
    }
}
