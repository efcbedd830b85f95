//! Versions, merges of stale edits, reads since a version, and leases, driven through the
//! engine's public API on real temporary directories; and a simulation of concurrent agents
//! editing one file from stale versions, checked against a log of what each was told.

use filekit_core::edit::{Edit, EditOptions, EditRequest, FileEdits, FileStatus};
use filekit_core::read::{ReadContent, ReadOptions, TextRead, read_file};
use filekit_core::versions::Versions;
use filekit_core::{ErrorCode, Workspace, hash, leases, pipeline};
use std::sync::{Arc, Mutex};

/// A workspace over `dir` with its state (versions, leases) where the front ends keep it: in
/// a state directory outside the tree, shared by every workspace of the same root.
fn workspace(dir: &std::path::Path) -> Workspace {
    let mut ws = Workspace::new(&[dir.to_path_buf()], false).unwrap();
    let state = filekit_core::state::StateDir::for_root(
        &std::env::temp_dir().join("filekit-core-tests-state"),
        &ws.roots()[0],
    );
    ws.set_versions(Arc::new(Versions::on_disk(state.versions_dir())));
    ws.set_state(state);
    ws
}

fn read(ws: &Workspace, path: &str, since: Option<&str>) -> TextRead {
    let r = read_file(
        ws,
        path,
        &ReadOptions {
            since_hash: since.map(str::to_string),
            ..Default::default()
        },
    );
    match r.result {
        Ok(ReadContent::Text(t)) => t,
        other => panic!("{other:?}"),
    }
}

fn edit(
    ws: &Workspace,
    path: &str,
    base: Option<&str>,
    edits: Vec<Edit>,
) -> filekit_core::EditReport {
    pipeline::apply(
        ws,
        &EditRequest {
            files: vec![FileEdits {
                path: path.into(),
                edits,
                base_hash: base.map(str::to_string),
            }],
            options: EditOptions::default(),
        },
    )
}

fn replace_lines(start: i64, end: i64, new: &str, hash: Option<&str>) -> Edit {
    Edit::ReplaceLines {
        start,
        end: Some(end),
        new: new.into(),
        content_hash: hash.map(str::to_string),
    }
}

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[test]
fn a_stale_line_edit_is_merged_into_the_changed_file() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("f.txt"), numbered(10)).unwrap();
    let ws = workspace(d.path());
    let v1 = read(&ws, "f.txt", None).content_hash.unwrap();
    // Another agent inserts two lines at the top.
    let other = edit(
        &ws,
        "f.txt",
        None,
        vec![Edit::Insert {
            after: 0,
            text: "a\nb\n".into(),
            content_hash: None,
        }],
    );
    assert!(other.success());
    // We edit line 8 of the version we read (by content_hash of the whole file).
    let r = edit(
        &ws,
        "f.txt",
        None,
        vec![replace_lines(8, 8, "EIGHT", Some(&v1))],
    );
    assert!(r.success(), "{:?}", r.files[0].error());
    let f = &r.files[0];
    assert!(f.merged());
    assert_eq!(f.merged_from.as_deref(), Some(v1.as_str()));
    assert!(f.diff.contains("-line 8\n+EIGHT\n"), "{}", f.diff);
    let now = std::fs::read_to_string(d.path().join("f.txt")).unwrap();
    assert_eq!(
        now,
        format!("a\nb\n{}", numbered(10).replace("line 8\n", "EIGHT\n"))
    );
    // The same with base_hash and a text edit, based on the first version still.
    let r = edit(
        &ws,
        "f.txt",
        Some(&v1[..8]),
        vec![Edit::ReplaceText {
            old: "line 2\n".into(),
            new: "TWO\n".into(),
            expected: filekit_core::Expected::Exactly(1),
            label: None,
        }],
    );
    assert!(
        r.success() && r.files[0].merged(),
        "{:?}",
        r.files[0].error()
    );
    let now = std::fs::read_to_string(d.path().join("f.txt")).unwrap();
    assert!(
        now.starts_with("a\nb\nline 1\nTWO\nline 3\n") && now.contains("EIGHT\n"),
        "{now}"
    );
}

