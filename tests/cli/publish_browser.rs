//! A published site in headless Chromium (tests/publish/browser.mjs), served under a sub-path
//! by a static server of the script's own: pages open at their folders and navigate, an embed
//! shows in place, a link to a private page is its text alone, the search finds pages by a body
//! word and a CJK word (and a private page's word finds nothing), pages read with JavaScript
//! off, and no page asks for a file the site lacks. Fails (never skips) when Chromium or
//! playwright-core is missing: scripts/test-deps.sh installs them (`make test` runs it).

use crate::harness::{TestVault, bin};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The target directory the test binary was built in (`<target>/<profile>/sparks`).
fn target_dir() -> PathBuf {
    Path::new(bin())
        .parent()
        .and_then(Path::parent)
        .expect("the binary is in <target>/<profile>/")
        .to_path_buf()
}

/// A vault of an allotment: three published pages (one with CJK text, one embedded), a private
/// page the public ones link to, embed and share a tag with.
fn allotment() -> TestVault {
    let v = TestVault::new();
    v.write(
        "sparks.toml",
        "[vault]\nname = \"Allotment\"\n\n[publish]\ndescription = \"What grows where.\"\n",
    );
    v.write(
        "wiki/concepts/Garden Plan.md",
        "---\ntitle: Garden Plan\ntype: concept\ntags: [garden, shared]\npublish: true\n\
         updated: 2026-05-02\n---\n\n# Garden Plan\n\nPlant tomatoes by the south wall, near \
         [[Tomatoes]]. Ask about [[Hidden Thing]].\n\n![[Shed]]\n\n![[Hidden Thing]]\n\n\
         ## Notes\n\nWater in the morning.\n",
    );
    v.write(
        "wiki/entities/Tomatoes.md",
        "---\ntitle: Tomatoes\ntype: entity\ntags: [garden]\npublish: true\n---\n\nRed fruit \
         for the [[Garden Plan]]. 個人知識管理の記録。\n",
    );
    v.write(
        "wiki/entities/Shed.md",
        "---\ntitle: Shed\ntype: entity\npublish: true\n---\n\nThe shed key hangs by the door.\n",
    );
    v.write(
        "wiki/concepts/zeta-private.md",
        "---\ntitle: Private Title Zeta\naliases: [Hidden Thing]\ntags: [secret-tag, shared]\n---\n\n\
         A zebra secret.\n",
    );
    v
}

#[cfg(target_os = "linux")]
#[test]
fn a_published_site_works_in_a_real_browser_under_a_sub_path() {
    let chromium = Path::new("/usr/bin/chromium");
    let node_dir = target_dir().join("test-node");
    assert!(
        chromium.exists() && node_dir.join("node_modules/playwright-core").exists(),
        "the browser test needs /usr/bin/chromium and playwright-core in {}: run \
         scripts/test-deps.sh (make test does)",
        node_dir.display()
    );
    let v = allotment();
    let report = v.run(&["publish", "--json"]).ok().json();
    assert_eq!(report["published"], 3, "{report}");
    let shots = target_dir().join("publish-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/publish/browser.mjs");
    let out = Command::new("node")
        .arg(&script)
        .env("SPARKS_SITE", v.path("site"))
        .env("SPARKS_TEST_NODE", &node_dir)
        .env("SPARKS_SCREENSHOTS", &shots)
        .env("HOME", v.home())
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "browser test failed\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    assert!(stdout.contains("browser: all checks passed"), "{stdout}");
    println!("{stdout}");
    for shot in ["publish-page", "publish-search"] {
        assert!(shots.join(format!("{shot}.png")).exists(), "{shot}.png");
    }
}
