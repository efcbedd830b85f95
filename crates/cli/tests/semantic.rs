//! The `semantic` table (`file_read`, `file_edit`) through `filekit call`, the
//! way an agent calls it, and `filekit read --symbol/--path/--heading/--outline`.

use crate::common;
use common::*;
use serde_json::json;

const USER_TS: &str = "\
import { Database } from '../db';
import type { User } from '../types';
import { log } from './log';

export class UserService {
  private db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  async findById(id: string): Promise<User | null> {
    return this.db.users.findUnique({ where: { id } });
  }
}

export function calculateTotal(items: number[]): number {
  let t = 0;
  for (const i of items) t += i;
  return t;
}
";

fn ts() -> Sandbox {
    let sb = Sandbox::new();
    sb.write("src/user.ts", USER_TS);
    sb
}

#[test]
fn read_a_symbol_with_its_metadata() {
    let sb = ts();
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "src/user.ts", "symbol": "UserService"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    let v = &run.json;
    assert_eq!(
        v["target"],
        json!({"type": "symbol", "value": "UserService"})
    );
    assert!(
        v["content"]
            .as_str()
            .unwrap()
            .starts_with("export class UserService {\n  private db")
    );
    assert!(v["content"].as_str().unwrap().ends_with("  }\n}"));
    assert_eq!(
        v["range"],
        json!({"start": {"line": 5, "column": 0}, "end": {"line": 15, "column": 1}})
    );
    assert_eq!(v["kind"], "class");
    assert_eq!(v["signature"], "class UserService");
    assert_eq!(
        v["dependencies"],
        json!([{"symbol": "Database", "from": "../db"}, {"symbol": "User", "from": "../types"}])
    );

    // A method by its path, and by its unique last name.
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "src/user.ts", "symbol": "findById", "format": "signature"}),
    );
    assert_eq!(
        run.json["content"],
        "async findById(id: string): Promise<User | null>"
    );
    assert_eq!(run.json["resolved"], "UserService.findById");
    let run = sb.call_in("semantic", "file_read", json!({"file": "src/user.ts", "symbol": "UserService.findById", "format": "body", "includeMetadata": false}));
    assert_eq!(
        run.json["content"],
        "{\n    return this.db.users.findUnique({ where: { id } });\n  }"
    );
    assert!(run.json.get("kind").is_none());
}

#[test]
fn outline_regions_around_several_symbols_and_max_lines() {
    let sb = ts();
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "src/user.ts", "format": "summary"}),
    );
    let outline: Vec<String> = run.json["outline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            format!(
                "{} {}",
                e["kind"].as_str().unwrap(),
                e["name"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        outline,
        [
            "class UserService",
            "property UserService.db",
            "method UserService.constructor",
            "method UserService.findById",
            "function calculateTotal"
        ]
    );
    // The outline's lines are the text a model reads; the reply does not say them again.
    assert!(run.json.get("content").is_none(), "{}", run.stdout);
    let text = sb
        .filekit(&["read", "--outline", "src/user.ts"], None)
        .stdout;
    assert!(
        text.contains(
            "function calculateTotal (lines 17-21): function calculateTotal(items: number[]): number\n"
        ),
        "{text}"
    );

    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "src/user.ts", "region": "imports"}),
    );
    assert_eq!(run.json["results"].as_array().unwrap().len(), 3);
    assert_eq!(
        run.json["results"][2]["content"],
        "import { log } from './log';"
    );
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "src/user.ts", "region": "exports"}),
    );
    assert_eq!(run.json["results"].as_array().unwrap().len(), 2);

    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "src/user.ts", "around": {"target": "constructor", "context": 1}}),
    );
    assert_eq!(
        run.json["content"],
        "\n  constructor(db: Database) {\n    this.db = db;\n  }\n\n"
    );
    assert_eq!(run.json["range"]["start"]["line"], 7);

    let run = sb.call_in("semantic", "file_read", json!({"file": "src/user.ts", "symbols": ["calculateTotal", "UserService.db"], "maxLines": 2}));
    let results = run.json["results"].as_array().unwrap();
    assert_eq!(
        results[0]["content"],
        "export function calculateTotal(items: number[]): number {\n  let t = 0;\n"
    );
    assert_eq!(results[0]["truncated"], true);
    assert_eq!(results[1]["content"], "private db: Database;");
}

