//! A scripted STAND-IN for a real agent, used by `make demo` only.
//!
//! A real agent (Claude Code, Codex CLI, Gemini CLI) reads the batch that
//! `sparks ingest --prepare` prints and decides what each capture means. This program makes no
//! such decision: it files every capture as a summary page, routes task hints to
//! `sparks tasks add`, and appends a log block, so that the demo can show the mechanical cycle
//! end to end. Usage: `standin_agent VAULT < batch.json` (with `SPARKS` naming the binary).

use serde_json::Value;
use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;
use std::process::Command;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let vault = std::env::args()
        .nth(1)
        .ok_or("usage: standin_agent VAULT < batch.json")?;
    let vault = Path::new(&vault);
    let sparks = std::env::var("SPARKS").unwrap_or_else(|_| "sparks".into());
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input)?;
    let batch: Value = serde_json::from_str(&input)?;
    let entries = batch["entries"].as_array().cloned().unwrap_or_default();
    let today = chrono::Local::now().date_naive().to_string();
    let mut log = format!(
        "\n## [{today}] ingest | {} captures (stand-in agent)\n\n",
        entries.len()
    );
    for e in &entries {
        let id = e["id"].as_u64().unwrap_or(0);
        let date = e["capture_date"].as_str().unwrap_or(&today);
        let content = e["content"].as_str().unwrap_or_default();
        let first = content.lines().next().unwrap_or("capture").trim();
        let title: String = first
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ')
            .take(48)
            .collect::<String>()
            .trim()
            .to_string();
        let title = if title.is_empty() {
            format!("Capture {id}")
        } else {
            title
        };
        let page = format!(
            "---\ntitle: {title}\ntype: summary\nmaturity: seed\ntags: [demo]\n\
             sources: [raw/inbox/{date}.md]\ncreated: {date}\nupdated: {today}\n---\n\n\
             # {title}\n\nThis page was filed by the demo's stand-in agent. It keeps the capture \
             as it came. A real agent would link it to [[Index]] and to related pages.\n\n> {}\n",
            content.replace('\n', "\n> ")
        );
        let path = vault.join("wiki/summaries").join(format!("{title}.md"));
        fs_err::write(&path, page)?;
        writeln!(log, "- filed [[{title}]] (entry {id}, captured {date})")?;
        for task in e["hints"]["tasks"].as_array().into_iter().flatten() {
            let text = task.as_str().unwrap_or_default();
            let status = Command::new(&sparks)
                .args(["--vault"])
                .arg(vault)
                .args(["tasks", "add", "--section", "Inbox", "--text", text])
                .status()?;
            if !status.success() {
                return Err(format!("sparks tasks add failed for {text:?}").into());
            }
        }
    }
    let log_path = vault.join("wiki/log.md");
    let mut text = fs_err::read_to_string(&log_path)?;
    text.push_str(&log);
    fs_err::write(&log_path, text)?;
    eprintln!("stand-in agent: filed {} pages", entries.len());
    Ok(())
}
