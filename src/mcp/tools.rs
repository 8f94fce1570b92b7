//! The tools. Each builds the request its CLI command builds and answers with the report that
//! command prints with `--json`. A command's non-zero exit with data (an ingest already open,
//! lint or fmt issues, an ambiguous `done`) is a normal result here: the data says what
//! happened. Annotations say what each tool can change; a tool that writes only with some
//! argument is not read-only.

use super::Server;
use super::args::*;
use super::reply;
use crate::contract::{self, CONTRACT};
use crate::failure::Failure;
use crate::ingest::FinalizeOptions;
use crate::manifest::PageFilter;
use crate::request;
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
        self.runner.call(Ok(request::Status)).await
    }

    #[tool(
        description = "Update the manifest from the files; run it after writing pages, before query or search.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_scan(&self, Parameters(a): Parameters<ScanArgs>) -> CallToolResult {
        self.runner
            .call(Ok(request::Scan {
                full: a.full,
                rebuild: false,
            }))
            .await
    }

    #[tool(
        description = "The agent contract (read it before the first ingest), or with topic a part of its reference.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_describe(&self, Parameters(a): Parameters<DescribeArgs>) -> CallToolResult {
        match a.topic.as_deref().map(contract::find).transpose() {
            Ok(Some(t)) => reply::text(t.text),
            Ok(None) => reply::text(CONTRACT),
            Err(unknown) => reply::failure(&Failure {
                usage: true,
                ..Failure::from(unknown)
            }),
        }
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
        self.runner.call(request::Lint::new(&a.checks, a.fix)).await
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
        self.runner.call(Ok(request::Affected)).await
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
            .call(Ok(request::Index { dry_run: a.dry_run }))
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
            .call(Ok(request::Prepare { limit: a.limit }))
            .await
    }

    #[tool(
        description = "After writing the batch's pages: archive it, clear it from the inbox, scan, commit; lint_delta: issues it added (strict: refuse them). Call again to resume.",
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
        let opts = FinalizeOptions {
            message: a.message,
            keep: a.keep,
            strict: a.strict,
        };
        self.runner.call(Ok(request::Finalize(opts))).await
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
        self.runner.call(Ok(request::Abort)).await
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
        self.runner.call(Ok(request::IngestStatus)).await
    }

    #[tool(
        description = "Every ingest, newest first, with what it did; page: only those that touched it.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_ingest_list(
        &self,
        Parameters(a): Parameters<IngestListArgs>,
    ) -> CallToolResult {
        self.runner
            .call(Ok(request::ListIngests { page: a.page }))
            .await
    }

    #[tool(
        description = "One ingest: its entries and their archive, the pages it touched, its commit, the lint issues it added.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_ingest_show(
        &self,
        Parameters(a): Parameters<IngestShowArgs>,
    ) -> CallToolResult {
        self.runner.call(request::ShowIngest::new(a.id)).await
    }

    #[tool(
        description = "Undo a finalized ingest: entries back to the inbox, archive blocks out, pages as they were. Writes nothing if a page changed since.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn sparks_revert_ingest(&self, Parameters(a): Parameters<RevertArgs>) -> CallToolResult {
        self.runner
            .call(request::Revert::new(a.id, a.dry_run))
            .await
    }

    #[tool(
        description = "Complete the open task the query names (exact, unique substring, or fuzzy with a clear winner); if several match, lists them.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn sparks_done(&self, Parameters(a): Parameters<DoneArgs>) -> CallToolResult {
        self.runner.call(Ok(request::Done { query: a.query })).await
    }

    #[tool(
        description = "Append a capture (text; date YYYY-MM-DD, optional) to inbox.md; safe during an ingest.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn sparks_capture(&self, Parameters(a): Parameters<CaptureArgs>) -> CallToolResult {
        self.runner
            .call(request::Capture::new(a.text, a.date.as_deref()))
            .await
    }

    #[tool(
        description = "Commit, fetch, merge and push the vault with its git remote; clashes become conflict copies. dry_run: report only.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn sparks_sync(&self, Parameters(a): Parameters<SyncArgs>) -> CallToolResult {
        self.runner
            .call(request::SyncVault::new(a.remote, a.dry_run))
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
        let add = request::TasksAdd {
            section: a.section,
            text: a.text,
        };
        self.runner.call(Ok(add)).await
    }

    #[tool(
        description = "Open tasks of Tasks.md (all: done ones too), each with section, text, state, line.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_tasks_list(&self, Parameters(a): Parameters<TasksListArgs>) -> CallToolResult {
        self.runner
            .call(request::TasksList::new(a.all, a.section))
            .await
    }

    #[tool(
        description = "The last days' activity, for the weekly brief: log, new raw files, updated pages, open tasks.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_brief(&self, Parameters(a): Parameters<BriefArgs>) -> CallToolResult {
        self.runner.call(request::Brief::new(a.days)).await
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
            thin: a.thin,
            limit: a.limit,
            ..PageFilter::default()
        };
        self.runner
            .call(request::Query::new(filter, a.resolve))
            .await
    }

    #[tool(
        description = "Check frontmatter on disk against the schema; issues are data, not errors.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_fmt(&self, Parameters(a): Parameters<FmtArgs>) -> CallToolResult {
        self.runner
            .call(request::Fmt::new(a.path, a.fix, a.check))
            .await
    }

    #[tool(
        description = "Search pages or raw files by words and meaning, best first.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_search(&self, Parameters(a): Parameters<SearchArgs>) -> CallToolResult {
        let search = request::Search::new(a.query, a.scope, a.kind, a.tag, a.limit, a.mode);
        self.runner.call(Ok(search)).await
    }

    #[tool(
        description = "Pages nearest a page or a text (meaning, words, links), with why. Read them before writing a page.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_related(&self, Parameters(a): Parameters<RelatedArgs>) -> CallToolResult {
        use crate::search::related::About;
        let about = match (a.page, a.text) {
            (Some(page), None) => Ok(About::Page(page)),
            (None, Some(text)) => Ok(About::Text(text)),
            _ => Err(crate::failure::Failure::usage(
                "give `page` or `text`, one of the two",
            )),
        };
        self.runner
            .call(about.map(|about| request::Related::new(about, a.limit)))
            .await
    }

    #[tool(
        description = "Write the pages marked publish: true as a static site with llms.txt.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn sparks_publish(&self, Parameters(a): Parameters<PublishArgs>) -> CallToolResult {
        let out = a.out.map(std::path::PathBuf::from);
        let publish = request::Publish::new(out, a.all, a.base_url, a.dry_run);
        self.runner.call(Ok(publish)).await
    }

    #[tool(
        description = "Rename or move a page, rewriting every link to it (never rename files yourself). Repeat an interrupted call to complete it.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn sparks_move(&self, Parameters(a): Parameters<MoveArgs>) -> CallToolResult {
        self.runner
            .call(request::Mv::new(a.page, a.new, a.no_alias, a.dry_run))
            .await
    }

    #[tool(
        description = "Append page `from` to `into`, rewrite every link to it, delete it. Repeat an interrupted call to complete it.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn sparks_merge(&self, Parameters(a): Parameters<MergeArgs>) -> CallToolResult {
        self.runner
            .call(request::Merge::new(a.from, a.into, a.dry_run))
            .await
    }

    #[tool(
        description = "Regenerate collection pages: the affected ones, those named, or all.",
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
            .call(request::Regen::new(a.names, a.all, a.dry_run))
            .await
    }
}
