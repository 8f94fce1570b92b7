//! `sparks describe`: print the agent contract, or a topic of its reference.

use crate::cli::{Ctx, exit::Exit, output};
use crate::contract::{self, CONTRACT, TOPICS};
use clap::Args;
use clap::builder::{PossibleValue, PossibleValuesParser};

/// Print the agent contract, or one topic of its reference
///
/// Without a topic, the contract: what agents do, what sparks does, and how they meet; the
/// same text `sparks init --agent` installs as CLAUDE.md, AGENTS.md or GEMINI.md. With a topic,
/// that part of the reference (every flag, JSON shapes, exit codes, configuration); --topics
/// lists them, one a line with its summary. Works outside a vault.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  sparks describe > AGENTS.md\n  sparks describe --topics\n  sparks describe ingest"
)]
pub struct DescribeArgs {
    /// The topic to print (see --topics; sync and capture print devices)
    #[arg(value_name = "TOPIC", value_parser = topics(), hide_possible_values = true)]
    topic: Option<String>,

    /// List the topics, one a line: its name, then what it holds
    #[arg(long, conflicts_with = "topic")]
    topics: bool,
}

/// The topics' names, each with its aliases (accepted, not listed: an unknown topic is a usage
/// error that lists the names).
fn topics() -> PossibleValuesParser {
    PossibleValuesParser::new(
        TOPICS
            .iter()
            .map(|t| PossibleValue::new(t.name).aliases(t.aliases.iter().copied())),
    )
}

/// Run `describe`.
pub fn run(_ctx: &Ctx, args: DescribeArgs) -> anyhow::Result<Exit> {
    if args.topics {
        output::write(&contract::topic_list())?;
        return Ok(Exit::Success);
    }
    let text = match args.topic.as_deref().and_then(contract::topic) {
        Some(t) => t.text,
        None => CONTRACT,
    };
    output::write(text)?;
    Ok(Exit::Success)
}
