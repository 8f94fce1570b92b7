//! What a publish knows of the files it writes into its folder: the record the last one left
//! ([`Record`], its [`Files`] in path order) and what this one makes ([`Made`], in the order
//! made). A large site has hundreds of thousands of files: each path in a map entry of its own,
//! the last publish's and this one's and the list of those written, held 70 MB at 100,000
//! pages; here the paths of each follow one another in one string.

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

/// What the output folder says of itself: the files a publish wrote there. It is served with
/// the site, so it names only what the site shows.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Record {
    /// The files written, by path in the folder, with the hash of their bytes.
    pub files: Files,
    /// Redirects kept from earlier publishes: an old page's path and the page it now is.
    pub redirects: BTreeMap<String, String>,
}

/// Paths one after another in one string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Paths {
    text: String,
    /// Where each path ends in `text`.
    ends: Vec<u32>,
}

impl Paths {
    fn push(&mut self, path: &str) {
        self.text.push_str(path);
        self.ends
            .push(u32::try_from(self.text.len()).unwrap_or(u32::MAX));
    }

    fn get(&self, i: usize) -> &str {
        let start = match i {
            0 => 0,
            _ => self.ends[i - 1] as usize,
        };
        &self.text[start..self.ends[i] as usize]
    }
}

/// Files by path, each once, in path order, with the hashes of their bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Files {
    paths: Paths,
    hashes: Vec<Short>,
}

impl Files {
    /// The files of `pairs` (path, hash), in any order; of a path given twice, the last.
    pub fn of(pairs: impl IntoIterator<Item = (String, Short)>) -> Files {
        let mut made = Made::default();
        for (path, hash) in pairs {
            made.push(&path, hash, false);
        }
        made.into_files()
    }

    /// How many files.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    fn find(&self, path: &str) -> Option<usize> {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let mid = low + (high - low) / 2;
            match self.paths.get(mid).cmp(path) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// The hash of the file at `path`.
    pub fn get(&self, path: &str) -> Option<Short> {
        self.find(path).map(|i| self.hashes[i])
    }

    /// Whether the file at `path` is one.
    pub fn contains(&self, path: &str) -> bool {
        self.find(path).is_some()
    }

    /// Each file and its hash, in path order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Short)> + '_ {
        (0..self.len()).map(|i| (self.paths.get(i), self.hashes[i]))
    }
}

impl Serialize for Files {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.len()))?;
        for (path, hash) in self.iter() {
            map.serialize_entry(path, &hash)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Files {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Files, D::Error> {
        struct Each;
        impl<'de> Visitor<'de> for Each {
            type Value = Files;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map of paths to file hashes")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Files, A::Error> {
                // Put in order as read (a record a publish wrote is in order already).
                let mut made = Made::default();
                while let Some((path, hash)) =
                    map.next_entry::<std::borrow::Cow<'de, str>, Short>()?
                {
                    made.push(&path, hash, false);
                }
                Ok(made.into_files())
            }
        }
        d.deserialize_map(Each)
    }
}

/// The files a publish made, in the order made, with their hashes and whether each was written
/// (else it was there as made).
#[derive(Debug, Default)]
pub struct Made {
    paths: Paths,
    hashes: Vec<Short>,
    wrote: Vec<bool>,
}

impl Made {
    /// Every file of `files`, kept as they are.
    pub fn kept(files: Files) -> Made {
        let wrote = vec![false; files.len()];
        Made {
            paths: files.paths,
            hashes: files.hashes,
            wrote,
        }
    }

    /// Add the file at `path`.
    pub fn push(&mut self, path: &str, hash: Short, wrote: bool) {
        self.paths.push(path);
        self.hashes.push(hash);
        self.wrote.push(wrote);
    }

    /// How many files were made.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// Whether none was.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// The files written, in the order written.
    pub fn written(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len())
            .filter(|&i| self.wrote[i])
            .map(|i| self.paths.get(i))
    }

    /// The files made, in path order; of one made twice, the last.
    pub fn into_files(self) -> Files {
        let n = self.len();
        let sorted = (1..n).all(|i| self.paths.get(i - 1) < self.paths.get(i));
        if sorted {
            return Files {
                paths: self.paths,
                hashes: self.hashes,
            };
        }
        let mut order: Vec<u32> = (0..n as u32).collect();
        // Stable: of one path, the last made is last.
        order.sort_by(|&a, &b| self.paths.get(a as usize).cmp(self.paths.get(b as usize)));
        let mut files = Files::default();
        for (k, &i) in order.iter().enumerate() {
            let path = self.paths.get(i as usize);
            let next = order.get(k + 1).map(|&j| self.paths.get(j as usize));
            if next != Some(path) {
                files.paths.push(path);
                files.hashes.push(self.hashes[i as usize]);
            }
        }
        files
    }
}

