//! What the scan writes of the pages' meanings: the vectors of a page's sections in
//! `meanings`, under ids that make a page's sections one range of the primary key
//! ([`section_id`]).

use super::ScanTx;
use crate::embed::Vector;
use crate::manifest::{At, Result};
use rusqlite::params;

/// The sections of one page `meanings` holds, at most: a section's id is its page's rowid times
/// this plus its number.
pub const MEANING_SECTIONS: usize = 64;

const SECTIONS: i64 = MEANING_SECTIONS as i64;

/// The `meta` key of the token that changes with `meanings` (migration 18): the label of the
/// table's copy beside the manifest ([`crate::manifest::Manifest::similarities`]).
pub(in crate::manifest) const MEANINGS_TOKEN: &str = "meanings_token";

/// The id of section `n` of the file with rowid `file`.
pub(in crate::manifest) fn section_id(file: i64, n: usize) -> i64 {
    file * SECTIONS + n as i64
}

/// The file rowid and section number of a section's id.
pub(in crate::manifest) fn section_of(id: i64) -> (i64, usize) {
    (id.div_euclid(SECTIONS), id.rem_euclid(SECTIONS) as usize)
}

impl ScanTx<'_> {
    /// Take every section of the file with this rowid out of `meanings` (only pages have any).
    pub(super) fn forget_meaning(&self, path: &str, rowid: i64) -> Result<()> {
        if !path.starts_with("wiki/") {
            return Ok(());
        }
        let gone = self
            .tx
            .prepare_cached("DELETE FROM meanings WHERE id BETWEEN ?1 AND ?2")
            .and_then(|mut s| {
                s.execute(params![
                    section_id(rowid, 0),
                    section_id(rowid, SECTIONS as usize - 1)
                ])
            })
            .at(&self.path)?;
        if gone > 0 {
            self.meanings_changed.set(true);
        }
        Ok(())
    }

    /// Write the vectors of the file's sections (its old ones are gone: [`Self::forget_meaning`]).
    pub(super) fn store_meaning(&self, rowid: i64, sections: &[(usize, Vector)]) -> Result<()> {
        for (n, v) in sections.iter().filter(|(n, _)| (*n as i64) < SECTIONS) {
            self.tx
                .prepare_cached("INSERT INTO meanings (id, vec) VALUES (?1, ?2)")
                .and_then(|mut s| s.execute(params![section_id(rowid, *n), &v.to_bytes()[..]]))
                .at(&self.path)?;
            self.meanings_changed.set(true);
        }
        Ok(())
    }

    /// Draw a new [`MEANINGS_TOKEN`] when this scan wrote or deleted a vector: any copy of the
    /// table labelled with the old one is out of date.
    pub(super) fn renew_meanings_token(&self) -> Result<()> {
        if self.meanings_changed.get() {
            self.tx
                .execute(
                    "UPDATE meta SET value = lower(hex(randomblob(16))) WHERE key = ?1",
                    [MEANINGS_TOKEN],
                )
                .at(&self.path)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_id_holds_its_file_and_number() {
        for (file, n) in [(1, 0), (1, 63), (7, 5), (1 << 40, 63)] {
            assert_eq!(section_of(section_id(file, n)), (file, n));
        }
        assert!(
            section_id(2, 0) > section_id(1, 63),
            "a file's sections are one range"
        );
    }
}
