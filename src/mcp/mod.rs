//! `sparks serve`: an MCP server over stdio, built on the official Rust SDK (rmcp). An adapter
//! like the CLI: every tool turns its arguments into a plain request, calls the core function
//! its CLI command calls, and answers with the JSON that command prints with `--json`. This
//! module owns the protocol side (tool list, schemas, annotations, result encoding, how calls
//! run side by side); it owns no behaviour of the operations.
//!
//! Stdout belongs to the protocol: nothing on the serving path prints. Nothing is opened before
//! a tool call, so the handshake answers at once whatever the vault's size; each call finds
//! the vault and opens the manifest afresh, as a CLI command does.

mod args;
mod call;
mod hint;
mod lenient;
mod reply;
mod stdio;
mod tools;

pub use crate::session::Place;

use call::Runner;
use rmcp::handler::server::tool::ToolRouter;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool_handler};
use std::sync::Arc;

/// What `initialize` tells the client about using this server.
const INSTRUCTIONS: &str = "Sparks does the plumbing of this knowledge base: ingest, manifest, \
    lint, index, tasks. Read sparks_describe (the contract) before the first ingest.";

/// The MCP server: its tools and how their calls run.
pub struct Server {
    runner: Runner,
    tool_router: ToolRouter<Server>,
}

impl Server {
    /// A server whose calls use the vault `place` names.
    pub fn new(place: Place) -> Server {
        let mut tool_router = Self::tool_router();
        for route in tool_router.map.values_mut() {
            args::tidy(Arc::make_mut(&mut route.attr.input_schema));
        }
        Server {
            runner: Runner::new(place),
            tool_router,
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("sparks", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }
}

/// Serve MCP on stdin and stdout until the client closes stdin, or the process is asked to
/// stop (Ctrl-C, SIGTERM): then a write under way runs to its end first.
pub fn serve(place: Place) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let server = Server::new(place);
    let runner = server.runner.clone();
    let served = runtime.block_on(async {
        // Asked to stop before a client said hello, or while it is connected.
        let stop = crate::stop::requested();
        tokio::pin!(stop);
        let service = tokio::select! {
            service = server.serve(stdio::stdio()) => service?,
            () = &mut stop => return anyhow::Ok(()),
        };
        let cancel = service.cancellation_token();
        tokio::select! {
            ended = service.waiting() => {
                ended?;
            }
            () = &mut stop => cancel.cancel(),
        }
        // A write the client stopped waiting for still runs to its end.
        runner.idle().await;
        anyhow::Ok(())
    });
    // A read of stdin cannot be cancelled; do not wait for one.
    runtime.shutdown_background();
    served
}
