//! `sparks view`: the real binary serving a fixture vault on a loopback port, spoken to over
//! plain TCP (so that the Host header, the method and the request target are exactly what
//! each test says). Here the fixture and the server every `view_*` module uses, and the
//! index, a page, tags, raw files and static files; the search box is in `view_search.rs`,
//! addresses and links in `view_links.rs`, what the viewer refuses in `view_security.rs`, the
//! running server in `view_server.rs`, live changes and a real browser in `view_events.rs`.

use crate::harness::TestVault;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// A small PNG (a gradient, as a stand-in for a diagram): stored deflate blocks, no
/// compression library needed.
fn png(width: u32, height: u32) -> Vec<u8> {
    fn crc(bytes: &[u8]) -> u32 {
        let mut c = 0xffff_ffffu32;
        for &b in bytes {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 == 1 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }
    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc(&body).to_be_bytes());
    }
    let mut raw = Vec::new();
    for y in 0..height {
        raw.push(0); // no filter
        for x in 0..width {
            raw.extend_from_slice(&[
                (40 + x * 160 / width) as u8,
                (110 + y * 100 / height) as u8,
                190,
            ]);
        }
    }
    let mut z = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = raw.chunks(65_535).collect();
    for (i, b) in blocks.iter().enumerate() {
        z.push(u8::from(i + 1 == blocks.len()));
        z.extend_from_slice(&(b.len() as u16).to_le_bytes());
        z.extend_from_slice(&(!(b.len() as u16)).to_le_bytes());
        z.extend_from_slice(b);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in &raw {
        a = (a + u32::from(byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    z.extend_from_slice(&((b << 16) | a).to_be_bytes());
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = width.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &z);
    chunk(&mut out, b"IEND", &[]);
    out
}

/// Script payloads: each would set `window.pwned`, change the title or open a dialog.
const PAYLOADS: &str = r##"Harmless text before the payloads.

<script>window.pwned = 1; document.title = "PWNED"; alert("script")</script>

<img src=x onerror="window.pwned=1;document.title='PWNED';alert('img')">

<svg onload="window.pwned=1;alert('svg')"><circle r="4"/></svg>

<details open ontoggle="window.pwned=1;alert('toggle')"><summary>Details</summary>inside</details>

<iframe srcdoc="<script>parent.pwned=1;parent.alert('srcdoc')</script>"></iframe>

<iframe src="javascript:parent.pwned=1"></iframe>

[click me](javascript:window.pwned=1;alert('js-url'))

<a href="data:text/html,<script>alert('data')</script>">data link</a>

<a href="#" onclick="window.pwned=1;alert('click')">handler link</a>

<form action="javascript:alert('form')"><button>Go</button></form>

<style>body { display: none }</style>

Harmless text after the payloads.
"##;

/// The fixture: pages of every kind, links of every status, payloads, and things outside the
/// vault that must stay unreachable.
pub(crate) fn fixture() -> TestVault {
    let v = TestVault::new();
    v.write(
        "wiki/entities/Garden Plan.md",
        "---\ntitle: Garden Plan\ntype: entity\nmaturity: working\ntags: [gardening, ai/agents]\n\
         aliases: [GP, Allotment]\nsources: [raw/inbox/2026-05-01.md, \"https://example.com/seeds\"]\n\
         created: 2026-04-01\nupdated: 2026-04-30\n---\n\n# Garden Plan\n\n\
         The plot follows [[Cascade]] and the [[Cascade#Design|design notes]]; see also \
         [[Mercury]], [[Nope]] and [[#Soil Types]].\n\n\
         ## Soil Types\n\nLoam, mostly. ^soil\n\n\
         ![[diagram.png]]\n\n\
         | crop | bed |\n|:--|--:|\n| beans | 2 |\n\n- [x] dig\n- [ ] sow\n\n\
         `[[Inline]]` stays code.\n\n\
         > [!NOTE]\n> Water the beans[^w] before the [[Cascade|terraces]].\n\n\
         ```toml\n[beds]\ncount = 2\n```\n\n\
         [^w]: In the morning, before it gets hot.\n",
    )
    .write(
        "wiki/concepts/Cascade.md",
        "---\ntitle: Cascade\ntype: concept\nmaturity: seed\ntags: [gardening]\nsources: [raw/inbox/2026-05-01.md]\n\
         created: 2026-04-02\nupdated: 2026-05-01\n---\n\nCascading beds, planned in [[Garden Plan]] \
         (block [[Garden Plan#^soil]]).\n\n## Design\n\nTerraces.\n",
    )
    .write(
        "wiki/concepts/Mercury planet.md",
        "---\ntitle: Mercury planet\ntype: concept\naliases: [Mercury]\n---\n\nThe planet.\n",
    )
    .write(
        "wiki/entities/Mercury element.md",
        "---\ntitle: Mercury element\ntype: entity\naliases: [Mercury]\n---\n\nThe element.\n",
    )
    .write(
        "wiki/concepts/Payload.md",
        format!("---\ntitle: Payload\ntype: concept\n---\n\n{PAYLOADS}"),
    )
    .write("wiki/notes/Plain.md", "Just a note, no frontmatter.\n")
    .write("wiki/diagram.png", png(320, 120))
    .write("wiki/.hidden.md", "hidden secret\n")
    .write(
        "raw/inbox/2026-05-01.md",
        "# 2026-05-01\n\nA capture about [[Garden Plan]].\n\n<script>window.pwned=1</script>\n",
    )
    .write("raw/weblinks/clip.md", "Clipped <img src=x onerror=\"window.pwned=1\">\n")
    .write("raw/notes.txt", "plain <b>text</b> & more\n");
    // Outside the vault: a sibling sharing its name as a prefix, and a file a link points at.
    let outside = v.dir.path();
    std::fs::create_dir_all(outside.join("vault-private")).unwrap();
    std::fs::write(outside.join("vault-private/diary.md"), "secret diary\n").unwrap();
    std::fs::write(outside.join("secret.md"), "secret outside\n").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.join("secret.md"), v.path("wiki/out.md")).unwrap();
        std::os::unix::fs::symlink(outside, v.path("raw/up")).unwrap();
    }
    v.settle();
    v.run(&["scan"]).ok();
    v
}

