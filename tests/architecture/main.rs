//! The layers of ARCHITECTURE.md, checked: every `crate::` path in `src/` (test code aside,
//! grouped imports `crate::{a, b::{c}}` included) goes to a module of the same layer or a lower
//! one, the modules of a layer form no cycle, the files inside each module directory use each
//! other (`super::x`, `crate::m::x`) without a cycle, every module has a layer, each library
//! stays behind its one module, and no advice, message or record below the front ends names a
//! command line, a flag or a tool.

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod messages;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The layer of each top-level module, from ARCHITECTURE.md's table.
fn layers() -> BTreeMap<String, u32> {
    let doc = fs_err::read_to_string(Path::new(ROOT).join("ARCHITECTURE.md")).unwrap();
    let mut layers = BTreeMap::new();
    for line in doc.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let Some(layer) = cells.get(1).and_then(|c| c.parse::<u32>().ok()) else {
            continue;
        };
        for module in cells[2].split('`').skip(1).step_by(2) {
            assert!(
                layers.insert(module.to_string(), layer).is_none(),
                "{module} has two layers in ARCHITECTURE.md"
            );
        }
    }
    assert!(
        layers.len() > 20,
        "the layer table was not found: {layers:?}"
    );
    layers
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs_err::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// Each file under `src/` by its path there, as [`code`] reads it.
fn code_by_path() -> Vec<(String, String)> {
    let src = Path::new(ROOT).join("src");
    sources(&src)
        .into_iter()
        .map(|file| {
            let rel = file.strip_prefix(&src).unwrap().to_string_lossy();
            (rel.into_owned(), code(&file))
        })
        .collect()
}

/// A source file without its unit tests and comments.
fn code(path: &Path) -> String {
    let text = fs_err::read_to_string(path).unwrap();
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => &text,
    };
    if path.ends_with("tests.rs") {
        return String::new();
    }
    without_comments(text)
}

