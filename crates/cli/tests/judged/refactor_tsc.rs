//! The compiler is the judge: rxjs 7.8.1's TypeScript sources (as npm ships them, with their
//! tsconfig.json: baseUrl, paths, extends, index barrels) are copied to a temporary
//! directory; files and directories are moved and renamed through `filekit call`
//! (file_move / file_rename, which update imports), and after each step `tsc --noEmit`
//! must report no error that was not there before. Deletes: the imports left behind (or,
//! when the imports are removed, the uses left behind) that filekit reports must be exactly
//! the new compiler errors.
//!
//! Needs `scripts/setup-test-deps` (rxjs and typescript from npm into .test-deps/node_modules).

use crate::common;

use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn deps() -> (PathBuf, PathBuf) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let npm = repo.join(".test-deps/node_modules");
    let rxjs = npm.join("rxjs");
    let tsc = npm.join("typescript/bin/tsc");
    assert!(
        rxjs.join("src/index.ts").is_file() && tsc.is_file(),
        "rxjs or typescript is missing from .test-deps/node_modules: run scripts/setup-test-deps"
    );
    (rxjs, tsc)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// The errors of `tsc --noEmit` as (file, line, code).
fn tsc(tsc: &Path, dir: &Path) -> BTreeSet<(String, usize, String)> {
    let out = Command::new("node")
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
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .filter_map(|l| {
            let (loc, rest) = l.split_once("): error ")?;
            let (file, pos) = loc.rsplit_once('(')?;
            let line = pos.split(',').next()?.parse().ok()?;
            let code = rest.split(':').next()?.to_string();
            Some((file.to_string(), line, code))
        })
        .collect()
}

fn call(dir: &Path, tool: &str, args: Value) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_filekit"))
        .args(["call", "--root"])
        .arg(dir)
        .arg("--json")
        .arg(json!({"tool": tool, "arguments": args}).to_string())
        .env("XDG_STATE_HOME", common::test_state_home())
        .output()
        .unwrap();
    let reply: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(reply["success"], json!(true), "{tool} {args}: {reply:#}");
    reply
}

/// Moves and renames made before each tsc check (a check of rxjs costs 3-8 s of processor
/// time; a move, milliseconds): two groups, each replayed step by step only when it broke.
const STEPS_PER_CHECK: usize = 7;

