//! How a report holds what a command found: all of it (a reply that is one message, as the
//! MCP server's), or only what is bounded by the vault, the rest read again from the manifest
//! or the files as it is written out, so that memory does not grow with the findings. The
//! output is the same either way, byte for byte.

use serde::ser::{Error as _, SerializeSeq};
use serde::{Serialize, Serializer};
use std::ops::ControlFlow;

/// How a report holds its findings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Holding {
    /// All of them (a reply that is one message, as the MCP server's).
    #[default]
    Whole,
    /// Those bounded by the vault; the others are read as they are written.
    Streamed,
}

/// Serialise as a list what `each` gives, as it gives it (`len`, when it is known, is the
/// list's length): the first error, of the serialiser or of `each` reading what it gives, ends
/// it.
pub fn list<S, T, E>(
    s: S,
    len: Option<usize>,
    each: impl FnOnce(&mut dyn FnMut(&T) -> ControlFlow<()>) -> Result<(), E>,
) -> Result<S::Ok, S::Error>
where
    S: Serializer,
    T: Serialize + ?Sized,
    E: std::fmt::Display,
{
    let mut list = s.serialize_seq(len)?;
    let mut failed = None;
    let read = each(&mut |t| match list.serialize_element(t) {
        Ok(()) => ControlFlow::Continue(()),
        Err(e) => {
            failed = Some(e);
            ControlFlow::Break(())
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    read.map_err(S::Error::custom)?;
    list.end()
}
