//! `sparks capture`: one entry appended to `inbox.md`, the way scripts, shortcuts and agents add
//! to the inbox. It is written under the vault lock (finalize rewrites the inbox under it too)
//! and only over the bytes it read (a person's save in between is read again, never
//! overwritten), atomically: a capture racing a finalize is never lost.

use crate::failure::Advice;
use crate::fsio;
use crate::fsio::FileError;
use crate::inbox::{CaptureTextError, Inbox, InboxError};
use crate::lock::VaultLock;
use crate::manifest::Manifest;
use crate::progress::Silent;
use crate::scan::{self, ScanError};
use crate::vault::{INBOX, Vault};
use chrono::NaiveDate;
use serde::Serialize;
use std::path::PathBuf;

/// What was captured.
#[derive(Debug, Clone, Serialize)]
pub struct Captured {
    /// The capture date: `--date`, or the day an ingest sees it (today).
    pub capture_date: String,
    /// Whether the entry carries its own date line.
    pub dated: bool,
    /// The text as the inbox holds it.
    pub content: String,
    /// blake3 of the content, as ingest records it.
    pub hash: String,
    /// The 1-based line of `inbox.md` the capture starts on.
    pub line: usize,
    /// Entries an ingest would see now.
    pub inbox_pending: usize,
    /// What went wrong after the entry was written: the manifest could not record the inbox
    /// (the next command that can write the manifest does). The capture is made all the same;
    /// making it again would add it twice.
    pub warnings: Vec<String>,
}

/// The capture could not be made; the inbox is as it was.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// The text cannot be one capture.
    #[error(transparent)]
    Text(#[from] CaptureTextError),
    /// The inbox as it is cannot be read as an inbox.
    #[error(transparent)]
    Inbox(#[from] InboxError),
    /// Reading, locking or writing failed.
    #[error(transparent)]
    Io(#[from] FileError),
    /// The inbox kept changing under us.
    #[error("{} kept changing while the capture was written; nothing was added", path.display())]
    Busy {
        /// The inbox.
        path: PathBuf,
    },
}

impl crate::failure::Hint for CaptureError {
    fn hint(&self) -> Option<Advice> {
        match self {
            CaptureError::Inbox(InboxError::NoSeparator) => Some(Advice::say(
                "put a line `---` after the inbox's header; captures go below it",
            )),
            CaptureError::Busy { .. } => Some(Advice::say("capture again in a moment")),
            CaptureError::Text(_) | CaptureError::Inbox(_) | CaptureError::Io(_) => None,
        }
    }
}

/// How many times the inbox is read again when someone saved it between our read and write.
const ATTEMPTS: usize = 20;

/// Append `text` (dated `date` when given) to the inbox of `vault`, and record the inbox in the
/// manifest. A missing or blank inbox gets the header a new vault has.
pub fn capture(
    vault: &Vault,
    manifest: &mut Manifest,
    text: &str,
    date: Option<NaiveDate>,
    now: &crate::clock::Now,
) -> Result<Captured, CaptureError> {
    let content = crate::inbox::capture_text(text)?;
    let path = vault.path(INBOX);
    let io = |action, source| CaptureError::Io(FileError::at(action, path.clone())(source));
    let _lock = VaultLock::acquire(&vault.root).map_err(|e| io("lock the vault of", e))?;
    for _ in 0..ATTEMPTS {
        let read = fsio::read_if_exists(&path).map_err(|e| io("read", e))?;
        let base = match &read {
            Some(b) if !b.iter().all(u8::is_ascii_whitespace) => b.clone(),
            _ => crate::inbox::SEED.as_bytes().to_vec(),
        };
        let inbox = Inbox::parse(&base, now.today)?;
        let bytes = inbox.with_capture(&base, &content, date);
        // Read as an ingest will read it before it is written: if the new inbox's last entry
        // is not the capture, nothing is written.
        let after = Inbox::parse(&bytes, now.today)?;
        let Some(entry) = after.entries.last().filter(|e| e.content == content) else {
            return Err(io(
                "append the capture to",
                std::io::Error::other("the new entry would not read back as the last one"),
            ));
        };
        let written = match &read {
            Some(old) => fsio::replace_if_unchanged(&path, old, &bytes),
            None => fsio::create_atomic(&path, &bytes),
        };
        if !written.map_err(|e| io("write", e))? {
            continue;
        }
        // The entry is in the inbox: whatever fails now, the capture is made, and a caller
        // that took an error for "not captured" would add it twice.
        // One file: nothing worth a progress bar.
        let inbox = [INBOX.to_string()];
        let warnings = match scan::scan_paths(vault, manifest, &inbox, now.ns, &Silent) {
            Ok(_) => Vec::new(),
            Err(e) => vec![not_recorded(&e)],
        };
        return Ok(Captured {
            capture_date: entry.capture_date.to_string(),
            dated: entry.dated,
            content: entry.content.clone(),
            hash: entry.hash.clone(),
            line: entry.line,
            inbox_pending: after.entries.len(),
            warnings,
        });
    }
    Err(CaptureError::Busy { path })
}

/// The warning of a capture written to the inbox that the manifest could not record.
fn not_recorded(e: &ScanError) -> String {
    let mut why = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        let said = cause.to_string();
        if !why.contains(&said) {
            why = format!("{why}: {said}");
        }
        source = cause.source();
    }
    format!(
        "the capture is in {INBOX}, but the manifest could not record it ({why}); the next \
         command that can write the manifest records it: do not capture it again"
    )
}
