//! The compiler judges extract_function and extract_method on real code: rxjs's TypeScript
//! sources (as npm ships them, with their `strict` tsconfig; `scripts/setup-test-deps`
//! installs them) are copied to a temporary directory. In a sample of files spread over
//! `src/internal` (all of them with `FILEKIT_JUDGE_ALL=1`), every statement of a function or
//! method body, and every two consecutive ones, is a selection; each is extracted (a method
//! from a class's methods, a function elsewhere) or refused. Then one result per file is
//! written per round (a method's first in every other file that has one; 3 rounds, 12 with
//! `FILEKIT_JUDGE_ALL=1`) and `tsc --noEmit` must report no new error:
//!
//! - results whose parameters all got a type: no new error at all;
//! - results with a parameter left untyped (its declaration has no annotation, or a
//!   condition may have narrowed it): every parameter the result named is a `TS7006` error
//!   (implicitly `any`, which `strict`'s `noImplicitAny` refuses); the errors that follow
//!   from those `any`s are counted.
//!
//! The counts per kind (tried, applied with types, applied with untyped parameters, refused
//! by reason, broken) are printed (`--nocapture`).

use crate::judge::reason;
use filekit_testkit as test_data;
use filekit_testkit::copy_dir;

use filekit_semantic::Lang;
use filekit_semantic::ts::extract_function::{ExtractedFunction, extract_function};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use tree_sitter::{Node, Parser};

const SAMPLE: usize = 40;
/// The constructs a refusal names that are counted by name (others are `_`).
const KEYWORDS: &[&str] = &[
    "return",
    "break",
    "continue",
    "yield",
    "this",
    "super",
    "arguments",
    "new.target",
    "import",
    "export",
];
/// Rounds of writing typed results (one per file each), in CI and with FILEKIT_JUDGE_ALL=1.
const ROUNDS: usize = 3;
const ROUNDS_ALL: usize = 12;

fn ts_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            ts_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "ts")
            && !p.to_string_lossy().ends_with(".d.ts")
        {
            out.push(p);
        }
    }
}

/// `tsc --noEmit`'s errors: (file, code, message).
fn tsc(dir: &Path) -> Vec<(String, String, String)> {
    let node =
        test_data::need(test_data::repo().join(".test-deps/mcp-node/node_modules/.bin/node"));
    let tsc = test_data::need(test_data::repo().join(".test-deps/node_modules/typescript/bin/tsc"));
    let out = Command::new(node)
        .arg(tsc)
        .args([
            "--noEmit",
            "-p",
            "src/tsconfig.base.json",
            "--pretty",
            "false",
        ])
        .current_dir(dir)
        .output()
        .expect("node runs tsc");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (loc, rest) = l.split_once("): error ")?;
            let (file, _) = loc.rsplit_once('(')?;
            let (code, msg) = rest.split_once(": ")?;
            Some((file.to_string(), code.to_string(), msg.to_string()))
        })
        .collect()
}

/// The selections of a file: each statement of a function or method body, and each two
/// consecutive ones; `in_class`: only those inside a class's methods.
fn selections(text: &str, in_class: bool) -> Vec<std::ops::Range<usize>> {
    let mut p = Parser::new();
    p.set_language(&tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into())
        .unwrap();
    let tree = p.parse(text, None).unwrap();
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
        if n.kind() != "statement_block" {
            continue;
        }
        let Some(owner) = n.parent() else { continue };
        if !matches!(
            owner.kind(),
            "function_declaration" | "method_definition" | "arrow_function" | "function_expression"
        ) {
            continue;
        }
        let classy = {
            let mut x: Option<Node> = Some(owner);
            let mut hit = false;
            while let Some(y) = x {
                if y.kind() == "class_body" {
                    hit = true;
                }
                x = y.parent();
            }
            hit
        };
        if classy != in_class {
            continue;
        }
        let mut c = n.walk();
        let stmts: Vec<Node> = n
            .named_children(&mut c)
            .filter(|s| s.kind() != "comment")
            .collect();
        for (i, s) in stmts.iter().enumerate() {
            out.push(s.byte_range());
            if let Some(next) = stmts.get(i + 1) {
                out.push(s.start_byte()..next.end_byte());
            }
        }
    }
    out.sort_by_key(|r| (r.start, r.end));
    out
}

