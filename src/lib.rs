//! Sparks: the runtime of a personal knowledge base maintained by AI agents.
//!
//! A human captures into `inbox.md`; an agent writes wiki pages; this crate does everything
//! mechanical in between. The `cli` module is the only one that parses arguments, prints or
//! chooses exit codes; every other module takes plain values and returns plain values and
//! typed errors, so that the CLI, the MCP server and the viewer can share them.

pub mod cli;

pub mod failure;
pub mod request;
pub mod session;

pub mod archive;
pub mod brief;
pub mod capture;
pub mod cjk;
pub mod clock;
pub mod collections;
pub mod config;
pub mod contract;
pub mod diff;
pub mod fault;
pub mod fmt;
pub mod fsio;
pub mod fuzzy;
pub mod git;
pub mod ident;
pub mod inbox;
pub mod index;
pub mod ingest;
pub mod init;
pub mod key;
pub mod lint;
pub mod live;
pub mod lock;
pub mod manifest;
pub mod markdown;
pub mod markers;
pub mod mcp;
pub mod memory;
pub mod mv;
pub mod par;
pub mod paths;
pub mod pieces;
pub mod progress;
pub mod query;
pub mod runstate;
pub mod scan;
pub mod schema;
pub mod search;
pub mod status;
pub mod stop;
pub mod sync;
pub mod tasks;
pub mod vault;
pub mod view;
pub mod watch;
