//! How a failed operation is told, the same way by both front ends: its message, each cause the
//! message does not already say, and what the user can do about it (a hint). The CLI prints a
//! [`Failure`] on stderr (`error:`, `caused by:`, `hint:`); the MCP server returns the same
//! lines as a tool error. A failure of the request itself (arguments that break a rule) is a
//! usage failure: exit 2 in the CLI.

use std::fmt;

/// What a person can do about an error. Every core error implements it; the hint of a wrapped
/// error is passed on by the wrapper.
pub trait Hint {
    /// The hint, if one helps.
    fn hint(&self) -> Option<String>;
}

/// A failed operation, ready to be told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What went wrong.
    pub message: String,
    /// Its causes, outermost first, each said once.
    pub causes: Vec<String>,
    /// What to do about it.
    pub hint: Option<String>,
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

    /// The same failure with this hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Failure {
        self.hint = Some(hint.into());
        self
    }

    /// The lines after the message: each cause, then the hint.
    pub fn details(&self) -> Vec<String> {
        self.causes
            .iter()
            .map(|c| format!("  caused by: {c}"))
            .collect()
    }

    /// The whole failure as text: the message, its causes and its hint, one a line.
    pub fn text(&self) -> String {
        let mut text = self.message.clone();
        for d in self.details() {
            text.push('\n');
            text.push_str(&d);
        }
        if let Some(h) = &self.hint {
            text.push_str("\nhint: ");
            text.push_str(h);
        }
        text
    }
}

impl<E: std::error::Error + Hint> From<E> for Failure {
    fn from(err: E) -> Failure {
        let message = err.to_string();
        let mut causes = Vec::new();
        let mut last = message.clone();
        let mut source = err.source();
        while let Some(cause) = source {
            let c = cause.to_string();
            // Many messages already include their cause's text; say each thing once.
            if !last.contains(&c) {
                causes.push(c.clone());
            }
            last = c;
            source = cause.source();
        }
        Failure {
            message,
            causes,
            hint: err.hint(),
            usage: false,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// `impl Hint` for error types whose `hint()` method returns `Option<&'static str>` or
/// `Option<String>`.
#[macro_export]
macro_rules! hints {
    ($($t:ty),* $(,)?) => {$(
        impl $crate::failure::Hint for $t {
            fn hint(&self) -> Option<String> {
                <$t>::hint(self).map(Into::into)
            }
        }
    )*};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("cannot write x: {0}")]
    struct Outer(#[source] std::io::Error);

    impl Hint for Outer {
        fn hint(&self) -> Option<String> {
            Some("free some space".into())
        }
    }

    #[derive(Debug, thiserror::Error)]
    #[error("cannot finalize")]
    struct Wrapper(#[source] Outer);

    impl Hint for Wrapper {
        fn hint(&self) -> Option<String> {
            self.0.hint()
        }
    }

    #[test]
    fn causes_are_said_once_and_the_hint_comes_last() {
        let f = Failure::from(Outer(std::io::Error::other("disk full")));
        assert_eq!(f.message, "cannot write x: disk full");
        assert!(f.causes.is_empty(), "the message says the cause already");
        let f = Failure::from(Wrapper(Outer(std::io::Error::other("disk full"))));
        assert_eq!(
            f.text(),
            "cannot finalize\n  caused by: cannot write x: disk full\nhint: free some space"
        );
        assert!(!f.usage);
        assert!(Failure::usage("days: too many").usage);
    }
}
