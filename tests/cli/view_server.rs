//! `sparks view` as a running server: edits shown on refresh and the manifest read per request,
//! the address and port it listens on, its log, the browser it opens, and a clean stop.

#[cfg(unix)]
use crate::view::opener;
use crate::view::{Server, fixture};
use std::io::{BufRead, BufReader, Read};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[test]
fn edits_show_on_refresh_and_scans_update_the_index() {
    let v = fixture();
    // Not watching: this is what a page shows from a manifest that lags behind the files
    // (a watcher would bring it up to date at its own moment, racing the checks).
    let s = Server::start(&v, &["--no-watch"]);
    assert!(!s.get("/wiki/notes/Plain").text().contains("Edited"));
    v.write(
        "wiki/notes/Plain.md",
        "Edited while the viewer runs: [[Cascade]].\n",
    );
    let page = s.get("/wiki/notes/Plain").status(200).text();
    assert!(page.contains("Edited while the viewer runs"), "{page}");
    assert!(
        page.contains("href=\"/wiki/concepts/Cascade\""),
        "a new link resolves: {page}"
    );
    assert!(page.contains("changed since the last scan"), "{page}");
    v.page("wiki/concepts/Fresh.md", "Fresh", "New page.");
    let fresh = s.get("/wiki/concepts/Fresh").status(200).text();
    assert!(fresh.contains("has not seen this file"), "{fresh}");
    assert!(!s.get("/").text().contains(">Fresh</a>"));
    v.run(&["scan"]).ok();
    assert!(
        s.get("/").text().contains(">Fresh</a>"),
        "the manifest is read per request"
    );
    let plain = s.get("/wiki/notes/Plain").text();
    assert!(!plain.contains("changed since the last scan"), "{plain}");
}

#[test]
fn a_manifest_made_anew_while_the_viewer_runs_is_the_one_read() {
    let v = fixture();
    // Not watching: a watcher would make the deleted manifest again on the new page.
    let s = Server::start(&v, &["--no-watch"]);
    // The viewer keeps its connection between requests: a manifest deleted and made again
    // by a scan is another file, which the next request must read instead.
    assert!(s.get("/").status(200).text().contains(">Cascade</a>"));
    let remove = || {
        for f in ["sparks.db", "sparks.db-wal", "sparks.db-shm"] {
            let _ = std::fs::remove_file(v.path(f));
        }
    };
    remove();
    v.page("wiki/concepts/Fresh.md", "Fresh", "New page.");
    v.run(&["scan"]).ok();
    let index = s.get("/").status(200).text();
    assert!(
        index.contains(">Fresh</a>"),
        "the new manifest is read: {index}"
    );
    remove();
    let index = s.get("/").status(200).text();
    assert!(index.contains("no manifest yet"), "{index}");
    v.run(&["scan"]).ok();
    assert!(s.get("/").text().contains(">Fresh</a>"));
}

#[test]
fn a_scan_while_the_viewer_runs_leaves_its_writes_in_the_database_file() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    // The viewer now holds a connection open between requests, so the scan's connection is
    // not the last to close: it must copy its writes out of the log itself.
    s.get("/").status(200);
    v.page("wiki/concepts/Fresh.md", "Fresh", "New page.");
    v.run(&["scan"]).ok();
    let dir = tempfile::tempdir().unwrap();
    let alone = dir.path().join("sparks.db");
    std::fs::copy(v.path("sparks.db"), &alone).unwrap();
    let n: i64 = rusqlite::Connection::open(&alone)
        .unwrap()
        .query_row(
            "SELECT count(*) FROM files WHERE path = 'wiki/concepts/Fresh.md'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(n, 1, "the database file alone holds the scan's writes");
    assert!(s.get("/").text().contains(">Fresh</a>"));
}

#[test]
fn without_a_manifest_pages_still_show_and_none_is_created() {
    let v = fixture();
    for f in ["sparks.db", "sparks.db-wal", "sparks.db-shm"] {
        let _ = std::fs::remove_file(v.path(f));
    }
    // Not watching: the watcher would make the manifest (that is its job).
    let s = Server::start(&v, &["--no-watch"]);
    let index = s.get("/").status(200).text();
    assert!(index.contains("no manifest yet"), "{index}");
    let page = s.get("/wiki/entities/Garden%20Plan").status(200).text();
    assert!(page.contains("class=\"wikilink unresolved\""), "{page}");
    s.get("/search?q=garden").status(200);
    drop(s);
    assert!(
        !v.path("sparks.db").exists(),
        "the viewer never writes the manifest"
    );
}

