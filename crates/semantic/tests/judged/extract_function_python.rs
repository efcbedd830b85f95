//! Python's extract_function and extract_method judged on real code: the `h11` and `click`
//! packages of the `.venv` that `scripts/setup-test-deps` makes are copied to a temporary
//! directory. In each module, every statement of a function or method body, and every two
//! consecutive ones, is a selection (a spread of 12 per module and kind; all of them with
//! `FILEKIT_JUDGE_ALL=1`); each is extracted (a method from a class's methods, a
//! function elsewhere) or refused. In rounds, each writing one result per module (6 rounds;
//! every result with `FILEKIT_JUDGE_ALL=1`), every module must still compile (`compileall`),
//! pyflakes must report nothing new (an undefined name, an unused local), and both packages
//! must import. The counts are printed (`--nocapture`).

use crate::judge::reason;
use filekit_testkit as test_data;
use filekit_testkit::copy_dir;

use filekit_semantic::ops::Splices;
use filekit_semantic::python::extract_function::extract_function;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use tree_sitter::{Node, Parser};

const PER_MODULE: usize = 12;
/// The constructs a refusal names that are counted by name (others are `_`).
const KEYWORDS: &[&str] = &[
    "return", "break", "continue", "yield", "self", "global", "nonlocal",
];
/// Rounds of writing (one result per module each) without FILEKIT_JUDGE_ALL.
const ROUNDS: usize = 6;

fn python() -> PathBuf {
    test_data::need(test_data::repo().join(".venv/bin/python"))
}

fn site_packages() -> PathBuf {
    let lib = test_data::need(test_data::repo().join(".venv/lib"));
    let py = std::fs::read_dir(&lib)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("python"))
        })
        .expect("a python3.x folder in .venv/lib");
    py.join("site-packages")
}

fn modules(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            modules(&p, out);
        } else if p.extension().is_some_and(|x| x == "py") {
            out.push(p);
        }
    }
}

/// pyflakes' messages as (file, message without its position).
fn pyflakes(dir: &Path) -> Vec<(String, String)> {
    let out = Command::new(python())
        .args(["-m", "pyflakes", "h11", "click"])
        .current_dir(dir)
        .output()
        .expect("pyflakes runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut parts = l.splitn(4, ':');
            let file = parts.next()?.to_string();
            parts.next()?;
            let rest = parts.collect::<Vec<_>>().join(":");
            let msg = rest
                .split_once(' ')
                .map_or(rest.as_str(), |x| x.1)
                .trim()
                .to_string();
            Some((file, msg))
        })
        .collect()
}

/// Each statement of a function body, and each two consecutive ones; `in_class`: only those
/// of methods.
fn selections(text: &str, in_class: bool) -> Vec<std::ops::Range<usize>> {
    let mut p = Parser::new();
    p.set_language(&tree_sitter_python::LANGUAGE.into())
        .unwrap();
    let tree = p.parse(text, None).unwrap();
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
        if n.kind() != "block" || n.parent().is_none_or(|f| f.kind() != "function_definition") {
            continue;
        }
        let classy = {
            let mut x: Option<Node> = n.parent();
            let mut hit = false;
            while let Some(y) = x {
                hit |= y.kind() == "class_definition";
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

#[test]
fn extracted_python_functions_and_methods_compile_lint_and_import() {
    let site = site_packages();
    let dir = std::env::temp_dir().join(format!("filekit-extract-fn-py-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for pkg in ["h11", "click"] {
        copy_dir(&test_data::need(site.join(pkg)), &dir.join(pkg));
    }
    let baseline = pyflakes(&dir);
    let mut files = Vec::new();
    modules(&dir, &mut files);
    files.sort();

    let judge_all = std::env::var_os("FILEKIT_JUDGE_ALL").is_some();
    let mut tried = [0usize; 2];
    let mut applied = [0usize; 2];
    let mut refused: [BTreeMap<String, usize>; 2] = Default::default();
    // Per module: its text and every result, functions' and methods' interleaved.
    let mut results: Vec<(PathBuf, String, Vec<Splices>)> = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let mut found: [Vec<Splices>; 2] = Default::default();
        for method in [false, true] {
            let k = method as usize;
            let all = selections(&text, method);
            // A spread of at most PER_MODULE selections (all with FILEKIT_JUDGE_ALL=1).
            let step = if judge_all {
                1
            } else {
                all.len().div_ceil(PER_MODULE).max(1)
            };
            for r in all.into_iter().step_by(step) {
                tried[k] += 1;
                match extract_function(&text, r, "extracted_part", method) {
                    Ok(x) => {
                        applied[k] += 1;
                        found[k].push(x.splices);
                    }
                    Err(e) => *refused[k].entry(reason(&e.message, KEYWORDS)).or_default() += 1,
                }
            }
        }
        let [funcs, meths] = found;
        let (mut funcs, mut meths) = (funcs.into_iter(), meths.into_iter());
        let mut mixed = Vec::new();
        loop {
            match (funcs.next(), meths.next()) {
                (None, None) => break,
                (a, b) => mixed.extend(a.into_iter().chain(b)),
            }
        }
        results.push((f.clone(), text, mixed));
    }
    for (k, name) in ["extract_function", "extract_method"].iter().enumerate() {
        println!(
            "{name}: {} selections tried, {} applied, {} refused",
            tried[k],
            applied[k],
            refused[k].values().sum::<usize>()
        );
        for (why, n) in &refused[k] {
            println!("  {n:5}  {why}");
        }
    }
    assert!(
        results.iter().filter(|r| !r.2.is_empty()).count() >= 10,
        "fewer than 10 modules got a result"
    );

    // Round n writes every module's n-th result (results of one module cannot be written
    // together: each is an edit of the original); every result is judged once.
    let rounds = results.iter().map(|r| r.2.len()).max().unwrap_or(0);
    let rounds = if judge_all {
        rounds
    } else {
        rounds.min(ROUNDS)
    };
    let mut judged = 0;
    for round in 0..rounds {
        for (f, text, list) in &results {
            let after = match list.get(round) {
                Some(x) => {
                    judged += 1;
                    x.apply(text).unwrap()
                }
                None => text.clone(),
            };
            if std::env::var("FILEKIT_JUDGE_SHOW")
                .is_ok_and(|s| f.to_string_lossy().contains(s.as_str()))
            {
                println!("{}:\n{after}", f.display());
            }
            std::fs::write(f, after).unwrap();
        }
        let compiled = Command::new(python())
            .args(["-m", "compileall", "-q", "h11", "click"])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(
            compiled.status.success(),
            "round {round}: compileall: {}{}",
            String::from_utf8_lossy(&compiled.stdout),
            String::from_utf8_lossy(&compiled.stderr)
        );
        let after = pyflakes(&dir);
        let mut left = baseline.clone();
        let new: Vec<_> = after
            .into_iter()
            .filter(|m| match left.iter().position(|b| b == m) {
                Some(i) => {
                    left.remove(i);
                    false
                }
                None => true,
            })
            .collect();
        assert!(new.is_empty(), "round {round}: broken results: {new:#?}");
        let imported = Command::new(python())
            .args(["-c", "import h11, click; print('ok')"])
            .env("PYTHONPATH", &dir)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(
            imported.status.success(),
            "round {round}: import: {}",
            String::from_utf8_lossy(&imported.stderr)
        );
    }
    println!("{judged} results judged in {rounds} rounds: none broken");
    let _ = std::fs::remove_dir_all(&dir);
}
