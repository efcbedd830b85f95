//! The layer's contract: a change computed from the texts as read, per file tied to its
//! hash, and nothing written; refusals as errors.

use super::*;
use crate::source::load;
use std::fs;

fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    let ws = Workspace::new(&[dir.path().to_path_buf()], false).unwrap();
    (dir, ws)
}

/// The request of `kind` with `given`, checked as a front end checks it.
fn request(file: &str, kind: Kind, given: Given) -> Request {
    Request {
        file: file.into(),
        refactor: Refactor::new(kind, file, given).unwrap(),
    }
}

fn new_text(change: &Change, file: &str) -> String {
    let f = &change.files[file];
    f.splices.apply(&f.source.text).unwrap()
}

#[test]
fn a_workspace_rename_changes_the_importers_and_writes_nothing() {
    let util = "export function total(a: number) {\n  return a;\n}\n";
    let main = "import { total } from './util';\nconsole.log(total(1));\n";
    let (dir, ws) = workspace(&[("src/util.ts", util), ("src/main.ts", main)]);
    let given = Given {
        symbol: Some("total".into()),
        new_name: Some("sum".into()),
        ..Given::default()
    };
    let req = request("src/util.ts", Kind::RenameSymbol, given);
    let src = load(&ws, &req.file).unwrap();
    let change = compute(&ws, &req, &src).unwrap();

    assert_eq!(change.precision, Precision::Syntactic);
    assert_eq!(change.symbol.as_deref(), Some("total"));
    assert_eq!(
        change.files.keys().collect::<Vec<_>>(),
        ["src/main.ts", "src/util.ts"]
    );
    assert_eq!(
        new_text(&change, "src/main.ts"),
        "import { sum } from './util';\nconsole.log(sum(1));\n"
    );
    assert!(new_text(&change, "src/util.ts").starts_with("export function sum("));
    assert_eq!(change.files["src/util.ts"].source.hash, src.hash);
    // Computed, not written: the caller writes it through the pipeline.
    assert_eq!(
        fs::read_to_string(dir.path().join("src/util.ts")).unwrap(),
        util
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("src/main.ts")).unwrap(),
        main
    );
}

#[test]
fn a_python_import_clean_up_is_one_file_of_the_change() {
    let text = "import sys\nimport os\n\nprint(os.sep)\n";
    let (_dir, ws) = workspace(&[("app.py", text)]);
    let req = request("app.py", Kind::RemoveUnusedImports, Given::default());
    let src = load(&ws, "app.py").unwrap();
    let change = compute(&ws, &req, &src).unwrap();
    assert_eq!(change.files.len(), 1);
    assert_eq!(new_text(&change, "app.py"), "import os\n\nprint(os.sep)\n");
}

#[test]
fn a_change_with_nothing_to_do_has_no_file() {
    let text = "import os\n\nprint(os.sep)\n";
    let (_dir, ws) = workspace(&[("app.py", text)]);
    let req = request("app.py", Kind::RemoveUnusedImports, Given::default());
    let src = load(&ws, "app.py").unwrap();
    let change = compute(&ws, &req, &src).unwrap();
    assert!(change.files.is_empty() && change.created.is_empty());
}

#[test]
fn a_refactor_that_needs_a_server_says_how_to_get_one() {
    let text = "fn main() {\n    let x = 1 + 2;\n}\n";
    let (_dir, ws) = workspace(&[("main.rs", text)]);
    let given = Given {
        symbol: Some("x".into()),
        new_name: Some("y".into()),
        ..Given::default()
    };
    let req = request("main.rs", Kind::RenameSymbol, given);
    let src = load(&ws, "main.rs").unwrap();
    let err = compute(&ws, &req, &src).unwrap_err();
    // An untrusted workspace starts no server.
    assert_eq!(err.code, ErrorCode::NotTrusted, "{err:?}");
}

/// A kind no server does for the file's language, and the syntax trees do not either, says
/// for which languages it is done, from the kind's entry.
#[test]
fn a_refactor_of_a_language_it_is_not_done_for_says_which_it_is_done_for() {
    let text = "fn main() {\n    let x = 1 + 2;\n}\n";
    let (_dir, ws) = workspace(&[("main.rs", text), ("app.py", "def f():\n    return 1\n")]);
    let given = Given {
        selection: Some(Selection {
            start_line: 2,
            start_column: 12,
            end_line: 2,
            end_column: 17,
        }),
        ..Given::default()
    };
    let req = request("main.rs", Kind::ExtractVariable, given.clone());
    let src = load(&ws, "main.rs").unwrap();
    let err = compute(&ws, &req, &src).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err:?}");
    assert_eq!(
        err.message,
        "main.rs: extract_variable is done for TS/JS and Python files (and, in a trusted workspace, by typescript-language-server)"
    );
    let req = request("app.py", Kind::ConvertToArrow, given);
    let src = load(&ws, "app.py").unwrap();
    let err = compute(&ws, &req, &src).unwrap_err();
    assert!(
        err.message
            .starts_with("app.py: convert_to_arrow is done for TS/JS files"),
        "{err:?}"
    );
}

