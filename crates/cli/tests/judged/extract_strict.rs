//! extract_function and extract_method under the project's own settings, judged by the
//! compiler (benches/refactor_judged.py, `--kinds extract_function,extract_method`): a
//! deterministic sample of statement selections (one statement of a function's or method's
//! body, or two consecutive ones) in rxjs, whose tsconfig has `strict`, each applied through
//! `filekit call` on the pristine corpus without asking for untyped parameters. Every applied
//! result must type-check (`tsc --noEmit`: no error it did not report before), and every
//! refusal for parameters without a type must name parameters the selection uses (the bench
//! counts one that does not as failed). Both kinds must apply somewhere, and the rule must be
//! met somewhere: a sample where nothing is refused for an untyped parameter judges nothing
//! of it.
//!
//! Needs `scripts/setup-test-deps` (rxjs, typescript, .venv).

use serde_json::Value;
use std::path::Path;
use std::process::Command;

const SAMPLE: usize = 40;

#[test]
fn extracted_functions_in_rxjs_type_check_under_its_strict_tsconfig_or_name_the_parameter() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = repo.join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/setup-test-deps",
        python.display()
    );
    let out = Command::new(&python)
        .arg(repo.join("benches/refactor_judged.py"))
        .args([
            "--kinds",
            "extract_function,extract_method",
            "--lang",
            "ts",
            "--sample",
            &SAMPLE.to_string(),
            "--json",
            "--filekit",
        ])
        .arg(env!("CARGO_BIN_EXE_filekit"))
        .output()
        .expect("python runs the judged suite");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let tallies: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("no JSON from the judged suite:\n{stderr}"));
    let mut problems = vec![];
    let mut untyped_refusals = 0;
    for kind in ["extract_function/ts", "extract_method/ts"] {
        let t = &tallies[kind];
        let n = |k: &str| t[k].as_u64().unwrap_or(0);
        let listed = |k: &str| t[k].as_array().map_or(0, Vec::len);
        let refused = t["refused"].as_object().cloned().unwrap_or_default();
        let untyped: u64 = refused
            .iter()
            .filter(|(why, _)| why.contains("would have no type"))
            .map(|(_, n)| n.as_u64().unwrap_or(0))
            .sum();
        untyped_refusals += untyped;
        eprintln!(
            "{kind}: tried {}, applied {}, refused {} ({untyped} for a parameter without a type), broken {}, failed {}",
            n("tried"),
            n("applied"),
            refused.values().filter_map(Value::as_u64).sum::<u64>(),
            listed("broken"),
            listed("failed"),
        );
        for (why, count) in &refused {
            eprintln!("  {count:>4}  {why}");
        }
        if n("tried") < SAMPLE as u64 {
            problems.push(format!("{kind}: only {} selections tried", n("tried")));
        }
        if n("applied") == 0 {
            problems.push(format!("{kind}: applied nowhere, judged on nothing"));
        }
        if listed("broken") + listed("failed") > 0 {
            problems.push(format!(
                "{kind}: broken {:#}\nfailed {:#}",
                t["broken"], t["failed"]
            ));
        }
    }
    if untyped_refusals == 0 {
        problems.push("no selection was refused for a parameter without a type: the sample does not exercise the rule".into());
    }
    assert!(problems.is_empty(), "{}\n{stderr}", problems.join("\n\n"));
}
