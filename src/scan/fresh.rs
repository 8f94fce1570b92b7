//! How fresh the manifest must be before an answer: one value ([`Freshness`]), chosen at the
//! front end (`--no-refresh`), settled by the request layer (a running watcher's word, a
//! command that writes) and passed down to [`refresh`], the one function that brings the
//! manifest up to date before it is read.

use super::{ScanError, Seen, rescan};
use crate::manifest::{Manifest, meta::LAST_SCAN};
use crate::progress::Progress;
use crate::vault::Vault;

/// How fresh the manifest must be before it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Freshness {
    /// Scan what changed before every answer: an operation that writes decides from the files
    /// as they are, each time it asks.
    Scan,
    /// Scan what changed before the first answer, then answer from the manifest as it is: a
    /// request that only reads, with no running watcher vouching for the manifest.
    #[default]
    Once,
    /// Answer from the manifest as it is: `--no-refresh`, a running watcher vouched that it
    /// applied every change, or this request brought it up to date already.
    AsIs,
}

/// The incremental scan a command runs before it answers from the manifest, so that it sees
/// the files as they are now (cheap when nothing changed: a walk and a stat per file), as
/// `fresh` asks: none for [`Freshness::AsIs`], and after the scan a [`Freshness::Once`] becomes
/// [`Freshness::AsIs`] for the rest of the request. In a vault nobody may write to, the
/// manifest stays as the last scan left it, and the result says so. `progress` hears how the
/// scan goes.
pub fn refresh(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &crate::clock::Now,
    fresh: &mut Freshness,
    progress: &dyn Progress,
) -> Result<Seen, ScanError> {
    if *fresh == Freshness::AsIs {
        return Ok(Seen::default());
    }
    if manifest.is_read_only() {
        let last = manifest.meta(LAST_SCAN)?;
        return Ok(Seen {
            scan_errors: Vec::new(),
            manifest_as_of: Some(last.unwrap_or_else(|| "never".into())),
        });
    }
    let report = rescan(vault, manifest, now, progress)?;
    if *fresh == Freshness::Once {
        *fresh = Freshness::AsIs;
    }
    Ok(Seen {
        scan_errors: report.errors,
        manifest_as_of: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;

    /// Each freshness does what it says: `AsIs` scans nothing, `Once` scans and then answers as
    /// it is, `Scan` scans every time. A scan is told by the last scan's time it records.
    #[test]
    fn each_freshness_scans_as_it_says() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        fs_err::write(dir.path().join("sparks.toml"), "").expect("config");
        let vault = Vault::open(dir.path()).expect("a vault");
        let mut m = Manifest::open(&dir.path().join("sparks.db")).expect("a manifest");
        let now = crate::clock::Now::read(None);
        let scanned = |m: &Manifest| m.meta(LAST_SCAN).expect("meta").is_some();
        let mut fresh = Freshness::AsIs;
        refresh(&vault, &mut m, &now, &mut fresh, &Silent).expect("as it is");
        assert!(!scanned(&m), "as it is: no scan");
        let mut fresh = Freshness::Once;
        refresh(&vault, &mut m, &now, &mut fresh, &Silent).expect("a scan");
        assert!(scanned(&m), "once: a scan");
        assert_eq!(fresh, Freshness::AsIs, "once scanned, as it is");
        let mut fresh = Freshness::Scan;
        refresh(&vault, &mut m, &now, &mut fresh, &Silent).expect("a scan");
        assert_eq!(
            fresh,
            Freshness::Scan,
            "a writer scans before each decision"
        );
    }
}
