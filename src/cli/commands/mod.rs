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
pub mod publish;
pub mod query;
pub mod related;
pub mod scan;
pub mod search;
pub mod serve;
pub mod status;
pub mod sync;
pub mod tasks;
pub mod view;
pub mod watch;

/// Standard input, all of it, as text: `what` ("the capture") names it in errors.
fn stdin(what: &str) -> anyhow::Result<String> {
    use anyhow::Context as _;
    use std::io::Read as _;
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => anyhow::Error::from(crate::failure::Failure::usage(
                "standard input is not UTF-8 text",
            )),
            _ => anyhow::Error::from(e),
        })
        .with_context(|| format!("reading {what} from standard input"))?;
    Ok(text)
}
