//! `init`: create a vault, or repair one by adding what is missing. Nothing that exists is
//! changed, so running it twice changes nothing the second time.

use crate::config::{CONFIG_FILE, render_default};
use crate::contract::{Agent, CONTRACT};
use crate::failure::{Advice, Hint};
use crate::fsio;
use crate::fsio::FileError;
use crate::manifest::{Manifest, ManifestError, SCHEMA_VERSION};
use crate::vault::{self, DIRS, INBOX, INDEX, LOG, MANIFEST, TASKS, Vault};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The ignore rule `init` makes sure the vault's `.gitignore` has.
pub const IGNORE_RULE: &str = "sparks.db*";
/// The `.gitignore` line that keeps the run-time directory out of git.
pub const RUN_DIR_RULE: &str = ".sparks/";

/// What to initialise.
#[derive(Debug, Clone)]
pub struct InitRequest {
    /// The vault directory (created if missing).
    pub root: PathBuf,
    /// Install this agent's instruction file.
    pub agent: Option<Agent>,
    /// Overwrite an existing instruction file.
    pub force: bool,
    /// Today, for the generated pages' dates.
    pub today: String,
    /// The clock (ns since the epoch), for the manifest's record of the files written.
    pub now_ns: i64,
}

/// What `init` did.
#[derive(Debug, Clone, Serialize)]
pub struct InitReport {
    /// The vault root.
    pub vault_root: PathBuf,
    /// False when the vault existed already.
    pub created: bool,
    /// Vault-relative paths created now, in order.
    pub paths_created: Vec<String>,
    /// The manifest's schema version.
    pub schema_version: i64,
    /// The instruction file, when an agent was named.
    pub agent_file: Option<AgentFile>,
}

/// The outcome for an instruction file.
#[derive(Debug, Clone, Serialize)]
pub struct AgentFile {
    /// `CLAUDE.md`, `AGENTS.md` or `GEMINI.md`.
    pub file: String,
    /// The agent.
    pub agent: &'static str,
    /// `written`, `replaced`, `unchanged` (same content already) or `kept` (differs; no --force).
    pub action: &'static str,
}

