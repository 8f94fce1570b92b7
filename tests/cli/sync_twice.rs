//! The same capture ingested on two devices (issue 48, item 6): each prepared it before
//! syncing. The merged archive keeps it once, the log keeps both ingests' blocks, and the sync
//! names the capture and both ingests' pages; two captures that only share their words stay two.

use crate::harness::{TODAY, TestVault};
use crate::sync::{Devices, no_markers, sync};

/// An ingest of everything in the inbox: prepare, a page, a log block, finalize.
pub fn ingest(v: &TestVault, page: &str) {
    v.run(&["ingest", "--prepare"]).ok();
    v.page(&format!("wiki/concepts/{page}.md"), page, "From an ingest.");
    let mut log = v.read("wiki/log.md");
    log.push_str(&format!(
        "\n## [{TODAY}] ingest | {page}\n\n- wrote [[{page}]]\n"
    ));
    v.write("wiki/log.md", log);
    v.run(&["ingest", "--finalize"]).ok();
}

/// How many times `text` stands in the archive file of today.
fn archived(v: &TestVault, text: &str) -> usize {
    v.read(&format!("raw/inbox/{TODAY}.md"))
        .matches(text)
        .count()
}

#[test]
fn a_capture_both_devices_ingested_is_archived_once_and_named_with_both_ingests_pages() {
    let d = Devices::new();
    d.a.run(&["capture", "A thought worth a page"]).ok();
    sync(&d.a);
    sync(&d.b);
    // Each device ingests it before it syncs again.
    ingest(&d.a, "Laptop Page");
    ingest(&d.b, "Phone Page");
    sync(&d.a);
    let report = sync(&d.b);
    let twice = report["ingested_twice"].as_array().expect("a list").clone();
    assert_eq!(twice.len(), 1, "{report}");
    assert_eq!(twice[0]["entry"], "A thought worth a page");
    assert_eq!(twice[0]["archive"], format!("raw/inbox/{TODAY}.md"));
    let ingests = twice[0]["ingests"].as_array().unwrap();
    assert_eq!(ingests[0]["device"], "this");
    assert_eq!(
        ingests[0]["pages"],
        serde_json::json!(["wiki/concepts/Phone Page.md"])
    );
    assert_eq!(ingests[1]["device"], "other");
    assert_eq!(
        ingests[1]["pages"],
        serde_json::json!(["wiki/concepts/Laptop Page.md"])
    );
    let text = d.b.run(&["sync"]).ok().stdout;
    assert!(!text.contains("ingested on both"), "said once: {text}");
    sync(&d.a);
    for v in [&d.a, &d.b] {
        assert_eq!(archived(v, "A thought worth a page"), 1, "archived once");
        let log = v.read("wiki/log.md");
        assert!(
            log.contains("ingest | Laptop Page") && log.contains("ingest | Phone Page"),
            "the log keeps both blocks:\n{log}"
        );
        no_markers(v);
    }
}

#[test]
fn two_captures_with_the_same_words_made_on_two_devices_stay_two() {
    let d = Devices::new();
    d.a.run(&["capture", "Buy milk"]).ok();
    d.b.run(&["capture", "Buy milk"]).ok();
    ingest(&d.a, "Laptop Errands");
    ingest(&d.b, "Phone Errands");
    sync(&d.a);
    let report = sync(&d.b);
    assert_eq!(report["ingested_twice"], serde_json::json!([]), "{report}");
    sync(&d.a);
    for v in [&d.a, &d.b] {
        assert_eq!(archived(v, "Buy milk"), 2, "two captures stay two");
    }
}

/// Found by the two-device soak: B's merge left A's block of a capture both had ingested out
/// for its own; A, which had archived more meanwhile, then merged B's merge and brought its own
/// block back beside B's, so the capture stood twice in the archive on both devices.
#[test]
fn a_block_one_merge_left_out_is_not_brought_back_by_the_next() {
    let d = Devices::new();
    d.b.run(&["capture", "Taken on both"]).ok();
    sync(&d.b);
    sync(&d.a);
    d.b.run(&["capture", "Only on the phone"]).ok();
    ingest(&d.b, "Phone Page");
    ingest(&d.a, "Laptop Page");
    // A pushes its ingest, then archives more before it hears of B's.
    sync(&d.a);
    d.a.run(&["capture", "Later on the laptop"]).ok();
    ingest(&d.a, "Laptop Later");
    let report = sync(&d.b);
    let twice = report["ingested_twice"].as_array().expect("a list");
    assert_eq!(twice.len(), 1, "{report}");
    sync(&d.a);
    sync(&d.b);
    for v in [&d.a, &d.b] {
        for text in ["Taken on both", "Only on the phone", "Later on the laptop"] {
            assert_eq!(archived(v, text), 1, "{text} archived once");
        }
        assert_eq!(crate::sync::inbox(v), Vec::<String>::new(), "all ingested");
        no_markers(v);
    }
    assert_eq!(
        crate::sync::head(&d.a, &d.a.root),
        crate::sync::head(&d.b, &d.b.root)
    );
}
