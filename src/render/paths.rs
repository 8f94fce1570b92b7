//! Safe paths, for what the viewer and a published site both show: a vault-relative path (a
//! request's, once the viewer has decoded it, or a link's target) turned into a file that is
//! certainly inside the vault; and vault paths turned back into URL paths. Anything doubtful is
//! refused, and the viewer answers every refusal with the same 404, so that a probe learns
//! nothing about what exists outside the vault. Also what a path names (Markdown, an image).
//! Decoding a request's path and query string is the viewer's (`view/paths.rs`).

use std::path::{Component, Path, PathBuf};

/// A file inside the vault that a request (or an embed) may read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VaultFile {
    /// Vault-relative, forward slashes, as the request named it (the manifest's form).
    pub rel: String,
    /// The file, with symbolic links resolved (inside the vault).
    pub abs: PathBuf,
}

/// Why a path was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Bad percent-encoding, bad UTF-8, a NUL byte or a backslash.
    Malformed,
    /// A `.` or `..` segment, a hidden name, an absolute path, or the manifest (by its name
    /// or through a symbolic link).
    Unsafe,
    /// Resolved (through symbolic links) to somewhere outside the vault.
    Outside,
    /// No such file (or not a regular file).
    Missing,
}

/// Check a decoded vault-relative path: plain names only, no hidden ones, no `.` or `..`, not
/// absolute, no backslash (a separator on Windows). Empty segments (`a//b`) are dropped.
pub fn clean_relative(decoded: &str) -> Result<String, Refused> {
    if decoded.contains('\\') || decoded.contains('\0') {
        return Err(Refused::Malformed);
    }
    if decoded.starts_with('/') {
        return Err(Refused::Unsafe);
    }
    let mut parts = Vec::new();
    for seg in decoded.split('/') {
        if seg.is_empty() {
            continue;
        }
        // Hidden names (`.git`, `.obsidian`) are never shown; this also covers `.` and `..`.
        if seg.starts_with('.') {
            return Err(Refused::Unsafe);
        }
        parts.push(seg);
    }
    let rel = parts.join("/");
    // On platforms with drive letters or prefixes, `Path` may still see something absolute.
    let p = Path::new(&rel);
    if p.components().any(|c| !matches!(c, Component::Normal(_))) {
        return Err(Refused::Unsafe);
    }
    Ok(rel)
}

/// Resolve a vault-relative path, already decoded and cleaned by [`clean_relative`], to an
/// existing regular file inside the vault. The vault root itself may be reached through a
/// symbolic link; files may be symbolic links as long as they resolve inside the (resolved)
/// root.
pub fn resolve_clean(root: &Path, rel: &str) -> Result<VaultFile, Refused> {
    let abs = inside(root, rel)?;
    if !abs.is_file() {
        return Err(Refused::Missing);
    }
    Ok(VaultFile {
        rel: rel.to_string(),
        abs,
    })
}

/// Resolve a directory the same way (the empty path is the root).
pub fn resolve_dir(root: &Path, rel: &str) -> Result<PathBuf, Refused> {
    let abs = inside(root, rel)?;
    if !abs.is_dir() {
        return Err(Refused::Missing);
    }
    Ok(abs)
}

fn inside(root: &Path, rel: &str) -> Result<PathBuf, Refused> {
    let root = fs_err::canonicalize(root).map_err(|_| Refused::Missing)?;
    let abs = fs_err::canonicalize(root.join(rel)).map_err(|_| Refused::Missing)?;
    // Component-wise: `/vault-private` does not start with `/vault`.
    let rest = abs.strip_prefix(&root).map_err(|_| Refused::Outside)?;
    // A link inside the vault may lead into a hidden directory of the vault (`.git`,
    // `.sparks`), or to the manifest: what a name is refused for, its target is too.
    if rest
        .components()
        .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
        || is_manifest(rest)
    {
        return Err(Refused::Unsafe);
    }
    Ok(abs)
}

/// Whether a path relative to the vault root is the manifest or one of its companions
/// (`sparks.db-wal`, `-shm`, `-journal`): the names at the root that start with `sparks.db`,
/// which are Sparks' own and never served.
fn is_manifest(rest: &Path) -> bool {
    let mut parts = rest.components();
    matches!(
        (parts.next(), parts.next()),
        (Some(Component::Normal(name)), None)
            if name.to_string_lossy().starts_with(crate::vault::MANIFEST)
    )
}

/// The URL path of a vault-relative path: each segment percent-encoded.
pub fn encode_path(rel: &str) -> String {
    rel.split('/')
        .map(encode_segment)
        .collect::<Vec<_>>()
        .join("/")
}

