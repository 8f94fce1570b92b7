//! How a failed operation is told, the same way by both front ends: its message, each cause the
//! message does not already say, and what the user can do about it (its [`Advice`]). The CLI
//! prints a [`Failure`] on stderr (`error:`, `caused by:`, `hint:`); the MCP server returns the
//! same lines as a tool error. A failure of the request itself (arguments that break a rule) is
//! a usage failure: exit 2 in the CLI.
//!
//! Advice is neutral to the front end: the core says what is needed, plain words and the
//! [`Action`]s they name with their arguments; each front end words an action its own way (the
//! CLI as a command line, the MCP server as a tool call), through a [`Wording`]. No advice
//! below the front ends names a command line.

use std::borrow::Cow;
use std::fmt;

/// What a person can do about an error. Every core error implements it; the advice of a
/// wrapped error is passed on by the wrapper.
pub trait Hint {
    /// The advice, if any helps.
    fn hint(&self) -> Option<Advice>;
}

/// Something a hint can ask for, with its arguments. Each front end words it
/// (`cli::hint`, `mcp::hint`); an action that has no MCP tool is worded there as what needs
/// to happen, never as a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Hand out a batch of inbox entries (ingest's prepare).
    Prepare,
    /// Finalize the open ingest, or resume a finalize that stopped.
    Finalize,
    /// Abort the open ingest (its entries stay in the inbox).
    Abort,
    /// Sync the vault with its git remote.
    Sync,
    /// Make the vault's directory a git repository with a remote to sync with (git does it).
    SetUpRemote,
    /// List the ingests.
    ListIngests,
    /// Bring the manifest up to date from the files.
    Scan,
    /// Set the manifest aside and build a new one from the files (no MCP tool does it).
    Rebuild,
    /// Search the pages by their title or text.
    Search,
    /// List the pages a name could mean, with their paths.
    Resolve,
    /// Merge two pages.
    Merge,
    /// Apply the mechanical frontmatter fixes.
    FmtFix,
    /// Say what each lint check does.
    LintChecks,
    /// Initialise the vault again, in place (no MCP tool does it).
    Init,
    /// Create a vault, or say which one (the CLI's vault option; the MCP server's start).
    FindVault,
    /// Check the vault path that was given.
    CheckVault,
    /// Give git an author and committer identity.
    SetIdentity,
    /// Put changed files back from git (when they were committed).
    RestoreFromGit,
    /// Install an agent's instruction file from the contract again (no MCP tool does it).
    InstallContract {
        /// The agent (`claude`, `codex`, …).
        agent: String,
    },
    /// Run the same command (call the same tool) again.
    Again,
    /// Finish or abort the operation a plain git command left under way (git does it; no MCP
    /// tool).
    FinishGit {
        /// `merge`, `rebase`, `cherry-pick`, `revert`, `am` or `bisect`.
        operation: String,
    },
    /// Have git track a file, so that Sparks' commits take it (git does it; no MCP tool).
    Track {
        /// The vault-relative path, or `None` for "the file" in general.
        path: Option<String>,
    },
    /// Accept on this device a `[sync]` setting that came with a commit (no MCP tool does it: an
    /// agent must not redirect the device's sync). This device keeps the values it applies in
    /// the repository's local git configuration, under `key`; forgetting one makes the next
    /// sync take the value in `sparks.toml`.
    AcceptSetting {
        /// Where this device keeps the value (`sparks.syncRemote`).
        key: String,
        /// For `[sync] remote`: the remote sparks.toml names, which a sync with that remote
        /// named on the command line accepts.
        remote: Option<String>,
    },
    /// Complete an interrupted operation by running it again, with the same arguments.
    Resume(crate::operation::Operation),
}

