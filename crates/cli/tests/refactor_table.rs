//! The refactor layer's table of kinds, as the front ends derive from it: `filekit refactor`
//! takes each argument of the table as a flag and says what is wrong in the flags' names;
//! `file_edit` refuses an argument a kind does not take, in its own names, and lists what the
//! kind takes. A refused request changes nothing.

use crate::common;

use common::Sandbox;
use serde_json::json;

const CALC: &str = "export function area(w: number, h: number) {\n  return w * h + 1;\n}\nconsole.log(area(1, 2));\n";

/// `filekit refactor KIND` with the sandbox's file, asserting that it fails with exit code 2,
/// says each of `needles` on its error stream and changes nothing.
fn refused(sb: &Sandbox, args: &[&str], needles: &[&str]) {
    let before = sb.snapshot();
    let run = sb.filekit(args, None);
    assert_eq!(run.code, 2, "{args:?}: {}{}", run.stdout, run.stderr);
    for n in needles {
        assert!(
            run.stderr.contains(n),
            "{args:?}: expected {n:?} in {}",
            run.stderr
        );
    }
    assert_eq!(before, sb.snapshot(), "{args:?}: files changed");
}

#[test]
fn the_refactor_verb_takes_the_arguments_of_the_table_as_flags() {
    let sb = Sandbox::new();
    sb.write("src/calc.ts", CALC);
    // rename_symbol's arguments are flags of `filekit refactor` too, from the same table.
    let run = sb.filekit(
        &[
            "refactor",
            "rename_symbol",
            "src/calc.ts",
            "--symbol",
            "area",
            "--new-name",
            "surface",
            "--scope",
            "file",
            "--dry-run",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("+export function surface("),
        "{}",
        run.stdout
    );
    assert_eq!(sb.read("src/calc.ts"), CALC, "a dry run writes nothing");
    let run = sb.filekit(
        &[
            "refactor",
            "extract_variable",
            "src/calc.ts",
            "--range",
            "2:9-2:14",
            "--name",
            "size",
            "--json",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        run.json["refactor"],
        json!("extract_variable"),
        "{}",
        run.stdout
    );
    assert!(
        sb.read("src/calc.ts")
            .contains("  const size = w * h;\n  return size + 1;\n")
    );
}

#[test]
fn the_refactor_verb_says_what_is_wrong_in_the_flags_names() {
    let sb = Sandbox::new();
    sb.write("src/calc.ts", CALC);
    refused(
        &sb,
        &["refactor", "organize_imports", "src/calc.ts", "--name", "x"],
        &["--name does not apply to organize_imports"],
    );
    refused(
        &sb,
        &[
            "refactor",
            "extract_type",
            "src/calc.ts",
            "--replace-all",
            "--range",
            "1:24-1:30",
        ],
        &[
            "--replace-all does not apply to extract_type",
            "extract_type takes --range, --name, --type-kind",
        ],
    );
    refused(
        &sb,
        &["refactor", "inline_variable", "src/calc.ts"],
        &["inline_variable needs --range or --symbol"],
    );
    refused(
        &sb,
        &[
            "refactor",
            "rename_symbol",
            "src/calc.ts",
            "--symbol",
            "area",
        ],
        &["rename_symbol needs --new-name"],
    );
    refused(
        &sb,
        &[
            "refactor",
            "extract_function",
            "src/calc.ts",
            "--range",
            "2:9-2:14",
            "--name",
            "class",
        ],
        &["--name: ", "reserved word"],
    );
    refused(
        &sb,
        &[
            "refactor",
            "convert_to_arrow",
            "src/calc.ts",
            "--range",
            "3:0-1:0",
        ],
        &["--range ends before it starts"],
    );
    refused(
        &sb,
        &[
            "refactor",
            "convert_to_arrow",
            "src/calc.ts",
            "--range",
            "1-2",
        ],
        &["--range 1-2: expected START_LINE:START_COLUMN-END_LINE:END_COLUMN"],
    );
    // None of them speaks the tool's names.
    for args in [
        &["refactor", "organize_imports", "src/calc.ts", "--name", "x"][..],
        &["refactor", "inline_variable", "src/calc.ts"],
    ] {
        let run = sb.filekit(args, None);
        assert!(
            ![
                "extracted_name",
                "selection_range",
                "extractedName",
                "selectionRange"
            ]
            .iter()
            .any(|name| run.stderr.contains(name)),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn file_edit_refuses_an_argument_its_kind_does_not_take_and_lists_what_it_takes() {
    let sb = Sandbox::new();
    sb.write("src/calc.ts", CALC);
    let range = json!({"start_line": 2, "start_column": 9, "end_line": 2, "end_column": 14});
    // `scope` is rename_symbol's alone.
    sb.call_fails(
        "file_edit",
        json!({"file": "src/calc.ts", "refactor": "extract_function", "selection_range": range, "scope": "file"}),
        2,
        &[
            "`scope` does not apply to extract_function",
            "extract_function takes `selection_range`, `extracted_name`, `untyped_parameters`",
        ],
    );
    sb.call_fails(
        "file_edit",
        json!({"file": "src/calc.ts", "refactor": "inline_function"}),
        2,
        &["inline_function needs `selection_range` (its position: {start_line, start_column, end_line, end_column}) or `symbol` (its name)"],
    );
    sb.call_fails(
        "file_edit",
        json!({"file": "src/calc.ts", "refactor": "rename_symbol", "new_name": "x"}),
        2,
        &["rename_symbol needs `symbol` (its name) or `selection_range`"],
    );
}

/// The `refactor` argument's values are the table's kinds, and the semantic table's guide to
/// file_edit says of each what it needs (a kind added to the table without a word there fails).
#[test]
fn file_edit_lists_the_kinds_of_the_table_and_its_guide_speaks_of_each() {
    let sb = Sandbox::new();
    let run = sb.filekit(&["tools", "--json", "--dialect", "semantic"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let file_edit = run
        .json
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "file_edit")
        .unwrap();
    let kinds = file_edit["input_schema"]["properties"]["refactor"]["enum"]
        .as_array()
        .unwrap();
    let help = sb.filekit(&["refactor", "--help"], None).stdout;
    let curated = sb.filekit(&["tools", "--json", "--dialect", "filekit"], None);
    let curated_description = curated
        .json
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "file_edit")
        .unwrap()["description"]
        .as_str()
        .unwrap()
        .to_string();
    let description = file_edit["description"].as_str().unwrap();
    for kind in kinds {
        let kind = kind.as_str().unwrap();
        // Each kind has its line in the verb's help, with the languages it is done for, and
        // the servers that do it further on.
        let mut lines = help
            .lines()
            .skip_while(|l| !l.starts_with(&format!("  {kind} ")));
        let first = lines
            .next()
            .unwrap_or_else(|| panic!("filekit refactor --help has no line for {kind}"));
        let languages = first[2 + kind.len()..].trim();
        // Its entry: the wrapped lines under it, as one line.
        let entry: Vec<&str> = lines
            .take_while(|l| l.starts_with("      "))
            .flat_map(|l| l.split_whitespace())
            .collect();
        let entry = entry.join(" ");
        // The semantic table's description says the same of it: its languages, and the
        // servers the help names (none where the help names none).
        let said = description
            .split(&format!("{kind} ("))
            .nth(1)
            .unwrap_or_else(|| panic!("file_edit's description has no entry for {kind}"));
        let said = &said[..said.find("): ").unwrap()];
        assert!(
            said.starts_with(languages),
            "{kind}: {said:?} vs the help's {languages:?}"
        );
        let server_of = |text: &str| {
            text.split("server: ").nth(1).map(|s| {
                s.split([';', '\n'])
                    .next()
                    .unwrap()
                    .split_whitespace()
                    .collect::<String>()
            })
        };
        assert_eq!(
            server_of(said),
            server_of(&entry),
            "{kind}: the servers differ"
        );
        // The curated description names it too.
        assert!(
            curated_description.contains(kind),
            "the curated file_edit omits {kind}"
        );
    }
    assert!(!kinds.is_empty());
}
