//! `sparks view`: the real binary serving a fixture vault on a loopback port, spoken to over
//! plain TCP (so that the Host header, the method and the request target are exactly what
//! each test says), and driven by headless Chromium (tests/view/browser.mjs) for the things
//! only a browser can tell: a click follows a wikilink, and a hostile page runs no script.

#[cfg(target_os = "linux")]
use crate::harness;
use crate::harness::TestVault;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
#[cfg(target_os = "linux")]
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

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
    child: Child,
    port: u16,
    // Read by the tests that need unix (a browser, a signal).
    #[cfg_attr(not(unix), allow(dead_code))]
    pub(crate) url: String,
    stderr: Arc<Mutex<String>>,
}

/// An HTTP response.
#[derive(Debug)]
pub(crate) struct Resp {
    pub(crate) status: u16,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

impl Resp {
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn header(&self, name: &str) -> &str {
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
    fn raw(&self, request: &[u8]) -> Resp {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s.write_all(request).unwrap();
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).expect("read the response");
        parse(&buf)
    }

    /// `method target` with this Host header (none when `None`).
    fn request(&self, method: &str, target: &str, host: Option<&str>) -> Resp {
        let host = host.map_or(String::new(), |h| format!("Host: {h}\r\n"));
        self.raw(
            format!("{method} {target} HTTP/1.1\r\n{host}Connection: close\r\n\r\n").as_bytes(),
        )
    }

    /// A GET with the Host header a browser would send.
    pub(crate) fn get(&self, target: &str) -> Resp {
        self.request("GET", target, Some(&format!("127.0.0.1:{}", self.port)))
    }