/// One URL path segment (or query value): everything but unreserved characters escaped.
pub fn encode_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Whether a vault path names an image the browser can show.
pub fn is_image(path: &str) -> bool {
    image_type(path).is_some()
}

/// The media type of an image path.
pub fn image_type(path: &str) -> Option<&'static str> {
    let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "avif" => "image/avif",
        "bmp" => "image/bmp",
        "ico" => "image/x-icon",
        "svg" => "image/svg+xml",
        _ => return None,
    })
}

/// Whether a vault path is Markdown.
pub fn is_markdown(path: &str) -> bool {
    crate::key::strip_md(path).is_some_and(|stem| !stem.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain vault-relative path resolved as the viewer resolves a request's, once decoded.
    #[cfg(unix)]
    fn resolve(root: &Path, rel: &str) -> Result<VaultFile, Refused> {
        resolve_clean(root, &clean_relative(rel)?)
    }

    #[test]
    fn kinds_of_files() {
        assert!(is_markdown("wiki/a.md") && is_markdown("raw/A.MD") && !is_markdown(".md"));
        assert!(!is_markdown("raw/aéé"), "no byte of a character is cut");
        assert_eq!(image_type("wiki/x/Diagram.PNG"), Some("image/png"));
        assert_eq!(image_type("raw/a.txt"), None);
    }

    #[test]
    fn only_plain_relative_names_pass() {
        assert_eq!(clean_relative("wiki//a.md").unwrap(), "wiki/a.md");
        for bad in [
            "../x",
            "wiki/../../x",
            "wiki/./a.md",
            "/etc/passwd",
            ".git/config",
            "wiki/.hidden",
        ] {
            assert_eq!(clean_relative(bad), Err(Refused::Unsafe), "{bad}");
        }
        assert_eq!(clean_relative("wiki\\..\\x"), Err(Refused::Malformed));
        assert_eq!(clean_relative("a\0b"), Err(Refused::Malformed));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_must_stay_inside() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("v");
        fs_err::create_dir_all(root.join("wiki")).unwrap();
        fs_err::create_dir_all(root.join(".git")).unwrap();
        fs_err::write(dir.path().join("secret.md"), "secret").unwrap();
        fs_err::write(root.join("wiki/real.md"), "real").unwrap();
        fs_err::write(root.join(".git/config"), "cfg").unwrap();
        let link = |target: &Path, name: &str| {
            std::os::unix::fs::symlink(target, root.join("wiki").join(name)).unwrap()
        };
        link(&dir.path().join("secret.md"), "out.md");
        link(dir.path(), "up");
        link(&root.join("wiki/real.md"), "alias.md");
        link(&root.join(".git/config"), "cfg.md");
        assert_eq!(resolve(&root, "wiki/out.md"), Err(Refused::Outside));
        assert_eq!(resolve(&root, "wiki/up/secret.md"), Err(Refused::Outside));
        assert_eq!(resolve(&root, "wiki/cfg.md"), Err(Refused::Unsafe));
        // The manifest and its companions, by name or through a link, and the run-time
        // directory through a link to it.
        fs_err::create_dir_all(root.join(".sparks")).unwrap();
        fs_err::write(root.join(".sparks/journal.json"), "{}").unwrap();
        for name in [
            "sparks.db",
            "sparks.db-wal",
            "sparks.db-shm",
            "sparks.db-journal",
        ] {
            fs_err::write(root.join(name), "SQLite").unwrap();
            link(&root.join(name), &format!("{name}.bin"));
            assert_eq!(resolve(&root, name), Err(Refused::Unsafe), "{name}");
            let via = format!("wiki/{name}.bin");
            assert_eq!(resolve(&root, &via), Err(Refused::Unsafe), "{via}");
        }
        link(&root.join(".sparks"), "run");
        assert_eq!(
            resolve(&root, "wiki/run/journal.json"),
            Err(Refused::Unsafe)
        );
        fs_err::write(root.join("wiki/sparks.db"), "a file of the user's").unwrap();
        assert!(resolve(&root, "wiki/sparks.db").is_ok());
        let inside = resolve(&root, "wiki/alias.md").unwrap();
        assert_eq!(inside.rel, "wiki/alias.md");
        assert!(inside.abs.ends_with("wiki/real.md"));
        // A vault reached through a symbolic link still works.
        let via = dir.path().join("via");
        std::os::unix::fs::symlink(&root, &via).unwrap();
        assert!(resolve(&via, "wiki/real.md").is_ok());
    }
}
