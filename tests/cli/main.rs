//! The integration tests: the built `sparks` binary run on temporary vaults.
#![allow(clippy::unwrap_used)]
// Test code may touch the disk through `std::fs`: a failing test names its line.
#![allow(clippy::disallowed_methods)]

mod harness;

mod affected;
mod brief;
mod capture;
mod collections;
mod compat;
mod conflicts;
mod fault_matrix;
mod faults;
mod fmt;
mod git;
mod help;
mod hostile;
mod index;
mod ingest;
mod init;
mod lint;
mod lint_fix;
mod mcp;
mod mcp_stdio;
mod merge;
mod mv;
mod newcomer;
mod plain_git;
mod plurals;
mod progress;
mod provenance;
mod query;
mod races;
mod recovery;
mod scan;
mod search;
mod session;
mod soak;
mod status;
mod sync;
mod sync_history;
mod sync_kills;
mod sync_trust;
mod sync_twice;
mod tasks;
mod tasks_add;
mod transport;
mod unicode;
mod untrusted;
mod view;
mod view_embeds;
mod view_graph;
mod watch;
