//! The tools. Each converts its arguments and calls the same core function as its CLI command,
//! and answers with the report that command prints with `--json`. A command's non-zero exit
//! with data (an ingest already open, lint or fmt issues, an ambiguous `done`) is a normal
//! result here: the data says what happened. Annotations say what each tool can change; a
//! tool that writes only with some argument is not read-only.

use super::Server;
use super::args::*;
use super::call::Outcome;
use super::reply;
use crate::affected::affected_now;
use crate::brief::brief;
use crate::collections::regen::{RegenRequest, regen};
use crate::contract::CONTRACT;
use crate::fmt::{FmtRequest, fmt_recorded};
use crate::index::index;
use crate::ingest::{self, FinalizeOptions, Prepared};
use crate::lint;
use crate::manifest::{PageFilter, Scope};
use crate::query::{self, Request};
use crate::scan::{ScanOptions, scan};
use crate::search;
use crate::status::status;
use crate::tasks;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};

#[tool_router(vis = "pub(super)")]
impl Server {
    #[tool(
        description = "Vault overview: pages by type, pending inbox entries, changed files, open ingest.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_status(&self, _: Parameters<NoArgs>) -> CallToolResult {
        self.runner
            .read(|c| {
                let vault = c.vault()?;
                let manifest = c.manifest(&vault)?;
                reply::json(&status(&vault, &manifest, c.now.today)?)
            })
            .await
    }

    #[tool(
        description = "Update the manifest from the files; run it after writing pages, before query or search (lint, index, affected, brief and regen update it themselves).",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_scan(&self, Parameters(a): Parameters<ScanArgs>) -> CallToolResult {
        self.runner
            .write(move |c| {
                let vault = c.vault()?;
                let mut manifest = c.manifest(&vault)?;
                let opts = ScanOptions { full: a.full };
                reply::json(&scan(
                    &vault,
                    &mut manifest,
                    opts,
                    &c.now.timestamp,
                    c.now.ns,
                )?)
            })
            .await
    }

    #[tool(
        description = "The agent contract: what you do, what sparks does. Read it before the first ingest.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_describe(&self, _: Parameters<NoArgs>) -> CallToolResult {
        reply::text(CONTRACT)
    }

    #[tool(
        description = "Health checks: links, frontmatter, orphans, thin and stale pages. Issues are data, not errors.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_lint(&self, Parameters(a): Parameters<LintArgs>) -> CallToolResult {
        self.runner
            .run(a.fix, move |c| {
                let checks = lint::select(&a.checks)?;
                let vault = c.vault()?;
                let mut manifest = c.manifest(&vault)?;
                reply::json(&lint::run(&vault, &mut manifest, &checks, a.fix, &c.now)?)
            })
            .await
    }

    #[tool(
        description = "Collections whose sources changed since the last completed ingest, with the files behind each.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_affected(&self, _: Parameters<NoArgs>) -> CallToolResult {
        self.runner
            .read(|c| {
                let vault = c.vault()?;
                let mut manifest = c.manifest(&vault)?;
                reply::json(&affected_now(&vault, &mut manifest, &c.now)?)
            })
            .await
    }

    #[tool(
        description = "Rebuild wiki/index.md from the manifest, keeping descriptions and hand-written lines.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_index(&self, Parameters(a): Parameters<IndexArgs>) -> CallToolResult {
        self.runner
            .run(!a.dry_run, move |c| {
                let vault = c.vault()?;
                let mut manifest = c.manifest(&vault)?;
                reply::json(&index(&vault, &mut manifest, &c.now, a.dry_run)?)
            })
            .await
    }

    #[tool(
        description = "Open an ingest: the next batch of inbox entries. If one is open, returns it again (already_in_progress: true).",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn sparks_prepare_ingest(
        &self,
        Parameters(a): Parameters<PrepareArgs>,
    ) -> CallToolResult {
        self.runner
            .write(move |c| {
                let vault = c.vault()?;
                let mut manifest = c.manifest(&vault)?;
                match ingest::prepare(&vault, &mut manifest, &c.now, a.limit)? {
                    Prepared::Opened(b) | Prepared::InProgress(b) | Prepared::Empty(b) => {
                        reply::json(&b)
                    }
                }
            })
            .await
    }

    #[tool(
        description = "After writing the batch's pages: archive it, remove it from the inbox, scan, commit. Call again to resume.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_finalize_ingest(
        &self,
        Parameters(a): Parameters<FinalizeArgs>,
    ) -> CallToolResult {
        self.runner
            .write(move |c| {
                let vault = c.vault()?;
                let mut manifest = c.manifest(&vault)?;
                let opts = FinalizeOptions {
                    message: a.message,
                    keep: a.keep,
                };
                reply::json(&ingest::finalize(&vault, &mut manifest, &c.now, &opts)?)
            })
            .await
    }

    #[tool(
        description = "Close the open ingest without archiving; its entries stay in the inbox.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_abort_ingest(&self, _: Parameters<NoArgs>) -> CallToolResult {
        self.runner
            .write(|c| {
                let vault = c.vault()?;
                let mut manifest = c.manifest(&vault)?;
                reply::json(&ingest::abort(&vault, &mut manifest, &c.now)?)
            })
            .await
    }

    #[tool(
        description = "The open ingest's batch, or {\"ingest_id\": null}.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_ingest_status(&self, _: Parameters<NoArgs>) -> CallToolResult {
        self.runner
            .read(|c| {
                let vault = c.vault()?;
                let manifest = c.manifest(&vault)?;
                match ingest::open_batch(&vault, &manifest, &c.now)? {
                    Some(b) => reply::json(&b),
                    None => reply::json(&serde_json::json!({ "ingest_id": null })),
                }
            })
            .await
    }

    #[tool(
        description = "Mark the open task the query names done (exact, unique substring, or the query's letters in order with a clear winner); if several match, lists them; says when the task is already done.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn sparks_done(&self, Parameters(a): Parameters<DoneArgs>) -> CallToolResult {
        self.runner
            .write(move |c| {
                let vault = c.vault()?;
                let mut manifest = c.manifest(&vault)?;
                reply::json(&tasks::done_recorded(
                    &vault,
                    &mut manifest,
                    &a.query,
                    &c.now,
                )?)
            })
            .await
    }

    #[tool(
        description = "Add an open task under a section of Tasks.md (created if missing); an identical open task is not added twice.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_tasks_add(&self, Parameters(a): Parameters<TasksAddArgs>) -> CallToolResult {
        self.runner
            .write(move |c| {
                let vault = c.vault()?;
                let mut manifest = c.manifest(&vault)?;
                reply::json(&tasks::add_recorded(
                    &vault,
                    &mut manifest,
                    &a.section,
                    &a.text,
                    &c.now,
                )?)
            })
            .await
    }

    #[tool(
        description = "Recent activity for the weekly brief: log, raw files, updated pages, pages to revisit, open tasks.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_brief(&self, Parameters(a): Parameters<BriefArgs>) -> CallToolResult {
        self.runner
            .read(move |c| -> Outcome {
                let days = crate::brief::window_days(a.days.map_or(0, i64::from))
                    .map_err(|e| anyhow::anyhow!("days: {e}"))?;
                let vault = c.vault()?;
                let mut manifest = c.manifest(&vault)?;
                reply::json(&brief(&vault, &mut manifest, &c.now, days)?)
            })
            .await
    }

    #[tool(
        description = "Find pages by frontmatter and links (filters combine with AND); resolve: check a new page's name for collisions.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_query(&self, Parameters(a): Parameters<QueryArgs>) -> CallToolResult {
        self.runner
            .read(move |c| -> Outcome {
                if a.resolve.is_some() && a.filters() {
                    anyhow::bail!("resolve cannot be combined with filters or limit");
                }
                let vault = c.vault()?;
                let manifest = c.manifest(&vault)?;
                if let Some(name) = &a.resolve {
                    return reply::json(&query::resolve(&manifest, name)?);
                }
                let filter = PageFilter {
                    title: a.title,
                    alias: a.alias,
                    tag: a.tag,
                    kind: a.kind,
                    maturity: a.maturity,
                    linked_from: a.linked_from,
                    links_to: a.links_to,
                    stale: a.stale,
                    orphan: a.orphan,
                    thin: a.thin.then_some(vault.config.lint.thin_below_sentences),
                    limit: a.limit,
                    ..PageFilter::default()
                };
                reply::json(&query::query(&manifest, &Request { filter })?)
            })
            .await
    }

    #[tool(
        description = "Check the frontmatter of files on disk against the schema; issues are data, not errors.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_fmt(&self, Parameters(a): Parameters<FmtArgs>) -> CallToolResult {
        self.runner
            .run(a.fix, move |c| -> Outcome {
                if a.fix && a.check {
                    anyhow::bail!("fix and check cannot be combined");
                }
                let vault = c.vault()?;
                let mut manifest = c.manifest(&vault)?;
                let req = FmtRequest {
                    target: a.path,
                    fix: a.fix,
                    pending: crate::ingest::pending_archives_in(&vault)?,
                };
                reply::json(&fmt_recorded(&vault, &mut manifest, &req, c.now.ns)?)
            })
            .await
    }

    #[tool(
        description = "Full-text search of pages (text, titles, aliases, tags) or raw files, best first.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_search(&self, Parameters(a): Parameters<SearchArgs>) -> CallToolResult {
        self.runner
            .read(move |c| {
                let vault = c.vault()?;
                let manifest = c.manifest(&vault)?;
                let req = search::Request {
                    query: a.query,
                    scope: match a.scope.as_deref() {
                        Some("raw") => Scope::Raw,
                        Some("all") => Scope::All,
                        _ => Scope::Wiki,
                    },
                    kind: a.kind,
                    tag: a.tag,
                    limit: a.limit.unwrap_or(20),
                };
                reply::json(&search::search(&vault, &manifest, &req)?)
            })
            .await
    }

    #[tool(
        description = "Regenerate collection pages: the affected ones, those named, or all; unchanged pages are left alone.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_collections_regen(
        &self,
        Parameters(a): Parameters<RegenArgs>,
    ) -> CallToolResult {
        self.runner
            .run(!a.dry_run, move |c| -> Outcome {
                if a.all && !a.names.is_empty() {
                    anyhow::bail!("names and all cannot be combined");
                }
                let vault = c.vault()?;
                let mut manifest = c.manifest(&vault)?;
                let req = RegenRequest {
                    names: a.names,
                    all: a.all,
                    dry_run: a.dry_run,
                    commit: true,
                };
                reply::json(&regen(&vault, &mut manifest, &c.now, &req)?)
            })
            .await
    }
}
