//! Addresses that lead to a published page under another name: a page's alias in its own
//! folder (`mv` leaves the old title as an alias, so a renamed page's old address keeps
//! working on a site published afresh), and a page published before at a path that is gone
//! whose name or title is now an alias, a name or a title of a published page (a page moved to
//! another folder, which `mv` gives no alias when its name stays).
//! A redirect is a small page that sends the browser on and says where.

use super::out::{Memory, Record};
use super::site::Site;
use super::urls::{self, Base};
use crate::key::key;
use crate::render::html::{display_title, esc};
use std::collections::{BTreeMap, HashSet};

/// The redirects of the site: the vault path an address stands for (`wiki/concepts/Old.md`) and
/// the published page it leads to, by that path.
pub fn find(site: &Site, read: &Memory, old: &Record) -> BTreeMap<String, String> {
    // The pages published before at a path that is gone, with the names that may lead to
    // them: only those names are looked for among the pages' (every alias, name and title of
    // a large site in a map was 25 MB at 100,000 pages, for none gone).
    let gone: Vec<(&String, Vec<String>)> = read
        .sources
        .iter()
        .filter(|(path, s)| s.shown && site.page(path).is_none() && crate::scan::is_page(path))
        .map(|(path, s)| {
            let stem = path
                .rsplit('/')
                .next()
                .unwrap_or(path)
                .trim_end_matches(".md");
            let names = [Some(stem), s.title.as_deref()];
            (path, names.into_iter().flatten().map(key).collect())
        })
        .collect();
    let wanted: HashSet<&str> = gone
        .iter()
        .flat_map(|(_, k)| k)
        .map(String::as_str)
        .collect();
    let mut by_alias: BTreeMap<String, &str> = BTreeMap::new();
    let mut redirects = BTreeMap::new();
    for p in &site.pages {
        let folder = p.path.rsplit_once('/').map_or("", |(f, _)| f);
        for a in &p.aliases {
            let k = key(a);
            if wanted.contains(k.as_str()) {
                by_alias.entry(k).or_insert(&p.path);
            }
            let name = a.trim();
            if name.is_empty() || name.contains('/') || name.starts_with('.') {
                continue;
            }
            let from = format!("{folder}/{name}.md");
            if from != p.path && site.page(&from).is_none() {
                redirects.entry(from).or_insert_with(|| p.path.clone());
            }
        }
    }
    // A page's own name and title lead to it too, after every alias (which names it on purpose).
    for p in site.pages.iter().filter(|_| !wanted.is_empty()) {
        let stem = p.path.rsplit('/').next().unwrap_or(&p.path);
        let names = [Some(stem.trim_end_matches(".md")), p.title.as_deref()];
        for k in names.into_iter().flatten().map(key) {
            if wanted.contains(k.as_str()) {
                by_alias.entry(k).or_insert(&p.path);
            }
        }
    }
    for (path, keys) in gone {
        if let Some(to) = keys.iter().find_map(|k| by_alias.get(k)) {
            redirects.insert(path.clone(), to.to_string());
        }
    }
    for (from, to) in &old.redirects {
        if site.page(to).is_some() && site.page(from).is_none() {
            redirects.entry(from.clone()).or_insert_with(|| to.clone());
        }
    }
    redirects
}

/// The page at the address of `from` that sends the browser to the page `to`.
pub fn page(site: &Site, from: &str, to: &str, base: &Base) -> String {
    let here = urls::page(from);
    let href = esc(&base.href(&urls::page(to), &here));
    let title = esc(&display_title(
        to,
        site.page(to).and_then(|p| p.title.as_deref()),
    ));
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{title}</title>\n<link rel=\"canonical\" href=\"{href}\">\n\
         <meta http-equiv=\"refresh\" content=\"0; url={href}\">\n</head>\n<body>\n\
         <p>This page is now <a href=\"{href}\">{title}</a>.</p>\n</body>\n</html>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::SitePage;
    use crate::publish::out::{Short, Source};

    fn page(path: &str, title: &str, aliases: &[&str]) -> SitePage {
        SitePage {
            path: path.into(),
            title: Some(title.into()),
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
            ..SitePage::default()
        }
    }

    fn published_before(paths: &[(&str, &str)]) -> Memory {
        let mut m = Memory::default();
        for (path, title) in paths {
            m.sources.insert(
                path.to_string(),
                Source {
                    hash: Short::of(b""),
                    says: Some(true),
                    problems: Vec::new(),
                    shown: true,
                    title: Some(title.to_string()),
                    face: None,
                },
            );
        }
        m
    }

    #[test]
    fn an_old_title_an_old_folder_and_an_alias_lead_to_the_page() {
        let site = Site::new(
            vec![
                page("wiki/entities/Waterfall.md", "Waterfall", &["Cascade"]),
                page("wiki/entities/Café Notes.md", "Café Notes", &[]),
            ],
            &crate::manifest::LinkTable::default(),
        );
        let read = published_before(&[
            ("wiki/concepts/Cascade.md", "Cascade"),
            ("wiki/concepts/Café Notes.md", "Café Notes"),
            ("wiki/concepts/Gone.md", "Gone"),
        ]);
        let found = find(&site, &read, &Record::default());
        let expected = [
            ("wiki/concepts/Café Notes.md", "wiki/entities/Café Notes.md"),
            ("wiki/concepts/Cascade.md", "wiki/entities/Waterfall.md"),
            ("wiki/entities/Cascade.md", "wiki/entities/Waterfall.md"),
        ];
        let expected: BTreeMap<String, String> = expected
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(found, expected, "a page gone with no namesake has none");
    }
}
