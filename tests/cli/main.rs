//! The integration tests: the built `sparks` binary run on temporary vaults.
#![allow(clippy::unwrap_used)]
// Test code may touch the disk through `std::fs`: a failing test names its line.
#![allow(clippy::disallowed_methods)]

mod filters;
mod harness;
mod old_schemas;

mod affected;
mod brief;
// The peak resident size of a child, read in Python's `resource`.
#[cfg(target_os = "linux")]
mod brief_memory;
mod capture;
mod collections;
mod colour_and_quiet;
mod compat;
mod conflicts;
mod fault_matrix;
mod faults;
mod fmt;
// The peak resident size of a child, read in Python's `resource`.
#[cfg(target_os = "linux")]
mod fmt_memory;
mod git;
mod help;
mod hostile;
// Resident memory and environments read in /proc.
#[cfg(target_os = "linux")]
mod idle_memory;
mod index;
mod ingest;
mod ingest_inbox;
mod init;
mod journal;
mod lint;
mod lint_fix;
// The peak resident size of a child, read in Python's `resource`.
#[cfg(target_os = "linux")]
mod lint_memory;
// Its client is the MCP Python SDK in the venv scripts/test-deps.sh makes (on Debian).
#[cfg(target_os = "linux")]
mod mcp;
mod mcp_arguments;
#[cfg(target_os = "linux")]
mod mcp_scenario;
#[cfg(target_os = "linux")]
mod mcp_sessions;
mod mcp_stdio;
mod merge;
mod mv;
mod mv_wiki;
mod near_duplicates;
mod newcomer;
mod plain_git;
mod plurals;
// On a pseudo-terminal made by util-linux's `script`.
#[cfg(target_os = "linux")]
mod progress;
mod provenance;
mod provenance_revert;
mod provenance_strict;
mod publish;
mod publish_browser;
mod query;
// The peak resident size of a child, read in Python's `resource`.
#[cfg(target_os = "linux")]
mod query_memory;
mod races;
mod recovery;
mod related;
mod scan;
mod scan_derived;
mod scan_recovery;
mod search;
mod search_ranked;
mod session;
mod soak;
mod status;
mod sync;
mod sync_history;
mod sync_kills;
mod sync_merge;
mod sync_trust;
mod sync_twice;
mod tasks;
mod tasks_add;
mod transport;
mod unicode;
mod untrusted;
mod view;
mod view_archive;
mod view_embeds;
mod view_events;
mod view_graph;
mod view_links;
mod view_related;
mod view_search;
mod view_security;
mod view_server;
mod watch;
