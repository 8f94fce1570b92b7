//! Where a publish stages the files of the output folder: a folder of its own in it
//! ([`STAGING`]), each file written there and renamed into place, and beside them a journal
//! (`placed`) of the files put in place that the record does not list yet. A publish killed at
//! any moment leaves its half-written files there, and the files it put in place named in the
//! journal; the next publish counts those as written by a publish (so a page that changed since
//! is written again, not refused as someone else's file), saves that in the record, and
//! empties the folder. A publish that completes removes it.

use crate::file_error::FileError;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The staging folder's name in the output folder.
pub const STAGING: &str = ".sparks-staging";

/// The journal's name in the staging folder.
const PLACED: &str = "placed";

/// The staging folder of an output folder, while a publish writes it.
#[derive(Debug)]
pub struct Staging {
    dir: PathBuf,
    /// The journal, appended to (none on a dry run).
    placed: Option<Mutex<fs_err::File>>,
}

impl Staging {
    /// The staging folder of the output folder `root` (made when there is none; nothing is
    /// made on a dry run), and the files an interrupted publish put in place without recording
    /// them. What an interrupted publish left stays until [`Staging::begin`], which the caller
    /// calls once those files are recorded: a kill in between loses nothing.
    pub fn open(root: &Path, dry_run: bool) -> Result<(Staging, Vec<String>), FileError> {
        let dir = root.join(STAGING);
        let journal = dir.join(PLACED);
        let placed = match crate::fsio::if_exists(crate::fsio::open_nofollow(&journal))
            .map_err(FileError::at("read", &journal))?
        {
            Some(f) => std::io::BufReader::new(f)
                .lines()
                .map_while(Result::ok)
                .filter(|l| !l.is_empty())
                .collect(),
            None => Vec::new(),
        };
        if !dry_run {
            fs_err::create_dir_all(&dir).map_err(FileError::at("create", &dir))?;
        }
        Ok((Staging { dir, placed: None }, placed))
    }

    /// Empty the folder of what an interrupted publish left and begin this publish's journal
    /// (nothing on a dry run).
    pub fn begin(&mut self, dry_run: bool) -> Result<(), FileError> {
        if dry_run {
            return Ok(());
        }
        fs_err::remove_dir_all(&self.dir).map_err(FileError::at("remove", &self.dir))?;
        fs_err::create_dir_all(&self.dir).map_err(FileError::at("create", &self.dir))?;
        let journal = self.dir.join(PLACED);
        let file = fs_err::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&journal)
            .map_err(FileError::at("create", &journal))?;
        self.placed = Some(Mutex::new(file));
        Ok(())
    }

    /// A temporary file to stage a file in, readable by all (a web server runs as another
    /// user; a temporary file would be the owner's alone).
    pub fn file(&self) -> Result<tempfile::NamedTempFile, FileError> {
        let mut b = tempfile::Builder::new();
        #[cfg(unix)]
        b.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644));
        b.tempfile_in(&self.dir)
            .map_err(FileError::at("create a temporary file in", &self.dir))
    }

    /// Say that the file `rel`, which the record does not list, is about to be put in place
    /// (before it is: a kill after the rename finds it named).
    pub fn placing(&self, rel: &str) -> Result<(), FileError> {
        let Some(placed) = &self.placed else {
            return Ok(());
        };
        let mut f = placed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f.write_all(format!("{rel}\n").as_bytes())
            .map_err(FileError::at("write", self.dir.join(PLACED)))
    }

    /// The publish completed and its record is saved: the folder goes.
    pub fn finish(self) -> Result<(), FileError> {
        if self.placed.is_none() {
            return Ok(());
        }
        drop(self.placed);
        fs_err::remove_dir_all(&self.dir).map_err(FileError::at("remove", &self.dir))
    }
}