    fn stderr(&self) -> String {
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

/// The original viewer's URLs answer directly: a page at `/wiki/<path>` with or without `.md`,
/// a raw file at `/raw/<path>`, a tag at `/tag/<tag>` (the spec's name) and at `/tags/<tag>`
/// (the original's). The URLs of earlier versions of this viewer redirect to them.
#[test]
fn the_original_viewers_urls_answer_directly() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    for target in [
        "/wiki/entities/Garden%20Plan",
        "/wiki/entities/Garden%20Plan.md",
    ] {
        let r = s.get(target).status(200);
        assert_eq!(r.header("location"), "", "{target}");
        let html = r.text();
        assert!(
            html.contains("<h1 id=\"garden-plan\">Garden Plan</h1>") && html.contains("Loam"),
            "{target}: {html}"
        );
    }
    for target in ["/raw/inbox/2026-05-01", "/raw/inbox/2026-05-01.md"] {
        let html = s.get(target).status(200).text();
        assert!(html.contains("A capture about"), "{target}: {html}");
    }
    for target in [
        "/tag/gardening",
        "/tags/gardening",
        "/tags/Gardening",
        "/tags/%23gardening",
    ] {
        let html = s.get(target).status(200).text();
        assert!(html.contains("2 pages tagged."), "{target}: {html}");
    }
    for target in ["/tag/ai%2Fagents", "/tags/ai%2Fagents", "/tags/ai/agents"] {
        let html = s.get(target).status(200).text();
        assert!(html.contains("1 page tagged."), "{target}: {html}");
    }
    s.get("/tags/unknown").status(404);
    s.get("/wiki/missing").status(404);
    // Links, chips and the index use these URLs.
    let index = s.get("/").text();
    assert!(
        index.contains("href=\"/wiki/entities/Garden%20Plan\"")
            && index.contains("href=\"/tag/gardening\""),
        "{index}"
    );
    // Earlier forms redirect, once the file is known to exist.
    for (from, to) in [
        (
            "/page/wiki/entities/Garden%20Plan",
            "/wiki/entities/Garden%20Plan",
        ),
        (
            "/page/wiki/entities/Garden%20Plan.md",
            "/wiki/entities/Garden%20Plan",
        ),
        (
            "/page/wiki/concepts/Payload?source",
            "/wiki/concepts/Payload?source",
        ),
        ("/page/raw/inbox/2026-05-01.md", "/raw/inbox/2026-05-01"),
        ("/wiki", "/"),
        ("/wiki/", "/"),
        ("/tag", "/tags"),
        ("/tag/", "/tags"),
        ("/raw", "/raw/"),
    ] {
        assert_eq!(s.get(from).status(308).header("location"), to, "{from}");
    }
    s.get("/page/wiki/missing").status(404);
    // A file outside `wiki/` and `raw/` keeps its `/page/` URL.
    let inbox = s.get("/page/inbox").status(200);
    assert_eq!(inbox.header("location"), "");
}

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

/// The search box searches the text as `sparks search` does (same index, same order), shows
/// an extract of each hit with the words marked, and escapes everything it shows.
#[test]
fn the_search_box_searches_the_text_like_sparks_search() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    // A word of the body only: no title, alias or file name has it.
    let loam = s.get("/search?q=loam").status(200).text();
    assert!(loam.contains("1 page for “loam”"), "{loam}");
    assert!(
        loam.contains(">Garden Plan</a> <span class=\"badge\">entity</span><p class=\"snippet\">")
            && loam.contains("<mark>Loam</mark>, mostly."),
        "{loam}"
    );
    // The order of `sparks search`, hit for hit.
    for q in [
        "mercury",
        "cascade",
        "garden OR terraces",
        "\"design notes\"",
        "plan* -mercury",
    ] {
        let cli = v.run(&["search", "--json", "--", q]).ok().json();
        let want: Vec<&str> = cli["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["path"].as_str().unwrap())
            .collect();
        assert!(!want.is_empty(), "{q}: the CLI finds something");
        let html = s
            .get(&format!("/search?q={}", encode(q)))
            .status(200)
            .text();
        let hits = &html[html.find("<ol class=\"hits\">").expect("hits")..];
        let hits = &hits[..hits.find("</ol>").unwrap()];
        let got: Vec<&str> = hits
            .split("<span class=\"meta\">")
            .skip(1)
            .map(|m| &m[..m.find("</span>").unwrap()])
            .collect();
        assert_eq!(got, want, "{q}");
        assert!(
            html.contains(&format!("{} for", count(want.len()))),
            "{html}"
        );
    }
    // Markup the page holds is found by its words but is no text of the extract (the extract
    // is what a reader sees), and it never runs.
    let script = s.get("/search?q=window+pwned").status(200).text();
    assert!(script.contains("1 page for “window pwned”"), "{script}");
    assert!(
        !has_foreign_script(&script) && !script.contains("&lt;script"),
        "{script}"
    );
    // Raw captures on request, both together, the wiki by default.
    let raw = s.get("/search?q=capture&in=raw").status(200).text();
    assert!(
        raw.contains("1 file for “capture”") && raw.contains("raw/inbox/2026-05-01.md"),
        "{raw}"
    );
    assert!(raw.contains("<option value=\"raw\" selected>"), "{raw}");
    assert!(
        s.get("/search?q=capture")
            .text()
            .contains("0 pages for “capture”")
    );
    let all = s.get("/search?q=garden&in=all").status(200).text();
    assert!(
        all.contains("wiki/entities/Garden Plan.md") && all.contains("raw/inbox/2026-05-01.md"),
        "{all}"
    );
    let empty = s.get("/search").status(200).text();
    assert!(empty.contains("<code>sparks search</code>"), "{empty}");
}

/// Percent-encode a query value.
fn encode(q: &str) -> String {
    q.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// `N page(s)` as the search page counts.
fn count(n: usize) -> String {
    format!("{n} {}", if n == 1 { "page" } else { "pages" })
}

/// More hits than are shown: the rest are counted, not dropped.
#[test]
fn search_hits_beyond_the_shown_are_counted() {
    let v = TestVault::new();
    for i in 0..53 {
        v.page(
            &format!("wiki/concepts/Light {i:02}.md"),
            &format!("Light {i:02}"),
            "A lighthouse stands here.",
        );
    }
    v.run(&["scan"]).ok();
    let s = Server::start(&v, &[]);
    let html = s.get("/search?q=lighthouse").status(200).text();
    assert!(html.contains("53 pages for “lighthouse”"), "{html}");
    assert_eq!(
        html.matches("<mark>lighthouse</mark>").count(),
        50,
        "{html}"
    );
    assert!(html.contains("… and 3 more"), "{html}");
}

/// An extract in the search box is plain text: no heading, embed, link or emphasis syntax,
/// link labels shown; an archive's markers and separators are not in it.
#[test]
fn search_extracts_are_plain_text() {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Zebrafish.md",
        "Zebrafish",
        "# Zebrafish\n\n![[fin.png]]\n\nThey **regrow** fins; see [[Regeneration|regrowth]] and [[Fins#Rays]].",
    );
    v.write(
        "raw/inbox/2026-04-10.md",
        "---\n<!-- sparks: ingest 1 k entry 1 blake3 h -->\nZebrafish regrow fins.\n---\n\
         <!-- sparks: ingest 1 k entry 2 blake3 h -->\nAnother capture.\n",
    );
    v.run(&["scan"]).ok();
    let s = Server::start(&v, &[]);
    let html = s.get("/search?q=regrow&in=all").status(200).text();
    let hits = &html[html.find("<ol class=\"hits\">").expect("hits")..];
    let hits = &hits[..hits.find("</ol>").unwrap()];
    assert!(
        hits.contains("fin.png They <mark>regrow</mark> fins; see regrowth and Fins &gt; Rays."),
        "{hits}"
    );
    assert!(
        hits.contains("Zebrafish <mark>regrow</mark> fins. Another capture."),
        "{hits}"
    );
    for syntax in ["# ", "![[", "[[", "**", "--&gt;", "---", "blake3"] {
        assert!(!hits.contains(syntax), "{syntax:?} in {hits}");
    }
}

/// Bare web addresses in a page are links (outside code), sanitised like any other link;
/// the browser's icon request is answered.
#[test]
fn bare_urls_are_links_and_the_favicon_answers() {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Links.md",
        "Links",
        "Read https://example.com/a_b?x=1&y=2, or (see https://en.wikipedia.org/wiki/Rust_(programming_language)).\n\n\
         `https://in.code.example` and\n\n```\nhttps://in.fence.example\n```\n\n\
         javascript:alert(1) is text; <a href=\"https://author.example\">https://author.example/x</a>.",
    );
    v.run(&["scan"]).ok();
    let s = Server::start(&v, &[]);
    let html = s.get("/wiki/concepts/Links").status(200).text();
    for want in [
        "<a href=\"https://example.com/a_b?x=1&amp;y=2\" rel=\"noopener noreferrer\">https://example.com/a_b?x=1&amp;y=2</a>,",
        "(see <a href=\"https://en.wikipedia.org/wiki/Rust_(programming_language)\" rel=\"noopener noreferrer\">",
        "<code>https://in.code.example</code>",
        "https://in.fence.example\n</code>",
        "<a href=\"https://author.example\" rel=\"noopener noreferrer\">https://author.example/x</a>",
    ] {
        assert!(html.contains(want), "{want:?} missing:\n{html}");
    }
    assert!(!html.contains("href=\"javascript"), "{html}");
    assert!(
        !html.contains("href=\"https://in."),
        "nothing in code is linked: {html}"
    );
    assert!(html.contains("<link rel=\"icon\" href=\"/favicon.ico\">"));

