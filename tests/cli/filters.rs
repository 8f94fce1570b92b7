//! The snapshot macro and its filters, which replace what differs between runs (temp paths,
//! times, hashes, durations) so that a snapshot says only what a run decided.

use crate::harness::TestVault;

/// Settings that replace what differs between runs: temp paths, times, hashes, durations.
/// `snapshot!(v, value)` checks a snapshot file; `snapshot!(v, value, @"…")` an inline one,
/// for human output a test reads best beside the command that printed it.
#[macro_export]
macro_rules! snapshot {
    ($vault:expr, $value:expr) => {{
        $crate::filters::filters(&$vault).bind(|| insta::assert_snapshot!($value));
    }};
    ($vault:expr, $value:expr, @$expected:literal) => {{
        $crate::filters::filters(&$vault).bind(|| insta::assert_snapshot!($value, @$expected));
    }};
}

/// The filters of [`snapshot!`] for this vault.
pub fn filters(vault: &TestVault) -> insta::Settings {
    let root = vault.root.display().to_string();
    let dir = vault.dir.path().display().to_string();
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex_escape(&root), "[VAULT]");
    settings.add_filter(&regex_escape(&dir), "[TMP]");
    settings.add_filter(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)",
        "[TIME]",
    );
    settings.add_filter(r"\b[0-9a-f]{64}\b", "[HASH]");
    settings.add_filter(r"\b[0-9a-f]{40}\b", "[SHA]");
    settings.add_filter(r"in \d+ms", "in [N]ms");
    // A manifest set aside by `scan --rebuild`: `sparks.db.old-<the time, digits only>`.
    settings.add_filter(r"\.old-\d{8}T\d+", ".old-[STAMP]");
    settings.add_filter(r#""duration_(ms|ns)": \d+"#, r#""duration_$1": [N]"#);
    settings
}

/// Escape a literal for a regex filter.
pub fn regex_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
