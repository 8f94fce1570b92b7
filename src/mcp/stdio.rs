//! The stdio transport: rmcp's own line transport over stdin and stdout, with one addition.
//! rmcp answers well-formed JSON that is no JSON-RPC message with "Invalid request", but drops
//! a line that is not JSON at all without a word (a line nested past `serde_json`'s recursion
//! limit included); JSON-RPC 2.0 asks for a parse error (-32700), and a client that sent a
//! broken line should hear so. A task reads stdin line by
//! line and passes every JSON line on to rmcp unchanged; each other line is answered with a
//! parse error, written by rmcp's own writer so that replies never interleave.

use rmcp::model::{ErrorData, ServerJsonRpcMessage};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::{AsyncRwTransport, DEFAULT_MAX_LINE_LENGTH};
use serde_json::error::Category;
use std::future::Future;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

/// The server's side of stdin and stdout.
pub struct Stdio {
    inner: AsyncRwTransport<RoleServer, DuplexStream, tokio::io::Stdout>,
    unparsable: mpsc::UnboundedReceiver<String>,
}

/// The transport over this process's stdin and stdout. Must be called inside the runtime.
pub fn stdio() -> Stdio {
    let (stdin, stdout) = rmcp::transport::stdio();
    let (json, mut to_rmcp) = tokio::io::duplex(64 * 1024);
    let (report, unparsable) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut stdin = BufReader::new(stdin);
        let mut line = Vec::new();
        // Ends at the end of stdin, which closes rmcp's input and so ends the service.
        while let Ok(Some(cut)) = read_line(&mut stdin, &mut line, DEFAULT_MAX_LINE_LENGTH).await {
            let problem = if cut {
                Some(format!(
                    "Parse error: a message longer than {DEFAULT_MAX_LINE_LENGTH} bytes"
                ))
            } else {
                check(&line)
            };
            let sent = match problem {
                Some(p) => report.send(p).is_ok(),
                None if line.trim_ascii().is_empty() => true,
                None => to_rmcp.write_all(&line).await.is_ok(),
            };
            if !sent {
                break;
            }
        }
    });
    Stdio {
        inner: AsyncRwTransport::new(json, stdout),
        unparsable,
    }
}

/// Why `line` does not read as JSON, if it does not: read as rmcp reads it (into a message),
/// so that every line rmcp would drop unanswered is caught here. JSON nested past
/// `serde_json`'s recursion limit of 128 is well-formed to a reader that skips values (which
/// keeps no stack), but rmcp's own reading takes it for a syntax error and drops it; well-formed
/// JSON of the wrong shape is rmcp's to answer ("Invalid request").
fn check(line: &[u8]) -> Option<String> {
    let text = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(text) {
        Err(e) if matches!(e.classify(), Category::Syntax | Category::Eof) => {
            Some(format!("Parse error: {e}"))
        }
        Ok(_) | Err(_) => None,
    }
}

/// Read one line, newline included, into `line`, keeping at most `max` bytes of it. `None` at
/// the end of input; `Some(true)` when the line was longer than `max` (and is dropped).
async fn read_line<R: AsyncBufRead + Unpin>(
    r: &mut R,
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Option<bool>> {
    line.clear();
    let (mut cut, mut read) = (false, false);
    loop {
        let buf = r.fill_buf().await?;
        if buf.is_empty() {
            // A last line without its newline still counts.
            if !line.is_empty() {
                line.push(b'\n');
            }
            return Ok(read.then_some(cut));
        }
        read = true;
        let (n, end) = match buf.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if !cut && line.len() + n <= max {
            line.extend_from_slice(&buf[..n]);
        } else {
            cut = true;
            line.clear();
        }
        r.consume(n);
        if end {
            return Ok(Some(cut));
        }
    }
}

impl Transport<RoleServer> for Stdio {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            tokio::select! {
                message = self.inner.receive() => return message,
                Some(problem) = self.unparsable.recv() => {
                    let reply = ServerJsonRpcMessage::error(ErrorData::parse_error(problem, None), None);
                    self.inner.send(reply).await.ok()?;
                }
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_lines_that_are_not_json_are_caught() {
        assert_eq!(check(br#"{"jsonrpc":"2.0","method":"ping","id":1}"#), None);
        assert_eq!(check(b"\xEF\xBB\xBF{}\n"), None);
        assert_eq!(check(b"42\n"), None);
        assert!(check(b"this is not json\n").is_some_and(|e| e.starts_with("Parse error: ")));
        assert!(check(b"{\"jsonrpc\": \n").is_some());
        // Nested past the recursion limit, anywhere: a parse error, not a line dropped.
        for depth in [126, 127, 200, 100_000] {
            let deep = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"a":{}{}}}}}"#,
                "[".repeat(depth),
                "]".repeat(depth)
            );
            let problem = check(deep.as_bytes());
            assert!(
                problem
                    .as_deref()
                    .is_some_and(|p| p.contains("recursion limit")),
                "{depth}: {problem:?}"
            );
        }
        let shallow = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"a":[[1]]}}"#;
        assert_eq!(check(shallow.as_bytes()), None);
    }

    #[tokio::test]
    async fn long_lines_are_cut_and_the_next_one_is_read() {
        let input = b"0123456789\nabc".to_vec();
        let mut r = BufReader::with_capacity(4, &input[..]);
        let mut line = Vec::new();
        assert_eq!(read_line(&mut r, &mut line, 5).await.unwrap(), Some(true));
        assert_eq!(read_line(&mut r, &mut line, 5).await.unwrap(), Some(false));
        assert_eq!(line, b"abc\n");
        assert_eq!(read_line(&mut r, &mut line, 5).await.unwrap(), None);
    }
}