#[test]
fn edits_take_the_indentation_of_their_place() {
    let sb = ts();
    let run = sb.call_in(
        "semantic",
        "file_edit",
        json!({"file": "src/user.ts", "target": "calculateTotal", "operation": "replace_body",
               "content": "return items.reduce((s, i) => s + i, 0);"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json["success"], true);
    assert_eq!(run.json["filesAffected"], json!(["src/user.ts"]));
    assert_eq!(run.json["totalEdits"], 1);
    assert_eq!(run.json["operation"], "replace_body");
    assert!(
        sb.read("src/user.ts")
            .ends_with("number {\n  return items.reduce((s, i) => s + i, 0);\n}\n")
    );
    // Every semantic edit's reply carries its diff, written or not.
    assert!(
        run.json["diff"]
            .as_str()
            .is_some_and(|d| d.contains("+  return items.reduce((s, i) => s + i, 0);")),
        "{}",
        run.stdout
    );

    // insert_into last, first and sorted; the content is sent unindented.
    let method = "remove(id: string) {\n  return this.db.users.delete(id);\n}";
    let run = sb.call_in("semantic", "file_edit", json!({"file": "src/user.ts", "target": "UserService", "operation": "insert_into", "content": method}));
    assert_eq!(run.code, 0, "{}", run.stdout);
    // Set apart by a blank line, as the class's members are.
    assert!(sb.read("src/user.ts").contains("    return this.db.users.findUnique({ where: { id } });\n  }\n\n  remove(id: string) {\n    return this.db.users.delete(id);\n  }\n}\n"));
    sb.call_in("semantic", "file_edit", json!({"file": "src/user.ts", "target": "UserService", "operation": "insert_into", "position": "first", "content": "static count = 0;"}));
    assert!(
        sb.read("src/user.ts")
            .contains("export class UserService {\n  static count = 0;\n\n  private db: Database;")
    );
    sb.call_in("semantic", "file_edit", json!({"file": "src/user.ts", "target": "UserService", "operation": "insert_into", "position": "sorted", "content": "exists(id: string) { return true; }"}));
    assert!(
        sb.read("src/user.ts")
            .contains("  exists(id: string) { return true; }\n\n  async findById"),
        "{}",
        sb.read("src/user.ts")
    );
}

#[test]
fn before_after_wrap_delete_and_several_targets_in_one_call() {
    let sb = ts();
    let run = sb.call_in("semantic", 
        "file_edit",
        json!({"file": "src/user.ts", "edits": [
            {"target": "UserService.constructor", "operation": "insert_before", "content": "/** Makes one. */"},
            {"target": "UserService.findById", "operation": "wrap", "wrapper": {"before": "// begin", "after": "// end"}},
            {"target": "calculateTotal", "operation": "insert_after", "content": "export const ZERO = 0;"},
            {"target": "UserService.db", "operation": "delete"}
        ]}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json["totalEdits"], 4);
    assert_eq!(run.json["operation"], "batch");
    let expected = USER_TS
        .replace("  private db: Database;\n\n", "")
        .replace("  constructor", "  /** Makes one. */\n  constructor")
        .replace("  async findById(id: string): Promise<User | null> {\n    return this.db.users.findUnique({ where: { id } });\n  }\n",
                 "  // begin\n  async findById(id: string): Promise<User | null> {\n    return this.db.users.findUnique({ where: { id } });\n  }\n  // end\n")
        // After the last function, set apart as the file sets its declarations apart.
        + "\nexport const ZERO = 0;\n";
    assert_eq!(sb.read("src/user.ts"), expected);
}

#[test]
fn dry_run_and_preview() {
    let sb = ts();
    let before = sb.snapshot();
    let run = sb.call_in("semantic", "file_edit", json!({"file": "src/user.ts", "target": "UserService.findById", "operation": "delete", "dryRun": true}));
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json["dryRun"], true);
    assert!(
        run.json["diff"]
            .as_str()
            .unwrap()
            .contains("-  async findById(id: string): Promise<User | null> {")
    );
    assert_eq!(run.json["changes"][0]["edits"][0]["type"], "delete");
    // The diff says what the edit does; the change does not say it again.
    assert!(
        run.json["changes"][0]["edits"][0]
            .get("oldContent")
            .is_none(),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.json["changes"][0]["edits"][0]["range"],
        // The last member goes with the blank line before it (none is left before `}`).
        json!({"start": [11, 0], "end": [15, 0]})
    );
    assert_eq!(sb.snapshot(), before, "a dry run wrote");

    let run = sb.call_in("semantic", "file_edit", json!({"file": "src/user.ts", "target": "calculateTotal", "operation": "replace", "content": "export function calculateTotal(): number {\n  return 0;\n}", "preview": true}));
    assert_eq!(run.json["dryRun"], false);
    assert!(
        run.json["diff"]
            .as_str()
            .unwrap()
            .contains("+export function calculateTotal(): number {")
    );
    assert_eq!(
        run.json["changes"][0]["edits"][0]["newContent"],
        "export function calculateTotal(): number {\n  return 0;\n}"
    );
    assert!(
        sb.read("src/user.ts")
            .ends_with("export function calculateTotal(): number {\n  return 0;\n}\n")
    );
}

#[test]
fn a_result_that_does_not_parse_is_refused_unless_forced() {
    let sb = ts();
    let before = sb.snapshot();
    let broken = json!({"file": "src/user.ts", "target": "calculateTotal", "operation": "replace_body", "content": "return (1;"});
    let run = sb.call_in("semantic", "file_edit", broken.clone());
    assert_eq!(run.code, 1);
    assert_eq!(run.json["errorCode"], "PARSE_ERROR");
    assert_eq!(run.json["details"]["line"], 18);
    assert!(run.json["error"].as_str().unwrap().contains("force"));
    assert_eq!(sb.snapshot(), before);
    let mut forced = broken;
    forced["force"] = json!(true);
    let run = sb.call_in("semantic", "file_edit", forced);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(sb.read("src/user.ts").contains("  return (1;\n"));
}

#[test]
fn bad_targets_say_what_exists_and_change_nothing() {
    let sb = ts();
    sb.write(
        "src/twice.ts",
        "class A { run() {} }\nclass B { run() {} }\n",
    );
    sb.write("notes.txt", "x\n");
    sb.write("page.html", "<p>x</p>\n");
    let before = sb.snapshot();

    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "src/user.ts", "symbol": "UserServise"}),
    );
    assert_eq!(run.code, 1);
    assert_eq!(run.json["errorCode"], "NOT_FOUND");
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains("nearest available: UserService (class)")
    );
    assert_eq!(run.json["details"]["available"][0]["target"], "UserService");

    let run = sb.call_in(
        "semantic",
        "file_edit",
        json!({"file": "src/twice.ts", "target": "run", "operation": "delete"}),
    );
    assert_eq!(run.json["errorCode"], "AMBIGUOUS");
    let msg = run.json["error"].as_str().unwrap();
    assert!(
        msg.contains("A.run (method, line 1)") && msg.contains("B.run (method, line 2)"),
        "{msg}"
    );

    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "notes.txt", "symbol": "x"}),
    );
    assert_eq!(run.code, 2);
    assert_eq!(run.json["errorCode"], "INVALID_ARGUMENT");
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains("supported: symbol: .ts")
    );

    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "src/user.ts", "xpath": "//a"}),
    );
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains("name its targets with `symbol`")
    );
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "page.html", "xpath": "//p"}),
    );
    let msg = run.json["error"].as_str().unwrap();
    assert!(msg.contains("name its targets with `selector`"), "{msg}");
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "src/user.ts", "selector": ".button"}),
    );
    let msg = run.json["error"].as_str().unwrap();
    assert!(msg.contains("name its targets with `symbol`"), "{msg}");
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "src/user.ts", "path": "$.a"}),
    );
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains("name its targets with `symbol`")
    );
    let run = sb.call_in("semantic", "file_read", json!({"file": "src/user.ts"}));
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains("format \\\"summary\\\"")
            || run.json["error"].as_str().unwrap().contains("summary")
    );
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "src/user.ts", "symbl": "A"}),
    );
    assert_eq!(run.code, 2, "unknown arguments are refused: {}", run.stdout);

    let run = sb.call_in(
        "semantic",
        "file_edit",
        json!({"file": "src/user.ts", "target": "UserService", "operation": "replace"}),
    );
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains("needs `content`")
    );
    let run = sb.call_in(
        "semantic",
        "file_edit",
        json!({"file": "src/user.ts", "target": "UserService", "operation": "wrap"}),
    );
    assert!(run.json["error"].as_str().unwrap().contains("wrapper"));
    let run = sb.call_in("semantic", "file_edit", json!({"file": "src/user.ts", "target": "UserService.db", "operation": "insert_into", "content": "x"}));
    assert!(run.json["error"].as_str().unwrap().contains("has no body"));
    let run = sb.call_in(
        "semantic",
        "file_edit",
        json!({"file": "src/user.ts", "edits": [
        {"target": "UserService", "operation": "delete"},
        {"target": "UserService.findById", "operation": "delete"}]}),
    );
    assert_eq!(run.json["errorCode"], "CONFLICT");
    let run = sb.call_in(
        "semantic",
        "file_edit",
        json!({"file": "src/gone.ts", "target": "A", "operation": "delete"}),
    );
    assert_eq!(run.json["errorCode"], "NOT_FOUND");
    let run = sb.call_in(
        "semantic",
        "file_edit",
        json!({"file": "src/user.ts", "refactor": "rename_symbol", "symbol": "A", "newName": "B"}),
    );
    // The refactor mode: a symbol the file does not declare.
    assert_eq!(run.json["errorCode"], "NOT_FOUND", "{}", run.stdout);
    assert_eq!(sb.snapshot(), before);
}

