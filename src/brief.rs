//! `brief`: what happened in the vault over the last N calendar days, and what deserves a
//! second look, for an agent to write the weekly brief from. Computed from the manifest, the
//! log and the task list; it never runs the whole lint. It brings the manifest up to date first,
//! so that pages and raw files written since the last scan are in the brief. Streamed
//! ([`Holding::Streamed`]), its lists of files and pages are read from the manifest as they are
//! written, not held: after a bulk import every page may be in them.

use crate::clock::Now;
pub use crate::holding::Holding;
use crate::inbox::hints::checkbox_task;
use crate::manifest::{Manifest, ManifestError, RawFile, UpdatedPage};
use crate::scan::{ScanError, Seen};
use crate::vault::{LOG, TASKS, Vault};
use chrono::{Days, NaiveDate};
use serde::{Serialize, Serializer};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Open tasks previewed.
const TASK_PREVIEW: usize = 5;

/// The brief.
#[derive(Debug, Serialize)]
pub struct Brief {
    /// The vault root.
    pub vault_root: PathBuf,
    /// The calendar days covered.
    pub window: Window,
    /// Log blocks dated in the window, newest first.
    pub log_entries: Vec<LogEntry>,
    /// Raw files modified in the window (archives of the inbox excluded), newest first.
    pub new_raw: Listed<RawFile>,
    /// Pages whose `updated:` falls in the window, newest first.
    pub updated_wiki: Listed<UpdatedPage>,
    /// Pages worth revisiting.
    pub revisit: Revisit,
    /// The task list.
    pub tasks: Tasks,
    /// What bringing the manifest up to date first met, when anything.
    #[serde(flatten)]
    pub seen: Seen,
}

/// The days covered: `days` calendar days ending today, local time.
#[derive(Debug, Clone, Serialize)]
pub struct Window {
    /// How many days.
    pub days: u32,
    /// The first day, `YYYY-MM-DD`.
    pub from: String,
    /// The last day (today).
    pub to: String,
    /// When the window starts: midnight of `from`, RFC 3339 with the local offset (the
    /// original's key).
    pub since: String,
    /// The moment of the brief, RFC 3339 with the local offset (the original's key).
    pub now: String,
}

/// A block of `wiki/log.md`.
#[derive(Debug, Clone, Serialize)]
pub struct LogEntry {
    /// Its date.
    pub date: String,
    /// Its heading line.
    pub heading: String,
    /// The whole block.
    pub text: String,
}

/// Revisit signals.
#[derive(Debug, Serialize)]
pub struct Revisit {
    /// Pages older than one of their sources.
    pub stale: Listed<String>,
    /// Seed pages nobody links to.
    pub seed_orphans: Listed<String>,
    /// Pages with little prose.
    pub thin: Listed<String>,
}

/// How a streamed list is read: from the manifest, each item given as it is read until the
/// receiver breaks.
type Reader<T> = Box<
    dyn Fn(&Manifest, &mut dyn FnMut(T) -> ControlFlow<()>) -> Result<(), ManifestError>
        + Send
        + Sync,
>;

/// A list of the brief: held, or read from the manifest (shared by the brief's lists) as it
/// is written.
pub enum Listed<T> {
    /// Every item.
    Held(Vec<T>),
    /// The manifest and how to read the items from it.
    Streamed(Arc<Mutex<Manifest>>, Reader<T>),
}

impl<T> Listed<T> {
    /// The list read by `read` from `manifest`: held whole, or kept to be read as written.
    fn of(
        manifest: &Arc<Mutex<Manifest>>,
        holding: Holding,
        read: Reader<T>,
    ) -> Result<Listed<T>, BriefError> {
        if holding == Holding::Streamed {
            return Ok(Listed::Streamed(manifest.clone(), read));
        }
        let mut all = Vec::new();
        read(&lock(manifest), &mut |t| {
            all.push(t);
            ControlFlow::Continue(())
        })?;
        Ok(Listed::Held(all))
    }

