//! How the command line words the core's advice: each [`Action`] as the command a person
//! types (`run `sparks ingest --prepare``), or the flags and git commands that do it.

use crate::failure::{Action, Failure};
use crate::operation::Operation;

/// A word of a command line, quoted for a shell when it needs it.
pub fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '+' | ','));
    match plain {
        true => s.to_string(),
        false => format!("'{}'", s.replace('\'', "'\\''")),
    }
}

/// The command line that runs `op` again (an earlier Sparks' record is its command line).
pub fn operation(op: &Operation) -> String {
    match op {
        Operation::Mv {
            page,
            new,
            no_alias,
        } => format!(
            "sparks mv {} {}{}",
            shell_word(page),
            shell_word(new),
            if *no_alias { " --no-alias" } else { "" }
        ),
        Operation::Merge { from, into } => {
            format!("sparks merge {} {}", shell_word(from), shell_word(into))
        }
        Operation::Revert { id } => format!("sparks ingest --revert {id}"),
        Operation::Recorded { command, .. } => command.clone(),
    }
}

/// The command line that does `action`, when one command does it.
pub fn command(action: &Action) -> Option<String> {
    Some(match action {
        Action::Prepare => "sparks ingest --prepare".into(),
        Action::Finalize => "sparks ingest --finalize".into(),
        Action::Abort => "sparks ingest --abort".into(),
        Action::Sync => "sparks sync".into(),
        Action::ListIngests => "sparks ingest --list".into(),
        Action::Scan => "sparks scan".into(),
        Action::Rebuild => "sparks scan --rebuild".into(),
        Action::Search => "sparks search WORDS".into(),
        Action::Resolve => "sparks query --resolve NAME".into(),
        Action::Merge => "sparks merge FROM INTO".into(),
        Action::FmtFix => "sparks fmt --fix".into(),
        Action::LintChecks => "sparks lint --help".into(),
        Action::Init => "sparks init".into(),
        Action::InstallContract { agent } => format!("sparks init --agent {agent} --force"),
        Action::Resume(op) => operation(op),
        Action::AcceptSetting {
            remote: Some(remote),
            ..
        } => format!("sparks sync --remote {}", shell_word(remote)),
        Action::FindVault
        | Action::Track { .. }
        | Action::FinishGit { .. }
        | Action::AcceptSetting { remote: None, .. }
        | Action::SetUpRemote
        | Action::CheckVault
        | Action::SetIdentity
        | Action::RestoreFromGit
        | Action::Again => return None,
    })
}

/// The command line that does `action`, or its wording when no one command does (what a
/// report says where JSON holds a hint: a lint note's).
pub fn command_line(action: &Action) -> String {
    command(action).unwrap_or_else(|| word(action))
}

/// `action` as the command line says it, where a verb phrase goes in a hint.
pub fn word(action: &Action) -> String {
    match action {
        Action::FindVault => {
            "run `sparks init` to create a vault, or pass --vault PATH (or set SPARKS_VAULT)".into()
        }
        Action::CheckVault => "check the path given to --vault (or SPARKS_VAULT); `sparks init \
                               PATH` creates a vault there"
            .into(),
        Action::SetIdentity => "run `git config --global user.name \"Your Name\"` and `git \
                                config --global user.email you@example.com`, or set \
                                GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL, GIT_COMMITTER_NAME and \
                                GIT_COMMITTER_EMAIL (or EMAIL) in the environment"
            .into(),
        Action::RestoreFromGit => "`git checkout -- PATH` if they were committed".into(),
        Action::SetUpRemote => "make the vault a git repository with a remote (`git init`, \
                                `git remote add origin URL`, a first commit)"
            .into(),
        Action::Again => "run the command again".into(),
        Action::Init => "run `sparks init` in the vault".into(),
        Action::Resume(op) => format!("run `{}` again", operation(op)),
        Action::Track { path } => {
            let path = path.as_deref().map_or("PATH".into(), shell_word);
            format!("run `git add {path}`")
        }
        Action::FinishGit { operation } => match operation.as_str() {
            "bisect" => "end the bisect with `git bisect reset`".into(),
            "merge" => "finish the merge with git (resolve each conflict, `git add` the file, \
                        `git commit`) or abort it with `git merge --abort`"
                .into(),
            op => format!(
                "finish the {op} with git (resolve each conflict, `git add` the file, `git {op} \
                 --continue`) or abort it with `git {op} --abort`"
            ),
        },
        Action::AcceptSetting { key, remote: None } => format!(
            "run `git config --unset {key}`: the next `sparks sync` applies the value in \
             sparks.toml"
        ),
        other => match command(other) {
            Some(c) => format!("run `{c}`"),
            None => format!("{other:?}"),
        },
    }
}

/// A failure's hint in the command line's words.
pub fn of(failure: &Failure) -> Option<String> {
    failure.hint_words(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_is_worded_as_a_command_line() {
        for a in Action::samples() {
            let w = word(&a);
            if a == Action::Again {
                continue;
            }
            if let Action::Resume(Operation::Recorded { command, .. }) = &a {
                assert_eq!(w, format!("run `{command}` again"), "as it was recorded");
                continue;
            }
            assert!(
                w.contains("`sparks ") || w.contains("`git ") || w.contains("--vault"),
                "{a:?} is worded {w:?}, which names no command"
            );
            if let Some(c) = command(&a) {
                assert!(c.starts_with("sparks "), "{a:?}: {c}");
                assert!(w.contains(&format!("`{c}`")), "{a:?}: {w}");
            }
        }
        assert_eq!(word(&Action::Again), "run the command again");
        let mv = Action::Resume(Operation::Mv {
            page: "Old Name".into(),
            new: "it's".into(),
            no_alias: true,
        });
        assert_eq!(
            word(&mv),
            r"run `sparks mv 'Old Name' 'it'\''s' --no-alias` again"
        );
    }
}