impl Action {
    /// Every kind of action, with sample arguments (for tests of a front end's wording).
    pub fn samples() -> Vec<Action> {
        use crate::operation::Operation;
        vec![
            Action::Prepare,
            Action::Finalize,
            Action::Abort,
            Action::Sync,
            Action::SetUpRemote,
            Action::ListIngests,
            Action::Scan,
            Action::Rebuild,
            Action::Search,
            Action::Resolve,
            Action::Merge,
            Action::FmtFix,
            Action::LintChecks,
            Action::Init,
            Action::FindVault,
            Action::CheckVault,
            Action::SetIdentity,
            Action::RestoreFromGit,
            Action::InstallContract {
                agent: "claude".into(),
            },
            Action::Again,
            Action::Track {
                path: Some(".env".into()),
            },
            Action::Track { path: None },
            Action::FinishGit {
                operation: "merge".into(),
            },
            Action::FinishGit {
                operation: "rebase".into(),
            },
            Action::FinishGit {
                operation: "bisect".into(),
            },
            Action::AcceptSetting {
                key: "sparks.syncRemote".into(),
                remote: Some("backup".into()),
            },
            Action::AcceptSetting {
                key: "sparks.syncGitCli".into(),
                remote: None,
            },
            Action::Resume(Operation::Mv {
                page: "Old Name".into(),
                new: "New".into(),
                no_alias: true,
            }),
            Action::Resume(Operation::Merge {
                from: "A".into(),
                into: "B".into(),
            }),
            Action::Resume(Operation::Revert { id: 3 }),
            // As an earlier Sparks journaled them, with the command line it wrote.
            Action::Resume(Operation::Recorded {
                kind: "mv".into(),
                command: "the command line of a move".into(),
            }),
            Action::Resume(Operation::Recorded {
                kind: "other".into(),
                command: "the command line of another".into(),
            }),
        ]
    }
}

/// How a front end words an action: a phrase that fits a sentence where a verb phrase goes
/// (`run `sparks scan``, `call `sparks_scan``).
pub type Wording = fn(&Action) -> String;

/// One piece of advice: words, or an action for the front end to word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Plain words, neutral to the front end.
    Say(Cow<'static, str>),
    /// An action.
    Do(Action),
}

/// What to do about a failure: words and actions, in the order they are said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advice(Vec<Part>);

impl Advice {
    /// Advice in plain words.
    pub fn say(text: impl Into<Cow<'static, str>>) -> Advice {
        Advice(vec![Part::Say(text.into())])
    }

    /// Advice that starts with an action.
    pub fn run(action: Action) -> Advice {
        Advice(vec![Part::Do(action)])
    }

    /// The same advice followed by these words.
    pub fn then(mut self, text: impl Into<Cow<'static, str>>) -> Advice {
        self.0.push(Part::Say(text.into()));
        self
    }

    /// The same advice followed by this action.
    pub fn then_run(mut self, action: Action) -> Advice {
        self.0.push(Part::Do(action));
        self
    }

    /// What to do about a full disk, whatever was being written.
    pub fn free_space() -> Advice {
        Advice::say("free some space on the disk that holds the vault, then ")
            .then_run(Action::Again)
    }

    /// Its parts, in order.
    pub fn parts(&self) -> &[Part] {
        &self.0
    }

    /// The advice in words, each action worded by `word`.
    pub fn words(&self, word: Wording) -> String {
        self.0
            .iter()
            .map(|p| match p {
                Part::Say(text) => text.clone(),
                Part::Do(action) => Cow::Owned(word(action)),
            })
            .collect()
    }
}

impl From<&'static str> for Advice {
    fn from(text: &'static str) -> Advice {
        Advice::say(text)
    }
}

impl From<String> for Advice {
    fn from(text: String) -> Advice {
        Advice::say(text)
    }
}

/// A failed operation, ready to be told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What went wrong.
    pub message: String,
    /// Its causes, outermost first, each said once.
    pub causes: Vec<String>,
    /// What to do about it.
    pub hint: Option<Advice>,
    /// True when the request broke a rule of its arguments (a usage error), not when it ran and
    /// failed.
    pub usage: bool,
}

impl Failure {
    /// A usage failure: the arguments break a rule of the operation.
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            causes: Vec::new(),
            hint: None,
            usage: true,
        }
    }

    /// A failure with this message and these causes (outermost first), each said once.
    pub fn of(message: String, causes: impl IntoIterator<Item = String>) -> Failure {
        Failure {
            causes: said_once(&message, causes),
            message,
            hint: None,
            usage: false,
        }
    }

    /// The same failure with this advice.
    pub fn with_hint(mut self, hint: impl Into<Advice>) -> Failure {
        self.hint = Some(hint.into());
        self
    }

    /// The lines after the message: each cause.
    pub fn details(&self) -> Vec<String> {
        self.causes
            .iter()
            .map(|c| format!("  caused by: {c}"))
            .collect()
    }

    /// Its advice in words, each action worded by `word`.
    pub fn hint_words(&self, word: Wording) -> Option<String> {
        self.hint.as_ref().map(|h| h.words(word))
    }

    /// The whole failure as text: the message, its causes and its hint (actions worded by
    /// `word`), one a line.
    pub fn text(&self, word: Wording) -> String {
        let mut text = self.message.clone();
        for d in self.details() {
            text.push('\n');
            text.push_str(&d);
        }
        if let Some(h) = self.hint_words(word) {
            text.push_str("\nhint: ");
            text.push_str(&h);
        }
        text
    }
}

