//! The refactors that need no language server, judged by the compiler on real code (benches/refactor_judged.py
//! with `--sample`): a deterministic sample of selections per kind in rxjs's sources (tsc) and
//! urllib3's modules (compileall, pyflakes, import), each applied through `filekit call` on
//! the pristine corpus. No result may break the code base, and every kind must apply somewhere:
//! a kind that refuses everything is judged on nothing.
//!
//! Needs `scripts/setup-test-deps` (rxjs, typescript, urllib3, pyflakes in .venv).

use serde_json::Value;
use std::path::Path;
use std::process::Command;

const SAMPLE: usize = 12;

#[test]
fn a_sample_of_every_syntactic_kind_keeps_rxjs_and_urllib3_compiling() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = repo.join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/setup-test-deps",
        python.display()
    );
    let out = Command::new(&python)
        .arg(repo.join("benches/refactor_judged.py"))
        .args(["--sample", &SAMPLE.to_string(), "--json", "--filekit"])
        .arg(env!("CARGO_BIN_EXE_filekit"))
        .output()
        .expect("python runs the judged suite");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let tallies: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("no JSON from the judged suite:\n{stderr}"));
    let mut problems = vec![];
    for (kind, t) in tallies.as_object().expect("tallies by kind") {
        let n = |k: &str| t[k].as_u64().unwrap_or(0);
        let listed = |k: &str| t[k].as_array().map_or(0, Vec::len);
        eprintln!(
            "{kind}: tried {}, applied {}, refused {:?}, broken {}",
            n("tried"),
            n("applied"),
            t["refused"],
            listed("broken")
        );
        if n("tried") < 10 {
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
    assert!(problems.is_empty(), "{}\n{stderr}", problems.join("\n\n"));
}
