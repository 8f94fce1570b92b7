//! Sparks: the runtime of a personal knowledge base maintained by AI agents.
//!
//! A human captures into `inbox.md`; an agent writes wiki pages; this crate does everything
//! mechanical in between. The `cli` module is the only one that parses arguments, prints or
//! chooses exit codes; every other module takes plain values and returns plain values and
//! typed errors, so that the CLI, the MCP server and the viewer can share them.

// The modules by the layers of ARCHITECTURE.md, lowest first: a module uses its own layer or
// a lower one (`tests/architecture.rs` checks it against that table).

// 1. Leaves: file I/O, the clock, name keys, how a failure is told, …
pub mod cjk;
pub mod clock;
pub mod diff;
pub mod embed;
pub mod failure;
pub mod fault;
pub mod file_error;
pub mod fsio;
pub mod fuzzy;
pub mod holding;
pub mod key;
pub mod life;
pub mod lock;
pub mod markers;
pub mod memory;
pub mod operation;
pub mod par;
pub mod paths;
pub mod pieces;
pub mod progress;
pub mod stop;

// 2. Formats, pure or nearly.
pub mod config;
pub mod contract;
pub mod inbox;
pub mod markdown;

// 3. The vault on disk, the frontmatter schema, git.
pub mod git;
pub mod schema;
pub mod vault;

// 4. The manifest, the inbox's archive, the run-time records.
pub mod archive;
pub mod manifest;
pub mod runstate;

// 5. The manifest brought up to date; lookups; search; where an operation runs; a page's
// Markdown as the safe HTML the viewer and a published site both show.
pub mod query;
pub mod render;
pub mod scan;
pub mod search;
pub mod session;

// 6. The operations, and the watcher.
pub mod brief;
pub mod capture;
pub mod collections;
pub mod fmt;
pub mod index;
pub mod ingest;
pub mod init;
pub mod lint;
pub mod mv;
pub mod publish;
pub mod status;
pub mod sync;
pub mod tasks;
pub mod watch;

// 7. One typed request per operation, for both front ends.
pub mod request;

// 8. The front ends.
pub mod cli;
pub mod mcp;
pub mod view;