#[test]
fn a_non_loopback_address_needs_allow_remote() {
    let v = fixture();
    for addr in ["0.0.0.0:0", ":0", "[::]:0"] {
        let r = v.run(&["view", "--addr", addr]).code(2);
        assert!(r.stderr.contains("not a loopback address"), "{}", r.stderr);
        assert!(r.stderr.contains("--allow-remote"), "{}", r.stderr);
        assert!(r.stdout.is_empty());
    }
    let r = v.run(&["view", "--addr", "nonsense"]).code(2);
    assert!(r.stderr.contains("HOST:PORT"), "{}", r.stderr);
    // With --allow-remote any Host header is answered, with a warning.
    let s = Server::start(&v, &["--allow-remote"]);
    s.request("GET", "/", Some("evil.example")).status(200);
    assert!(
        s.stderr().contains("warning: --allow-remote"),
        "{}",
        s.stderr()
    );
}

#[test]
fn a_given_port_is_used() {
    let v = fixture();
    // A free port: bind, read it, let it go; retry if another process takes it meanwhile.
    let mut last = String::new();
    for _ in 0..5 {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let addr = format!("127.0.0.1:{port}");
        let mut cmd = v.cmd(&["view", "--addr", &addr]);
        cmd.stdin(Stdio::null());
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        if line.is_empty() {
            // It could not bind: someone took the port.
            let mut err = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            let _ = child.wait();
            last = err;
            continue;
        }
        assert_eq!(
            line,
            format!("sparks view listening on http://{addr} (Ctrl-C to stop)\n")
        );
        let s = Server {
            child,
            port,
            url: format!("http://{addr}"),
            stderr: Arc::new(Mutex::new(String::new())),
        };
        s.get("/wiki/notes/Plain").status(200);
        drop(s);
        return;
    }
    panic!("no free port after 5 tries: {last}");
}

#[test]
fn a_port_in_use_is_named_with_the_option_that_picks_another() {
    let v = fixture();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let addr = format!("127.0.0.1:{port}");
    let r = v.run(&["view", "--addr", &addr]).code(1);
    assert_eq!(r.stdout, "");
    assert!(
        r.stderr.starts_with(&format!(
            "error: cannot listen on {addr}: port {port} is in use\n"
        )),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("hint: pick another port with --addr HOST:PORT (port 0 picks a free one)"),
        "{}",
        r.stderr
    );
    drop(taken);
}

#[test]
fn requests_are_logged_on_stderr() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    s.get("/tag/gardening").status(200);
    s.get("/nothing").status(404);
    std::thread::sleep(Duration::from_millis(200));
    let log = s.stderr();
    assert!(log.contains("GET /tag/gardening 200 "), "{log}");
    assert!(log.contains("GET /nothing 404 "), "{log}");
}

#[cfg(unix)]
#[test]
fn open_launches_the_browser_and_a_missing_opener_is_only_a_warning() {
    let v = fixture();
    let record = v.dir.path().join("opened.txt");
    let bin = opener(
        &v,
        &format!("printf '%s\\n' \"$1\" > '{}'", record.display()),
    );
    let mut cmd = v.cmd(&["view", "--addr", "127.0.0.1:0", "--open"]);
    cmd.env("PATH", format!("{}:/usr/bin:/bin", bin.display()));
    let s = Server::spawn(cmd);
    let mut opened = String::new();
    // The opener runs in the background: give it time on a loaded machine.
    for _ in 0..400 {
        opened = std::fs::read_to_string(&record).unwrap_or_default();
        if !opened.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(opened.trim(), s.url);
    drop(s);

    // No opener on PATH: the viewer serves anyway.
    let empty = v.dir.path().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    let mut cmd = v.cmd(&["view", "--addr", "127.0.0.1:0", "--open"]);
    cmd.env("PATH", &empty);
    let s = Server::spawn(cmd);
    s.get("/").status(200);
    // The warning comes when the failed opener returns, which may be after the first answer.
    for _ in 0..400 {
        if s.stderr().contains("could not open a browser") {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        s.stderr().contains("could not open a browser"),
        "{}",
        s.stderr()
    );
}