/// `init` failed; the error names the path.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// The target lies inside another vault.
    #[error("{} is inside the vault at {}; a vault cannot contain another", inner.display(), outer.display())]
    Nested {
        /// The requested root.
        inner: PathBuf,
        /// The enclosing vault.
        outer: PathBuf,
    },
    /// A file or directory could not be created.
    #[error(transparent)]
    Io(#[from] FileError),
    /// The path could not be resolved.
    #[error(transparent)]
    Vault(#[from] vault::VaultError),
    /// The manifest could not be created.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// The manifest could not record the files written.
    #[error(transparent)]
    Scan(#[from] crate::scan::ScanError),
    /// The git merge driver could not be set up.
    #[error(transparent)]
    Driver(#[from] crate::sync::driver::DriverError),
}

impl Hint for InitError {
    /// What the user can do about it.
    fn hint(&self) -> Option<Advice> {
        match self {
            InitError::Nested { .. } => Some(Advice::say(
                "use the enclosing vault (its wiki has folders for everything), or init somewhere outside it",
            )),
            InitError::Vault(v) => v.hint(),
            InitError::Manifest(m) => m.hint(),
            InitError::Scan(s) => s.hint(),
            InitError::Driver(d) => crate::failure::Hint::hint(d),
            InitError::Io(_) => None,
        }
    }
}

fn system_page(title: &str, today: &str, body: &str) -> String {
    format!(
        "---\ntitle: {title}\ntype: collection\nmaturity: working\nsources: []\n\
         created: {today}\nupdated: {today}\n---\n\n# {title}\n\n{body}\n"
    )
}

/// Create or repair the vault.
pub fn init(req: &InitRequest) -> Result<InitReport, InitError> {
    let root = vault::absolute(&req.root)?;
    if let Some(parent) = root.parent()
        && let Some(outer) = vault::enclosing_root(parent)
    {
        return Err(InitError::Nested { inner: root, outer });
    }
    let existed = vault::is_vault_root(&root);
    let mut created = Vec::new();
    mkdir(&root)?;
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    create_file(&root, CONFIG_FILE, &render_default(&name), &mut created)?;
    for d in DIRS {
        let p = root.join(d);
        if !p.is_dir() {
            mkdir(&p)?;
            created.push(format!("{d}/"));
        }
    }
    create_file(&root, INBOX, crate::inbox::SEED, &mut created)?;
    let today = &req.today;
    create_file(
        &root,
        INDEX,
        &system_page(
            "Index",
            today,
            "The catalogue of this wiki, grouped by type: one line per page, a link and a short \
             description.",
        ),
        &mut created,
    )?;
    create_file(
        &root,
        LOG,
        &system_page(
            "Log",
            today,
            "What happened to this wiki, oldest first. After each ingest the agent appends a \
             block headed `## [YYYY-MM-DD] ingest | <summary>`.",
        ),
        &mut created,
    )?;
    create_file(&root, TASKS, &crate::tasks::seed_file(today), &mut created)?;
    ensure_ignore_rule(&root, &mut created)?;
    // In a git repository, a `git pull` merges Sparks' files by their meaning (as sync does).
    let had_attributes = root.join(".gitattributes").exists();
    if crate::sync::driver::install(&Vault::open(&root)?)? && !had_attributes {
        created.push(".gitattributes".into());
    }
    let db = root.join(MANIFEST);
    if !db.exists() {
        created.push(MANIFEST.into());
    }
    let mut manifest = Manifest::open(&db)?;
    let agent_file = match req.agent {
        Some(agent) => Some(install_contract(&root, agent, req.force)?),
        None => None,
    };
    // The manifest knows the files init wrote, as it knows every file Sparks writes.
    let mut written: Vec<String> = created
        .iter()
        .filter(|p| !p.ends_with('/') && p.as_str() != MANIFEST)
        .cloned()
        .collect();
    if let Some(f) = agent_file
        .as_ref()
        .filter(|f| matches!(f.action, "written" | "replaced"))
    {
        written.push(f.file.clone());
    }
    if !written.is_empty() {
        let vault = Vault::open(&root)?;
        // A few files: nothing worth a progress bar.
        let silent = &crate::progress::Silent;
        crate::scan::scan_paths(&vault, &mut manifest, &written, req.now_ns, silent)?;
    }
    Ok(InitReport {
        vault_root: root,
        created: !existed,
        paths_created: created,
        schema_version: SCHEMA_VERSION,
        agent_file,
    })
}

fn mkdir(p: &Path) -> Result<(), InitError> {
    Ok(fs_err::create_dir_all(p).map_err(FileError::at("create", p))?)
}

fn create_file(
    root: &Path,
    rel: &str,
    content: &str,
    created: &mut Vec<String>,
) -> Result<(), InitError> {
    let p = root.join(rel);
    if fs_err::symlink_metadata(&p).is_ok() {
        return Ok(());
    }
    fsio::write_atomic(&p, content.as_bytes()).map_err(FileError::at("create", p))?;
    created.push(rel.to_string());
    Ok(())
}

/// The `.gitignore` line that keeps a site `publish` writes into the vault by default out of
/// git (the site is derived: published anew from the pages).
pub const SITE_RULE: &str = "/site/";

/// Make sure `.gitignore` keeps the manifest, the run-time directory and the default site out
/// of git.
fn ensure_ignore_rule(root: &Path, created: &mut Vec<String>) -> Result<(), InitError> {
    let new = !root.join(".gitignore").exists();
    let rules = [
        (
            &[IGNORE_RULE, "/sparks.db*"][..],
            "# The Sparks manifest is derived state: `sparks scan` rebuilds it.",
        ),
        (
            &[RUN_DIR_RULE, "/.sparks/"][..],
            "# Sparks' run-time state: what an interrupted command needs to complete.",
        ),
        (
            &[SITE_RULE, "site/"][..],
            "# The site `sparks publish` writes by default: published anew from the pages.",
        ),
    ];
    if ignore(root, &rules)? && new {
        created.push(".gitignore".into());
    }
    Ok(())
}

/// Make sure the vault's `.gitignore` has each rule of `rules` (any of its accepted forms,
/// the first one added after its comment when none is there). Whether it was written.
pub fn ignore(root: &Path, rules: &[(&[&str], &str)]) -> Result<bool, FileError> {
    let p = root.join(".gitignore");
    let old = match fsio::if_exists(fsio::read_to_string(&p)) {
        Ok(t) => t.unwrap_or_default(),
        Err(source) => return Err(FileError::at("read", p)(source)),
    };
    let has = |accepted: &[&str]| old.lines().any(|l| accepted.contains(&l.trim()));
    let mut new = old.clone();
    for (accepted, comment) in rules {
        if has(accepted) {
            continue;
        }
        if !new.is_empty() && !new.ends_with('\n') {
            new.push('\n');
        }
        new.push_str(comment);
        new.push('\n');
        new.push_str(accepted[0]);
        new.push('\n');
    }
    if new == old {
        return Ok(false);
    }
    fsio::write_atomic(&p, new.as_bytes()).map_err(FileError::at("write", p))?;
    Ok(true)
}

/// Write the contract as `agent`'s instruction file.
pub fn install_contract(root: &Path, agent: Agent, force: bool) -> Result<AgentFile, InitError> {
    let file = agent.file_name();
    let p = root.join(file);
    let action = match fsio::read(&p) {
        Ok(old) if old == CONTRACT.as_bytes() => "unchanged",
        Ok(_) if !force => "kept",
        Ok(_) => "replaced",
        Err(_) => "written",
    };
    if matches!(action, "written" | "replaced") {
        fsio::write_atomic(&p, CONTRACT.as_bytes()).map_err(FileError::at("write", p))?;
    }
    Ok(AgentFile {
        file: file.into(),
        agent: agent.name(),
        action,
    })
}