#[test]
fn deleting_the_last_symbol_takes_the_blank_line_before_it() {
    let sb = ts();
    sb.call_in(
        "semantic",
        "file_edit",
        json!({"file": "src/user.ts", "target": "calculateTotal", "operation": "delete"}),
    );
    assert!(!sb.read("src/user.ts").contains("calculateTotal"));
    assert!(
        sb.read("src/user.ts").ends_with("  }\n}\n"),
        "{}",
        sb.read("src/user.ts")
    );
}

#[test]
fn json_by_jsonpath_keeps_comments() {
    let sb = Sandbox::new();
    let pkg = "{\n  // the package\n  \"name\": \"x\",\n  \"scripts\": {\n    \"build\": \"tsc\",\n    \"test\": \"vitest\"\n  }\n}\n";
    sb.write("package.jsonc", pkg);
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "package.jsonc", "path": "$.scripts"}),
    );
    assert_eq!(
        run.json["content"],
        "{\n    \"build\": \"tsc\",\n    \"test\": \"vitest\"\n  }"
    );
    // The range of a member starts at its key (as a JSON path read shows it), the content is its value.
    assert_eq!(run.json["range"]["start"], json!({"line": 4, "column": 2}));
    assert_eq!(run.json["range"]["end"], json!({"line": 7, "column": 3}));
    assert_eq!(run.json["kind"], "object");

    let run = sb.call_in("semantic", "file_edit", json!({"file": "package.jsonc", "edits": [
        {"target": "$.scripts.build", "operation": "replace", "content": "\"tsc -b\""},
        {"target": "$.scripts", "operation": "insert_into", "position": "sorted", "content": "\"lint\": \"eslint .\""}]}));
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        sb.read("package.jsonc"),
        "{\n  // the package\n  \"name\": \"x\",\n  \"scripts\": {\n    \"build\": \"tsc -b\",\n    \"lint\": \"eslint .\",\n    \"test\": \"vitest\"\n  }\n}\n"
    );

    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "package.jsonc", "path": "$.scripts[?"}),
    );
    assert_eq!(run.json["errorCode"], "INVALID_ARGUMENT");
    assert!(run.json["error"].as_str().unwrap().contains("at character"));
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "package.jsonc", "path": "$.script"}),
    );
    assert_eq!(run.json["errorCode"], "NOT_FOUND");
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains("$.scripts (object)")
    );
    let run = sb.call_in("semantic", "file_edit", json!({"file": "package.jsonc", "target": "$.name", "operation": "replace", "content": "\"y\" oops"}));
    assert_eq!(run.json["errorCode"], "PARSE_ERROR");
    sb.write("bad.json", "{\"a\": }");
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "bad.json", "path": "$.a"}),
    );
    assert_eq!(run.json["errorCode"], "PARSE_ERROR");
    assert!(run.json["error"].as_str().unwrap().contains("line 1"));
}