/// A running `sparks view`, killed when dropped.
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) port: u16,
    // Read by the tests that need unix (a browser, a signal).
    #[cfg_attr(not(unix), allow(dead_code))]
    pub(crate) url: String,
    pub(crate) stderr: Arc<Mutex<String>>,
}

/// An HTTP response.
#[derive(Debug)]
pub(crate) struct Resp {
    pub(crate) status: u16,
    pub(crate) headers: HashMap<String, String>,
    pub(crate) body: Vec<u8>,
}

impl Resp {
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub(crate) fn header(&self, name: &str) -> &str {
        self.headers.get(name).map_or("", String::as_str)
    }

    #[track_caller]
    pub(crate) fn status(self, expected: u16) -> Resp {
        assert_eq!(self.status, expected, "status; body:\n{}", self.text());
        self
    }
}

impl Server {
    /// Start `sparks view` on a port the system picks.
    pub(crate) fn start(v: &TestVault, extra: &[&str]) -> Server {
        let mut args = vec!["view", "--addr", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        Server::spawn(v.cmd(&args))
    }

    pub(crate) fn spawn(mut cmd: Command) -> Server {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn sparks view");
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        let mut err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let out = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                let _ = tx.send(line);
            }
        });
        let line = match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(l) => l,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "sparks view printed no address; stderr:\n{}",
                    stderr.lock().unwrap()
                );
            }
        };
        let url = line
            .strip_prefix("sparks view listening on ")
            .and_then(|r| r.strip_suffix(" (Ctrl-C to stop)"))
            .unwrap_or_else(|| panic!("unexpected first line: {line}"))
            .to_string();
        let port = url.rsplit(':').next().unwrap().parse().unwrap();
        Server {
            child,
            port,
            url,
            stderr,
        }
    }

    /// Send `request` as is and read the whole response.
    pub(crate) fn raw(&self, request: &[u8]) -> Resp {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s.write_all(request).unwrap();
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).expect("read the response");
        parse(&buf)
    }

    /// `method target` with this Host header (none when `None`).
    pub(crate) fn request(&self, method: &str, target: &str, host: Option<&str>) -> Resp {
        let host = host.map_or(String::new(), |h| format!("Host: {h}\r\n"));
        self.raw(
            format!("{method} {target} HTTP/1.1\r\n{host}Connection: close\r\n\r\n").as_bytes(),
        )
    }

    /// A GET with the Host header a browser would send.
    pub(crate) fn get(&self, target: &str) -> Resp {
        self.request("GET", target, Some(&format!("127.0.0.1:{}", self.port)))
    }

    pub(crate) fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `html` has a script tag other than the viewer's own live-reload script (which
