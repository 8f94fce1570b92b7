//! `lint`: the vault's health checks, from the manifest: a query per family of checks (the
//! source checks join in memory what they read in two table passes), run on two threads for
//! the whole vault; the link checks' issues, as many as the links, are counted then and read
//! again as they are written (`report.rs`), so that memory does not grow with them; the
//! frontmatter checks use the same schema as `fmt`. The command brings the manifest up to date
//! first ([`run`]): an agent lints right after writing pages, and a page the manifest does not
//! know yet would be skipped and every link to it reported broken.

mod check;
mod checks;
pub mod delta;
pub mod fix;
pub mod freshness;
mod report;

pub use check::{CHECKS, Check, NoSuchCheck};
pub use report::{Holding, Issues, LintReport, Stream};

use crate::clock::Now;
use crate::contract::{self, FileState};
use crate::failure::{Action, Advice, Hint};
use crate::manifest::{Manifest, ManifestError, Pages};
use crate::progress::Progress;
use crate::scan;
use crate::vault::Vault;
use serde::Serialize;
use std::path::Path;

/// One problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Issue {
    /// The check that found it.
    pub check: Check,
    /// The page concerned (for links, the linking page).
    pub path: String,
    /// The line, where there is one.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// What to do about it, in the words of the front end that tells it (worded by
    /// [`Issues::word`]; only where a check has advice: `near-duplicates`'s merge).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub hint: String,
    /// What to do about it, for the front end to word.
    #[serde(skip)]
    pub action: Option<Action>,
}

/// Something lint reports besides issues.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    /// What kind of note: `contract-drift`.
    pub kind: &'static str,
    /// The file concerned.
    pub path: String,
    /// What is the matter.
    pub message: String,
    /// What to do about it, in the words of the front end that tells it (empty until it is
    /// worded: [`LintReport::word`]).
    pub hint: String,
    /// What to do about it, for the front end to word.
    #[serde(skip)]
    pub action: Action,
}

/// The notes about the vault at `root`: each agent instruction file that differs from the
/// contract built into this binary.
pub fn notes(root: &Path) -> Vec<Note> {
    contract::installed(root)
        .into_iter()
        .filter(|f| f.state == FileState::Differs)
        .map(|f| Note {
            kind: "contract-drift",
            path: f.file.to_string(),
            message: format!(
                "{} differs from the agent contract built into this sparks",
                f.file
            ),
            hint: String::new(),
            action: Action::InstallContract {
                agent: f.agent.name().to_string(),
            },
        })
        .collect()
}