#[test]
fn an_overlapping_stale_edit_is_a_conflict_with_both_sides() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("f.txt"), numbered(10)).unwrap();
    let ws = workspace(d.path());
    let v1 = read(&ws, "f.txt", None).content_hash.unwrap();
    assert!(
        edit(
            &ws,
            "f.txt",
            None,
            vec![replace_lines(5, 5, "theirs five", None)]
        )
        .success()
    );
    let before = std::fs::read_to_string(d.path().join("f.txt")).unwrap();
    let r = edit(
        &ws,
        "f.txt",
        Some(&v1),
        vec![replace_lines(4, 5, "ours four\nours five", None)],
    );
    let f = &r.files[0];
    let err = f.error().expect("a conflict");
    assert_eq!(err.code, ErrorCode::Conflict);
    assert_eq!(f.status(), FileStatus::Failed);
    assert!(!f.written());
    assert_eq!(f.edits_failed, 1);
    assert_eq!(f.edits[0].error.as_ref().unwrap().code, ErrorCode::Conflict);
    assert!(
        err.message.contains("lines 4-5") && err.message.contains("theirs five"),
        "{}",
        err.message
    );
    let c = &err.details["conflicts"][0];
    assert_eq!(c["base_start"], 4);
    assert_eq!(c["current_start"], 5);
    assert_eq!(c["current"], "theirs five\n");
    assert_eq!(c["yours"], "ours four\nours five\n");
    assert_eq!(
        std::fs::read_to_string(d.path().join("f.txt")).unwrap(),
        before
    );
}

#[test]
fn an_unknown_base_is_stale_and_bad_hashes_are_refused() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("f.txt"), numbered(3)).unwrap();
    let ws = workspace(d.path());
    let r = edit(
        &ws,
        "f.txt",
        Some("0123456789abcdef"),
        vec![replace_lines(1, 1, "x", None)],
    );
    let err = r.files[0].error().unwrap();
    assert_eq!(err.code, ErrorCode::Stale);
    assert!(
        err.message.contains("not among those filekit kept"),
        "{}",
        err.message
    );
    let r = edit(
        &ws,
        "f.txt",
        Some("12"),
        vec![replace_lines(1, 1, "x", None)],
    );
    assert_eq!(r.files[0].error().unwrap().code, ErrorCode::InvalidArgument);
    let r = edit(
        &ws,
        "f.txt",
        Some("zzzzzzzzzz"),
        vec![replace_lines(1, 1, "x", None)],
    );
    assert_eq!(r.files[0].error().unwrap().code, ErrorCode::InvalidArgument);
    assert_eq!(
        std::fs::read_to_string(d.path().join("f.txt")).unwrap(),
        numbered(3)
    );
    // A base that is the file as it is: applied as usual, not a merge.
    let h = hash::content_hash(numbered(3).as_bytes());
    let r = edit(&ws, "f.txt", Some(&h), vec![replace_lines(1, 1, "x", None)]);
    assert!(r.success() && !r.files[0].merged());
}

#[test]
fn versions_persist_for_another_process() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("f.txt"), numbered(6)).unwrap();
    let v1 = read(&workspace(d.path()), "f.txt", None)
        .content_hash
        .unwrap();
    // Someone else changes the file (not through filekit).
    std::fs::write(d.path().join("f.txt"), numbered(6).replace("line 6", "six")).unwrap();
    // A new workspace (a new process) knows v1 from disk.
    let ws = workspace(d.path());
    let r = edit(
        &ws,
        "f.txt",
        Some(&v1),
        vec![replace_lines(1, 1, "one", None)],
    );
    assert!(
        r.success() && r.files[0].merged(),
        "{:?}",
        r.files[0].error()
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("f.txt")).unwrap(),
        "one\nline 2\nline 3\nline 4\nline 5\nsix\n"
    );
}

#[test]
fn reads_since_a_version_return_a_diff_or_unchanged() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("f.txt"), numbered(20)).unwrap();
    let ws = workspace(d.path());
    let v1 = read(&ws, "f.txt", None).content_hash.unwrap();
    let same = read(&ws, "f.txt", Some(&v1[..8]));
    assert!(same.unchanged && same.content.is_empty() && same.diff.is_none());
    let r = edit(&ws, "f.txt", None, vec![replace_lines(10, 10, "ten", None)]);
    assert!(r.success());
    let changed = read(&ws, "f.txt", Some(&v1));
    assert!(!changed.unchanged && changed.content.is_empty());
    let diff = changed.diff.unwrap();
    assert!(
        diff.contains("-line 10\n+ten\n") && !diff.contains("line 2\n"),
        "{diff}"
    );
    assert_eq!(changed.content_hash, r.files[0].new_hash.clone());
    let unknown = read(&ws, "f.txt", Some("0123456789abcdef"));
    assert!(unknown.since_unknown && unknown.content.contains("ten\n"));
    let bad = read_file(
        &ws,
        "f.txt",
        &ReadOptions {
            since_hash: Some("xyz".into()),
            ..Default::default()
        },
    );
    assert_eq!(bad.error().unwrap().code, ErrorCode::InvalidArgument);
}

