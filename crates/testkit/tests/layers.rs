//! The layer rules of ARCHITECTURE.md, checked on the crate graph as cargo sees it: a
//! dependency between filekit's crates that the rules do not allow fails here, in the
//! hermetic stage, rather than waiting for a reviewer to notice.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// For each crate, the filekit crates it may depend on (normal and build dependencies; the
/// dev-dependency on `filekit-testkit` is every crate's right). Mirrors ARCHITECTURE.md's
/// "Layer rules".
const ALLOWED: &[(&str, &[&str])] = &[
    ("filekit-splices", &[]),
    ("filekit-errors", &["filekit-splices"]),
    ("filekit-nearmiss", &[]),
    // Parsers and the language-server bridge take texts and return data: no engine.
    ("filekit-semantic", &["filekit-errors", "filekit-splices"]),
    ("filekit-lsp", &["filekit-errors", "filekit-splices"]),
    // Document targeting stands on the parsers' shared steps (bounded parses, edit
    // operations, targets): no engine either.
    (
        "filekit-documents",
        &["filekit-semantic", "filekit-errors", "filekit-splices"],
    ),
    (
        "filekit-core",
        &["filekit-errors", "filekit-splices", "filekit-nearmiss"],
    ),
    // Patches are parsed and placed on texts: the leaves only, no engine (nor its SQLite).
    (
        "filekit-patch",
        &["filekit-errors", "filekit-splices", "filekit-nearmiss"],
    ),
    // The refactor layer plans and carries out patches too (`patch`): parsed and placed by
    // `filekit-patch`, read and written through the engine.
    (
        "filekit-refactor",
        &[
            "filekit-core",
            "filekit-patch",
            "filekit-semantic",
            "filekit-lsp",
            "filekit-errors",
            "filekit-splices",
        ],
    ),
    (
        "filekit-dialects",
        &[
            "filekit-core",
            "filekit-patch",
            "filekit-semantic",
            "filekit-documents",
            "filekit-refactor",
            "filekit-lsp",
            "filekit-errors",
            "filekit-splices",
        ],
    ),
    (
        "filekit-mcp",
        &["filekit-dialects", "filekit-core", "filekit-errors"],
    ),
    // The CLI reaches the engine for its verbs and the dialects for tools; refactors and
    // language servers only through the dialects.
    (
        "filekit",
        &[
            "filekit-mcp",
            "filekit-dialects",
            "filekit-core",
            "filekit-errors",
            "filekit-splices",
        ],
    ),
    ("filekit-testkit", &[]),
];

/// Edges the rules forbid that the code still has, each with what removes it. The test fails
/// when one disappears, so that this list stays the truth: take the line out with the edge.
const KNOWN_DEBT: &[(&str, &str, &str)] = &[];

/// The filekit crates of the workspace and, for each, the filekit crates it depends on
/// other than as a dev-dependency.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(filekit_testkit::repo())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("cargo metadata prints UTF-8");
    parse_packages(&text)
}

fn parse_packages(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let value: serde_json::Value = serde_json::from_str(text).expect("cargo metadata's JSON");
    let mut graph = BTreeMap::new();
    for package in value["packages"].as_array().expect("packages") {
        let deps = package["dependencies"]
            .as_array()
            .expect("dependencies")
            .iter()
            .filter(|d| d["kind"] != "dev")
            .filter_map(|d| d["name"].as_str())
            .filter(|name| name.starts_with("filekit"))
            .map(str::to_string)
            .collect();
        graph.insert(package["name"].as_str().expect("a name").to_string(), deps);
    }
    graph
}

#[test]
fn every_dependency_between_filekits_crates_is_one_the_layers_allow() {
    let graph = graph();
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut wrong = Vec::new();
    for (krate, deps) in &graph {
        let may = allowed.get(krate.as_str()).unwrap_or_else(|| {
            panic!("{krate} is not in ALLOWED: add its layer rule there and in ARCHITECTURE.md")
        });
        for dep in deps {
            let debt = KNOWN_DEBT.iter().any(|(a, b, _)| a == krate && b == dep);
            if !may.contains(&dep.as_str()) && !debt {
                wrong.push(format!("{krate} -> {dep}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "dependencies the layer rules of ARCHITECTURE.md forbid: {wrong:?}"
    );
    for (from, to, fix) in KNOWN_DEBT {
        assert!(
            graph.get(*from).is_some_and(|d| d.contains(*to)),
            "{from} no longer depends on {to} ({fix}): take the line out of KNOWN_DEBT"
        );
    }
    for (krate, _) in ALLOWED {
        assert!(
            graph.contains_key(*krate),
            "{krate} is in ALLOWED but not in the workspace"
        );
    }
}

#[test]
fn no_crate_but_a_test_depends_on_the_testkit() {
    let graph = graph();
    for (krate, deps) in &graph {
        assert!(
            !deps.contains("filekit-testkit"),
            "{krate} depends on filekit-testkit outside [dev-dependencies]"
        );
    }
}

/// The CLI's verbs call the engine or the typed functions of `filekit_dialects::verbs`; only
/// `filekit call` (crates/cli/src/call.rs), whose job it is, runs a tool by its name with JSON
/// arguments.
#[test]
fn only_filekit_call_runs_a_tool_by_name() {
    let src = filekit_testkit::repo().join("crates/cli/src");
    let mut offenders = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") || path.ends_with("call.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            if ["filekit_dialects::call(", "filekit_dialects::call_in("]
                .iter()
                .any(|c| line.contains(c))
            {
                offenders.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "a verb runs a tool by name; call a typed function of filekit_dialects::verbs:\n{}",
        offenders.join("\n")
    );
}