#[test]
fn jsonl_records_by_jsonpath() {
    let sb = Sandbox::new();
    sb.write(
        "log.jsonl",
        "{\"id\": 1, \"level\": \"info\"}\n{\"id\": 2, \"level\": \"error\"}\n",
    );
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "log.jsonl", "path": "$[?@.level == 'error']"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json["content"], "{\"id\": 2, \"level\": \"error\"}");
    assert_eq!(run.json["range"]["start"]["line"], 2);
    let run = sb.call_in(
        "semantic",
        "file_edit",
        json!({"file": "log.jsonl", "edits": [
        {"target": "$[0].level", "operation": "replace", "content": "\"debug\""},
        {"target": "$[1]", "operation": "insert_after", "content": "{\n  \"id\": 3\n}"}]}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        sb.read("log.jsonl"),
        "{\"id\": 1, \"level\": \"debug\"}\n{\"id\": 2, \"level\": \"error\"}\n{\"id\":3}\n"
    );
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "log.jsonl", "path": "$[5]"}),
    );
    assert_eq!(run.json["errorCode"], "NOT_FOUND");
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains("$[0] (record)")
    );
}

#[test]
fn markdown_by_heading() {
    let sb = Sandbox::new();
    sb.write("README.md", "# Tool\n\nIntro.\n\n## Installation\n\nRun it.\n\n### From source\n\nBuild.\n\n## Usage\n\nUse it.\n");
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "README.md", "heading": "Installation"}),
    );
    assert_eq!(
        run.json["content"],
        "## Installation\n\nRun it.\n\n### From source\n\nBuild.\n\n"
    );
    assert_eq!(run.json["kind"], "h2");
    let run = sb.call_in("semantic", "file_edit", json!({"file": "README.md", "target": "## Usage", "operation": "replace_body", "content": "Call `tool`."}));
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(sb.read("README.md").ends_with("## Usage\n\nCall `tool`.\n"));
    sb.call_in("semantic", "file_edit", json!({"file": "README.md", "target": "Installation", "operation": "insert_into", "content": "### With cargo\n\ncargo install tool"}));
    assert!(
        sb.read("README.md")
            .contains("Build.\n\n### With cargo\n\ncargo install tool\n\n## Usage"),
        "{}",
        sb.read("README.md")
    );
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "README.md", "heading": "Instalation"}),
    );
    assert_eq!(run.json["errorCode"], "NOT_FOUND");
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains("Installation (h2)")
    );
}

