//! What a request names, for the viewer: its path, still percent-encoded, decoded and turned
//! into a file that is certainly inside the vault (made safe by [`crate::render::paths`], which
//! the viewer shares with a published site), and the values of its query string. Anything
//! doubtful is refused, and the caller answers every refusal with the same 404.

use crate::render::paths::{Refused, VaultFile, clean_relative, resolve_clean};
use std::path::Path;

/// Decode `%XX` escapes. Invalid escapes, invalid UTF-8 and NUL bytes are refused.
pub fn percent_decode(s: &str) -> Result<String, Refused> {
    crate::markdown::rewrite::percent_decode(s).ok_or(Refused::Malformed)
}

/// Resolve a request path (percent-encoded, relative to the vault root) to an existing
/// regular file inside the vault. The vault root itself may be reached through a symbolic link;
/// files may be symbolic links as long as they resolve inside the (resolved) root.
pub fn resolve(root: &Path, encoded: &str) -> Result<VaultFile, Refused> {
    let rel = clean_relative(&percent_decode(encoded)?)?;
    resolve_clean(root, &rel)
}

/// The value of `name` in a form-encoded query (`+` is a space); bad encodings read as empty.
pub fn query_value(query: Option<&str>, name: &str) -> Option<String> {
    query?.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == name).then(|| percent_decode(&v.replace('+', " ")).unwrap_or_default())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::paths::{encode_path, encode_segment};

    #[test]
    fn decoding_is_strict() {
        assert_eq!(percent_decode("Garden%20Plan").unwrap(), "Garden Plan");
        assert_eq!(percent_decode("%2e%2E").unwrap(), "..");
        assert_eq!(percent_decode("caf%C3%A9").unwrap(), "café");
        assert_eq!(percent_decode("a%2"), Err(Refused::Malformed));
        assert_eq!(percent_decode("a%zz"), Err(Refused::Malformed));
        assert_eq!(percent_decode("a%00b"), Err(Refused::Malformed));
        assert_eq!(percent_decode("%FF"), Err(Refused::Malformed));
    }

    #[test]
    fn encoded_dot_segments_and_nul_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("notes");
        fs_err::create_dir_all(root.join("wiki")).unwrap();
        fs_err::create_dir_all(dir.path().join("notes-private")).unwrap();
        fs_err::write(dir.path().join("notes-private/diary.md"), "secret").unwrap();
        fs_err::write(root.join("wiki/a.md"), "a").unwrap();
        assert_eq!(resolve(&root, "wiki/a.md").unwrap().rel, "wiki/a.md");
        assert!(resolve(&root, "wiki/%2e%2e/%2e%2e/notes-private/diary.md").is_err());
        assert!(resolve(&root, "%2Fetc%2Fpasswd").is_err());
        assert!(resolve(&root, "wiki/a.md%00.png").is_err());
        assert_eq!(resolve(&root, "wiki/nope.md"), Err(Refused::Missing));
        assert_eq!(resolve(&root, "wiki"), Err(Refused::Missing), "a directory");
    }

    #[test]
    fn encoding_round_trips() {
        let rel = "wiki/entities/Garden Plan#1?.md";
        let enc = encode_path(rel);
        assert_eq!(enc, "wiki/entities/Garden%20Plan%231%3F.md");
        assert_eq!(percent_decode(&enc).unwrap(), rel);
        assert_eq!(encode_segment("ai/agents"), "ai%2Fagents");
    }
}
