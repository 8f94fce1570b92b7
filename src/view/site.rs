//! The vault being served ([`Site`]), the answer every route returns ([`Reply`]), and the
//! manifest as one request finds it ([`Db`]): opened read-only, per request, so that a scan
//! shows on the next refresh and the viewer never creates or migrates it.

use super::html::{Layout, esc, notice};
use crate::manifest::Manifest;
use crate::vault::MANIFEST;
use std::path::PathBuf;

/// The vault being shown.
#[derive(Debug, Clone)]
pub struct Site {
    /// The vault root.
    pub root: PathBuf,
    /// Its display name.
    pub name: String,
}

/// An HTTP answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// Status code.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
    /// Extra headers.
    pub headers: Vec<(&'static str, String)>,
}

impl Reply {
    /// An HTML page.
    pub fn html(status: u16, body: String) -> Reply {
        Reply {
            status,
            content_type: "text/html; charset=utf-8",
            body: body.into_bytes(),
            headers: Vec::new(),
        }
    }

    /// A permanent redirect.
    pub fn redirect(location: String) -> Reply {
        Reply {
            status: 308,
            content_type: "text/plain; charset=utf-8",
            body: format!("see {location}\n").into_bytes(),
            headers: vec![("location", location)],
        }
    }
}

/// The manifest as a request finds it.
pub enum Db {
    /// Open.
    Open(Manifest),
    /// There is no `sparks.db` yet.
    Missing,
    /// It could not be opened.
    Failed(String),
}

impl Db {
    /// The manifest, if open.
    pub fn get(&self) -> Option<&Manifest> {
        match self {
            Db::Open(m) => Some(m),
            _ => None,
        }
    }

    /// A notice saying why there is no manifest, if there is none.
    pub fn notice(&self) -> String {
        match self {
            Db::Open(_) => String::new(),
            Db::Missing => notice(
                "warn",
                "There is no manifest yet: run <code>sparks scan</code> to list pages, tags and backlinks.",
            ),
            Db::Failed(e) => notice(
                "warn",
                &format!("The manifest could not be read: {}", esc(e)),
            ),
        }
    }
}

impl Site {
    /// Open the manifest for one request (read-only; never created here).
    pub fn db(&self) -> Db {
        let path = self.root.join(MANIFEST);
        if !path.exists() {
            return Db::Missing;
        }
        match Manifest::open_read_only(&path) {
            Ok(m) => Db::Open(m),
            Err(e) => Db::Failed(e.to_string()),
        }
    }

    /// A document in the site's layout.
    pub fn layout<'a>(
        &'a self,
        title: Option<&'a str>,
        main: String,
        aside: Option<String>,
    ) -> Layout<'a> {
        Layout {
            vault: &self.name,
            title,
            main,
            aside,
            ..Layout::default()
        }
    }

    /// The themed 404 page. It never says why: a refused path and a missing file look alike.
    pub fn not_found(&self) -> Reply {
        let main = "<h1>Not found</h1>\n<p class=\"lede\">There is no page here. \
                    Try the <a href=\"/\">index</a> or a search.</p>"
            .to_string();
        Reply::html(404, self.layout(Some("Not found"), main, None).render())
    }

    /// A 500 page for a manifest that fails mid-request.
    pub fn failed(&self, what: &str) -> Reply {
        let main = format!(
            "<h1>Something went wrong</h1>\n{}",
            notice("warn", &esc(what))
        );
        Reply::html(500, self.layout(Some("Error"), main, None).render())
    }
}