    let icon = s.get("/favicon.ico").status(200);
    assert_eq!(icon.header("content-type"), "image/x-icon");
    assert_eq!(&icon.body[..4], &[0, 0, 1, 0], "an ICO header");
    assert!(
        icon.body.windows(4).any(|w| w == b"\x89PNG"),
        "a PNG inside"
    );
}

/// A link to a heading lands on it when Obsidian's comparison finds it (punctuation, backticks
/// and spacing aside); a heading inside a `%%` comment is not there to land on.
#[test]
fn heading_links_land_on_headings_as_obsidian_compares_them() {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Zotero 101.md",
        "Zotero 101",
        "## Part 1: Basics\n\nText.\n\n## What is the Obsidian Hub?\n\nMore.\n\n### `wikilink`\n\n\
         Even more.\n\n%%\n## Hidden\n%%\n\nBack to [[#Part 1 Basics]].",
    )
    .page(
        "wiki/concepts/Reader.md",
        "Reader",
        "[[Zotero 101#Part 1 Basics]], [[Zotero 101#What is the Obsidian Hub]], \
         [[Zotero 101#`wikilink`]] and [[Zotero 101#Hidden]].",
    );
    v.run(&["scan"]).ok();
    let s = Server::start(&v, &[]);
    let target = s.get("/wiki/concepts/Zotero%20101").status(200).text();
    for id in ["part-1-basics", "what-is-the-obsidian-hub", "wikilink"] {
        assert!(target.contains(&format!(" id=\"{id}\">")), "{id}: {target}");
    }
    assert!(
        target.contains("href=\"#part-1-basics\""),
        "a link to a heading of the page itself: {target}"
    );
    let reader = s.get("/wiki/concepts/Reader").status(200).text();
    for id in ["part-1-basics", "what-is-the-obsidian-hub", "wikilink"] {
        assert!(
            reader.contains(&format!("href=\"/wiki/concepts/Zotero%20101#{id}\"")),
            "{id}: {reader}"
        );
    }
    assert_eq!(reader.matches("missing-anchor").count(), 1, "{reader}");
    assert!(reader.contains("has no heading “Hidden”"), "{reader}");
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
