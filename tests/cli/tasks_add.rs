//! `sparks tasks add`'s two forms of the task: `TEXT` and the original's `--text TEXT`, exactly
//! one of them, in the help and in the contract's `tasks` topic.

use crate::harness::TestVault;

const TASKS: &str = "wiki/collections/Tasks.md";

#[test]
fn the_task_is_text_or_the_text_option_never_both_nor_neither() {
    let v = TestVault::new();
    let positional = v
        .run(&["tasks", "add", "Buy milk", "--section", "Home", "--json"])
        .ok()
        .json();
    let option = v
        .run(&[
            "tasks",
            "add",
            "--text",
            "Buy bread",
            "--section",
            "Home",
            "--json",
        ])
        .ok()
        .json();
    assert_eq!(
        (&positional["text"], &positional["line"]),
        (&"Buy milk".into(), &17.into())
    );
    assert_eq!(
        (&option["text"], &option["line"]),
        (&"Buy bread".into(), &18.into())
    );
    assert!(
        v.read(TASKS)
            .ends_with("## Home\n\n- [ ] Buy milk\n- [ ] Buy bread\n"),
        "{}",
        v.read(TASKS)
    );

    let before = v.read(TASKS);
    let both = v
        .run(&[
            "tasks",
            "add",
            "Buy eggs",
            "--text",
            "Buy jam",
            "--section",
            "Home",
        ])
        .code(2);
    assert!(
        both.stderr
            .contains("'[TEXT]' cannot be used with '--text <TEXT>'"),
        "{}",
        both.stderr
    );
    let neither = v.run(&["tasks", "add", "--section", "Home"]).code(2);
    assert!(
        neither
            .stderr
            .contains("required arguments were not provided")
            && neither.stderr.contains("<TEXT|--text <TEXT>>"),
        "{}",
        neither.stderr
    );
    assert_eq!(v.read(TASKS), before, "a refused add changes nothing");
    let help = v.run(&["tasks", "add", "--help"]).ok().stdout;
    assert!(
        help.contains("sparks tasks add \"Write the fuzz targets\" --section"),
        "{help}"
    );
    let topic = v.run(&["describe", "tasks"]).ok().stdout;
    assert!(
        topic.contains("`sparks tasks add T --section S`"),
        "{topic}"
    );
    assert!(
        topic.contains("`sparks tasks add --section S --text T`"),
        "{topic}"
    );
}
