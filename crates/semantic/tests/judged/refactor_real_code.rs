//! The issue-28 refactors on real code (rxjs's TypeScript sources, installed by
//! `scripts/setup-test-deps`): at every function, every `const`, and every call expression of
//! a few files, each refactor either refuses with a message or gives a text that still parses
//! without a syntax error. Counts are printed (`--nocapture`).

use filekit_testkit as test_data;

use filekit_semantic::Lang;
use filekit_semantic::ts::Target;
use filekit_semantic::ts::convert::convert_to_arrow;
use filekit_semantic::ts::extract::extract_variable;
use filekit_semantic::ts::inline_variable::inline_variable;
use tree_sitter::Parser;

const FILES: &[&str] = &[
    "rxjs/src/internal/ajax/ajax.ts",
    "rxjs/src/internal/testing/TestScheduler.ts",
    "rxjs/src/internal/Subscriber.ts",
    "rxjs/src/internal/Observable.ts",
];

fn parses(text: &str) -> bool {
    let mut p = Parser::new();
    p.set_language(&tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into())
        .unwrap();
    !p.parse(text, None).unwrap().root_node().has_error()
}

fn nodes(text: &str, kinds: &[&str]) -> Vec<(usize, usize)> {
    let mut p = Parser::new();
    p.set_language(&tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into())
        .unwrap();
    let tree = p.parse(text, None).unwrap();
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if kinds.contains(&n.kind()) {
            let at = n
                .child_by_field_name("name")
                .map_or(n.start_byte(), |x| x.start_byte());
            out.push((at, n.end_byte()));
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    out
}

#[test]
fn results_parse_or_are_refused() {
    let root = test_data::repo().join(".test-deps/node_modules");
    let (mut applied, mut refused) = ([0usize; 3], [0usize; 3]);
    for f in FILES {
        let text = std::fs::read_to_string(test_data::need(root.join(f))).unwrap();
        let mut check = |k: usize, r: Result<String, String>, what: String| match r {
            Ok(after) => {
                assert!(parses(&after), "{f}: {what}: the result does not parse");
                applied[k] += 1;
            }
            Err(msg) => {
                assert!(!msg.is_empty());
                refused[k] += 1;
            }
        };
        for (s, e) in nodes(&text, &["call_expression"]) {
            let r = extract_variable(Lang::TypeScript, &text, s..e, "extractedValue", false)
                .map(|x| x.splices.apply(&text).unwrap())
                .map_err(|e| e.message);
            check(0, r, format!("extract_variable at {s}"));
        }
        for (at, _) in nodes(&text, &["variable_declarator"]) {
            let r = inline_variable(Lang::TypeScript, &text, &Target::At(at))
                .map(|x| x.splices.apply(&text).unwrap())
                .map_err(|e| e.message);
            check(1, r, format!("inline_variable at {at}"));
        }
        for (at, _) in nodes(&text, &["function_declaration", "function_expression"]) {
            let r = convert_to_arrow(Lang::TypeScript, &text, at)
                .map(|x| x.apply(&text).unwrap())
                .map_err(|e| e.message);
            check(2, r, format!("convert_to_arrow at {at}"));
        }
    }
    println!(
        "extract_variable {}/{} applied, inline_variable {}/{}, convert_to_arrow {}/{}",
        applied[0],
        applied[0] + refused[0],
        applied[1],
        applied[1] + refused[1],
        applied[2],
        applied[2] + refused[2]
    );
    // Each kind applies somewhere in real code.
    assert!(applied.iter().all(|&a| a > 0), "{applied:?} {refused:?}");
}
