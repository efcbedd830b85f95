//! Rewrites committed with file operations (the import updates of a move): written in
//! place, into the moved file, into the copy; a stale or bad rewrite stops the whole atomic
//! request and changes nothing; a dry run gives the diffs and changes nothing.

use filekit_core::Workspace;
use filekit_core::fsops::{self, FileOp, FsRequest, Rewrite};
use filekit_core::hash::content_hash;
use std::fs;

fn setup() -> (tempfile::TempDir, Workspace) {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("src/lib")).unwrap();
    fs::write(
        tmp.path().join("src/main.ts"),
        "import { a } from './lib/a';\n",
    )
    .unwrap();
    fs::write(
        tmp.path().join("src/lib/a.ts"),
        "import { b } from './b';\n",
    )
    .unwrap();
    fs::write(tmp.path().join("src/lib/b.ts"), "export const b = 1;\n").unwrap();
    let ws = Workspace::new(&[tmp.path().to_path_buf()], false).unwrap();
    (tmp, ws)
}

fn rewrite(dir: &std::path::Path, path: &str, from: &str, to: &str) -> Rewrite {
    let text = fs::read_to_string(dir.join(path)).unwrap();
    let at = text.find(from).unwrap();
    Rewrite {
        path: path.into(),
        content_hash: content_hash(text.as_bytes()),
        splices: vec![(at, at + from.len(), to.to_string()).into()],
    }
}

fn mv(rewrites: Vec<Rewrite>, dry_run: bool) -> FsRequest {
    FsRequest {
        ops: vec![FileOp::Move {
            from: "src/lib/a.ts".into(),
            to: "src/core/a.ts".into(),
            overwrite: false,
        }],
        dry_run,
        atomic: true,
        rewrites,
        ..FsRequest::default()
    }
}

#[test]
fn rewrites_land_in_place_and_in_the_moved_file() {
    let (tmp, ws) = setup();
    let d = tmp.path();
    let req = mv(
        vec![
            rewrite(d, "src/main.ts", "./lib/a", "./core/a"),
            rewrite(d, "src/lib/a.ts", "./b", "../lib/b"),
        ],
        false,
    );
    let report = fsops::apply(&ws, &req);
    assert!(report.success(), "{report:#?}");
    assert_eq!(
        fs::read_to_string(d.join("src/main.ts")).unwrap(),
        "import { a } from './core/a';\n"
    );
    assert_eq!(
        fs::read_to_string(d.join("src/core/a.ts")).unwrap(),
        "import { b } from '../lib/b';\n"
    );
    assert!(!d.join("src/lib/a.ts").exists());
    assert!(report.rewrites[1].written_to.ends_with("src/core/a.ts"));
    assert!(report.rewrites.iter().all(|r| r.done));
}

#[test]
fn a_dry_run_gives_the_diffs_and_changes_nothing() {
    let (tmp, ws) = setup();
    let d = tmp.path();
    let report = fsops::apply(
        &ws,
        &mv(vec![rewrite(d, "src/main.ts", "./lib/a", "./core/a")], true),
    );
    assert!(report.success());
    assert!(
        report.rewrites[0]
            .diff
            .contains("+import { a } from './core/a';"),
        "{}",
        report.rewrites[0].diff
    );
    assert!(d.join("src/lib/a.ts").exists());
    assert_eq!(
        fs::read_to_string(d.join("src/main.ts")).unwrap(),
        "import { a } from './lib/a';\n"
    );
}

#[test]
fn a_stale_rewrite_stops_the_whole_request() {
    let (tmp, ws) = setup();
    let d = tmp.path();
    let stale = rewrite(d, "src/main.ts", "./lib/a", "./core/a");
    fs::write(
        d.join("src/main.ts"),
        "import { a } from './lib/a'; // changed\n",
    )
    .unwrap();
    let report = fsops::apply(&ws, &mv(vec![stale], false));
    assert!(!report.success());
    let err = report.rewrites[0].error.as_ref().unwrap();
    assert_eq!(err.code.as_str(), "STALE", "{err:?}");
    assert!(
        d.join("src/lib/a.ts").exists(),
        "the move is not done either"
    );
    assert!(!d.join("src/core").exists());
}

#[test]
fn a_bad_range_or_a_deleted_file_is_refused() {
    let (tmp, ws) = setup();
    let d = tmp.path();
    let mut bad = rewrite(d, "src/main.ts", "./lib/a", "x");
    bad.splices = vec![(5, 2, "x".to_string()).into()];
    let report = fsops::apply(&ws, &mv(vec![bad], false));
    assert!(!report.success());
    let message = &report.rewrites[0].error.as_ref().unwrap().message;
    assert!(message.contains("a rewrite of"), "{message}");
    assert!(message.contains("range 0 (5..2) does not fit"), "{message}");
    assert!(d.join("src/lib/a.ts").exists());

    let req = FsRequest {
        ops: vec![FileOp::Delete {
            path: "src/lib/a.ts".into(),
            recursive: false,
        }],
        atomic: true,
        rewrites: vec![rewrite(d, "src/lib/a.ts", "./b", "./c")],
        ..FsRequest::default()
    };
    let report = fsops::apply(&ws, &req);
    assert!(!report.success());
    assert!(d.join("src/lib/a.ts").exists());
}