    /// Give each item, in the list's order, until `give` breaks; a streamed list is read from
    /// the manifest (and fails as that does).
    pub fn each(&self, give: &mut dyn FnMut(&T) -> ControlFlow<()>) -> Result<(), ManifestError> {
        match self {
            Listed::Held(all) => {
                let _ = all.iter().try_for_each(give);
                Ok(())
            }
            Listed::Streamed(m, read) => read(&lock(m), &mut |t| give(&t)),
        }
    }
}

/// The manifest, whoever held it before (a panic while reading leaves nothing half-written).
fn lock(m: &Mutex<Manifest>) -> std::sync::MutexGuard<'_, Manifest> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl<T> std::fmt::Debug for Listed<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Listed::Held(all) => write!(f, "Held({} items)", all.len()),
            Listed::Streamed(..) => f.write_str("Streamed"),
        }
    }
}

impl<T: Serialize> Serialize for Listed<T> {
    /// The items as a list, written as they are read.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let len = match self {
            Listed::Held(all) => Some(all.len()),
            Listed::Streamed(..) => None,
        };
        crate::holding::list(s, len, |give| self.each(give))
    }
}

/// The task list.
#[derive(Debug, Clone, Serialize)]
pub struct Tasks {
    /// Open tasks.
    pub open: usize,
    /// The first few open tasks.
    pub first: Vec<String>,
}