#[test]
fn moves_and_renames_in_rxjs_keep_it_compiling_and_deletes_report_exactly_the_new_errors() {
    let (rxjs, tsc_js) = deps();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    copy_dir(&rxjs.join("src"), &dir.join("src"));
    std::fs::copy(rxjs.join("tsconfig.json"), dir.join("tsconfig.json")).unwrap();
    let baseline = tsc(&tsc_js, dir);

    // (tool, arguments): files and directories, deep and shallow, into and out of index
    // folders, through paths the barrels re-export.
    let steps: Vec<(&str, Value)> = vec![
        (
            "file_move",
            json!({"source": "src/internal/util/isFunction.ts", "destination": "src/internal/util/isFunction/index.ts"}),
        ),
        (
            "file_move",
            json!({"source": "src/internal/util/isFunction/index.ts", "destination": "src/internal/helpers/isFunction.ts"}),
        ),
        (
            "file_move",
            json!({"source": "src/internal/Subscription.ts", "destination": "src/internal/core/Subscription.ts"}),
        ),
        (
            "file_rename",
            json!({"path": "src/internal/scheduler", "newName": "schedulers"}),
        ),
        (
            "file_move",
            json!({"source": "src/internal/operators/map.ts", "destination": "src/internal/operators/transform/deep/map.ts"}),
        ),
        (
            "file_move",
            json!({"source": "src/internal/types.ts", "destination": "src/types.ts"}),
        ),
        (
            "file_move",
            json!({"source": "src/internal/observable/dom", "destination": "src/internal/dom"}),
        ),
        (
            "file_rename",
            json!({"path": "src/internal/util/noop.ts", "newName": "doNothing.ts"}),
        ),
        (
            "file_move",
            json!({"source": "src/internal/Observable.ts", "destination": "src/internal/observable/Observable.ts"}),
        ),
        (
            "file_move",
            json!({"source": "src/internal/util", "destination": "src/internal/shared/utils"}),
        ),
        (
            "file_move",
            json!({"source": "src/internal/operators/filter.ts", "destination": "src/internal/operators/filter/index.ts"}),
        ),
        (
            "file_rename",
            json!({"path": "src/internal/config.ts", "newName": "configuration.ts"}),
        ),
        (
            "file_move",
            json!({"source": "src/operators/index.ts", "destination": "src/internal/operators/index.ts", "overwrite": false}),
        ),
    ];
    // tsc judges the tree after each group of steps, not each step: an import a move breaks
    // stays broken through the moves after it (they rewrite only imports that resolve). A
    // group with a new error is replayed on a copy of the tree before it, with a check after
    // each step, to name the step that broke it.
    let mut updated = 0;
    let pristine = tempfile::tempdir().unwrap();
    for group in steps.chunks(STEPS_PER_CHECK) {
        copy_dir(&dir.join("src"), &pristine.path().join("src"));
        let mut replies = vec![];
        for (tool, args) in group {
            let reply = call(dir, tool, args.clone());
            updated += reply["totalImportsUpdated"].as_u64().unwrap_or(0);
            replies.push(reply);
        }
        let errors = tsc(&tsc_js, dir);
        if errors.difference(&baseline).next().is_none() {
            std::fs::remove_dir_all(pristine.path().join("src")).unwrap();
            continue;
        }
        let replay = tempfile::tempdir().unwrap();
        copy_dir(&pristine.path().join("src"), &replay.path().join("src"));
        std::fs::copy(
            rxjs.join("tsconfig.json"),
            replay.path().join("tsconfig.json"),
        )
        .unwrap();
        for ((tool, args), reply) in group.iter().zip(&replies) {
            call(replay.path(), tool, args.clone());
            let errors = tsc(&tsc_js, replay.path());
            let new: Vec<_> = errors.difference(&baseline).collect();
            assert!(
                new.is_empty(),
                "after {tool} {args}: new tsc errors {new:#?}\n{reply:#}"
            );
        }
        panic!("new tsc errors after the steps {group:#?}, none after any one of them replayed");
    }
    assert!(updated > 200, "only {updated} imports were updated");

    // Deletes without import updates: the imports left behind are the new errors.
    let (baseline, reported, new) = delete(dir, &tsc_js, baseline, "argsOrArgArray.ts", false);
    assert_eq!(reported.len(), 7);
    assert_eq!(reported, new);

    // A deleted type guard: its importers lose the narrowing too, so tsc reports more than
    // the imports (second-order errors, which a syntactic tool does not list): every import
    // left behind is an error, and the errors are in the files reported, no others.
    let (baseline, reported, new) = delete(dir, &tsc_js, baseline, "isDate.ts", false);
    assert_eq!(reported.len(), 3);
    assert!(reported.is_subset(&new));
    let files =
        |s: &BTreeSet<(String, usize)>| s.iter().map(|x| x.0.clone()).collect::<BTreeSet<_>>();
    assert_eq!(files(&reported), files(&new));

    // With import updates, the declarations go and the uses left behind are the new errors.
    let (_, reported, new) = delete(dir, &tsc_js, baseline, "reportUnhandledError.ts", true);
    assert!(!reported.is_empty());
    assert_eq!(reported, new);
}

type Lines = BTreeSet<(String, usize)>;

