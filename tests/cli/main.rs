//! The integration tests: the built `sparks` binary run on temporary vaults.

mod harness;

mod init;
mod scan;
mod status;
