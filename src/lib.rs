//! Sparks: the runtime of a personal knowledge base maintained by AI agents.
//!
//! A human captures into `inbox.md`; an agent writes wiki pages; this crate does everything
//! mechanical in between. The `cli` module is the only one that parses arguments, prints or
//! chooses exit codes; every other module takes plain values and returns plain values and
//! typed errors, so that the CLI, the MCP server and the viewer can share them.

pub mod cli;

pub mod archive;
pub mod brief;
pub mod clock;
pub mod config;
pub mod contract;
pub mod fault;
pub mod fsio;
pub mod git;
pub mod inbox;
pub mod ingest;
pub mod init;
pub mod key;
pub mod lint;
pub mod lock;
pub mod manifest;
pub mod markdown;
pub mod query;
pub mod scan;
pub mod schema;
pub mod status;
pub mod tasks;
pub mod vault;
