//! `publish`: the wiki as a static website and as llms.txt, private by default (decision 23).
//! Which pages are published is [`select`]'s rule; the published site as a model, the only view
//! of the vault any output is made from, is [`site`]. Each page is rendered by the viewer's
//! renderer and layout ([`crate::render`]) into `<its URL>/index.html`, with its Markdown
//! beside it ([`page`]); the listings ([`lists`]), the files for agents and feed readers
//! ([`feeds`]), a static search index ([`search`]) and redirects ([`redirects`]) complete it.
//! The output folder's record ([`out`]) makes a publish incremental: a page is made again only
//! when it or a page it shows changed ([`site::Touches`]), a file is written only when its
//! bytes changed, and what an earlier publish wrote and this one did not is removed — never a
//! file it did not write.

pub mod feeds;
pub mod kept;
pub mod lists;
pub mod out;
pub mod page;
mod pages;
pub mod paths;
pub mod record;
pub mod redirects;
pub mod search;
pub mod select;
pub mod site;
pub mod spill;
pub mod staging;
pub mod urls;
mod write;

use crate::config::Config;
use crate::file_error::FileError;
use crate::manifest::ManifestError;
use crate::vault::Vault;
use serde::Serialize;
use std::path::PathBuf;

pub use write::publish;

/// The folder of the vault a site is written to when no other is given.
pub const DEFAULT_OUT: &str = "site";

/// What to publish, and where.
#[derive(Debug, Clone)]
pub struct Options {
    /// The output folder (absolute).
    pub out: PathBuf,
    /// Publish every wiki page but those saying `publish: false` (as `[publish] all`).
    pub all: bool,
    /// The address the site is served at (overrides `[publish] base_url`).
    pub base_url: Option<String>,
    /// Write nothing: say what would be written and removed.
    pub dry_run: bool,
}

/// What a publish did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// The output folder.
    pub out: String,
    /// How many pages are published.
    pub published: usize,
    /// How many wiki pages are not.
    pub private: usize,
    /// The files written (new or changed), by path in the folder.
    pub written: Vec<String>,
    /// The files an earlier publish wrote that this one removed.
    pub removed: Vec<String>,
    /// How many files were already as this publish would write them.
    pub skipped: usize,
    /// What a reader of the site will not see as the vault shows it.
    pub warnings: Vec<Warning>,
    /// Whether nothing was written (`--dry-run`).
    pub dry_run: bool,
}

/// Something about a published page worth knowing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// The page concerned.
    pub page: String,
    /// Its line, when one is concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// What is the matter.
    pub message: String,
}

/// A publish refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// The manifest could not be read.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// A glob of `[publish] include` is no glob.
    #[error(transparent)]
    Glob(#[from] select::BadGlob),
    /// The output folder could not be read or written.
    #[error(transparent)]
    Out(#[from] out::OutError),
    /// A vault file could not be read.
    #[error(transparent)]
    File(#[from] FileError),
    /// The output folder is somewhere a site must not be written.
    #[error("cannot publish into {}: {why}", out.display())]
    Place {
        /// The folder.
        out: PathBuf,
        /// Why not.
        why: &'static str,
    },
}

impl crate::failure::Hint for PublishError {
    fn hint(&self) -> Option<crate::failure::Advice> {
        match self {
            PublishError::Manifest(m) => m.hint(),
            PublishError::Glob(_) => Some("a glob is written like `wiki/concepts/**`".into()),
            PublishError::Place { .. } => {
                Some("give a folder of its own, such as the vault's `site/`".into())
            }
            PublishError::Out(_) | PublishError::File(_) => None,
        }
    }
}

/// Check that a site may be written into `out` (absolute) for the vault: not the vault itself
/// or a folder holding it, not its wiki, raw captures, run-time or git folders.
pub fn check_place(vault: &Vault, out: &std::path::Path) -> Result<(), PublishError> {
    let root = fs_err::canonicalize(&vault.root).unwrap_or_else(|_| vault.root.clone());
    let out_real = nearest_real(out);
    let refuse = |why| {
        Err(PublishError::Place {
            out: out.to_path_buf(),
            why,
        })
    };
    if root.starts_with(&out_real) {
        return refuse("the vault is in it, and a publish removes what it wrote before");
    }
    if let Ok(rel) = out_real.strip_prefix(&root) {
        let top = rel
            .components()
            .next()
            .map(|c| c.as_os_str().to_string_lossy());
        match top.as_deref() {
            Some("wiki") | Some("raw") => return refuse("it is inside the vault's pages"),
            Some(t) if t.starts_with('.') => {
                return refuse("it is inside a hidden folder of the vault");
            }
            Some(t) if t.starts_with(crate::vault::MANIFEST) || t == crate::vault::INBOX => {
                return refuse("it is one of the vault's own files");
            }
            _ => {}
        }
    }
    Ok(())
}

/// Make sure the vault's `.gitignore` keeps `out` out of git when it is inside the vault (the
/// site is derived; a sync would otherwise commit it).
pub fn keep_out_of_git(vault: &Vault, out: &std::path::Path) -> Result<(), PublishError> {
    let root = fs_err::canonicalize(&vault.root).unwrap_or_else(|_| vault.root.clone());
    let Ok(rel) = nearest_real(out)
        .strip_prefix(&root)
        .map(|r| r.to_path_buf())
    else {
        return Ok(());
    };
    let rel = rel.to_string_lossy().replace('\\', "/");
    if rel.is_empty() {
        return Ok(());
    }
    let (anchored, plain) = (format!("/{rel}/"), format!("{rel}/"));
    let comment = "# A site Sparks publishes: published anew from the pages.";
    crate::init::ignore(
        &vault.root,
        &[(&[anchored.as_str(), plain.as_str()], comment)],
    )?;
    Ok(())
}

/// `path` with its nearest existing ancestor resolved (symbolic links followed), the rest as
/// written: where a folder that does not exist yet will be.
fn nearest_real(path: &std::path::Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = path.to_path_buf();
    loop {
        if let Ok(real) = fs_err::canonicalize(&at) {
            return rest
                .iter()
                .rev()
                .fold(real, |p, c: &std::ffi::OsString| p.join(c));
        }
        match (at.file_name().map(|n| n.to_os_string()), at.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                at = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// What every published file depends on besides the pages: another value makes every page
/// again.
fn site_key(config: &Config, name: &str, base: &urls::Base) -> String {
    let mut h = blake3::Hasher::new();
    for part in [
        env!("CARGO_PKG_VERSION"),
        name,
        config.publish.description.as_str(),
        &format!("{base:?}"),
    ] {
        h.update(part.as_bytes());
        h.update(&[0]);
    }
    h.finalize().to_hex().to_string()
}