/// every page of a watching viewer loads from `/static/live.js`, once, in its head).
pub(crate) fn has_foreign_script(html: &str) -> bool {
    let own = html
        .find("<script src=\"/static/live.js\" defer")
        .map(|start| {
            let end = start + html[start..].find("</script>").expect("the tag ends") + 9;
            format!("{}{}", &html[..start], &html[end..])
        });
    own.as_deref().unwrap_or(html).contains("<script")
}

fn parse(buf: &[u8]) -> Resp {
    let split = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(buf)));
    let head = String::from_utf8_lossy(&buf[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Resp {
        status,
        headers,
        body: buf[split + 4..].to_vec(),
    }
}

#[test]
fn index_lists_pages_by_type_with_counts_recent_and_tags() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    let r = s.get("/").status(200);
    assert_eq!(r.header("content-type"), "text/html; charset=utf-8");
    let html = r.text();
    for want in [
        "<h2>Entities <span class=\"n\">2</span></h2>",
        "<h2>Concepts <span class=\"n\">3</span></h2>",
        "9 pages: 2 entities · 3 concepts · 3 collections · 1 other page</p>",
        "<h2>Other pages",
        "<a href=\"/wiki/entities/Garden%20Plan\">Garden Plan</a>",
        "<a href=\"/wiki/notes/Plain\">Plain</a>",
        "Recently updated",
        "<time>2026-05-01</time>",
        "href=\"/tag/gardening\">#gardening<span class=\"n\">2</span>",
        "href=\"/tag/ai%2Fagents\"",
        "<link rel=\"stylesheet\" href=\"/static/style.css\">",
    ] {
        assert!(
            html.contains(want),
            "{want:?} missing from the index:\n{html}"
        );
    }
    // Recently updated, newest first.
    let cascade = html.find("<time>2026-05-01</time>").unwrap();
    let garden = html.find("<time>2026-04-30</time>").unwrap();
    assert!(cascade < garden);
    assert!(!has_foreign_script(&html), "no script but the viewer's own");
}

#[test]
fn a_page_resolves_links_like_the_manifest_and_shows_its_metadata_and_backlinks() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    let html = s.get("/wiki/entities/Garden%20Plan").status(200).text();
    for want in [
        "<title>Garden Plan — vault</title>",
        "<h1 id=\"garden-plan\">Garden Plan</h1>",
        // resolved, with a heading anchor, with a label
        "<a class=\"wikilink\" href=\"/wiki/concepts/Cascade\" title=\"wiki/concepts/Cascade.md\"",
        "href=\"/wiki/concepts/Cascade#design\"",
        ">design notes</a>",
        // ambiguous (two aliases) and broken
        "class=\"wikilink ambiguous\" href=\"/search?q=Mercury\"",
        "<span class=\"wikilink broken\" title=\"no page or file matches “Nope”\">Nope</span>",
        // a link to a heading of the page itself, and the heading's anchor
        "href=\"#soil-types\"",
        "<h2 id=\"soil-types\">Soil Types</h2>",
        "id=\"block-soil\"",
        // an image embed, inline
        "<img class=\"embed\" src=\"/file/wiki/diagram.png\" alt=\"diagram.png\">",
        // GFM
        "<table>",
        "type=\"checkbox\"",
        "<code>[[Inline]]</code>",
        // the sidebar
        "<dt>Type</dt><dd>entity</dd>",
        "<dt>Maturity</dt><dd>working</dd>",
        "<dt>Created</dt><dd>2026-04-01</dd>",
        "<dt>Aliases</dt><dd>GP, Allotment</dd>",
        "href=\"/tag/ai%2Fagents\"",
        "<a href=\"/raw/inbox/2026-05-01\"><code>raw/inbox/2026-05-01.md</code></a>",
        "href=\"https://example.com/seeds\"",
        "Linked from <span class=\"n\">1</span>",
        "<a href=\"/wiki/concepts/Cascade\">Cascade</a>",
    ] {
        assert!(
            html.contains(want),
            "{want:?} missing from the page:\n{html}"
        );
    }
    // The title H1 is shown once, not repeated from the body.
    assert_eq!(html.matches("<h1").count(), 1);
    // The same page with its extension; a link to a block lands on its anchor.
    s.get("/wiki/entities/Garden%20Plan.md").status(200);
    let cascade = s.get("/wiki/concepts/Cascade").status(200).text();
    assert!(
        cascade.contains("href=\"/wiki/entities/Garden%20Plan#block-soil\""),
        "{cascade}"
    );
    // Pages without frontmatter still show, titled by their file name.
    let plain = s.get("/wiki/notes/Plain").status(200).text();
    assert!(
        plain.contains("<h1>Plain</h1>") && plain.contains("Just a note"),
        "{plain}"
    );
    // The source view escapes.
    let src = s.get("/wiki/concepts/Payload?source").status(200).text();
    assert!(
        src.contains("&lt;script&gt;") && !has_foreign_script(&src),
        "{src}"
    );
}

