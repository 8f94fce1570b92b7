//! The page an `mv` or `merge` acts on, read for planning: resolved from the name given,
//! refused when it is not a wiki page Sparks leaves to the user.

use crate::fsio::FileError;
use crate::key;
use crate::manifest::Manifest;
use crate::markdown::frontmatter::{self, Block, Frontmatter};
use crate::mv::MoveError;
use crate::mv::names;
use crate::mv::refs::Via;
use crate::vault::Vault;
use std::collections::HashMap;

/// A page read for planning.
pub struct Page {
    /// Its path.
    pub path: String,
    /// Its text.
    pub text: String,
    /// Its frontmatter, when it has a readable block.
    pub fm: Option<Frontmatter>,
    /// Its title: `title:`, else the file name.
    pub title: String,
}

impl Page {
    /// The page `name` names, which must be a wiki page Sparks does not generate.
    pub fn resolve(vault: &Vault, manifest: &Manifest, name: &str) -> Result<Page, MoveError> {
        let path = crate::query::page_path(manifest, name)?;
        if !crate::scan::is_page(&path) {
            return Err(MoveError::NotAPage(path));
        }
        if crate::schema::is_system_page(&path) || crate::index::is_generated(&path) {
            return Err(MoveError::Generated(path));
        }
        let text = read_text(vault, &path)?;
        let fm = match frontmatter::split(&text).block {
            Block::Valid(fm) => Some(fm),
            Block::None => None,
            Block::Invalid { line, message } => {
                return Err(MoveError::Frontmatter {
                    path,
                    key: "title",
                    why: format!("its frontmatter does not read (line {line}: {message})"),
                });
            }
        };
        let title = fm
            .as_ref()
            .and_then(|f| f.title.clone())
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| names::stem(&path).to_string());
        Ok(Page {
            path,
            text,
            fm,
            title,
        })
    }

    /// How the links that resolve to the page reach it.
    pub fn keys(&self, manifest: &Manifest) -> Result<HashMap<String, Via>, MoveError> {
        let title_key = key::link_key(&self.title);
        let aliases: Vec<String> = self
            .fm
            .iter()
            .flat_map(|f| &f.aliases)
            .map(|a| key::link_key(a))
            .collect();
        Ok(manifest
            .link_keys_to(&self.path)?
            .into_iter()
            .map(|k| {
                let via = Via::of(&k, &title_key, &aliases);
                (k, via)
            })
            .collect())
    }
}

/// A file's text; a file that is not UTF-8 cannot be rewritten.
pub fn read_text(vault: &Vault, path: &str) -> Result<String, MoveError> {
    let bytes = crate::fsio::read(&vault.path(path))
        .map_err(|source| MoveError::Io(FileError::at("read", vault.path(path))(source)))?;
    String::from_utf8(bytes).map_err(|_| MoveError::NotText(path.to_string()))
}