/// Deletes a file of src/internal/shared/utils; returns the errors after, what filekit
/// reported left behind (imports, or uses when the imports are removed) and the new errors.
fn delete(
    dir: &Path,
    tsc_js: &Path,
    baseline: BTreeSet<(String, usize, String)>,
    name: &str,
    update: bool,
) -> (BTreeSet<(String, usize, String)>, Lines, Lines) {
    let reply = call(
        dir,
        "file_delete",
        json!({"path": format!("src/internal/shared/utils/{name}"), "updateImports": update}),
    );
    let key = if update {
        "unresolvedUses"
    } else {
        "leftoverImports"
    };
    let reported: Lines = reply[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} listed: {reply:#}"))
        .iter()
        .map(|l| {
            (
                l["file"].as_str().unwrap().to_string(),
                l["line"].as_u64().unwrap() as usize,
            )
        })
        .collect();
    if update {
        assert!(
            reply["totalImportsRemoved"].as_u64().unwrap() >= 1,
            "{reply:#}"
        );
    }
    let errors = tsc(tsc_js, dir);
    let new: Lines = errors
        .difference(&baseline)
        .map(|(f, l, _)| (f.clone(), *l))
        .collect();
    eprintln!("{name}: reported {reported:?}, new errors {new:?}");
    (errors, reported, new)
}

/// Every file under `dir` with its bytes (to check that a refused request wrote nothing).
fn snapshot(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_name() == ".filekit" {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.insert(e.path(), std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

fn call_fails(dir: &Path, tool: &str, args: Value) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_filekit"))
        .args(["call", "--root"])
        .arg(dir)
        .arg("--json")
        .arg(json!({"tool": tool, "arguments": args}).to_string())
        .env("XDG_STATE_HOME", common::test_state_home())
        .output()
        .unwrap();
    let reply: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(reply["success"], json!(false), "{tool} {args}: {reply:#}");
    reply
}

fn read(dir: &Path, path: &str) -> String {
    std::fs::read_to_string(dir.join(path)).unwrap()
}

#[test]
fn export_renames_and_symbol_mapped_copies_in_rxjs_keep_it_compiling() {
    let (rxjs, tsc_js) = deps();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    copy_dir(&rxjs.join("src"), &dir.join("src"));
    std::fs::copy(rxjs.join("tsconfig.json"), dir.join("tsconfig.json")).unwrap();
    let baseline = tsc(&tsc_js, dir);
    let check = |what: &str, reply: &Value| {
        let errors = tsc(&tsc_js, dir);
        let new: Vec<_> = errors.difference(&baseline).collect();
        assert!(
            new.is_empty(),
            "after {what}: new tsc errors {new:#?}\n{reply:#}"
        );
    };

    // renameExports: the main export follows the file's new name, in the file and at
    // every import site (65 of them), in one request.
    let reply = call(
        dir,
        "file_rename",
        json!({"path": "src/internal/util/isFunction.ts", "newName": "isCallable.ts", "renameExports": true}),
    );
    assert_eq!(
        reply["symbolsRenamed"][0],
        json!({"old": "isFunction", "new": "isCallable", "occurrences": reply["totalSymbolsRenamed"]})
    );
    assert!(
        reply["totalSymbolsRenamed"].as_u64().unwrap() > 60,
        "{reply:#}"
    );
    assert!(read(dir, "src/internal/util/isCallable.ts").contains("export function isCallable("));
    assert!(
        read(dir, "src/internal/Observable.ts")
            .contains("import { isCallable } from './util/isCallable';")
    );
    check("renameExports", &reply);

    // exportMapping with a move: the public re-export of src/index.ts follows.
    let reply = call(
        dir,
        "file_move",
        json!({"source": "src/internal/util/identity.ts", "destination": "src/internal/helpers/same.ts", "exportMapping": {"identity": "same"}}),
    );
    assert!(read(dir, "src/index.ts").contains("export { same } from './internal/helpers/same';"));
    assert!(
        read(dir, "src/internal/util/pipe.ts").contains("import { same } from '../helpers/same';")
    );
    check("exportMapping with a move", &reply);

    // A type renamed through the `export *` barrel of src/index.ts.
    let reply = call(
        dir,
        "file_rename",
        json!({"path": "src/internal/types.ts", "newName": "typings.ts", "exportMapping": {"ObservableInputTuple": "ObservableInputs"}}),
    );
    assert!(read(dir, "src/internal/typings.ts").contains("export type ObservableInputs<T>"));
    assert!(
        !read(dir, "src/internal/observable/combineLatest.ts").contains("ObservableInputTuple")
    );
    check("exportMapping of a type", &reply);

    // file_duplicate with symbolMapping: the copy's own imports work from its new place and
    // its symbol is renamed (scope-aware); the original is unchanged.
    let map_before = read(dir, "src/internal/operators/map.ts");
    let reply = call(
        dir,
        "file_duplicate",
        json!({"source": "src/internal/operators/map.ts", "destination": "src/internal/operators/copies/deep/project.ts", "symbolMapping": {"map": "project"}}),
    );
    assert_eq!(reply["precision"], json!("syntactic"));
    let copy = read(dir, "src/internal/operators/copies/deep/project.ts");
    assert!(copy.contains("export function project<T, R>("), "{copy}");
    assert!(copy.contains("from '../../../typings'"), "{copy}");
    assert_eq!(read(dir, "src/internal/operators/map.ts"), map_before);
    check("file_duplicate with symbolMapping", &reply);

    // renameSymbols: the main export follows the copy's name.
    let reply = call(
        dir,
        "file_duplicate",
        json!({"source": "src/internal/operators/filter.ts", "destination": "src/internal/keep.ts", "renameSymbols": true}),
    );
    assert!(read(dir, "src/internal/keep.ts").contains("export function keep<T>("));
    check("file_duplicate with renameSymbols", &reply);

    // Bad inputs: a clear error and nothing written.
    let before = snapshot(dir);
    let bad: Vec<(&str, Value, &str, &str)> = vec![
        (
            "file_rename",
            json!({"path": "src/internal/util/noop.ts", "newName": "nothing.ts", "exportMapping": {"nope": "nothing"}}),
            "NOT_FOUND",
            "does not export `nope`",
        ),
        (
            "file_move",
            json!({"source": "src/internal/util/noop.ts", "destination": "src/internal/noop.ts", "exportMapping": {"noop": "innerFrom"}}),
            "CONFLICT",
            "innerFrom",
        ),
        (
            "file_rename",
            json!({"path": "src/internal/util/noop.ts", "newName": "nothing.ts", "exportMapping": {"noop": "no-op"}}),
            "INVALID_ARGUMENT",
            "not a valid identifier",
        ),
        (
            "file_rename",
            json!({"path": "src/internal/util/noop.ts", "newName": "nothing.ts", "exportMapping": {"noop": "class"}}),
            "INVALID_ARGUMENT",
            "reserved word",
        ),
        (
            "file_rename",
            json!({"path": "src/internal/typings.ts", "newName": "allTypes.ts", "renameExports": true}),
            "NOT_FOUND",
            "no symbol named after the file",
        ),
        (
            "file_rename",
            json!({"path": "src/internal/util/noop.ts", "newName": "nothing.ts", "renameExports": true, "updateImports": false}),
            "INVALID_ARGUMENT",
            "updateImports",
        ),
        (
            "file_rename",
            json!({"path": "src/internal/util/noop.ts", "newName": "nothing.ts", "exportMapping": {"noop": "isCallable"}}),
            "CONFLICT",
            "isCallable",
        ),
        (
            "file_duplicate",
            json!({"source": "src/internal/util/noop.ts", "destination": "src/internal/util/noop2.ts", "symbolMapping": {"nothing": "x"}}),
            "NOT_FOUND",
            "nothing",
        ),
    ];
    for (tool, args, code, says) in bad {
        let reply = call_fails(dir, tool, args.clone());
        assert_eq!(reply["errorCode"], json!(code), "{tool} {args}: {reply:#}");
        let message = reply["error"].as_str().unwrap();
        assert!(message.contains(says), "{tool} {args}: {message}");
        assert!(snapshot(dir) == before, "{tool} {args} changed the tree");
    }

    // A delete through barrels: the `export *` of the deleted file is removed, and the uses
    // that came through the barrel (by name, through a namespace, through a barrel of the
    // barrel) are listed with the direct importers' uses: exactly the new errors.
    let write = |p: &str, t: &str| std::fs::write(dir.join(p), t).unwrap();
    write(
        "src/internal/util/all.ts",
        "export * from './throwUnobservableError';\nexport * from './isIterable';\n",
    );
    write(
        "src/internal/barrelUser.ts",
        "import { createInvalidObservableTypeError, isIterable } from './util/all';\nimport * as all from './util/all';\nexport const e = createInvalidObservableTypeError(1);\nexport const f = all.createInvalidObservableTypeError(2);\nexport const g = isIterable([]);\n",
    );
    write(
        "src/internal/moreBarrel.ts",
        "export * from './util/all';\n",
    );
    write(
        "src/internal/deep.ts",
        "import { createInvalidObservableTypeError as make } from './moreBarrel';\nexport const h = make(3);\n",
    );
    let baseline = tsc(&tsc_js, dir);
    let reply = call(
        dir,
        "file_delete",
        json!({"path": "src/internal/util/throwUnobservableError.ts"}),
    );
    assert_eq!(
        read(dir, "src/internal/util/all.ts"),
        "export * from './isIterable';\n"
    );
    let reported: Lines = reply["unresolvedUses"]
        .as_array()
        .unwrap_or_else(|| panic!("unresolvedUses: {reply:#}"))
        .iter()
        .map(|l| {
            (
                l["file"].as_str().unwrap().to_string(),
                l["line"].as_u64().unwrap() as usize,
            )
        })
        .collect();
    let through: Vec<&Value> = reply["unresolvedUses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u.get("via").is_some())
        .collect();
    assert_eq!(through.len(), 3, "{reply:#}");
    let new: Lines = tsc(&tsc_js, dir)
        .difference(&baseline)
        .map(|(f, l, _)| (f.clone(), *l))
        .collect();
    assert_eq!(reported, new, "{reply:#}");
}
