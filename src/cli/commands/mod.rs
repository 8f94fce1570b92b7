//! One file per command: its arguments (whose doc comments are the help text) and `run`.

pub mod affected;
pub mod brief;
pub mod capture;
pub mod collections;
pub mod completions;
pub mod describe;
pub mod done;
pub mod fmt;
pub mod index;
pub mod ingest;
pub mod init;
pub mod lint;
pub mod merge;
pub mod merge_driver;
pub mod mv;
pub mod query;
pub mod scan;
pub mod search;
pub mod serve;
pub mod status;
pub mod sync;
pub mod tasks;
pub mod view;
pub mod watch;