#[test]
fn tags_raw_search_static_and_files() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    let tag = s.get("/tag/gardening").status(200).text();
    assert!(tag.contains("2 pages tagged."), "{tag}");
    assert!(
        tag.contains(">Cascade</a>") && tag.contains(">Garden Plan</a>"),
        "{tag}"
    );
    assert!(
        tag.contains("aria-current=\"page\""),
        "the tag is marked in the list: {tag}"
    );
    s.get("/tag/ai%2Fagents").status(200);
    s.get("/tag/AI/Agents").status(200);
    s.get("/tag/%23gardening").status(200);
    s.get("/tag/unknown").status(404);
    let tags = s.get("/tags").status(200).text();
    assert!(tags.contains("#ai/agents"), "{tags}");

    let raw = s.get("/raw/inbox/2026-05-01").status(200).text();
    assert!(
        raw.contains("A capture about <a class=\"wikilink\" href=\"/wiki/entities/Garden%20Plan\""),
        "{raw}"
    );
    assert!(!has_foreign_script(&raw), "{raw}");
    let txt = s.get("/raw/notes.txt").status(200).text();
    assert!(
        txt.contains("plain &lt;b&gt;text&lt;/b&gt; &amp; more"),
        "{txt}"
    );
    let listing = s.get("/raw/").status(200).text();
    for want in [
        "href=\"/raw/inbox/\"",
        "href=\"/raw/weblinks/\"",
        "href=\"/raw/notes.txt\"",
    ] {
        assert!(
            listing.contains(want),
            "{want} missing from the listing:\n{listing}"
        );
    }
    assert!(
        !listing.contains("up/"),
        "symbolic links are not listed: {listing}"
    );
    s.get("/raw/inbox/").status(200);
    assert_eq!(s.get("/raw").status(308).header("location"), "/raw/");

    let hits = s.get("/search?q=garden").status(200).text();
    assert!(hits.contains(">Garden Plan</a>"), "{hits}");
    // A part of an alias is no word of the text: the page is listed by its name.
    let alias = s.get("/search?q=allo").status(200).text();
    assert!(alias.contains("0 pages for “allo”"), "{alias}");
    assert!(
        alias.contains(">Garden Plan</a> <span class=\"via\">alias “Allotment”</span>"),
        "{alias}"
    );
    let untitled = s.get("/search?q=plai").status(200).text();
    assert!(
        untitled.contains(">Plain</a> <span class=\"via\">file name</span>"),
        "{untitled}"
    );
    let words = s.get("/search?q=plan+garden").status(200).text();
    assert!(
        words.contains(">Garden Plan</a>"),
        "every word, in any order: {words}"
    );
    let none = s.get("/search?q=%3Cnothing%3E").status(200).text();
    assert!(
        none.contains("0 pages for “&lt;nothing&gt;”") && !none.contains("<nothing"),
        "{none}"
    );
    s.get("/search").status(200);

    let css = s.get("/static/style.css").status(200);
    assert_eq!(css.header("content-type"), "text/css; charset=utf-8");
    assert!(css.text().contains("prefers-color-scheme: dark"));

    let png = s.get("/file/wiki/diagram.png").status(200);
    assert_eq!(png.header("content-type"), "image/png");
    assert_eq!(png.body, self::png(320, 120));
    assert!(png.header("content-security-policy").contains("sandbox"));
    let md = s.get("/file/wiki/concepts/Payload.md").status(200);
    assert_eq!(md.header("content-type"), "application/octet-stream");
    assert!(md.header("content-disposition").starts_with("attachment"));
    let image_page = s.get("/wiki/diagram.png").status(200).text();
    assert!(
        image_page.contains("<img src=\"/file/wiki/diagram.png\""),
        "{image_page}"
    );

    let missing = s.get("/nothing/here").status(404).text();
    assert!(missing.contains("<h1>Not found</h1>"), "themed: {missing}");
}

/// A directory holding an `xdg-open` that runs `script` (a shell command), for a PATH.
#[cfg(unix)]
pub(crate) fn opener(v: &TestVault, script: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = v.dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let opener = bin.join("xdg-open");
    std::fs::write(&opener, format!("#!/bin/sh\n{script}\n")).unwrap();
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}