/// The brief could not be made.
#[derive(Debug, thiserror::Error)]
pub enum BriefError {
    /// A file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The manifest failed.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// Bringing the manifest up to date failed.
    #[error(transparent)]
    Scan(#[from] ScanError),
}

impl crate::failure::Hint for BriefError {
    /// What the user can do about it.
    fn hint(&self) -> Option<crate::failure::Advice> {
        match self {
            BriefError::Manifest(m) => m.hint(),
            BriefError::Scan(s) => s.hint(),
            BriefError::Read { .. } => None,
        }
    }
}

/// The window when none is asked for, or a non-positive one (as the original took it).
pub const DEFAULT_DAYS: u32 = 7;

/// The longest window: ten years.
pub const MAX_DAYS: u32 = 3660;

/// The window a requested number of days means: [`DEFAULT_DAYS`] for 0 or less (the
/// original's rule), an error above [`MAX_DAYS`].
pub fn window_days(days: i64) -> Result<u32, String> {
    match days {
        ..=0 => Ok(DEFAULT_DAYS),
        d if d <= i64::from(MAX_DAYS) => Ok(d as u32),
        d => Err(format!("{d} days is more than {MAX_DAYS} (ten years)")),
    }
}

/// Make the brief for the `days` calendar days ending today (`progress` hears how the scan
/// before it goes); its lists held or read as they are written, as `holding` says.
pub fn brief(
    vault: &Vault,
    mut manifest: Manifest,
    now: &Now,
    days: u32,
    holding: Holding,
    fresh: &mut crate::scan::Freshness,
    progress: &dyn crate::progress::Progress,
) -> Result<Brief, BriefError> {
    let seen = crate::scan::refresh(vault, &mut manifest, now, fresh, progress)?;
    let today = now.today;
    let days = days.max(1);
    let from = today
        .checked_sub_days(Days::new(u64::from(days) - 1))
        .unwrap_or(NaiveDate::MIN)
        .to_string();
    let to = today.to_string();
    let log = read_optional(vault, LOG)?;
    let tasks_text = read_optional(vault, TASKS)?;
    let mut open = tasks_text.lines().filter_map(checkbox_task);
    let first: Vec<String> = open
        .by_ref()
        .take(TASK_PREVIEW)
        .map(str::to_string)
        .collect();
    let tasks = Tasks {
        open: first.len() + open.count(),
        first,
    };
    let m = Arc::new(Mutex::new(manifest));
    let (f, t) = (from.clone(), to.clone());
    let new_raw = Listed::of(
        &m,
        holding,
        Box::new(move |m, give| m.each_raw_modified(&f, &t, give)),
    )?;
    let (f, t) = (from.clone(), to.clone());
    let updated_wiki = Listed::of(
        &m,
        holding,
        Box::new(move |m, give| m.each_page_updated(&f, &t, give)),
    )?;
    let below = vault.config.lint.thin_below_sentences;
    let revisit = Revisit {
        stale: Listed::of(
            &m,
            holding,
            Box::new(crate::lint::freshness::each_stale_path),
        )?,
        seed_orphans: Listed::of(&m, holding, Box::new(|m, give| m.each_seed_orphan(give)))?,
        thin: Listed::of(
            &m,
            holding,
            Box::new(move |m, give| m.each_thin(below, give)),
        )?,
    };
    Ok(Brief {
        vault_root: vault.root.clone(),
        log_entries: log_blocks(&log, &from, &to),
        new_raw,
        updated_wiki,
        revisit,
        tasks,
        window: Window {
            days,
            since: local_midnight(&from).unwrap_or_else(|| now.timestamp.clone()),
            now: now.timestamp.clone(),
            from,
            to,
        },
        seen,
    })
}

/// Midnight at the start of a `YYYY-MM-DD` day, local time, as RFC 3339.
fn local_midnight(day: &str) -> Option<String> {
    use chrono::TimeZone;
    let midnight = NaiveDate::parse_from_str(day, "%Y-%m-%d")
        .ok()?
        .and_hms_opt(0, 0, 0)?;
    let local = chrono::Local.from_local_datetime(&midnight).earliest()?;
    Some(local.to_rfc3339_opts(chrono::SecondsFormat::Secs, false))
}

fn read_optional(vault: &Vault, rel: &str) -> Result<String, BriefError> {
    let path = vault.path(rel);
    match crate::fsio::read_if_exists(&path) {
        Ok(b) => Ok(b.map_or_else(String::new, |b| String::from_utf8_lossy(&b).into_owned())),
        Err(source) => Err(BriefError::Read { path, source }),
    }
}

/// The date of a log block heading: `## [YYYY-MM-DD] …` with a real calendar date.
fn heading_date(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("## ")?.trim_start().strip_prefix('[')?;
    let date = rest.get(..10)?;
    (rest[10..].starts_with(']') && crate::schema::is_date(date)).then_some(date)
}

/// Log blocks dated between `from` and `to`, newest first (same-day blocks keep file order).
fn log_blocks(log: &str, from: &str, to: &str) -> Vec<LogEntry> {
    let mut blocks: Vec<LogEntry> = Vec::new();
    let mut current: Option<(String, Vec<&str>)> = None;
    for line in log.lines().map(|l| l.trim_end_matches('\r')) {
        if let Some(date) = heading_date(line) {
            if let Some((d, lines)) = current.take() {
                blocks.push(entry(d, &lines));
            }
            current = Some((date.to_string(), vec![line]));
        } else if line.starts_with("# ") || line.starts_with("## ") {
            if let Some((d, lines)) = current.take() {
                blocks.push(entry(d, &lines));
            }
        } else if let Some((_, lines)) = current.as_mut() {
            lines.push(line);
        }
    }
    if let Some((d, lines)) = current {
        blocks.push(entry(d, &lines));
    }
    blocks.retain(|b| b.date.as_str() >= from && b.date.as_str() <= to);
    blocks.sort_by(|a, b| b.date.cmp(&a.date));
    blocks
}

fn entry(date: String, lines: &[&str]) -> LogEntry {
    LogEntry {
        date,
        heading: lines[0].to_string(),
        text: lines.join("\n").trim_end().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_blocks_in_the_window_newest_first() {
        let log = "# Log\n\nintro\n\n## [2026-04-20] ingest | a\n- x\n\n## [2026-04-28] ingest | b\n- y\n\
                   ## [2026-13-40] bogus\n- z\n## Notes\nnot a block\n## [2026-05-01] query | c\n";
        let got = log_blocks(log, "2026-04-25", "2026-05-01");
        let dates: Vec<_> = got.iter().map(|b| b.date.as_str()).collect();
        assert_eq!(dates, ["2026-05-01", "2026-04-28"]);
        assert_eq!(got[1].text, "## [2026-04-28] ingest | b\n- y");
    }

    #[test]
    fn headings_need_a_real_date() {
        assert_eq!(heading_date("## [2026-04-28] x"), Some("2026-04-28"));
        assert_eq!(heading_date("## [2026-02-30] x"), None);
        assert_eq!(heading_date("### [2026-04-28] x"), None);
    }
}
