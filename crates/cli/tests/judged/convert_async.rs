//! convert_to_async without a language server, through the real binary: a
//! JavaScript program prints the same under node before and after its promise chains become
//! `async` functions (a type check does not see an order of effects or a lost rejection), by
//! `filekit call` and by the `refactor` verb; refusals name the shape and change nothing.

use crate::common;

use common::Sandbox;
use serde_json::{Value, json};
use std::process::Command;

const PROGRAM: &str = r#"function delay(v, fail) {
  return new Promise((ok, no) => setTimeout(() => (fail ? no(new Error(String(v))) : ok(v)), 1));
}
function total(a) {
  const start = a + 1;
  return delay(start)
    .then((x) => {
      console.log("x", x);
      return delay(x * 2);
    })
    .then((y) => y + 1);
}
function safe(fail) {
  return delay(3, fail)
    .then((v) => delay(v, fail))
    .catch((e) => "caught " + e.message)
    .finally(() => console.log("finally", fail));
}
const lookup = (k) => delay(k).then(String).then(undefined, (e) => "never");
(async () => {
  console.log(await total(1), await safe(false), await safe(true), await lookup(7));
  try { await total(Number.NaN).then(() => delay(0, true)); } catch (e) { console.log("rejected", e.message); }
})();
"#;

fn node(sb: &Sandbox, file: &str) -> String {
    let out = Command::new("node")
        .arg(sb.path(file))
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn at(text: &str, needle: &str) -> Value {
    let i = text.find(needle).expect("needle in the program");
    let line = text[..i].matches('\n').count() + 1;
    let col = i - text[..i].rfind('\n').map_or(0, |n| n + 1);
    json!({"start_line": line, "start_column": col, "end_line": line, "end_column": col})
}

#[test]
fn a_program_prints_the_same_after_its_chains_become_async() {
    let sb = Sandbox::new();
    sb.write("main.js", PROGRAM);
    let before = node(&sb, "main.js");
    assert!(before.contains("caught 3"), "{before}");
    for needle in ["total(a)", "safe(fail)"] {
        let text = sb.read("main.js");
        let run = sb.call(
            "file_edit",
            json!({"file": "main.js", "refactor": "convert_to_async", "selection_range": at(&text, needle)}),
        );
        assert_eq!(run.code, 0, "{needle}: {}", run.stdout);
        assert_eq!(run.json["precision"], json!("syntactic"), "{}", run.stdout);
    }
    let text = sb.read("main.js");
    let r = at(&text, "lookup");
    let range = format!(
        "{}:{}-{}:{}",
        r["start_line"], r["start_column"], r["end_line"], r["end_column"]
    );
    let run = sb.filekit(
        &["refactor", "convert_to_async", "main.js", "--range", &range],
        None,
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let after = sb.read("main.js");
    assert!(after.contains("async function total(a)"), "{after}");
    assert!(after.contains("async function safe(fail)"), "{after}");
    assert!(after.contains("const lookup = async (k) =>"), "{after}");
    assert!(
        !after.contains(".then(") || after.matches(".then(").count() == 1,
        "{after}"
    );
    assert_eq!(node(&sb, "main.js"), before, "{after}");
}

#[test]
fn other_shapes_are_refused_by_name_and_change_nothing() {
    let sb = Sandbox::new();
    let src = "function both(p) {\n  return p.then((v) => v, (e) => 0);\n}\nfunction plain(p) {\n  return p;\n}\nfunction middle(p) {\n  return p.catch(() => 1).then((v) => v);\n}\n";
    sb.write("shapes.js", src);
    sb.write("broken.js", "function f( {\n");
    let cases = [
        (
            "shapes.js",
            at(src, "both"),
            "both a fulfilled and a rejected callback",
        ),
        (
            "shapes.js",
            at(src, "plain"),
            "not a `.then`/`.catch`/`.finally` chain",
        ),
        ("shapes.js", at(src, "middle"), "follows a `.catch`"),
        ("broken.js", at("function f( {\n", "f("), "does not parse"),
    ];
    for (file, range, needle) in cases {
        let before = sb.snapshot();
        let run = sb.call(
            "file_edit",
            json!({"file": file, "refactor": "convert_to_async", "selection_range": range}),
        );
        assert_ne!(run.code, 0, "{file} {range}: {}", run.stdout);
        assert!(
            run.stdout.contains(needle),
            "expected {needle:?} in {}",
            run.stdout
        );
        assert_eq!(before, sb.snapshot(), "{file}: files changed");
    }
}