/// Lint could not run.
#[derive(Debug, thiserror::Error)]
pub enum LintError {
    /// `--check` names no check.
    #[error("there is no lint check called {0:?} (checks: {checks})", checks = CHECKS.join(", "))]
    UnknownCheck(String),
    /// The manifest failed.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// A fix could not be written.
    #[error(transparent)]
    Fix(#[from] fix::FixError),
    /// Bringing the manifest up to date failed.
    #[error("the scan before linting or after the fixes failed: {0}")]
    Rescan(String),
}

impl Hint for LintError {
    /// What the user can do about it: for an unknown check, the nearest name.
    fn hint(&self) -> Option<Advice> {
        match self {
            LintError::UnknownCheck(name) => Some(match nearest_check(name) {
                Some(c) => Advice::say(format!("did you mean `{c}`?")),
                None => Advice::run(Action::LintChecks).then(" to see what each check does"),
            }),
            LintError::Manifest(m) => m.hint(),
            LintError::Fix(_) | LintError::Rescan(_) => None,
        }
    }
}

/// The check whose name is closest to `name`, if one is close.
fn nearest_check(name: &str) -> Option<&'static str> {
    CHECKS
        .iter()
        .map(|c| (strsim::jaro_winkler(name, c), *c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// Which checks to run: all, or those named.
pub fn select(names: &[String]) -> Result<Vec<Check>, LintError> {
    if names.is_empty() {
        return Ok(Check::ALL.to_vec());
    }
    names
        .iter()
        .map(|n| {
            n.parse()
                .map_err(|NoSuchCheck(n)| LintError::UnknownCheck(n))
        })
        .collect()
}

/// What a lint run is asked to do.
#[derive(Debug, Clone, Copy)]
pub struct Asked<'a> {
    /// The checks to run.
    pub checks: &'a [Check],
    /// Whether the safe fixes are applied first.
    pub fix: bool,
    /// How the report holds its issues.
    pub holding: Holding,
}

/// Bring the manifest up to date with the files (lint answers about the vault as it is, not
/// as the last scan saw it), then do what `asked` says: the safe fixes first when asked, then
/// the checks; the notes about the vault come with the report, which holds its issues as asked
/// (and, when it does not, keeps `manifest` to read them). `progress` hears how the scan and
/// the checks go.
pub fn run(
    vault: &Vault,
    mut manifest: Manifest,
    asked: Asked<'_>,
    now: &Now,
    fresh: &mut scan::Freshness,
    progress: &dyn Progress,
) -> Result<LintReport, LintError> {
    let Asked {
        checks,
        fix,
        holding,
    } = asked;
    let seen = scan::refresh(vault, &mut manifest, now, fresh, progress)
        .map_err(|e| LintError::Rescan(e.to_string()))?;
    let fixes = match fix {
        true => fix::apply(vault, &mut manifest, checks, now, progress)?,
        false => Vec::new(),
    };
    Ok(LintReport {
        issues: Issues::of(vault, manifest, checks, holding, progress)?,
        fixes,
        notes: notes(&vault.root),
        seen,
    })
}

/// Run the given checks on the vault's manifest as it is (the vault's configuration sets the
/// thin threshold), `progress` hearing how they go: every issue, by check, path and line.
pub fn lint(
    vault: &Vault,
    manifest: &Manifest,
    checks: &[Check],
    progress: &dyn Progress,
) -> Result<Vec<Issue>, LintError> {
    lint_in(vault, manifest, checks, Pages::All, progress)
}

/// [`lint`], reporting only the issues of the pages in `scope`: what [`lint`] reports of
/// them, at the cost of those pages rather than of the vault (the link, fragment, name and
/// frontmatter checks ask the manifest about those pages alone).
pub fn lint_in(
    vault: &Vault,
    manifest: &Manifest,
    checks: &[Check],
    scope: Pages<'_>,
    progress: &dyn Progress,
) -> Result<Vec<Issue>, LintError> {
    Ok(report::gather(vault, manifest, checks, scope, progress)?.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;

    #[test]
    fn an_unknown_check_suggests_the_nearest_name() {
        let hint = |n: &str| LintError::UnknownCheck(n.into()).hint().unwrap();
        assert_eq!(hint("broken-link"), "did you mean `broken-links`?".into());
        assert_eq!(hint("orphan"), "did you mean `orphans`?".into());
        assert_eq!(
            hint("zzz"),
            Advice::run(crate::failure::Action::LintChecks).then(" to see what each check does")
        );
    }

    /// A vault with an issue of every gate check, some of them between pages (a name two
    /// pages claim, a link to another page's missing heading).
    fn troubled_vault() -> (tempfile::TempDir, Vault, Manifest) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path();
        fs_err::write(root.join("sparks.toml"), "").expect("config");
        fs_err::create_dir_all(root.join("wiki/concepts")).expect("dirs");
        let page = |name: &str, text: &str| {
            fs_err::write(root.join(format!("wiki/concepts/{name}.md")), text).expect("a page")
        };
        let fm = |title: &str, more: &str| {
            format!(
                "---\ntitle: {title}\ntype: concept\ncreated: 2026-01-01\nupdated: 2026-01-01\n{more}---\n"
            )
        };
        page(
            "A",
            &format!(
                "{}See [[Nowhere]], [[B#No such heading]] and ![[gone.png]].\n\
                 Fine: [[B#Real heading]], [[C#^here]], [[A#Top]].\n# Top\n",
                fm("A", "")
            ),
        );
        page(
            "B",
            &format!(
                "{}# Real heading\nSee [[Twin]] and [[C#^noblock]].\n",
                fm("B", "aliases: [Twin]\n")
            ),
        );
        page("C", &format!("{}Text. ^here\n", fm("Twin", "")));
        page("D", "No frontmatter, a link to [[A]].\n");
        page("E", "---\ntitle: [unclosed\n---\nBody.\n");
        page(
            "F",
            &format!("{}Fine, links to [[A]].\n", fm("A", "maturity: ripe\n")),
        );
        // Tags on two neighbouring pages, one of them miswritten; a heading link to a file
        // that is not a page (its fragment is not checked).
        page(
            "G",
            &format!(
                "{}[[raw/doc.md#Elsewhere]]\n",
                fm("G", "tags: [gamma, \"#Big Idea\"]\n")
            ),
        );
        page("H", &format!("{}Body.\n", fm("H", "tags: [eta]\n")));
        fs_err::create_dir_all(root.join("raw")).expect("raw");
        fs_err::write(root.join("raw/doc.md"), "# Part\n").expect("a raw file");
        let vault = Vault::open(root).expect("the vault");
        let mut m = Manifest::open(&root.join("sparks.db")).expect("the manifest");
        let now = crate::clock::Now::read(None);
        crate::scan::rescan(&vault, &mut m, &now, &Silent).expect("scan");
        (dir, vault, m)
    }

    #[test]
    fn a_lint_of_some_pages_reports_what_the_whole_lint_reports_of_them() {
        let (_dir, vault, m) = troubled_vault();
        let all = lint(&vault, &m, Check::ALL, &Silent).expect("lint");
        let gate = delta::GATE_CHECKS;
        let checks: std::collections::BTreeSet<Check> = all.iter().map(|i| i.check).collect();
        for c in gate {
            assert!(checks.contains(c), "the vault has no {c:?} issue: {all:#?}");
        }
        let paths: Vec<String> = ["A", "B", "C", "D", "E", "F", "G", "H"]
            .iter()
            .map(|n| format!("wiki/concepts/{n}.md"))
            .collect();
        // Every subset of the pages, with every check and with the gate's.
        for mask in 0u32..(1 << paths.len()) {
            let only: Vec<String> = (0..paths.len())
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| paths[i].clone())
                .collect();
            for checks in [Check::ALL, gate] {
                let full = lint(&vault, &m, checks, &Silent).expect("lint");
                let want: Vec<&Issue> = full.iter().filter(|i| only.contains(&i.path)).collect();
                let got = lint_in(&vault, &m, checks, Pages::Only(&only), &Silent)
                    .expect("lint of some pages");
                assert_eq!(got.iter().collect::<Vec<_>>(), want, "pages {only:?}");
            }
        }
    }

    #[test]
    fn a_streamed_report_writes_what_a_held_one_holds_in_report_order() {
        let (_dir, vault, m) = troubled_vault();
        let held = lint(&vault, &m, Check::ALL, &Silent).expect("lint");
        let mut sorted = held.clone();
        sorted.sort_by(|a, b| (a.check, &a.path, a.line).cmp(&(b.check, &b.path, b.line)));
        assert_eq!(held, sorted, "the issues come out by check, path and line");
        let json = |holding| {
            let reader = m.another_reader().expect("a reader");
            let issues = Issues::of(&vault, reader, Check::ALL, holding, &Silent).expect("lint");
            let report = LintReport {
                issues,
                fixes: Vec::new(),
                notes: Vec::new(),
                seen: scan::Seen::default(),
            };
            serde_json::to_string_pretty(&report).expect("JSON")
        };
        let whole = json(Holding::Whole);
        assert!(whole.contains("broken-links"), "{whole}");
        assert_eq!(json(Holding::Streamed), whole);
    }

    #[test]
    fn tags_are_checked_on_their_own_page_and_a_file_fragment_is_not() {
        let (_dir, vault, m) = troubled_vault();
        let all = lint(&vault, &m, Check::ALL, &Silent).expect("lint");
        let of = |name: &str| -> Vec<&str> {
            let path = format!("wiki/concepts/{name}.md");
            all.iter()
                .filter(|i| i.path == path && i.check == Check::InvalidFrontmatter)
                .map(|i| i.message.as_str())
                .collect()
        };
        assert_eq!(
            of("G"),
            [r##"tag "#Big Idea" should be written "big-idea""##],
            "{all:#?}"
        );
        assert_eq!(of("H"), Vec::<&str>::new(), "{all:#?}");
        assert!(
            all.iter().all(|i| !i.message.contains("raw/doc.md")),
            "a fragment of a file that is not a page was checked: {all:#?}"
        );
    }

    #[test]
    fn only_a_differing_instruction_file_is_noted() {
        let dir = tempfile::tempdir().unwrap();
        fs_err::write(dir.path().join("AGENTS.md"), contract::CONTRACT).unwrap();
        assert_eq!(notes(dir.path()), []);
        fs_err::write(dir.path().join("CLAUDE.md"), "old rules\n").unwrap();
        let n = notes(dir.path());
        assert_eq!(n.len(), 1);
        assert_eq!(
            (n[0].kind, n[0].path.as_str()),
            ("contract-drift", "CLAUDE.md")
        );
        assert_eq!(
            n[0].action,
            Action::InstallContract {
                agent: "claude".into()
            }
        );
    }
}
