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

fn request(file: &str, kind: Kind) -> Request {
    Request {
        file: file.into(),
        kind,
        symbol: None,
        new_name: None,
        workspace_scope: true,
        selection: None,
        extracted_name: None,
        type_kind: None,
        replace_all: false,
        module: None,
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
    let req = Request {
        symbol: Some("total".into()),
        new_name: Some("sum".into()),
        ..request("src/util.ts", Kind::RenameSymbol)
    };
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
    let req = request("app.py", Kind::RemoveUnusedImports);
    let src = load(&ws, "app.py").unwrap();
    let change = compute(&ws, &req, &src).unwrap();
    assert_eq!(change.files.len(), 1);
    assert_eq!(new_text(&change, "app.py"), "import os\n\nprint(os.sep)\n");
}

#[test]
fn a_change_with_nothing_to_do_has_no_file() {
    let text = "import os\n\nprint(os.sep)\n";
    let (_dir, ws) = workspace(&[("app.py", text)]);
    let req = request("app.py", Kind::RemoveUnusedImports);
    let src = load(&ws, "app.py").unwrap();
    let change = compute(&ws, &req, &src).unwrap();
    assert!(change.files.is_empty() && change.created.is_empty());
}

#[test]
fn a_refactor_that_needs_a_server_says_how_to_get_one() {
    let text = "fn main() {\n    let x = 1 + 2;\n}\n";
    let (_dir, ws) = workspace(&[("main.rs", text)]);
    let req = Request {
        selection: Some(Selection {
            start_line: 2,
            start_column: 12,
            end_line: 2,
            end_column: 17,
        }),
        ..request("main.rs", Kind::ExtractVariable)
    };
    let src = load(&ws, "main.rs").unwrap();
    let err = compute(&ws, &req, &src).unwrap_err();
    // An untrusted workspace starts no server.
    assert_eq!(err.code, ErrorCode::NotTrusted, "{err:?}");
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