#[test]
fn python_rust_go_java_symbols() {
    let sb = Sandbox::new();
    sb.write(
        "m.py",
        "import os\n\nclass A:\n    def f(self):\n        return 1\n",
    );
    sb.write(
        "m.rs",
        "struct S;\n\nimpl S {\n    fn f(&self) -> u8 {\n        1\n    }\n}\n",
    );
    sb.write(
        "m.go",
        "package m\n\ntype S struct{}\n\nfunc (s *S) F() int {\n\treturn 1\n}\n",
    );
    sb.write(
        "M.java",
        "class M {\n    int f() {\n        return 1;\n    }\n}\n",
    );
    for (file, target, body) in [
        ("m.py", "A.f", "x = os.getcwd()\nreturn x"),
        ("m.rs", "S.f", "let x = 2;\nx"),
        ("m.go", "S.F", "x := 2\nreturn x"),
        ("M.java", "M.f", "int x = 2;\nreturn x;"),
    ] {
        let run = sb.call_in(
            "semantic",
            "file_read",
            json!({"file": file, "symbol": target}),
        );
        assert_eq!(run.code, 0, "{file}: {}", run.stdout);
        assert_eq!(run.json["kind"], "method", "{file}");
        let run = sb.call_in(
            "semantic",
            "file_edit",
            json!({"file": file, "target": target, "operation": "replace_body", "content": body}),
        );
        assert_eq!(run.code, 0, "{file}: {}", run.stdout);
    }
    assert_eq!(
        sb.read("m.py"),
        "import os\n\nclass A:\n    def f(self):\n        x = os.getcwd()\n        return x\n"
    );
    assert_eq!(
        sb.read("m.rs"),
        "struct S;\n\nimpl S {\n    fn f(&self) -> u8 {\n        let x = 2;\n        x\n    }\n}\n"
    );
    assert_eq!(
        sb.read("m.go"),
        "package m\n\ntype S struct{}\n\nfunc (s *S) F() int {\n\tx := 2\n\treturn x\n}\n"
    );
    assert_eq!(
        sb.read("M.java"),
        "class M {\n    int f() {\n        int x = 2;\n        return x;\n    }\n}\n"
    );
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "m.py", "symbol": "A.f"}),
    );
    assert_eq!(
        run.json["dependencies"],
        json!([{"symbol": "os", "from": "os"}])
    );
}

