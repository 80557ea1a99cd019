//! The shape of `src/`, read as text (so the browser-only `ui` is checked too):
//! - no import circles: no module depends, through any chain of `use` lines and paths, on a
//!   module that depends back on it. A parent and its own children are one unit (a `mod.rs`
//!   re-exports what its files define), so edges between them do not count; test code does not
//!   count either;
//! - the layers: no top-level module uses one above it (the core nothing, the charts' geometry
//!   only the core, ...: `LAYERS`);
//! - the core and what builds on it name no Cargo feature: which parts a page module holds is
//!   decided where the app is put together.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file is (`src/core/url/mod.rs` is `core::url`), or `None` for the binary and
/// for files that hold only tests.
fn module_of(src: &Path, file: &Path) -> Option<Vec<String>> {
    let relative = file.strip_prefix(src).ok()?;
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    match parts.last().map(String::as_str) {
        Some("main") if parts.len() == 1 => return None,
        Some("tests") => return None,
        Some("lib") if parts.len() == 1 => parts.clear(),
        Some("mod") => {
            parts.pop();
        }
        _ => {}
    }
    Some(parts)
}

/// The code of a file without its test module and its comments.
fn code_of(text: &str) -> String {
    let before_tests = text.split("#[cfg(test)]").next().unwrap_or_default();
    before_tests
        .lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e`.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        return vec![tree
            .split(" as ")
            .next()
            .unwrap_or_default()
            .trim()
            .to_string()];
    };
    let prefix = &tree[..open];
    let inner = tree[open + 1..].trim_end().trim_end_matches('}');
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items
        .into_iter()
        .filter(|item| !item.trim().is_empty())
        .flat_map(expand)
        .map(|rest| format!("{prefix}{rest}"))
        .collect()
}

/// Every path a module's code names: its `use` trees and its inline `crate::`/`super::` paths.
fn paths_in(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = String::new();
    for statement in code.split(';') {
        let use_at = statement.find("use ").filter(|&at| {
            let before = statement[..at].trim_end();
            before.is_empty() || before.ends_with('}') || before.ends_with("pub")
        });
        match use_at {
            Some(at) => {
                paths.extend(expand(&statement[at + 4..]));
                rest.push_str(&statement[..at]);
            }
            None => rest.push_str(statement),
        }
        rest.push(';');
    }
    let code = rest.as_str();
    let bytes = code.as_bytes();
    for start in ["crate::", "super::"] {
        for (at, _) in code.match_indices(start) {
            let joined = at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
            if joined {
                continue;
            }
            let end = code[at..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |n| at + n);
            paths.push(code[at..end].trim_end_matches(':').to_string());
        }
    }
    paths
}

/// The module a path leads to from `here`: the longest known module it starts with.
fn resolve(here: &[String], path: &str, modules: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let mut segments = path.split("::").map(str::trim).filter(|s| !s.is_empty());
    let mut at: Vec<String> = match segments.next()? {
        "crate" => Vec::new(),
        "self" => here.to_vec(),
        "super" => here.get(..here.len().checked_sub(1)?)?.to_vec(),
        _ => return None, // another crate, or a name already in scope
    };
    for segment in segments {
        match segment {
            "super" => {
                at.pop();
            }
            name => {
                let mut deeper = at.clone();
                deeper.push(name.to_string());
                if modules.contains(&deeper) {
                    at = deeper;
                } else {
                    break;
                }
            }
        }
    }
    Some(at)
}

/// Where an edge from `from` to `to` counts: between the two siblings under their common
/// ancestor (`core::limiter` -> `core::profiles::response` is `core::limiter` ->
/// `core::profiles`), or nowhere when one module holds the other.
fn between_siblings(from: &[String], to: &[String]) -> Option<(Vec<String>, Vec<String>)> {
    let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    if common == from.len() || common == to.len() {
        return None;
    }
    Some((from[..=common].to_vec(), to[..=common].to_vec()))
}

fn dependencies() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<Vec<String>> = files.iter().filter_map(|f| module_of(&src, f)).collect();
    let mut graph: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for file in &files {
        let Some(here) = module_of(&src, file) else {
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for path in paths_in(&code_of(&text)) {
            let edge = resolve(&here, &path, &modules).and_then(|to| between_siblings(&here, &to));
            if let Some((from, to)) = edge {
                graph.entry(from).or_default().insert(to);
            }
        }
    }
    graph
}

/// A chain of modules from `from` back to itself, if there is one.
fn circle_through(
    graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
    from: &Vec<String>,
) -> Option<Vec<Vec<String>>> {
    let mut stack = vec![(from.clone(), vec![from.clone()])];
    let mut seen = BTreeSet::new();
    while let Some((at, chain)) = stack.pop() {
        for next in graph.get(&at).into_iter().flatten() {
            if next == from {
                return Some(chain);
            }
            if seen.insert(next.clone()) {
                let mut longer = chain.clone();
                longer.push(next.clone());
                stack.push((next.clone(), longer));
            }
        }
    }
    None
}

#[test]
fn no_module_depends_on_a_module_that_depends_back_on_it() {
    let graph = dependencies();
    assert!(
        graph.len() > 20,
        "the source tree was read: {} modules",
        graph.len()
    );
    let circles: Vec<String> = graph
        .keys()
        .filter_map(|module| circle_through(&graph, module))
        .map(|chain| {
            let names: Vec<String> = chain.iter().map(|m| m.join("::")).collect();
            format!("{} -> {}", names.join(" -> "), names[0])
        })
        .collect();
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_circle_finder_sees_grouped_uses_and_inline_paths() {
    let paths = paths_in("use super::{a::B, c::{d, E as F}};\nfn f() { crate::core::g::h(); }");
    assert_eq!(
        paths,
        [
            "super::a::B",
            "super::c::d",
            "super::c::E",
            "crate::core::g::h"
        ]
    );
}

/// The layers, bottom up, each with the top-level modules it may use: the core uses none of the
/// others, the charts' geometry only the core, the site's assembly and the command line what
/// lies below them, and the page everything but the command line. A new top-level module is
/// placed here, or the test names it.
const LAYERS: &[(&str, &[&str])] = &[
    ("core", &[]),
    ("layout", &["core"]),
    ("site", &["core"]),
    ("cli", &["core", "layout"]),
    ("ui", &["core", "layout", "site"]),
];

#[test]
fn no_arrow_runs_back_up_the_layers() {
    let graph = dependencies();
    let mut wrong = Vec::new();
    for (from, to) in graph.iter().filter(|(from, _)| from.len() == 1) {
        let name = from[0].as_str();
        let Some((_, allowed)) = LAYERS.iter().find(|(layer, _)| *layer == name) else {
            wrong.push(format!("{name} is in no layer"));
            continue;
        };
        for used in to.iter().filter(|m| !allowed.contains(&m[0].as_str())) {
            wrong.push(format!("{name} uses {}", used.join("::")));
        }
    }
    assert!(
        graph.keys().any(|m| m == &["layout".to_string()]),
        "the top-level modules were read"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The parts of the program that compile one way whatever module of the page links them: a
/// module's contents are chosen where the app is put together (`ui`, `main.rs`), by the parts it
/// names (`core::limiter::Parts`), so `cargo test` runs the code every module ships.
const COMPILED_ONE_WAY: &[&str] = &["core", "layout", "cli", "site.rs", "lib.rs"];

#[test]
fn the_core_and_what_builds_on_it_name_no_cargo_feature() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for part in COMPILED_ONE_WAY {
        let path = src.join(part);
        match path.is_dir() {
            true => rust_files(&path, &mut files),
            false => files.push(path),
        }
    }
    assert!(
        files.len() > 50,
        "the source tree was read: {} files",
        files.len()
    );
    let mut named = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for (number, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if names_a_feature(code) {
                named.push(format!(
                    "{}:{}: {}",
                    file.display(),
                    number + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        named.is_empty(),
        "Cargo features named:\n{}",
        named.join("\n")
    );
}

/// Whether a line of code asks for a Cargo feature (`cfg(feature = ...)`, `cfg!(any(feature =
/// ...))`, `cfg_attr(feature = ...)`).
fn names_a_feature(code: &str) -> bool {
    code.contains("cfg") && {
        let squeezed: String = code.chars().filter(|c| !c.is_whitespace()).collect();
        squeezed.contains("feature=\"")
    }
}

#[test]
fn the_feature_finder_sees_every_form() {
    for line in [
        "#[cfg(feature = \"products\")]",
        "if cfg!(any(feature=\"durable\", test)) {",
        "#[cfg_attr(not(feature = \"workbench\"), allow(dead_code))]",
    ] {
        assert!(names_a_feature(line), "{line}");
    }
    assert!(!names_a_feature("let feature = \"products\";"));
    assert!(!names_a_feature("#[cfg(test)]"));
}
