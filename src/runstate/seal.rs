//! Records are sealed, so that only this device's Sparks is believed. A remote can commit
//! files under `.sparks/` (a `.gitignore` does not stop a forced add), and a plain `git pull`
//! puts them in the work tree: a planted journal would have the next command "finish" an
//! operation nobody started, writing what the attacker chose. So every record ends with a
//! line that authenticates it, a keyed BLAKE3 hash of its name and bytes under a secret that
//! never enters the tracked tree: `sparks-runstate.key` in the repository's git directory
//! (which git never sends), or `.sparks/keys/` in a vault outside git (where nothing arrives
//! through a remote). A record without a good seal was not written here: it is set aside,
//! never acted on.

use std::io;
use std::path::{Path, PathBuf};

/// The last line of a sealed record starts with this, then 64 hex digits.
const MARK: &[u8] = b"sparks-seal: ";
/// The key's file name, in the git directory.
const GIT_KEY: &str = "sparks-runstate.key";
/// The key's path in the run-time directory of a vault outside git (a folder of its own: it
/// is no record).
const RUN_KEY: &str = "keys/runstate.key";

/// The secret of one vault's records.
#[derive(Clone)]
pub(super) struct Key([u8; 32]);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(..)")
    }
}

/// Why a record's seal does not hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Broken {
    /// It has no seal (an older Sparks wrote it, or someone else).
    Missing,
    /// Its seal is not this device's.
    Wrong,
}

impl Broken {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Broken::Missing => {
                "it carries no seal: Sparks on this device did not write it (a remote or a \
                 copy may have put it there)"
            }
            Broken::Wrong => {
                "its seal is not this device's: Sparks on this device did not write it"
            }
        }
    }
}

impl Key {
    /// The key of the vault whose run-time directory is `run`; made when `create` and none
    /// is there yet (`None` when none is and `!create`: no record can be genuine then).
    pub(super) fn of(run: &Path, create: bool) -> io::Result<Option<Key>> {
        let path = key_path(run);
        if let Some(key) = read_key(&path)? {
            return Ok(Some(key));
        }
        if !create {
            return Ok(None);
        }
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(io::Error::other)?;
        if let Some(dir) = path.parent() {
            fs_err::create_dir_all(dir)?;
        }
        // Two processes making the key at once agree on the one that was made first.
        if !crate::fsio::create_atomic(&path, hex(&bytes).as_bytes())? {
            return read_key(&path)?.map(Some).ok_or_else(|| {
                io::Error::other(format!("{} vanished while read", path.display()))
            });
        }
        // A secret: readable by this user alone.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs_err::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
        }
        Ok(Some(Key(bytes)))
    }

    fn mac(&self, name: &str, body: &[u8]) -> String {
        let mut h = blake3::Hasher::new_keyed(&self.0);
        h.update(name.as_bytes());
        h.update(&[0]);
        h.update(body);
        h.finalize().to_hex().to_string()
    }

    /// `body` (ending in a newline) with its seal as the record `name`.
    pub(super) fn seal(&self, name: &str, mut body: Vec<u8>) -> Vec<u8> {
        if !body.ends_with(b"\n") {
            body.push(b'\n');
        }
        let mac = self.mac(name, &body);
        body.extend_from_slice(MARK);
        body.extend_from_slice(mac.as_bytes());
        body.push(b'\n');
        body
    }
}

/// The body of the sealed record `name`, if its seal is `key`'s.
pub(super) fn open<'a>(key: Option<&Key>, name: &str, bytes: &'a [u8]) -> Result<&'a [u8], Broken> {
    let trimmed = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let start = trimmed
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let (body, last) = bytes.split_at(start);
    let Some(mac) = last
        .strip_prefix(MARK)
        .map(|m| m.strip_suffix(b"\n").unwrap_or(m))
    else {
        return Err(Broken::Missing);
    };
    let key = key.ok_or(Broken::Wrong)?;
    // Compared whole: both are 64 hex digits of a keyed hash.
    if constant_eq(mac, key.mac(name, body).as_bytes()) {
        Ok(body)
    } else {
        Err(Broken::Wrong)
    }
}

fn constant_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Where the key of the run-time directory `run` is: in the git directory of the repository
/// holding the vault, else in `run` itself.
fn key_path(run: &Path) -> PathBuf {
    let root = run.parent().unwrap_or(run);
    match git_dir(root) {
        Some(dir) => dir.join(GIT_KEY),
        None => run.join(RUN_KEY),
    }
}

/// The git directory of the repository whose work tree holds `root`: the nearest `.git`
/// folder at or above it, or the folder a `.git` file names (a linked work tree or a
/// submodule). Found by looking, not by libgit2: every record read pays for it.
fn git_dir(root: &Path) -> Option<PathBuf> {
    for dir in root.ancestors() {
        let dot = dir.join(".git");
        let Ok(meta) = crate::fsio::symlink_metadata(&dot) else {
            continue;
        };
        if meta.is_dir() {
            return Some(dot);
        }
        if meta.is_file() {
            let text = crate::fsio::read_to_string(&dot).ok()?;
            let named = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
            return Some(dir.join(named));
        }
    }
    None
}

fn read_key(path: &Path) -> io::Result<Option<Key>> {
    let Some(text) = crate::fsio::if_exists(crate::fsio::read_to_string(path))
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?
    else {
        return Ok(None);
    };
    let text = text.trim();
    let mut bytes = [0u8; 32];
    let ok = text.len() == 64
        && text.is_ascii()
        && (0..32).all(|i| match u8::from_str_radix(&text[2 * i..2 * i + 2], 16) {
            Ok(b) => {
                bytes[i] = b;
                true
            }
            Err(_) => false,
        });
    if !ok {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{} is not a key Sparks wrote (64 hex digits)",
                path.display()
            ),
        ));
    }
    Ok(Some(Key(bytes)))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_record_opens_only_with_its_key_and_name() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join(".sparks");
        let key = Key::of(&run, true).unwrap().unwrap();
        let again = Key::of(&run, false).unwrap().unwrap();
        let sealed = key.seal("journal.json", b"{\"a\":1}\n".to_vec());
        assert_eq!(
            open(Some(&again), "journal.json", &sealed).unwrap(),
            b"{\"a\":1}\n"
        );
        assert_eq!(open(Some(&key), "sync.json", &sealed), Err(Broken::Wrong));
        assert_eq!(open(None, "journal.json", &sealed), Err(Broken::Wrong));
        assert_eq!(
            open(Some(&key), "journal.json", b"{\"a\":1}\n"),
            Err(Broken::Missing)
        );
        let mut forged = sealed.clone();
        forged[2] = b'b';
        assert_eq!(
            open(Some(&key), "journal.json", &forged),
            Err(Broken::Wrong)
        );
        let other = Key([7; 32]).seal("journal.json", b"{\"a\":1}\n".to_vec());
        assert_eq!(open(Some(&key), "journal.json", &other), Err(Broken::Wrong));
    }

    #[test]
    fn the_key_lives_in_the_git_directory_when_there_is_one() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo/vault");
        fs_err::create_dir_all(dir.path().join("repo/.git")).unwrap();
        fs_err::create_dir_all(&root).unwrap();
        assert_eq!(
            key_path(&root.join(".sparks")),
            dir.path().join("repo/.git").join(GIT_KEY)
        );
        let bare = tempfile::tempdir().unwrap();
        assert_eq!(
            key_path(&bare.path().join(".sparks")),
            bare.path().join(".sparks").join(RUN_KEY)
        );
    }
}