/// Causes, outermost first, less those a message before them already says: many messages
/// include their cause's text, and each thing is said once.
fn said_once(message: &str, causes: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut said = Vec::new();
    let mut last = message.to_string();
    for c in causes {
        if !last.contains(&c) {
            said.push(c.clone());
        }
        last = c;
    }
    said
}

impl<E: std::error::Error + Hint> From<E> for Failure {
    /// The error told with its causes; a full disk anywhere among them (a write that failed
    /// with ENOSPC, however it was wrapped) is what to act on, so the advice is to free space.
    fn from(err: E) -> Failure {
        let mut causes = Vec::new();
        let mut full = false;
        let mut source = err.source();
        while let Some(cause) = source {
            causes.push(cause.to_string());
            full |= cause
                .downcast_ref::<std::io::Error>()
                .is_some_and(crate::fsio::is_full);
            source = cause.source();
        }
        Failure {
            hint: if full {
                Some(Advice::free_space())
            } else {
                err.hint()
            },
            ..Failure::of(err.to_string(), causes)
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("cannot write x: {0}")]
    struct Outer(#[source] std::io::Error);

    impl Hint for Outer {
        fn hint(&self) -> Option<Advice> {
            Some(Advice::say("free some space, then ").then_run(Action::Again))
        }
    }

    #[derive(Debug, thiserror::Error)]
    #[error("cannot finalize")]
    struct Wrapper(#[source] Outer);

    impl Hint for Wrapper {
        fn hint(&self) -> Option<Advice> {
            self.0.hint()
        }
    }

    fn word(a: &Action) -> String {
        format!("<{a:?}>")
    }

    #[test]
    fn causes_are_said_once_and_the_hint_comes_last() {
        let f = Failure::from(Outer(std::io::Error::other("disk full")));
        assert_eq!(f.message, "cannot write x: disk full");
        assert!(f.causes.is_empty(), "the message says the cause already");
        let f = Failure::from(Wrapper(Outer(std::io::Error::other("disk full"))));
        assert_eq!(
            f.text(word),
            "cannot finalize\n  caused by: cannot write x: disk full\nhint: free some space, \
             then <Again>"
        );
        assert!(!f.usage);
        assert!(Failure::usage("days: too many").usage);
    }

    /// An error that advises something else.
    #[derive(Debug, thiserror::Error)]
    #[error("cannot finalize")]
    struct Resumable(#[source] std::io::Error);

    impl Hint for Resumable {
        fn hint(&self) -> Option<Advice> {
            Some(Advice::run(Action::Rebuild))
        }
    }

    #[test]
    fn a_full_disk_among_the_causes_is_advised_over_the_error_s_own_hint() {
        for kind in [
            std::io::ErrorKind::StorageFull,
            std::io::ErrorKind::QuotaExceeded,
        ] {
            let f = Failure::from(Resumable(std::io::Error::from(kind)));
            assert_eq!(f.hint, Some(Advice::free_space()), "{kind:?}");
            // However deep it is wrapped.
            let f = Failure::from(Wrapper(Outer(std::io::Error::from(kind))));
            assert_eq!(f.hint, Some(Advice::free_space()), "{kind:?}");
        }
        let f = Failure::from(Resumable(std::io::Error::other("no such file")));
        assert_eq!(f.hint, Some(Advice::run(Action::Rebuild)));
    }

    #[test]
    fn advice_says_its_words_and_actions_in_order() {
        let a = Advice::run(Action::Prepare)
            .then(" first; ")
            .then_run(Action::Scan);
        assert_eq!(a.words(word), "<Prepare> first; <Scan>");
        assert_eq!(Advice::from("plain").words(word), "plain");
    }
}