/// `text` without its `//` comments.
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level module a file belongs to (`src/scan/walk.rs` → `scan`).
fn module_of(path: &Path) -> String {
    let rel = path.strip_prefix(Path::new(ROOT).join("src")).unwrap();
    let first = rel.iter().next().unwrap().to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// The modules each module uses.
fn edges(known: &BTreeMap<String, u32>) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in sources(&Path::new(ROOT).join("src")) {
        let from = module_of(&file);
        if from == "lib" || from == "main" {
            continue;
        }
        for to in crate_modules(&code(&file)) {
            if to != from && known.contains_key(&to) {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    edges
}

/// The first name of every `crate::` path in `code`: `crate::a::b` names `a`, and a group
/// `crate::{a, b::{c, d}, e as f, self}` names `a`, `b` and `e`.
fn crate_modules(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = code[i + "crate::".len()..].trim_start();
        match rest.strip_prefix('{') {
            Some(group) => out.extend(
                group_items(group)
                    .into_iter()
                    .map(ident)
                    .filter(|n| !n.is_empty() && n != "self"),
            ),
            None => out.push(ident(rest)),
        }
    }
    out
}

/// The leading name of `s` (`b::c` → `b`).
fn ident(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// The items of a group `{a, b::{c, d}, e}` as text, each from its start (`group` begins after
/// the opening brace; the items end at its closing one).
fn group_items(group: &str) -> Vec<&str> {
    let (mut out, mut depth, mut item_start) = (Vec::new(), 0, true);
    for (j, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => item_start = true,
            c if c.is_whitespace() => {}
            _ if item_start && depth == 0 => {
                item_start = false;
                out.push(&group[j..]);
            }
            _ => {}
        }
    }
    out
}

/// The uses of a higher layer by module `from`, whose code is `code`.
fn upward(layers: &BTreeMap<String, u32>, from: &str, code: &str) -> Vec<String> {
    crate_modules(code)
        .into_iter()
        .filter(|to| layers.contains_key(to) && layers[to] > layers[from])
        .map(|to| {
            format!(
                "{from} (layer {}) uses {to} (layer {})",
                layers[from], layers[&to]
            )
        })
        .collect()
}

#[test]
fn every_module_has_a_layer_and_uses_none_above_it() {
    let layers = layers();
    let lib = fs_err::read_to_string(Path::new(ROOT).join("src/lib.rs")).unwrap();
    for line in lib.lines() {
        if let Some(m) = line.strip_prefix("pub mod ") {
            let m = m.trim_end_matches(';');
            assert!(
                layers.contains_key(m),
                "{m} has no layer in ARCHITECTURE.md"
            );
        }
    }
    let mut up = Vec::new();
    for file in sources(&Path::new(ROOT).join("src")) {
        let from = module_of(&file);
        if layers.contains_key(&from) {
            up.extend(upward(&layers, &from, &code(&file)));
        }
    }
    assert!(up.is_empty(), "uses of a higher layer:\n{}", up.join("\n"));
}

#[test]
fn a_grouped_import_of_a_higher_layer_is_caught() {
    assert_eq!(
        crate_modules(
            "use crate::{fsio, cli::{output, self}, mcp as m, self};\nlet x = crate::clock::now();"
        ),
        ["fsio", "cli", "mcp", "clock"]
    );
    assert_eq!(
        crate_modules("use crate::{\n    key::{self, link_key},\n    vault::Vault,\n};"),
        ["key", "vault"]
    );
    // A leaf that imports a front end inside a group is caught, as a plain path is.
    let layers = layers();
    let planted = "use crate::{\n    clock::Now,\n    cli::{output, exit::Exit},\n};";
    assert_eq!(
        upward(&layers, "fsio", planted),
        ["fsio (layer 1) uses cli (layer 8)"]
    );
    assert!(upward(&layers, "cli", planted).is_empty());
}

#[test]
fn the_modules_use_each_other_without_a_cycle() {
    if let Some(cycle) = find_cycle(&edges(&layers())) {
        panic!("a cycle: {}", cycle.join(" → "));
    }
}

/// A path in `edges` back to where it started, if there is one.
fn find_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search for a path back to where it started.
    fn visit(
        m: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = stack.iter().position(|s| s == m) {
            let mut cycle = stack[i..].to_vec();
            cycle.push(m.to_string());
            return Some(cycle);
        }
        if !done.insert(m.to_string()) {
            return None;
        }
        stack.push(m.to_string());
        for next in edges.get(m).into_iter().flatten() {
            if let Some(c) = visit(next, edges, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|m| visit(m, edges, &mut Vec::new(), &mut done))
}

#[test]
fn the_files_of_each_module_directory_use_each_other_without_a_cycle() {
    let files: Vec<(Vec<String>, String)> = code_by_path()
        .into_iter()
        .map(|(rel, code)| (module_path(&rel), code))
        .collect();
    let cycles = directory_cycles(&files);
    assert!(
        cycles.is_empty(),
        "files of a module directory that use each other in a cycle (move what they share \
         into a lower file):\n{}",
        cycles.join("\n")
    );
}

#[test]
fn a_planted_cycle_between_the_files_of_a_directory_is_caught() {
    let file = |path: &str, code: &str| (module_path(path), code.to_string());
    let mut files = vec![
        file("view/mod.rs", "pub struct Shared;\npub use self::c::C;"),
        file("view/a.rs", "use super::{Shared, b::B};"),
        file("view/b.rs", "fn f(_: super::C) {}"),
        file("view/c/mod.rs", "pub struct C; use super::super::Shared;"),
        file("view/c/d.rs", "use super::{super::Shared, C};"),
        file("other.rs", "use crate::view::a::A;"),
    ];
    // `a → b → c` (b names `C` through `mod.rs`); items of `mod.rs` and uses from outside the
    // directory make no cycle.
    assert!(directory_cycles(&files).is_empty());
    files.push(file(
        "view/c/e.rs",
        "let x = crate::view::{\n    a::{self, A},\n};",
    ));
    assert_eq!(directory_cycles(&files), ["src/view/: a → b → c → a"]);
}

/// The module a file under `src/` is (`view/graph/svg.rs` → `view::graph::svg`,
/// `view/graph/mod.rs` → `view::graph`).
fn module_path(rel: &str) -> Vec<String> {
    let mut path: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if path
        .last()
        .is_some_and(|l| l == "mod" || l == "lib" || l == "main")
    {
        path.pop();
    }
    path
}

/// One cycle for each module directory whose files use each other in a cycle: a file uses its
/// sibling `b` when it names `super::b` or `crate::…::b`, or an item the directory's `mod.rs`
/// imports from `b` (a file under a subdirectory counts as the subdirectory). The top level is
/// the layers' business.
fn directory_cycles(files: &[(Vec<String>, String)]) -> Vec<String> {
    let modules: BTreeSet<&[String]> = files.iter().map(|(m, _)| m.as_slice()).collect();
    let imported = imports_from_children(files, &modules);
    let mut dirs: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (here, code) in files {
        for mut target in named_paths(code, here) {
            let common = here.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common == 0 || common >= here.len() || common >= target.len() {
                continue;
            }
            if let Some(child) = imported.get(&target[..=common]) {
                target[common].clone_from(child);
            }
            // A file's use of what its directory imports from the file itself is no edge.
            if !modules.contains(&target[..=common]) || target[common] == here[common] {
                continue;
            }
            let dir = format!("src/{}/", here[..common].join("/"));
            let from = dirs.entry(dir).or_default();
            from.entry(here[common].clone())
                .or_default()
                .insert(target[common].clone());
        }
    }
    dirs.into_iter()
        .filter_map(|(dir, edges)| Some(format!("{dir}: {}", find_cycle(&edges)?.join(" → "))))
        .collect()
}

/// The items a module imports from its own child modules, by path (`view::Shown` →
/// `html` when `view/mod.rs` says `pub use html::Shown;`), so that a use of the item is a use
/// of the child.
fn imports_from_children(
    files: &[(Vec<String>, String)],
    modules: &BTreeSet<&[String]>,
) -> BTreeMap<Vec<String>, String> {
    let mut out = BTreeMap::new();
    for (here, code) in files {
        for (i, _) in code.match_indices("use ") {
            if code[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                continue;
            }
            for tail in path_tails(&code[i + "use ".len()..]) {
                let names: Vec<&String> = tail.iter().filter(|n| *n != "self").collect();
                let (Some(child), Some(item)) = (names.first(), names.last()) else {
                    continue;
                };
                let child_path = [here.as_slice(), std::slice::from_ref(*child)].concat();
                if names.len() > 1 && modules.contains(child_path.as_slice()) {
                    let item_path = [here.as_slice(), std::slice::from_ref(*item)].concat();
                    out.insert(item_path, (*child).clone());
                }
            }
        }
    }
    out
}

/// Every path that starts with `crate::`, `super::` or `self::` in the code of module `here`,
/// from the crate's root (a group `{a, b::c}` gives one path per item).
fn named_paths(code: &str, here: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        for (i, _) in code.match_indices(start) {
            let before = code[..i].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let base = match start {
                "crate::" => Vec::new(),
                "self::" => here.to_vec(),
                _ => here[..here.len().saturating_sub(1)].to_vec(),
            };
            for tail in path_tails(&code[i + start.len()..]) {
                let mut path = base.clone();
                for name in tail {
                    match name.as_str() {
                        "super" => drop(path.pop()),
                        "self" => {}
                        _ => path.push(name),
                    }
                }
                out.push(path);
            }
        }
    }
    out
}

/// The names after a path's start: `a::{b, c::d}` → `[a, b]`, `[a, c, d]`.
fn path_tails(s: &str) -> Vec<Vec<String>> {
    let s = s.trim_start();
    if let Some(group) = s.strip_prefix('{') {
        return group_items(group)
            .into_iter()
            .flat_map(path_tails)
            .collect();
    }
    let name = ident(s);
    if name.is_empty() {
        return vec![Vec::new()];
    }
    match s[name.len()..].trim_start().strip_prefix("::") {
        Some(rest) => path_tails(rest)
            .into_iter()
            .map(|tail| std::iter::once(name.clone()).chain(tail).collect())
            .collect(),
        None => vec![vec![name]],
    }
}

#[test]
fn each_library_and_printing_stay_in_their_one_place() {
    // (what, the only place allowed, as a path prefix under src/)
    let rules: [(&str, &[&str]); 10] = [
        ("rusqlite", &["manifest/"]),
        ("git2::", &["git.rs", "git/"]),
        ("clap::", &["cli/"]),
        ("rmcp::", &["mcp/"]),
        ("axum::", &["view/"]),
        ("indicatif::", &["cli/"]),
        ("notify::", &["watch/"]),
        ("unicode_categories::", &["embed/"]),
        ("println!", &["cli/"]),
        ("eprintln!", &["cli/", "fault.rs"]),
    ];
    let mut breaches = Vec::new();
    for (rel, code) in code_by_path() {
        for (what, allowed) in rules {
            if uses(&code, what) && !allowed.iter().any(|a| rel.starts_with(a)) {
                breaches.push(format!("{rel} uses {what}"));
            }
        }
    }
    assert!(breaches.is_empty(), "{}", breaches.join("\n"));
}

#[test]
fn the_render_room_serves_nothing() {
    // What the viewer and a published site both show is made without a server: no HTTP
    // library and no async runtime under src/render/, so that what writes a site to files
    // runs the very renderer the viewer serves (axum is also kept in view/ by the rule above).
    let serving = ["axum::", "tokio::", "futures_util::"];
    let room: Vec<(String, String)> = code_by_path()
        .into_iter()
        .filter(|(rel, _)| rel.starts_with("render/"))
        .collect();
    assert!(
        room.iter().any(|(rel, _)| rel == "render/mod.rs"),
        "src/render/ was not found"
    );
    let breaches: Vec<String> = room
        .iter()
        .flat_map(|(rel, code)| {
            serving
                .iter()
                .filter(|what| uses(code, what))
                .map(move |what| format!("{rel} uses {what}"))
        })
        .collect();
    assert!(breaches.is_empty(), "{}", breaches.join("\n"));
}

/// Whether `code` names `what` (`println!` is not found inside `eprintln!`).
fn uses(code: &str, what: &str) -> bool {
    code.match_indices(what).any(|(i, _)| {
        !code[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[test]
fn the_checks_see_what_they_look_for() {
    assert!(uses("x = 1;\n    println!(\"a\");", "println!"));
    assert!(!uses("eprintln!(\"a\");", "println!"));
    assert!(uses("use rusqlite::Connection;", "rusqlite"));
    assert_eq!(
        code_of("let a = 1; // crate::cli\n#[cfg(test)]\nmod tests { crate::cli }"),
        "let a = 1;"
    );
}

fn code_of(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.rs");
    fs_err::write(&p, text).unwrap();
    code(&p).trim_end().to_string()
}

/// The files of `src/`, by path there, that allow unsafe code (an attribute, comments aside).
fn allowing_unsafe(files: &[(String, String)]) -> Vec<String> {
    files
        .iter()
        .filter(|(_, code)| code.contains("allow(unsafe_code)"))
        .map(|(rel, _)| rel.clone())
        .collect()
}

#[test]
fn unsafe_code_is_allowed_in_the_two_audited_modules_only() {
    let manifest = fs_err::read_to_string(Path::new(ROOT).join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains("[lints.rust]\nunsafe_code = \"deny\""),
        "Cargo.toml's [lints.rust] denies unsafe code"
    );
    // Test code included: a unit test may not allow it either.
    let src = Path::new(ROOT).join("src");
    let files: Vec<(String, String)> = sources(&src)
        .into_iter()
        .map(|file| {
            let rel = file
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (
                rel,
                without_comments(&fs_err::read_to_string(&file).unwrap()),
            )
        })
        .collect();
    assert_eq!(allowing_unsafe(&files), ["manifest/fts5.rs", "memory.rs"]);
    let planted = [
        (
            "memory.rs".to_string(),
            "#![allow(unsafe_code)]".to_string(),
        ),
        (
            "scan/walk.rs".to_string(),
            "#[allow(unsafe_code)]\nfn f() {}".to_string(),
        ),
        (
            "fsio.rs".to_string(),
            "// allow(unsafe_code) in a comment".to_string(),
        ),
    ];
    let planted: Vec<(String, String)> = planted
        .into_iter()
        .map(|(rel, text)| (rel, without_comments(&text)))
        .collect();
    assert_eq!(allowing_unsafe(&planted), ["memory.rs", "scan/walk.rs"]);
}