#[derive(Default)]
struct Tally {
    tried: usize,
    typed: usize,
    untyped: usize,
    refused: BTreeMap<String, usize>,
}

#[test]
fn extracted_functions_and_methods_in_rxjs_type_check() {
    let rxjs = test_data::need(test_data::repo().join(".test-deps/node_modules/rxjs"));
    let dir = std::env::temp_dir().join(format!("filekit-extract-fn-tsc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(&rxjs.join("src"), &dir.join("src"));
    std::fs::copy(rxjs.join("tsconfig.json"), dir.join("tsconfig.json")).unwrap();
    let baseline = tsc(&dir);

    let mut files = Vec::new();
    ts_files(&dir.join("src/internal"), &mut files);
    files.sort();
    let all = std::env::var_os("FILEKIT_JUDGE_ALL").is_some();
    let step = if all {
        1
    } else {
        (files.len() / SAMPLE).max(1)
    };
    let sample: Vec<PathBuf> = files.iter().step_by(step).cloned().collect();

    // The classes some class `implements`: a method added to one is refused by `file_edit`
    // after its search of the workspace (`implements_pattern`), which this scan stands for.
    let mut implemented = std::collections::BTreeSet::new();
    for f in &files {
        for l in std::fs::read_to_string(f).unwrap().lines() {
            if let Some((_, rest)) = l.split_once("implements ") {
                let list = rest.split('{').next().unwrap_or("");
                implemented.extend(
                    list.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                        .filter(|w| !w.is_empty())
                        .map(str::to_string),
                );
            }
        }
    }

    let mut tallies = [Tally::default(), Tally::default()]; // function, method
    // (file, original, its typed results) and (file, original, its first untyped result)
    let mut typed_picks: Vec<(PathBuf, String, Vec<ExtractedFunction>)> = Vec::new();
    let mut untyped_picks: Vec<(PathBuf, String, ExtractedFunction)> = Vec::new();
    for (i, f) in sample.iter().enumerate() {
        let text = std::fs::read_to_string(f).unwrap();
        // [function, method] x [typed, untyped]: the first result of each
        let mut firsts: [[Option<ExtractedFunction>; 2]; 2] = Default::default();
        let mut typed_lists: [Vec<ExtractedFunction>; 2] = Default::default();
        for method in [false, true] {
            let t = &mut tallies[method as usize];
            for r in selections(&text, method) {
                t.tried += 1;
                // A fresh name per file, as an agent would choose: one name in a base class and
                // in its subclasses would be one member declared twice.
                let name = format!("extractedPart{i}");
                match extract_function(Lang::TypeScript, &text, r, &name, method) {
                    Ok(x) if x.class.as_ref().is_some_and(|c| implemented.contains(c)) => {
                        *t.refused
                            .entry("a class of the workspace implements _".into())
                            .or_default() += 1;
                    }
                    Ok(x) => {
                        let untyped = !x.untyped.is_empty();
                        if untyped {
                            t.untyped += 1;
                        } else {
                            t.typed += 1;
                        }
                        if untyped {
                            firsts[method as usize][1].get_or_insert(x);
                        } else {
                            typed_lists[method as usize].push(x);
                        }
                    }
                    Err(e) => {
                        assert!(!e.message.is_empty());
                        *t.refused.entry(reason(&e.message, KEYWORDS)).or_default() += 1;
                    }
                }
            }
        }
        // Typed results are written one per file and round, a method's first in every other
        // file; one untyped result per file.
        let [[_, f_untyped], [_, m_untyped]] = firsts;
        let [funcs, meths] = typed_lists;
        let (first, second) = if i % 2 == 1 {
            (meths, funcs)
        } else {
            (funcs, meths)
        };
        let (mut a, mut b) = (first.into_iter(), second.into_iter());
        let mut typed = Vec::new();
        loop {
            match (a.next(), b.next()) {
                (None, None) => break,
                (x, y) => typed.extend(x.into_iter().chain(y)),
            }
        }
        let untyped = if i % 2 == 1 {
            m_untyped.or(f_untyped)
        } else {
            f_untyped.or(m_untyped)
        };
        if !typed.is_empty() {
            typed_picks.push((f.clone(), text.clone(), typed));
        }
        if let Some(x) = untyped {
            untyped_picks.push((f.clone(), text.clone(), x));
        }
    }
    for (k, t) in ["extract_function", "extract_method"].iter().zip(&tallies) {
        println!(
            "{k}: {} selections tried, {} applied with typed parameters, {} applied with untyped parameters, {} refused",
            t.tried,
            t.typed,
            t.untyped,
            t.refused.values().sum::<usize>()
        );
        for (why, n) in &t.refused {
            println!("  {n:5}  {why}");
        }
    }
    assert!(
        typed_picks.len() >= 10,
        "only {} files gave a typed result",
        typed_picks.len()
    );

    // Typed results: no new error, in rounds (round n writes each file's n-th result).
    let show = std::env::var("FILEKIT_JUDGE_SHOW").ok();
    let rounds = typed_picks.iter().map(|p| p.2.len()).max().unwrap_or(0);
    let rounds = rounds.min(if all { ROUNDS_ALL } else { ROUNDS });
    let mut judged = 0;
    for round in 0..rounds {
        for (f, text, list) in &typed_picks {
            let after = match list.get(round) {
                Some(x) => {
                    judged += 1;
                    x.splices.apply(text).unwrap()
                }
                None => text.clone(),
            };
            if show
                .as_ref()
                .is_some_and(|s| f.to_string_lossy().contains(s.as_str()))
            {
                println!("{}:\n{after}", f.display());
            }
            std::fs::write(f, after).unwrap();
        }
        let errors = tsc(&dir);
        let new: Vec<_> = errors.iter().filter(|e| !baseline.contains(e)).collect();
        assert!(new.is_empty(), "round {round}: broken results: {new:#?}");
    }
    println!(
        "{judged} typed results in {} files judged in {rounds} rounds: no new tsc error",
        typed_picks.len()
    );
    for (f, text, _) in &typed_picks {
        std::fs::write(f, text).unwrap();
    }

    // Untyped results: the parameters each result named are the compiler's TS7006
    // (implicitly `any`, which `strict` refuses); other errors follow from those `any`s until
    // the parameters get their types, as the reply asks. They are counted, not judged.
    for (f, text, x) in &untyped_picks {
        std::fs::write(f, x.splices.apply(text).unwrap()).unwrap();
    }
    let errors = tsc(&dir);
    let (mut implicit_any, mut following) = (0, 0);
    for (f, _, x) in &untyped_picks {
        let mine: Vec<_> = errors
            .iter()
            .filter(|e| !baseline.contains(e) && f.ends_with(&e.0))
            .collect();
        for u in &x.untyped {
            let name = &u.name;
            assert!(
                mine.iter()
                    .any(|e| e.1 == "TS7006" && e.2.contains(&format!("'{name}'"))),
                "{}: the untyped parameter {name} is no compiler error: {mine:?}",
                f.display()
            );
        }
        implicit_any += mine.iter().filter(|e| e.1 == "TS7006").count();
        following += mine.iter().filter(|e| e.1 != "TS7006").count();
    }
    assert!(
        errors
            .iter()
            .filter(|e| !baseline.contains(e))
            .all(|e| untyped_picks.iter().any(|(f, _, _)| f.ends_with(&e.0))),
        "a new error in a file not changed"
    );
    println!(
        "untyped results written in {} files: {implicit_any} TS7006 errors on the named parameters, {following} other errors following from them",
        untyped_picks.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
