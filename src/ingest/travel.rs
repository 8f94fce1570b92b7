//! The history of ingests travels with the vault: before the history is listed, shown or
//! taken back, the ingests git's history holds that the manifest does not (finalized on
//! another device, or on this one before `sparks.db` was deleted) are brought in, each from
//! its finalize commit: its trailer names it, the archive blocks carrying its token are its
//! entries, and the pages the commit changed are what it did (the content before is read from
//! git at the commit's parent when a revert needs it). A revert commit's trailer marks the
//! ingest it took back. Only the commits since the last look are read.

use super::IngestError;
use crate::archive::parse_marker;
use crate::git::history::{self, IngestCommit};
use crate::manifest::{Imported, Manifest, PageAction};
use crate::vault::Vault;

/// Bring in the ingests of git's history the manifest lacks; how many.
pub fn import(vault: &Vault, manifest: &mut Manifest) -> Result<usize, IngestError> {
    let since = manifest.ingests_walked()?;
    let found = history::ingest_commits(&vault.root, since.as_deref())?;
    let Some(head) = found.head else {
        return Ok(0);
    };
    if since.as_deref() == Some(head.as_str()) {
        return Ok(0);
    }
    let mut new = Vec::new();
    for c in &found.ingests {
        if !manifest.knows_ingest_token(&c.token)? {
            new.push(imported(c));
        }
    }
    let reverts: Vec<(String, String, String)> = found
        .reverts
        .iter()
        .map(|r| (r.token.clone(), rfc3339(r.time).0, r.commit.clone()))
        .collect();
    Ok(manifest.import_ingests(&new, &reverts, &head)?)
}

/// The record of the ingest a finalize commit made.
fn imported(c: &IngestCommit) -> Imported {
    let mut entries = Vec::new();
    let mut pages = Vec::new();
    for (path, before, after) in &c.files {
        if crate::archive::is_archive(path) {
            if let Some(text) = after.as_deref().and_then(|b| std::str::from_utf8(b).ok()) {
                let date = path
                    .rsplit('/')
                    .next()
                    .and_then(|n| n.strip_suffix(".md"))
                    .unwrap_or_default();
                entries.extend(blocks_of(text, &c.token, date));
            }
            continue;
        }
        if !(path.starts_with("wiki/") && path.ends_with(".md")) {
            continue;
        }
        let hash = |b: &Option<Vec<u8>>| b.as_deref().map(|b| blake3::hash(b).to_hex().to_string());
        let action = match (before, after) {
            (None, Some(_)) => PageAction::Created,
            (Some(_), None) => PageAction::Deleted,
            _ => PageAction::Changed,
        };
        pages.push((path.clone(), action, hash(before), hash(after)));
    }
    entries.sort_by_key(|e| e.0);
    Imported {
        number: c.number,
        token: c.token.clone(),
        at: rfc3339(c.time),
        commit: c.commit.clone(),
        base: c.parent.clone(),
        entries,
        pages,
    }
}

/// The entries an archive file's blocks with `token`'s markers hold: number, capture date,
/// hash, content. A block runs from its marker to the `---` line where its content, as
/// finalize wrote it, has the hash the marker names (a capture may hold a `---` line).
fn blocks_of(text: &str, token: &str, date: &str) -> Vec<(u32, String, String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(m) = parse_marker(line).filter(|m| m.token == token) else {
            continue;
        };
        let ends: Vec<usize> = (i + 1..lines.len())
            .filter(|&j| lines[j].trim_end() == "---")
            .chain([lines.len()])
            .collect();
        let content = |end: usize| lines[i + 1..end].join("\n");
        let chosen = ends
            .iter()
            .map(|&end| content(end))
            .find(|c| blake3::hash(c.as_bytes()).to_hex().as_str() == m.hash)
            .unwrap_or_else(|| content(ends[0]));
        out.push((m.entry, date.to_string(), m.hash, chosen));
    }
    out
}

/// A commit's time as RFC 3339 in its own offset, and in ns since the epoch.
fn rfc3339((seconds, offset_minutes): (i64, i32)) -> (String, i64) {
    let offset = chrono::FixedOffset::east_opt(offset_minutes * 60)
        .unwrap_or_else(|| chrono::FixedOffset::east_opt(0).expect("UTC"));
    let at = chrono::DateTime::from_timestamp(seconds, 0)
        .unwrap_or_default()
        .with_timezone(&offset);
    (
        at.to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
        seconds.saturating_mul(1_000_000_000),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_holding_a_rule_line_is_read_whole_by_its_hash() {
        let content = "A capture\n---\nwith a rule inside";
        let hash = crate::inbox::hash(content);
        let other = crate::inbox::hash("Next");
        let text = format!(
            "---\n{}\n{content}\n---\n{}\nNext\n",
            crate::archive::marker(3, "tok", 1, &hash),
            crate::archive::marker(3, "tok", 2, &other),
        );
        let got = blocks_of(&text, "tok", "2026-05-01");
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].3, content);
        assert_eq!(got[1].3, "Next");
        assert!(blocks_of(&text, "other", "2026-05-01").is_empty());
    }
}
