//! `sparks view` keeps to the vault and to this machine: no `..` in any encoding, the security
//! headers on every response, script payloads sanitised, loopback Host headers only, no path
//! out of the vault or into the manifest, GET and HEAD only.

use crate::view::{Server, fixture, has_foreign_script};

/// No encoding of `..` (percent-encoded in either case, double-encoded, as an overlong UTF-8
/// sequence, with encoded slashes or backslashes) leads out of the vault or out of `wiki/`
/// and `raw/`: every one answers 404, never a redirect that a browser would follow.
#[test]
fn every_encoding_of_dot_dot_is_a_404_without_a_redirect() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    let ups = [
        "..",
        "%2e%2e",
        "%2E%2e",
        "%2e%2E",
        "%2E%2E",
        ".%2e",
        "%2e.",
        "%252e%252e",
        "%c0%ae%c0%ae",
    ];
    let seps = ["/", "%2f", "%2F", "%5c", "%5C", "%252f"];
    let mut targets = Vec::new();
    for prefix in [
        "/wiki/",
        "/wiki/entities/",
        "/raw/",
        "/raw/inbox/",
        "/page/",
        "/page/wiki/",
        "/file/",
        "/file/wiki/",
        "/tag/",
        "/tags/",
    ] {
        for up in ups {
            for sep in seps {
                targets.push(format!("{prefix}{up}{sep}{up}{sep}vault-private{sep}diary"));
                targets.push(format!("{prefix}{up}{sep}{up}{sep}{up}{sep}secret.md"));
                targets.push(format!("{prefix}{up}{sep}sparks.toml"));
            }
        }
    }
    targets.extend(
        [
            "/wiki/%2f..%2f..%2fsecret",
            "/wiki/%2F%2e%2e%2Fsecret",
            "/wiki//../../secret",
            "/wiki/..",
            "/wiki/%2e%2e",
            "/raw/..",
            "/raw/%2e%2e/",
            "/wiki/entities/Garden%20Plan%2f..%2f..%2f..%2fsecret",
            "/wiki/%5c%5c..%5csecret",
        ]
        .map(String::from),
    );
    for target in &targets {
        let r = s.get(target);
        assert_eq!(r.status, 404, "{target}: {}", r.text());
        assert_eq!(r.header("location"), "", "{target} redirects");
        let body = r.text();
        assert!(
            !body.contains("secret") && !body.contains("[vault]"),
            "{target} leaked: {body}"
        );
    }
    // Backslashes as sent, unencoded.
    let host = format!("127.0.0.1:{}", s.port);
    for target in ["/wiki/..\\..\\secret", "/raw/..\\..\\vault-private\\diary"] {
        let r = s.request("GET", target, Some(&host));
        assert_eq!(r.status, 404, "{target}: {}", r.text());
        assert_eq!(r.header("location"), "", "{target} redirects");
    }
}

#[test]
fn every_response_carries_the_security_headers() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    for target in [
        "/",
        "/wiki/concepts/Payload",
        "/nothing",
        "/static/style.css",
        "/search?q=x",
    ] {
        let r = s.get(target);
        assert_eq!(
            r.header("content-security-policy"),
            "default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
            "{target}"
        );
        assert_eq!(r.header("x-content-type-options"), "nosniff", "{target}");
        assert_eq!(r.header("referrer-policy"), "no-referrer", "{target}");
    }
    let forbidden = s.request("GET", "/", Some("evil.example"));
    assert_eq!(forbidden.header("x-content-type-options"), "nosniff");
}

#[test]
fn script_payloads_are_sanitised() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    for target in [
        "/wiki/concepts/Payload",
        "/raw/weblinks/clip",
        "/raw/inbox/2026-05-01",
    ] {
        let page = s.get(target).status(200).text().to_lowercase();
        // The layout has a search form of its own: check what the file became.
        let start = page.find("<article class=\"prose\">").expect("an article");
        let end = page.find("</article>").expect("its end");
        let html = &page[start..end];
        for bad in [
            "<script",
            "onerror",
            "onload",
            "ontoggle",
            "onclick",
            "javascript:",
            "data:text",
            "<iframe",
            "<svg",
            "<form",
            "<style",
            "srcdoc",
        ] {
            assert!(!html.contains(bad), "{bad:?} survived in {target}:\n{html}");
        }
    }
    let page = s.get("/wiki/concepts/Payload").text();
    assert!(!has_foreign_script(&page), "nor anywhere else on the page");
    assert!(page.contains("Harmless text before") && page.contains("Harmless text after"));
    assert!(
        page.contains(">click me</a>"),
        "the link text stays, its URL goes: {page}"
    );
}