#[test]
fn tsx_and_js_files() {
    let sb = Sandbox::new();
    sb.write(
        "App.tsx",
        "export function App(): JSX.Element {\n  return <div className=\"a\">hi</div>;\n}\n",
    );
    sb.write(
        "lib.mjs",
        "export const add = (a, b) => {\n  return a + b;\n};\n",
    );
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "App.tsx", "symbol": "App", "format": "signature"}),
    );
    assert_eq!(
        run.json["content"],
        "export function App(): JSX.Element".trim_start_matches("export ")
    );
    let run = sb.call_in("semantic", "file_edit", json!({"file": "lib.mjs", "target": "add", "operation": "replace_body", "content": "return b + a;"}));
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        sb.read("lib.mjs"),
        "export const add = (a, b) => {\n  return b + a;\n};\n"
    );
}

#[test]
fn css_by_selector_and_at_rule() {
    let sb = Sandbox::new();
    sb.write("button.scss", ".button {\n  padding: 8px 16px;\n}\n\n@media screen and (max-width: 600px) {\n  .card {\n    padding: 4px;\n  }\n}\n");
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "button.scss", "selector": ".button"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json["content"], ".button {\n  padding: 8px 16px;\n}");
    assert_eq!(run.json["kind"], "rule");
    let run = sb.call_in("semantic", "file_edit", json!({"file": "button.scss", "target": "@media screen", "operation": "insert_into", "content": ".button {\n  padding: 2px;\n}"}));
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        sb.read("button.scss").ends_with(
            "  .card {\n    padding: 4px;\n  }\n  .button {\n    padding: 2px;\n  }\n}\n"
        ),
        "{}",
        sb.read("button.scss")
    );
    let run = sb.call_in("semantic", "file_edit", json!({"file": "button.scss", "target": ".card", "operation": "replace_body", "content": "margin: 0;"}));
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        sb.read("button.scss")
            .contains("  .card {\n    margin: 0;\n  }\n")
    );
    let run = sb.call_in(
        "semantic",
        "file_read",
        json!({"file": "button.scss", "selector": ".buton"}),
    );
    assert_eq!(run.json["errorCode"], "NOT_FOUND");
    assert!(
        run.json["error"]
            .as_str()
            .unwrap()
            .contains(".button (rule)")
    );
}

#[test]
fn crlf_files_keep_their_line_endings() {
    let sb = Sandbox::new();
    sb.write(
        "w.ts",
        "class A {\r\n  f() {\r\n    return 1;\r\n  }\r\n}\r\n",
    );
    let run = sb.call_in("semantic", "file_edit", json!({"file": "w.ts", "target": "A", "operation": "insert_into", "content": "g() {\n  return 2;\n}"}));
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        sb.read("w.ts"),
        "class A {\r\n  f() {\r\n    return 1;\r\n  }\r\n  g() {\r\n    return 2;\r\n  }\r\n}\r\n"
    );
}

