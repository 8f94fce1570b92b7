//! `sparks view` while the vault changes: the event stream tells each change and the pages its
//! files link to (none without watching), and headless Chromium (tests/view/browser.mjs)
//! tells what only a browser can: a click follows a wikilink, and a hostile page runs no
//! script.

#[cfg(target_os = "linux")]
use crate::harness;
use crate::harness::TestVault;
use crate::view::{Server, fixture};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
#[cfg(target_os = "linux")]
use std::path::{Path, PathBuf};
#[cfg(unix)]
use std::process::Command;
use std::time::{Duration, Instant};

/// Wait until the viewer's own watcher runs (it starts on a thread of its own, after the
/// address is printed).
fn await_watcher(v: &TestVault, s: &Server) {
    let pid = s.child.id();
    let deadline = Instant::now() + Duration::from_secs(20);
    // Its pid shows as soon as it holds the lock; `since` once its first scan is done. A file
    // written in between is in that scan, and no change event tells it.
    let ready = || {
        let watch = &v.run(&["status", "--json", "--no-refresh"]).ok().json()["watch"];
        watch["pid"] == pid && watch["since"].is_string()
    };
    while !ready() {
        assert!(
            Instant::now() < deadline,
            "the viewer's watcher did not start; stderr:\n{}",
            s.stderr()
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// An open `GET /events` stream.
struct Events {
    head: String,
    lines: BufReader<TcpStream>,
}

impl Events {
    /// Open the stream and read its response head.
    fn open(s: &Server) -> Events {
        let mut stream = TcpStream::connect(("127.0.0.1", s.port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        write!(
            stream,
            "GET /events HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAccept: text/event-stream\r\n\r\n",
            s.port
        )
        .unwrap();
        let mut lines = BufReader::new(stream);
        let mut head = String::new();
        loop {
            let mut line = String::new();
            lines.read_line(&mut line).expect("read the response head");
            if line == "\r\n" || line.is_empty() {
                break;
            }
            head.push_str(&line.to_ascii_lowercase());
        }
        Events { head, lines }
    }

    /// The data of the next `change` event (keep-alive comments and chunk sizes skipped), or
    /// `None` when none comes within `wait`.
    fn next_change(&mut self, wait: Duration) -> Option<serde_json::Value> {
        let mut event = String::new();
        let deadline = Instant::now() + wait;
        self.lines
            .get_ref()
            .set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        let mut line = String::new();
        while Instant::now() < deadline {
            match self.lines.read_line(&mut line) {
                Ok(0) => panic!("the event stream ended"),
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    continue;
                }
                Err(e) => panic!("read an event: {e}"),
            }
            let whole = std::mem::take(&mut line);
            let l = whole.trim_end();
            if let Some(name) = l.strip_prefix("event: ") {
                event = name.to_string();
            } else if let Some(data) = l.strip_prefix("data: ")
                && event == "change"
            {
                return Some(serde_json::from_str(data).expect("the data is JSON"));
            }
        }
        None
    }
}

#[test]
fn events_tell_each_change_and_the_pages_its_files_link_to() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    await_watcher(&v, &s);
    let mut events = Events::open(&s);
    assert!(events.head.starts_with("http/1.1 200"), "{}", events.head);
    assert!(
        events.head.contains("content-type: text/event-stream"),
        "{}",
        events.head
    );
    assert!(
        events
            .head
            .contains("content-security-policy: default-src 'self'; script-src 'self'"),
        "the stream carries the security headers too: {}",
        events.head
    );
    v.write(
        "wiki/concepts/Sprout.md",
        "---\ntitle: Sprout\ntype: concept\n---\n\nGrows in the [[Garden Plan]].\n",
    );
    let change = loop {
        let c = events
            .next_change(Duration::from_secs(20))
            .expect("a change event within 20 s of the write");
        if c["paths"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p == "wiki/concepts/Sprout.md")
        {
            break c;
        }
    };
    assert_eq!(change["more"], false, "{change}");
    assert!(change["seq"].as_u64().unwrap() >= 1, "{change}");
    assert_eq!(
        change["links"],
        serde_json::json!(["wiki/entities/Garden Plan.md"]),
        "the page the new file links to: its backlinks grew"
    );
    // The new page is served, and says what it shows to the script that reloads it.
    let page = s.get("/wiki/concepts/Sprout").status(200).text();
    assert!(
        page.contains(
            "<script src=\"/static/live.js\" defer data-file=\"wiki/concepts/Sprout.md\" data-related=\"[]\"></script>"
        ),
        "{page}"
    );
    // The page it links to lists it among its backlinks, and reloads when it changes.
    let plan = s.get("/wiki/entities/Garden%20Plan").status(200).text();
    assert!(
        plan.contains(">Sprout</a>"),
        "a backlink from the new page: {plan}"
    );
    assert!(
        plan.contains("&quot;wiki/concepts/Sprout.md&quot;"),
        "the new page is among the related: {plan}"
    );
    let script = s.get("/static/live.js").status(200);
    assert_eq!(
        script.header("content-type"),
        "text/javascript; charset=utf-8"
    );
    assert!(script.text().contains("new EventSource(\"/events\")"));
    // Pages that show no one file reload on every change: no data-file.
    let index = s.get("/").status(200).text();
    assert!(
        index.contains("<script src=\"/static/live.js\" defer data-related=\"[]\"></script>"),
        "{index}"
    );
}

#[test]
fn without_watching_there_is_no_event_stream_and_no_script() {
    let v = fixture();
    let s = Server::start(&v, &["--no-watch"]);
    s.get("/events").status(404);
    let page = s.get("/wiki/concepts/Cascade").status(200).text();
    assert!(!page.contains("live.js"), "{page}");
}

/// The target directory: the binary is `<target>/<profile>/sparks`.
#[cfg(target_os = "linux")]
fn target_dir() -> PathBuf {
    Path::new(harness::bin())
        .parent()
        .and_then(Path::parent)
        .expect("the binary is in <target>/<profile>/")
        .to_path_buf()
}

/// Headless Chromium against the running viewer: navigation by clicks, the broken-link
/// class, and hostile pages that must run no script. Fails (never skips) when Chromium or
/// playwright-core is missing: scripts/test-deps.sh installs them (`make test` runs it).
#[cfg(target_os = "linux")]
#[test]
fn in_a_real_browser_links_navigate_and_payloads_run_no_script() {
    let chromium = Path::new("/usr/bin/chromium");
    let node_dir = target_dir().join("test-node");
    assert!(
        chromium.exists() && node_dir.join("node_modules/playwright-core").exists(),
        "the browser test needs /usr/bin/chromium and playwright-core in {}: run \
         scripts/test-deps.sh (make test does)",
        node_dir.display()
    );
    let v = fixture();
    let s = Server::start(&v, &[]);
    // The live-reload checks edit files: the viewer's watcher must be running first.
    await_watcher(&v, &s);
    let shots = target_dir().join("view-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/view/browser.mjs");
    let out = Command::new("node")
        .arg(&script)
        .env("SPARKS_VIEW_URL", &s.url)
        .env("SPARKS_TEST_NODE", &node_dir)
        .env("SPARKS_SCREENSHOTS", &shots)
        .env("SPARKS_VAULT", v.path(""))
        .env("HOME", v.home())
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "browser test failed\n--- stdout\n{stdout}\n--- stderr\n{stderr}\n--- viewer\n{}",
        s.stderr()
    );
    assert!(stdout.contains("browser: all checks passed"), "{stdout}");
    assert!(
        stdout.contains("ok: an edit of the page's file shows by itself"),
        "the live-reload checks ran: {stdout}"
    );
    // The checks with their latencies, for `cargo test -- --nocapture`.
    println!("{stdout}");
    for shot in [
        "index",
        "page",
        "page-dark",
        "page-narrow",
        "tag",
        "search",
        "embed",
        "graph",
        "payload",
    ] {
        assert!(shots.join(format!("{shot}.png")).exists(), "{shot}.png");
    }
}

/// SIGTERM ends the viewer with exit 0, even with a page's event stream open (the stream
/// ends so that the requests in flight can finish).
#[cfg(unix)]
#[test]
fn sigterm_stops_it_cleanly() {
    let v = fixture();
    let mut s = Server::start(&v, &[]);
    s.get("/").status(200);
    let events = Events::open(&s);
    let pid = s.child.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = s.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "an open event stream kept the viewer from stopping"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0), "stderr: {}", s.stderr());
    drop(events);
}
