//! `scan`: bring the manifest up to date with the files.

use super::{Ending, Report, Request};
use crate::failure::Failure;
use crate::manifest::Manifest;
use crate::scan::{ScanError, ScanOptions, ScanReport};
use crate::session::Session;
use crate::vault::MANIFEST;

/// `scan`, incremental unless `full`; with `rebuild`, the old manifest is set aside first and
/// a new one built from the files.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    /// Read every file, whatever its metadata says.
    pub full: bool,
    /// Set the manifest aside and build a new one.
    pub rebuild: bool,
}

impl Request for Scan {
    type Report = ScanReport;

    fn writes(&self) -> bool {
        false
    }

    fn run(self, s: &Session) -> Result<ScanReport, Failure> {
        let path = s.vault.path(MANIFEST);
        let set_aside = match self.rebuild {
            true => {
                crate::manifest::set_aside(&path, &s.now.timestamp).map_err(ScanError::SetAside)?
            }
            false => Vec::new(),
        };
        // The history of ingests is no file's: it comes over from the old manifest, if that
        // still reads (a corrupt one may not).
        let (mut history_kept, mut warnings) = (None, Vec::new());
        if let Some(old) = set_aside.first() {
            match Manifest::open(&path).and_then(|mut m| m.import_history(old)) {
                Ok(n) => history_kept = Some(n),
                Err(e) => warnings.push(format!(
                    "the history of ingests could not be carried over from {} ({e}): \
                     the list of ingests starts afresh, and earlier ingests cannot be reverted",
                    old.display()
                )),
            }
        }
        let mut manifest = s.manifest()?;
        let opts = ScanOptions { full: self.full };
        let report = crate::scan::scan(
            &s.vault,
            &mut manifest,
            opts,
            &s.now.timestamp,
            s.now.ns,
            &*s.progress,
        )?;
        Ok(ScanReport {
            set_aside,
            history_kept,
            warnings,
            ..report
        })
    }
}

impl Report for ScanReport {
    /// Files that could not be read are problems: exit 1.
    fn ending(&self) -> Ending {
        match self.errors.is_empty() {
            true => Ending::Done,
            false => Ending::Problems,
        }
    }
}