#[test]
fn the_read_verb_takes_semantic_targets() {
    let sb = ts();
    let run = sb.filekit(
        &["read", "src/user.ts", "--symbol", "UserService.constructor"],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("method, lines 8-10"), "{}", run.stdout);
    assert!(
        run.stdout.contains("     9\t    this.db = db;"),
        "{}",
        run.stdout
    );
    let run = sb.filekit(&["read", "src/user.ts", "--outline"], None);
    assert!(
        run.stdout
            .contains("  method UserService.findById (lines 12-14)"),
        "{}",
        run.stdout
    );
    let run = sb.filekit(&["read", "src/user.ts", "--symbol", "Nope"], None);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("not found"), "{}", run.stderr);
    let run = sb.filekit(&["read", "src/user.ts", "src/user.ts", "--outline"], None);
    assert_eq!(run.code, 2);
}

/// A new member or sibling is set apart by the blank lines its neighbours are set apart by:
/// one between methods, two between Python's top-level functions, none where the file has
/// none. (Inserted flush against its neighbour, it read as part of it.)
#[test]
fn inserts_follow_the_files_blank_line_convention() {
    let sb = Sandbox::new();
    sb.write(
        "a.ts",
        "export class A {\n  one() {\n    return 1;\n  }\n\n  two() {\n    return 2;\n  }\n}\n\nexport function f() {\n  return 0;\n}\n\nexport function g() {\n  return 1;\n}\n",
    );
    sb.write(
        "a.py",
        "class A:\n    def one(self):\n        return 1\n\n    def two(self):\n        return 2\n\n\ndef f():\n    return 0\n\n\ndef g():\n    return 1\n",
    );
    sb.write("tight.ts", "const a = 1;\nconst b = 2;\n");
    for args in [
        json!({"file": "a.ts", "target": "A", "operation": "insert_into", "content": "three() {\n  return 3;\n}"}),
        json!({"file": "a.ts", "target": "A", "operation": "insert_into", "position": "first", "content": "zero() {\n  return 0;\n}"}),
        json!({"file": "a.ts", "target": "f", "operation": "insert_after", "content": "export function h() {\n  return 2;\n}"}),
        json!({"file": "a.py", "target": "A", "operation": "insert_into", "content": "def three(self):\n    return 3"}),
        json!({"file": "a.py", "target": "f", "operation": "insert_after", "content": "def h():\n    return 2"}),
        json!({"file": "a.py", "target": "g", "operation": "insert_before", "content": "def k():\n    return 5"}),
        json!({"file": "tight.ts", "target": "a", "operation": "insert_after", "content": "const c = 3;"}),
    ] {
        let run = sb.call_in("semantic", "file_edit", args.clone());
        assert_eq!(run.code, 0, "{args}: {}", run.stdout);
    }
    assert_eq!(
        sb.read("a.ts"),
        "export class A {\n  zero() {\n    return 0;\n  }\n\n  one() {\n    return 1;\n  }\n\n  two() {\n    return 2;\n  }\n\n  three() {\n    return 3;\n  }\n}\n\nexport function f() {\n  return 0;\n}\n\nexport function h() {\n  return 2;\n}\n\nexport function g() {\n  return 1;\n}\n"
    );
    assert_eq!(
        sb.read("a.py"),
        "class A:\n    def one(self):\n        return 1\n\n    def two(self):\n        return 2\n\n    def three(self):\n        return 3\n\n\ndef f():\n    return 0\n\n\ndef h():\n    return 2\n\n\ndef k():\n    return 5\n\n\ndef g():\n    return 1\n"
    );
    assert_eq!(
        sb.read("tight.ts"),
        "const a = 1;\nconst c = 3;\nconst b = 2;\n"
    );
}