#[test]
fn leases_refuse_other_holders_and_expire() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("f.txt"), numbered(3)).unwrap();
    let mut a = workspace(d.path());
    a.set_holder("agent-a");
    let mut b = workspace(d.path());
    b.set_holder("agent-b");
    let p = a.resolve("f.txt").unwrap();
    let lease = leases::lock(&a, &p, "agent-a", 60).unwrap();
    assert_eq!(lease.holder, "agent-a");
    let r = edit(&b, "f.txt", None, vec![replace_lines(1, 1, "b", None)]);
    let err = r.files[0].error().unwrap();
    assert_eq!(err.code, ErrorCode::Locked);
    assert!(err.message.contains("agent-a"), "{}", err.message);
    assert!(leases::lock(&b, &p, "agent-b", 60).is_err());
    assert!(leases::unlock(&b, &p, "agent-b", false).is_err());
    assert!(edit(&a, "f.txt", None, vec![replace_lines(1, 1, "a", None)]).success());
    assert_eq!(leases::list(&a).len(), 1);
    // Deleting or moving it is a write too.
    let delete = filekit_core::fsops::apply(
        &b,
        &filekit_core::fsops::FsRequest {
            ops: vec![filekit_core::fsops::FileOp::Delete {
                path: "f.txt".into(),
                recursive: false,
            }],
            dry_run: false,
            atomic: false,
            no_create_parents: false,
            tool: None,
            rewrites: vec![],
        },
    );
    assert!(!delete.success());
    assert!(d.path().join("f.txt").exists());
    assert_eq!(
        delete.ops[0].error.as_ref().map(|e| e.code),
        Some(ErrorCode::Locked),
        "{delete:?}"
    );
    assert!(leases::unlock(&a, &p, "agent-a", false).unwrap().is_some());
    assert!(edit(&b, "f.txt", None, vec![replace_lines(2, 2, "b", None)]).success());
    // An expired lease is ignored: write one that ended a minute ago.
    leases::lock(&a, &p, "agent-a", 60).unwrap();
    let dir = a.state().unwrap().locks_dir();
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap();
    let mut l: leases::Lease = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    l.expires = l.acquired - 60;
    std::fs::write(&file, serde_json::to_vec(&l).unwrap()).unwrap();
    assert!(edit(&b, "f.txt", None, vec![replace_lines(3, 3, "b3", None)]).success());
    assert!(leases::list(&a).is_empty());
    // Bad inputs.
    assert_eq!(
        leases::lock(&a, &p, "agent-a", 0).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        leases::lock(&a, &p, " ", 10).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        leases::lock(&a, &p, "a", leases::MAX_SECONDS + 1)
            .unwrap_err()
            .code,
        ErrorCode::InvalidArgument
    );
}

/// A small deterministic generator (xorshift), so that a failing run can be replayed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// What one client did and was told.
#[derive(Debug, Clone)]
struct Logged {
    client: usize,
    /// The text the edit was made on (what the client read).
    base_text: String,
    base_hash: String,
    /// The original lines replaced (their numbers in the first version, e.g. `orig 17`).
    replaced: Vec<String>,
    new_lines: Vec<String>,
    outcome: Outcome,
}

#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    /// Written: the file went from `from` (as it was when the edit was planned) to `to`.
    Applied {
        from: String,
        to: String,
        merged: bool,
    },
    Conflict {
        current: String,
    },
    Stale,
}

