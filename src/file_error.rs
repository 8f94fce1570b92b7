//! The one I/O error that names its path: what was being done, on which file or directory,
//! and the operating system's error. Every core error enum wraps it (`Io(#[from] FileError)`)
//! rather than repeating the fields; a leaf, so that `fsio`, `life` and `lock` can all use it.

use std::io;
use std::path::{Path, PathBuf};

/// An I/O error with what was being done and the path it concerns: the one such type, which
/// every core error enum wraps (`Io(#[from] FileError)`) rather than repeating its fields.
#[derive(Debug, thiserror::Error)]
#[error("cannot {action} {}: {source}", path.display())]
pub struct FileError {
    /// What was being done (`read`, `replace`, `create a temporary file in`, …).
    pub action: &'static str,
    /// The file or directory.
    pub path: PathBuf,
    /// The cause.
    #[source]
    pub source: io::Error,
}

impl FileError {
    /// The error of doing `action` on `path`, for `map_err`: the one constructor.
    pub fn at(action: &'static str, path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> Self {
        let path = path.into();
        move |source| FileError {
            action,
            path,
            source,
        }
    }

    /// The same error as an `io::Error` of the cause's kind, for code that returns one.
    pub fn io(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> io::Error {
        let at = Self::at(action, path);
        move |source| {
            let kind = source.kind();
            io::Error::new(kind, at(source))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_says_what_was_done_to_which_path_and_keeps_the_cause_s_kind() {
        let e = FileError::at("read", "/v/inbox.md")(io::Error::from(io::ErrorKind::NotFound));
        assert!(
            e.to_string().starts_with("cannot read /v/inbox.md: "),
            "{e}"
        );
        let full = io::Error::from(io::ErrorKind::StorageFull);
        let e = FileError::io("write", Path::new("/v/x.tmp"))(full);
        assert_eq!(e.kind(), io::ErrorKind::StorageFull);
        assert!(e.to_string().starts_with("cannot write /v/x.tmp: "), "{e}");
    }
}