/// A file's hash as the record keeps it: 128 bits of blake3, as sure a sign of a change as the
/// whole and a quarter of the memory in hex for a site's 300,000 files; written in hex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Short([u8; 16]);

/// The hexadecimal digits.
const HEX: &[u8; 16] = b"0123456789abcdef";

impl Short {
    /// The hash of a file whose bytes are not known.
    pub const UNKNOWN: Short = Short([0; 16]);

    /// The hash of `bytes` as the record keeps it.
    pub fn of(bytes: &[u8]) -> Short {
        Short::from(&blake3::hash(bytes))
    }

    /// A blake3 hash in hex (the manifest's 64 digits) as a record keeps one: its first 32
    /// digits; text that is no such hash, by the hash of the text.
    pub fn of_hex(hex: &str) -> Short {
        Short::parse(hex).unwrap_or_else(|| Short::of(hex.as_bytes()))
    }

    /// The 16 bytes `hex`'s first 32 digits give, if they are digits.
    fn parse(hex: &str) -> Option<Short> {
        let digit = |c: Option<&u8>| c.and_then(|&c| char::from(c).to_digit(16)).map(|v| v as u8);
        let bytes = hex.as_bytes();
        let mut out = [0u8; 16];
        for (i, o) in out.iter_mut().enumerate() {
            *o = digit(bytes.get(2 * i))? << 4 | digit(bytes.get(2 * i + 1))?;
        }
        Some(Short(out))
    }
}

impl From<&blake3::Hash> for Short {
    fn from(hash: &blake3::Hash) -> Short {
        let mut out = [0u8; 16];
        out.copy_from_slice(&hash.as_bytes()[..16]);
        Short(out)
    }
}

impl Serialize for Short {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut hex = [0u8; 32];
        for (i, b) in self.0.iter().enumerate() {
            hex[2 * i] = HEX[usize::from(b >> 4)];
            hex[2 * i + 1] = HEX[usize::from(b & 15)];
        }
        s.serialize_str(std::str::from_utf8(&hex).unwrap_or_default())
    }
}

impl<'de> Deserialize<'de> for Short {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Short, D::Error> {
        let hex = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        match hex.len() == 32 {
            true => Short::parse(&hex),
            false => None,
        }
        .ok_or_else(|| serde::de::Error::custom(format!("not a file hash: {hex:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_s_hash_is_kept_as_its_first_half() {
        let hash = blake3::hash(b"page");
        assert_eq!(Short::of_hex(&hash.to_hex()), Short::from(&hash));
        // Not a hash: still one value for one text, another for another.
        assert_eq!(Short::of_hex("h"), Short::of_hex("h"));
        assert_ne!(Short::of_hex("h"), Short::of_hex("g"));
        assert_ne!(
            Short::of_hex(&"z".repeat(64)),
            Short::of_hex(&"y".repeat(64))
        );
    }

    #[test]
    fn files_are_found_by_path_in_path_order_whatever_the_order_made() {
        let h = |s: &str| Short::of(s.as_bytes());
        let mut made = Made::default();
        for (path, wrote) in [("b/index.html", true), ("a.md", false), ("c", true)] {
            made.push(path, h(path), wrote);
        }
        // Made twice: the last counts.
        made.push("a.md", h("again"), true);
        assert_eq!(
            made.written().collect::<Vec<_>>(),
            ["b/index.html", "c", "a.md"]
        );
        let files = made.into_files();
        let all: Vec<(&str, Short)> = files.iter().collect();
        assert_eq!(
            all,
            [
                ("a.md", h("again")),
                ("b/index.html", h("b/index.html")),
                ("c", h("c"))
            ]
        );
        assert_eq!(files.get("c"), Some(h("c")));
        assert!(files.contains("a.md") && !files.contains("b") && !files.contains("d"));
        assert_eq!(Files::default().get("a"), None);
        // The record's JSON is a map in path order, read back the same from any order.
        let json = serde_json::to_string(&files).unwrap();
        assert!(json.starts_with("{\"a.md\":"), "{json}");
        let shuffled: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&json).unwrap();
        let mut entries: Vec<_> = shuffled.into_iter().collect();
        entries.reverse();
        let reversed = format!(
            "{{{}}}",
            entries
                .iter()
                .map(|(k, v)| format!("{}:{v}", serde_json::to_string(k).unwrap()))
                .collect::<Vec<_>>()
                .join(",")
        );
        assert_eq!(serde_json::from_str::<Files>(&reversed).unwrap(), files);
    }
}