#[test]
fn a_position_past_the_file_is_refused() {
    let text = "a\r\nbé\n";
    assert_eq!(byte_at(text, 2, 2, "end").unwrap(), 6);
    assert_eq!(byte_at(text, 1, 1, "start").unwrap(), 1);
    assert!(byte_at(text, 2, 3, "end").is_err());
    assert!(byte_at(text, 0, 0, "start").is_err());
    assert!(byte_at(text, 4, 0, "start").is_err());
}

/// A callback's parameter has no type the extracted function can state: the tsconfig chain
/// above the file, read through the workspace, decides whether it may be written untyped.
#[test]
fn untyped_parameters_follow_the_project_settings_read_through_the_workspace() {
    let text = "export function each(xs: number[]) {\n  xs.forEach((x) => {\n    console.log(x);\n  });\n}\n";
    let strict = r#"{ "compilerOptions": { "strict": true } }"#;
    let (dir, ws) = workspace(&[("tsconfig.json", strict), ("src/each.ts", text)]);
    let given = Given {
        selection: Some(Selection {
            start_line: 3,
            start_column: 4,
            end_line: 3,
            end_column: 19,
        }),
        extracted_name: Some("show".into()),
        ..Given::default()
    };
    let req = request("src/each.ts", Kind::ExtractFunction, given.clone());
    let src = load(&ws, &req.file).unwrap();
    let err = compute(&ws, &req, &src).unwrap_err();
    assert_eq!(err.fact(), Some(filekit_core::Fact::UntypedParameters));
    assert_eq!(err.details["parameters"][0]["name"], "x", "{err:?}");
    assert!(
        err.message.contains("`strict` in tsconfig.json"),
        "{}",
        err.message
    );
    assert!(err.hint.as_deref().unwrap().contains("untyped"), "{err:?}");

    // Asked for, it is written untyped and the warning names it.
    let asked = request(
        "src/each.ts",
        Kind::ExtractFunction,
        Given {
            untyped_parameters: true,
            ..given.clone()
        },
    );
    let change = compute(&ws, &asked, &src).unwrap();
    assert!(new_text(&change, "src/each.ts").contains("function show(x) {"));
    assert!(
        change.warnings.iter().any(|w| w.contains("parameter `x`")),
        "{:?}",
        change.warnings
    );

    // A config that links out of the roots is not read: its settings are not known, and the
    // rule holds (even though the file outside says `strict: false`).
    let outside = tempfile::tempdir().unwrap();
    fs::write(
        outside.path().join("tsconfig.json"),
        r#"{ "compilerOptions": { "strict": false } }"#,
    )
    .unwrap();
    fs::remove_file(dir.path().join("tsconfig.json")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("tsconfig.json"),
        dir.path().join("tsconfig.json"),
    )
    .unwrap();
    let err = compute(&ws, &req, &src).unwrap_err();
    assert!(
        err.message.contains("tsconfig.json cannot be read"),
        "{}",
        err.message
    );

    // A file of a second root is governed by the configs of its own root.
    let second = tempfile::tempdir().unwrap();
    fs::create_dir_all(second.path().join("lib")).unwrap();
    fs::write(second.path().join("lib/each.ts"), text).unwrap();
    fs::write(
        second.path().join("tsconfig.json"),
        r#"{ "compilerOptions": { "noImplicitAny": false } }"#,
    )
    .unwrap();
    let ws = Workspace::new(
        &[dir.path().to_path_buf(), second.path().to_path_buf()],
        false,
    )
    .unwrap();
    let file = second.path().join("lib/each.ts");
    let other = request(&file.to_string_lossy(), Kind::ExtractFunction, given);
    let src = load(&ws, &other.file).unwrap();
    let change = compute(&ws, &other, &src).unwrap();
    assert!(
        change
            .warnings
            .iter()
            .any(|w| w.contains("`noImplicitAny` is false in tsconfig.json")),
        "{:?}",
        change.warnings
    );
}
