//! extract_type without a language server, through the real binary: `filekit call`
//! (file_edit's refactor mode, `type_kind`) and the `refactor` verb; refusals name what
//! forbids them and change nothing.

use crate::common;

use common::Sandbox;
use serde_json::{Value, json};

fn range(sl: usize, sc: usize, el: usize, ec: usize) -> Value {
    json!({"start_line": sl, "start_column": sc, "end_line": el, "end_column": ec})
}

const SRC: &str = "\
export function move(p: { x: number; y: number }, by: number) {
  return { x: p.x + by, y: p.y + by };
}
";

#[test]
fn a_type_becomes_an_exported_alias_or_interface() {
    let sb = Sandbox::new();
    sb.write("src/geo.ts", SRC);
    let run = sb.call(
        "file_edit",
        json!({"file": "src/geo.ts", "refactor": "extract_type",
               "selection_range": range(1, 24, 1, 48), "extracted_name": "Point"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json["precision"], json!("syntactic"), "{}", run.stdout);
    assert_eq!(
        sb.read("src/geo.ts"),
        format!(
            "export type Point = {{ x: number; y: number }};\n{}",
            SRC.replace("{ x: number; y: number }", "Point")
        )
    );

    sb.write("src/geo.ts", SRC);
    let run = sb.filekit(
        &[
            "refactor",
            "extract_type",
            "src/geo.ts",
            "--range",
            "1:24-1:48",
            "--name",
            "Point",
            "--type-kind",
            "interface",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        sb.read("src/geo.ts"),
        format!(
            "export interface Point {{ x: number; y: number }}\n{}",
            SRC.replace("{ x: number; y: number }", "Point")
        )
    );
}

#[test]
fn bad_selections_names_and_files_are_refused_and_change_nothing() {
    let sb = Sandbox::new();
    sb.write("src/geo.ts", SRC);
    sb.write("src/broken.ts", "let a: = 1;\n");
    sb.write("src/plain.js", "let a = 1;\n");
    let cases = [
        (
            json!({"file": "src/geo.ts", "refactor": "extract_type", "selection_range": range(1, 21, 1, 48)}),
            "is not a type",
        ),
        (
            json!({"file": "src/geo.ts", "refactor": "extract_type", "selection_range": range(1, 24, 1, 48), "extracted_name": "move"}),
            "`move` is already a name in this file (line 1)",
        ),
        (
            json!({"file": "src/geo.ts", "refactor": "extract_type", "selection_range": range(1, 54, 1, 60), "type_kind": "interface"}),
            "not an object type",
        ),
        (
            json!({"file": "src/geo.ts", "refactor": "extract_variable", "selection_range": range(2, 14, 2, 22), "type_kind": "type"}),
            "`type_kind` does not apply to extract_variable",
        ),
        (
            json!({"file": "src/geo.ts", "refactor": "extract_type", "selection_range": range(1, 24, 1, 48), "type_kind": "class"}),
            "type_kind",
        ),
        (
            json!({"file": "src/broken.ts", "refactor": "extract_type", "selection_range": range(1, 7, 1, 8)}),
            "does not parse",
        ),
        (
            json!({"file": "src/plain.js", "refactor": "extract_type", "selection_range": range(1, 4, 1, 5)}),
            "extract_type needs a language server",
        ),
    ];
    for (args, needle) in cases {
        let before = sb.snapshot();
        let run = sb.call("file_edit", args.clone());
        assert_ne!(run.code, 0, "{args}: {}", run.stdout);
        let all = format!("{}{}", run.stdout, run.stderr);
        assert!(all.contains(needle), "{args}: expected {needle:?} in {all}");
        assert_eq!(before, sb.snapshot(), "{args}: files changed");
    }
}
