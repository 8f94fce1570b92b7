//! `sparks serve` spoken to line by line, without an SDK: what a client that sends a broken or
//! hostile line hears back. Every request gets a reply, and the server keeps serving.

use crate::harness::TestVault;
use crate::mcp::{TOOLS, is_error, text};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// A running `sparks serve`, initialised, killed when dropped.
pub struct Served {
    child: Child,
    stdin: ChildStdin,
    replies: Receiver<Value>,
}

impl Served {
    pub fn start(v: &TestVault) -> Served {
        let mut child = v
            .cmd(&["serve", "--no-watch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start sparks serve");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, replies) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("a reply that is not JSON ({e}): {line}"));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let mut s = Served {
            child,
            stdin,
            replies,
        };
        s.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "by hand", "version": "1"}}})
            .to_string(),
        );
        assert_eq!(s.reply()["id"], 0);
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        s
    }

    fn send(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).expect("write");
        self.stdin.write_all(b"\n").expect("write");
        self.stdin.flush().expect("flush");
    }

    /// Call `tool` with `arguments`: its result (`isError` says whether it is a tool error).
    #[track_caller]
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1_000);
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": {"name": tool, "arguments": arguments}})
            .to_string(),
        );
        loop {
            let r = self.reply();
            if r["id"] == json!(id) {
                return r["result"].clone();
            }
        }
    }

    #[track_caller]
    fn reply(&self) -> Value {
        self.replies
            .recv_timeout(Duration::from_secs(20))
            .expect("a reply within 20 s")
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A request nested past `serde_json`'s recursion limit is answered with a parse error, and the
/// next request is answered as usual.
#[test]
fn a_request_nested_too_deep_is_answered_with_a_parse_error() {
    let v = TestVault::new();
    let mut s = Served::start(&v);
    for depth in [127, 200, 100_000] {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"a":{}{}}}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        s.send(&deep);
        let r = s.reply();
        assert_eq!(r["id"], Value::Null, "{depth}: {r}");
        assert_eq!(r["error"]["code"], -32700, "{depth}: {r}");
        let said = r["error"]["message"].as_str().unwrap_or_default();
        assert!(said.contains("recursion limit"), "{depth}: {r}");
    }
    s.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string());
    let r = s.reply();
    assert_eq!(r["id"], 2, "{r}");
    assert!(
        r["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{r}"
    );
}

/// `sparks_capture` drops NUL bytes as the command does.
#[test]
fn a_capture_through_the_server_drops_nul_bytes() {
    let v = TestVault::new();
    let mut s = Served::start(&v);
    s.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "sparks_capture", "arguments": {"text": "a\u{0}b\u{0}"}}})
        .to_string(),
    );
    let r = s.reply();
    assert_eq!(r["id"], 3, "{r}");
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert_eq!(r["result"]["structuredContent"]["content"], "ab", "{r}");
    let inbox = v.read("inbox.md");
    assert!(inbox.ends_with("\nab\n---\n"), "{inbox:?}");
}

/// The raw session of the SDK scenario: a server started outside any vault, fed garbage.
pub fn check_raw(records: &[Value]) {
    let raw = |what: &str| -> &Value {
        records
            .iter()
            .find(|r| r["kind"] == "raw" && r["what"] == what)
            .unwrap_or_else(|| panic!("raw {what}: {records:#?}"))
    };
    let messages = |what: &str| -> Vec<Value> {
        raw(what)["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["message"].clone())
            .collect()
    };
    // No vault needed to start: the handshake opens nothing.
    let init = messages("initialize");
    assert_eq!(
        init.last().unwrap()["result"]["serverInfo"]["name"],
        "sparks"
    );
    // A line that is not JSON: a parse error, and the next request is answered.
    let garbage = messages("garbage");
    assert_eq!(garbage.len(), 2, "{garbage:?}");
    assert_eq!(garbage[0]["error"]["code"], -32700, "{garbage:?}");
    assert_eq!(garbage[1], json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    // JSON that is no JSON-RPC message: an invalid request, and the next one is answered.
    let wrong = messages("not_json_rpc");
    assert_eq!(wrong.len(), 2, "{wrong:?}");
    assert_eq!(wrong[0]["error"]["code"], -32600, "{wrong:?}");
    assert_eq!(wrong[1]["id"], 4);
    // The whole tool list stays small (its size is in the README).
    let list = &raw("tools_list")["messages"].as_array().unwrap()[0];
    let bytes = list["bytes"].as_u64().unwrap();
    eprintln!("tools/list: {bytes} bytes, about {} tokens", bytes / 4);
    assert!(bytes < 14_800, "tools/list is {bytes} bytes");
    assert_eq!(
        list["message"]["result"]["tools"].as_array().map(Vec::len),
        Some(TOOLS.len())
    );
    // Outside a vault, a tool that needs one is a tool error that says so...
    let status = &messages("no_vault")[0]["result"];
    assert!(is_error(status), "{status}");
    let t = text(status);
    assert!(t.starts_with("no vault found in "), "{t}");
    assert!(t.contains("hint: "), "{t}");
    // ...and one that needs none works.
    let describe = &messages("describe")[0]["result"];
    assert!(!is_error(describe), "{describe}");
    assert!(text(describe).len() > 1000);
    // Closing stdin ends the server cleanly.
    assert_eq!(raw("exit")["code"], 0);
}