#[test]
fn concurrent_clients_editing_from_stale_versions_lose_nothing() {
    const CLIENTS: usize = 6;
    const READS: usize = 6;
    const EDITS_PER_READ: usize = 3;
    let d = tempfile::tempdir().unwrap();
    let original: String = (1..=300).map(|i| format!("orig {i}\n")).collect();
    std::fs::write(d.path().join("shared.txt"), &original).unwrap();
    let ws = Arc::new(workspace(d.path()));
    let log: Arc<Mutex<Vec<Logged>>> = Arc::default();
    let threads: Vec<_> = (0..CLIENTS)
        .map(|client| {
            let ws = Arc::clone(&ws);
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ ((client as u64 + 1) * 0x1234_5678));
                let mut n = 0;
                for _ in 0..READS {
                    let got = read(&ws, "shared.txt", None);
                    let lines: Vec<&str> = got.content.lines().collect();
                    // Several edits, each from this same (increasingly stale) read.
                    for _ in 0..EDITS_PER_READ {
                        let start = rng.below(lines.len());
                        if !lines[start].starts_with("orig ") {
                            continue;
                        }
                        let mut end = start;
                        let want = rng.below(3);
                        while end + 1 < lines.len()
                            && end - start < want
                            && lines[end + 1].starts_with("orig ")
                        {
                            end += 1;
                        }
                        let new_lines: Vec<String> = (0..=rng.below(3))
                            .map(|k| format!("client {client} edit {n} line {k}"))
                            .collect();
                        n += 1;
                        let r = edit(
                            &ws,
                            "shared.txt",
                            got.content_hash.as_deref(),
                            vec![replace_lines(
                                start as i64 + 1,
                                end as i64 + 1,
                                &new_lines.join("\n"),
                                None,
                            )],
                        );
                        let f = &r.files[0];
                        let outcome = match f.error() {
                            None => Outcome::Applied {
                                from: f.old_hash.clone().unwrap(),
                                to: f.new_hash.clone().unwrap(),
                                merged: f.merged(),
                            },
                            Some(e) if e.code == ErrorCode::Conflict => Outcome::Conflict {
                                current: f.old_hash.clone().unwrap(),
                            },
                            Some(e) if e.code == ErrorCode::Stale => Outcome::Stale,
                            Some(e) => panic!("client {client}: unexpected {e:?}"),
                        };
                        log.lock().unwrap().push(Logged {
                            client,
                            base_text: got.content.clone(),
                            base_hash: got.content_hash.clone().unwrap(),
                            replaced: lines[start..=end].iter().map(|s| s.to_string()).collect(),
                            new_lines,
                            outcome,
                        });
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let log = log.lock().unwrap().clone();
    let final_text = std::fs::read_to_string(d.path().join("shared.txt")).unwrap();
    let final_lines: Vec<&str> = final_text.lines().collect();

    // The applied edits form one chain of versions from the original to the final file.
    let mut next: std::collections::HashMap<String, usize> = Default::default();
    for (i, l) in log.iter().enumerate() {
        if let Outcome::Applied { from, to, .. } = &l.outcome {
            assert_ne!(from, to, "an applied edit changed nothing: {l:?}");
            assert!(
                next.insert(from.clone(), i).is_none(),
                "two edits were applied to version {from}: a lost update"
            );
        }
    }
    let mut chain: Vec<usize> = Vec::new();
    let mut at = hash::content_hash(original.as_bytes());
    let mut position: std::collections::HashMap<String, usize> = Default::default();
    position.insert(at.clone(), 0);
    while let Some(&i) = next.get(&at) {
        chain.push(i);
        let Outcome::Applied { to, .. } = &log[i].outcome else {
            unreachable!()
        };
        at = to.clone();
        position.insert(at.clone(), chain.len());
    }
    let applied = log
        .iter()
        .filter(|l| matches!(l.outcome, Outcome::Applied { .. }))
        .count();
    assert_eq!(
        chain.len(),
        applied,
        "every applied edit is on the chain of versions"
    );
    assert_eq!(
        at,
        hash::content_hash(final_text.as_bytes()),
        "the chain ends at the file on disk"
    );

    // Every applied edit is in the final file, whole: edits only replace original lines, so
    // nothing may have removed another client's lines.
    for l in &log {
        if let Outcome::Applied { .. } = l.outcome {
            let first = final_lines
                .iter()
                .position(|x| *x == l.new_lines[0])
                .unwrap_or_else(|| panic!("lost: {l:?}"));
            assert_eq!(
                &final_lines[first..first + l.new_lines.len()],
                l.new_lines
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .as_slice(),
                "broken: {l:?}"
            );
            for r in &l.replaced {
                assert!(!final_lines.contains(&r.as_str()), "{r} came back: {l:?}");
            }
        }
    }
    // Each edit's verdict is what the changes between its version and the file it met
    // require: a conflict if and only if one of them touched or overlapped its lines (in
    // the version it read).
    let (mut merged, mut conflicts) = (0, 0);
    for l in &log {
        let (current, is_conflict) = match &l.outcome {
            Outcome::Applied {
                from, merged: m, ..
            } => {
                merged += usize::from(*m);
                (from, false)
            }
            Outcome::Conflict { current } => {
                conflicts += 1;
                (current, true)
            }
            Outcome::Stale => continue,
        };
        let (Some(&b), Some(&c)) = (position.get(&l.base_hash), position.get(current)) else {
            panic!("a version off the chain: {l:?}");
        };
        let base: Vec<&str> = l.base_text.lines().collect();
        let idx = |s: &str| {
            base.iter()
                .position(|x| *x == s)
                .expect("an original line of the base")
        };
        let (p, q) = (idx(&l.replaced[0]), idx(l.replaced.last().unwrap()));
        let expected_conflict = chain[b..c].iter().any(|&i| {
            let other = &log[i];
            let (p2, q2) = (idx(&other.replaced[0]), idx(other.replaced.last().unwrap()));
            p <= q2 + 1 && p2 <= q + 1
        });
        assert_eq!(is_conflict, expected_conflict, "client {}: {l:?}", l.client);
    }
    let stale = log.iter().filter(|l| l.outcome == Outcome::Stale).count();
    eprintln!(
        "{} edits: {applied} applied ({merged} merged), {conflicts} conflicts, {stale} stale",
        log.len()
    );
    assert!(merged > 10, "the simulation merged only {merged} edits");
    assert!(conflicts > 0, "the simulation made no conflict");
}