#[test]
fn only_loopback_host_headers_are_answered() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    let port = s.port;
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("LocalHost:{port}"),
        format!("[::1]:{port}"),
        "localhost".to_string(),
    ] {
        s.request("GET", "/", Some(&host)).status(200);
    }
    for host in [
        format!("evil.example:{port}"),
        "evil.example".to_string(),
        format!("127.0.0.1.nip.io:{port}"),
        format!("localhost.evil.example:{port}"),
        "10.0.0.5".to_string(),
        String::new(),
    ] {
        let r = s.request("GET", "/", Some(&host)).status(403);
        assert!(!r.text().contains("Garden"), "nothing of the vault leaks");
    }
    s.request("GET", "/", None).status(403);
    // Two Host headers, one of them foreign.
    s.raw(format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: evil.example\r\nConnection: close\r\n\r\n").as_bytes())
        .status(403);
    // An absolute-form target naming another host.
    s.raw(format!("GET http://evil.example/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n").as_bytes())
        .status(403);
}

#[test]
fn paths_cannot_leave_the_vault() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    for target in [
        "/page/../sparks.toml",
        "/page/../../secret",
        "/page/wiki/../../vault-private/diary",
        "/page/%2e%2e/vault-private/diary",
        "/page/wiki/%2e%2e/%2E%2E/vault-private/diary.md",
        "/page/wiki/%2e%2e%2f%2e%2e%2fvault-private%2fdiary",
        "/raw/%2e%2e/%2e%2e/vault-private/diary",
        "/raw/..%2f..%2fsecret",
        "/raw/up/secret",
        "/raw/up/vault-private/diary",
        "/page/wiki/out",
        "/page//etc/passwd",
        "/page/%2Fetc%2Fpasswd",
        "/file//etc/passwd",
        "/file/%2e%2e/secret.md",
        "/page/wiki/entities/Garden%20Plan.md%00",
        "/page/wiki/entities/Garden%00Plan",
        "/page/wiki%5C..%5C..%5Csecret",
        "/page/wiki/.hidden",
        "/file/wiki/.hidden.md",
        "/file/sparks.db",
        "/page/sparks.db",
        "/page/%zz",
        "/page/",
    ] {
        let r = s.get(target);
        assert_eq!(r.status, 404, "{target}: {}", r.text());
        let body = r.text();
        assert!(!body.contains("secret"), "{target} leaked: {body}");
    }
    // A raw NUL byte in the request line never reaches a file.
    let r = s.raw(b"GET /page/wiki/entities/Garden\0Plan HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    assert!(r.status == 400 || r.status == 404, "{}", r.status);
}

/// A symbolic link inside the vault leads nowhere the name it points to could not: not to the
/// manifest or its companions, not into `.sparks/`, not out of the vault.
#[cfg(unix)]
#[test]
fn links_to_the_manifest_and_the_run_time_records_are_refused() {
    let v = fixture();
    v.write(".sparks/journal.json", "{\"secret\": 1}\n")
        .write("raw/plain.bin", "plain bytes\n")
        .write("sparks.db-journal", "SQLite journal secret\n");
    let link = |target: &str, name: &str| std::os::unix::fs::symlink(target, v.path(name)).unwrap();
    link("../sparks.db", "raw/x.bin");
    link("../sparks.db-wal", "raw/wal.bin");
    link("../sparks.db-journal", "raw/journal.bin");
    link("../../sparks.db", "wiki/notes/db.md");
    link("../.sparks/journal.json", "raw/run.json");
    link("../.sparks", "raw/run");
    link("plain.bin", "raw/ok.bin");
    // A write-ahead log exists while the manifest is open in WAL mode; a scan opens it.
    v.settle();
    v.run(&["scan"]).ok();
    let s = Server::start(&v, &[]);
    for target in [
        "/file/raw/x.bin",
        "/raw/x.bin",
        "/page/raw/x.bin",
        "/file/raw/wal.bin",
        "/file/raw/journal.bin",
        "/file/sparks.db-journal",
        "/wiki/notes/db",
        "/file/wiki/notes/db.md",
        "/file/raw/run.json",
        "/raw/run.json",
        "/file/raw/run/journal.json",
        "/raw/run/",
    ] {
        let r = s.get(target);
        assert_eq!(r.status, 404, "{target}: {}", r.text());
        let body = r.text();
        assert!(
            !body.contains("SQLite") && !body.contains("secret"),
            "{target} leaked: {body}"
        );
    }
    // A link to an ordinary file of the vault is still followed.
    assert_eq!(
        s.get("/file/raw/ok.bin").status(200).text(),
        "plain bytes\n"
    );
}

#[test]
fn only_get_and_head() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    let host = format!("127.0.0.1:{}", s.port);
    for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
        for target in ["/", "/wiki/entities/Garden%20Plan", "/nothing"] {
            let r = s.request(method, target, Some(&host)).status(405);
            assert_eq!(r.header("allow"), "GET, HEAD");
        }
    }
    let head = s.request("HEAD", "/", Some(&host)).status(200);
    assert!(head.body.is_empty());
    let get = s.get("/");
    assert_eq!(head.header("content-length"), get.body.len().to_string());
}