/// `filekit read --symbol Class.method` showed the method's first line without its
/// indentation, unlike every line after it: the numbered lines are the file's lines.
#[test]
fn a_symbol_read_keeps_its_first_lines_indentation() {
    let sb = Sandbox::new();
    sb.write("m.ts", "class A {\n  method() {\n    return 1;\n  }\n}\n");
    let run = sb.filekit(&["read", "--symbol", "A.method", "m.ts"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        &lines[1..],
        [
            "     2\t  method() {",
            "     3\t    return 1;",
            "     4\t  }"
        ],
        "{}",
        run.stdout
    );
}

/// rename_symbol refused `_super` as "declared in 2 scopes": the parameter name inside a
/// function type (`fn: (_super: number) => number`) was taken for a declaration of the
/// function's scope. It names a slot of the type; the local is the one to rename.
#[test]
fn a_parameter_of_a_type_is_not_a_declaration() {
    let sb = Sandbox::new();
    sb.write(
        "w.ts",
        "export function wrap(fn: (_super: number) => number): number {\n  const _super = 2;\n  return fn(_super);\n}\n",
    );
    let run = sb.call_in(
        "semantic",
        "file_edit",
        json!({"file": "w.ts", "refactor": "rename_symbol", "symbol": "_super", "newName": "base"}),
    );
    assert_eq!(run.json["success"], true, "{}", run.stdout);
    assert_eq!(
        sb.read("w.ts"),
        "export function wrap(fn: (_super: number) => number): number {\n  const base = 2;\n  return fn(base);\n}\n"
    );
}

/// A server keeps the parse trees of the files it read: every change of a file, by the server
/// or from outside (even one that keeps the file's size and modification time), is read.
#[test]
fn a_server_reads_every_change_of_a_file_it_parsed_before() {
    let sb = ts();
    let mut server = McpStdio::start(sb.command(&["serve", "--tools", "semantic"]));
    fn read_in(server: &mut McpStdio, symbol: &str) -> String {
        let result = server.call_tool(
            "file_read",
            &json!({"file": "src/user.ts", "symbol": symbol}),
        );
        assert_ne!(result["isError"], true, "{result}");
        result["structuredContent"]["content"]
            .as_str()
            .unwrap_or_else(|| panic!("no content: {result}"))
            .to_string()
    }
    let total = "export function calculateTotal(items: number[]): number {\n  let t = 0;\n  for (const i of items) t += i;\n  return t;\n}";
    assert_eq!(read_in(&mut server, "calculateTotal"), total);
    assert_eq!(
        read_in(&mut server, "calculateTotal"),
        total,
        "read again, unchanged"
    );

    // Edited through the server.
    let edited = server.call_tool(
        "file_edit",
        &json!({"file": "src/user.ts", "target": "calculateTotal", "operation": "replace_body",
                "content": "return items.length;"}),
    );
    assert_ne!(edited["isError"], true, "{edited}");
    assert_eq!(
        read_in(&mut server, "calculateTotal"),
        "export function calculateTotal(items: number[]): number {\n  return items.length;\n}"
    );

    // Changed from outside to a text of the same size, its modification time put back.
    let path = sb.path("src/user.ts");
    let before = std::fs::metadata(&path).unwrap();
    let text = sb.read("src/user.ts");
    let changed = text.replace("items.length", "items.LENGTH");
    assert_eq!(changed.len(), text.len());
    sb.write("src/user.ts", &changed);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(before.modified().unwrap())
        .unwrap();
    let after = std::fs::metadata(&path).unwrap();
    assert_eq!(
        (after.len(), after.modified().unwrap()),
        (before.len(), before.modified().unwrap())
    );
    assert!(read_in(&mut server, "calculateTotal").contains("return items.LENGTH;"));

    // A symbol added from outside is found; one renamed away is not.
    sb.write("src/user.ts", &changed.replace("calculateTotal", "sumAll"));
    assert!(read_in(&mut server, "sumAll").starts_with("export function sumAll("));
    let gone = server.call_tool(
        "file_read",
        &json!({"file": "src/user.ts", "symbol": "calculateTotal"}),
    );
    assert_eq!(gone["isError"], true, "{gone}");
}
