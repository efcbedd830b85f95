//! A workspace cannot forge or redirect filekit's own state (issue: the trust boundary).
//!
//! A repository can ship anything in `.filekit/`, and a model's tool calls can make links
//! there. filekit keeps its state (history, versions, leases, the records of atomic runs) in
//! the user's state directory instead, so none of that may be read as state, replayed, pruned
//! or written through: every attack of the attack pass is rebuilt here through `filekit call`,
//! the CLI verbs and `filekit serve` (MCP over stdio), and each checks that nothing outside the
//! roots (but filekit's state directory) and nothing the plant aimed at changed.

use crate::common;

use common::Sandbox;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Every file under `dir` with its bytes (links as their target text).
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let t = e.file_type().unwrap();
            if t.is_symlink() {
                let target = std::fs::read_link(&p).unwrap();
                out.insert(p, target.into_os_string().into_encoded_bytes());
            } else if t.is_dir() {
                out.insert(p.clone(), b"<dir>".to_vec());
                stack.push(p);
            } else if t.is_file() {
                out.insert(p.clone(), std::fs::read(&p).unwrap_or_default());
            } else {
                // A FIFO or device: never opened (that could block).
                out.insert(p, b"<special>".to_vec());
            }
        }
    }
    out
}

/// Runs `filekit serve --root <sandbox>` over stdio, sends `initialize`, `initialized` and one
/// `tools/call` per call given, and returns the replies to the calls. Fails the test if the
/// server does not answer within a minute.
fn serve_calls(sb: &Sandbox, extra: &[&str], calls: &[(&str, Value)]) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_filekit"))
        .arg("--root")
        .arg(sb.root())
        .arg("serve")
        .args(extra)
        .env("XDG_STATE_HOME", sb.xdg_state_home())
        .current_dir(sb.root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run filekit serve");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Ok(v) = serde_json::from_str::<Value>(&line)
                && tx.send(v).is_err()
            {
                break;
            }
        }
    });
    let mut send = |v: Value| {
        stdin.write_all(format!("{v}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    };
    let wait_for = |id: u64| -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let v = rx
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("filekit serve gave no reply to request {id}"));
            if v["id"] == json!(id) {
                return v;
            }
        }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "planted-state-test", "version": "1"}}}),
    );
    wait_for(0);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let mut replies = Vec::new();
    for (i, (tool, args)) in calls.iter().enumerate() {
        let id = i as u64 + 1;
        send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": args}}));
        replies.push(wait_for(id));
    }
    let _ = child.kill();
    let _ = child.wait();
    replies
}

/// A journal as filekit 0.1 kept it in the tree, planted by a repository: a write step whose
/// backup is a file of the repository and whose path is `.git/config` (its `core.fsmonitor`
/// line would run a command at the next `git status`), a rename step that installs a git
/// hook, and a write step of a file that "did not exist" (a rollback deletes it).
fn plant_journal(sb: &Sandbox) {
    sb.write(".git/config", "[core]\n\trepositoryformatversion = 0\n")
        .write(
            "evil/config",
            "[core]\n\tfsmonitor = touch /tmp/pwned-by-fsmonitor\n",
        )
        .write("evil/pre-commit", "#!/bin/sh\ntouch /tmp/pwned-by-hook\n")
        .write("src/keep.txt", "the project's file\n");
    for (tx, format) in [("1-1-0", 1), ("2-1-0", 2)] {
        let dir = format!(".filekit/journal/{tx}");
        let manifest = json!({
            "format": format,
            "roots": [sb.root()],
            "staging": dir,
            "steps": [
                {"op": "write", "root": 0, "path": ".git/config", "temp": ".git/.filekit.x.0.tmp",
                 "existed": true, "backup": "evil/config"},
                {"op": "rename", "from_root": 0, "from": ".git/hooks/pre-commit", "to_root": 0,
                 "to": "evil/pre-commit", "backup": "evil/none"},
                {"op": "write", "root": 0, "path": "src/keep.txt", "temp": "src/.filekit.x.2.tmp",
                 "existed": false, "backup": format!("{dir}/b2")},
            ]
        });
        sb.write(&format!("{dir}/manifest"), &manifest.to_string())
            .write(&format!("{dir}/lock"), "");
    }
}

fn assert_plant_not_replayed(sb: &Sandbox, how: &str) {
    assert_eq!(
        sb.read(".git/config"),
        "[core]\n\trepositoryformatversion = 0\n",
        "{how}: .git/config was replaced"
    );
    assert!(
        !sb.exists(".git/hooks/pre-commit"),
        "{how}: a git hook was installed"
    );
    assert_eq!(
        sb.read("src/keep.txt"),
        "the project's file\n",
        "{how}: a project file was deleted"
    );
    assert!(sb.exists("evil/config") && sb.exists("evil/pre-commit"));
    assert!(
        sb.exists(".filekit/journal/1-1-0/manifest") && sb.exists(".filekit/journal/2-1-0/lock"),
        "{how}: the planted journal was cleared as if it were filekit's"
    );
}

#[test]
fn a_planted_journal_is_never_replayed() {
    let sb = Sandbox::new();
    plant_journal(&sb);
    // Every front end recovers at start: `call`, the verbs, the server.
    let run = sb.call("Read", json!({"file_path": "src/keep.txt"}));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_plant_not_replayed(&sb, "filekit call");
    for verb in [&["ls", "."][..], &["history"], &["read", "src/keep.txt"]] {
        let run = sb.filekit(verb, None);
        assert!(run.code == 0 || run.code == 1, "{verb:?}: {}", run.stderr);
        assert_plant_not_replayed(&sb, &format!("filekit {verb:?}"));
    }
    let replies = serve_calls(
        &sb,
        &[],
        &[("read_files", json!({"files": [{"path": "src/keep.txt"}]}))],
    );
    assert_eq!(replies[0]["result"]["isError"], false, "{}", replies[0]);
    assert_plant_not_replayed(&sb, "filekit serve");
    // An atomic request recovers before it begins, too.
    let run = sb.call(
        "edit_files",
        json!({"options": {"atomic": true}, "files": [
            {"path": "a.txt", "edits": [{"create": {"content": "a\n"}}]},
            {"path": "b.txt", "edits": [{"create": {"content": "b\n"}}]}]}),
    );
    assert_plant_not_replayed(&sb, &format!("an atomic request ({})", run.stdout));
}

#[test]
fn a_journal_through_an_in_root_link_is_never_replayed() {
    // Reachable with tool calls alone: the model writes a "journal" as data, then links
    // `.filekit` to it (filekit refuses writes into `.filekit/` itself, not links to elsewhere).
    let sb = Sandbox::new();
    plant_journal(&sb);
    std::fs::rename(sb.path(".filekit"), sb.path("data")).unwrap();
    std::os::unix::fs::symlink("data", sb.path(".filekit")).unwrap();
    let run = sb.call("Read", json!({"file_path": "src/keep.txt"}));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let replies = serve_calls(
        &sb,
        &[],
        &[("read_files", json!({"files": [{"path": "src/keep.txt"}]}))],
    );
    assert_eq!(replies[0]["result"]["isError"], false, "{}", replies[0]);
    assert_plant_not_replayed(&sb, "through .filekit -> data");
    // An atomic request needs `.filekit/` for its backups: a link there is refused, not
    // followed into `data/`.
    let before = tree(&sb.path("data"));
    let run = sb.call(
        "edit_files",
        json!({"options": {"atomic": true}, "files": [
            {"path": "a.txt", "edits": [{"create": {"content": "a\n"}}]},
            {"path": "b.txt", "edits": [{"create": {"content": "b\n"}}]}]}),
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains(".filekit") && run.stdout.contains("symbolic link"),
        "{}",
        run.stdout
    );
    assert!(!sb.exists("a.txt") && !sb.exists("b.txt"));
    assert_eq!(before, tree(&sb.path("data")), "data/ changed");
}

/// `.filekit` a link to a directory outside the roots: no tool or verb creates, changes or
/// reads anything there (versions, history, leases, journals used to follow it).
#[test]
fn a_filekit_link_out_of_the_root_is_never_followed() {
    let sb = Sandbox::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("mine.txt"), "the user's other file\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), sb.path(".filekit")).unwrap();
    sb.write("a.txt", "one\n");
    let before = tree(outside.path());
    let calls = [
        ("Read", json!({"file_path": "a.txt"})),
        (
            "Write",
            json!({"file_path": sb.path("b.txt"), "content": "two\n"}),
        ),
        (
            "Edit",
            json!({"file_path": "a.txt", "old_string": "one", "new_string": "uno"}),
        ),
        ("lock", json!({"paths": ["a.txt"], "holder": "me"})),
        ("history", json!({})),
        (
            "manage_files",
            json!({"atomic": true, "operations": [
                {"op": "copy", "from": "a.txt", "to": "c.txt"},
                {"op": "copy", "from": "b.txt", "to": "d.txt"}]}),
        ),
    ];
    for (tool, args) in &calls {
        let run = sb.call(tool, args.clone());
        assert!(run.code == 0 || run.code == 1, "{tool}: {}", run.stderr);
        assert_eq!(before, tree(outside.path()), "{tool}: the outside changed");
    }
    assert_eq!(sb.read("a.txt"), "uno\n");
    assert_eq!(sb.read("b.txt"), "two\n");
    // The state went where it belongs.
    assert!(sb.state_path("history.db").is_file());
    assert!(sb.state_path("versions").is_dir());
    assert!(sb.state_path("locks").is_dir());
    // The same over MCP.
    let replies = serve_calls(
        &sb,
        &["--tools", "filekit,claude"],
        &calls
            .iter()
            .map(|(t, a)| (*t, a.clone()))
            .collect::<Vec<_>>(),
    );
    for r in &replies {
        assert!(r["result"].is_object(), "{r}");
    }
    assert_eq!(replies[0]["result"]["isError"], false, "{}", replies[0]);
    assert_eq!(
        before,
        tree(outside.path()),
        "filekit serve: the outside changed"
    );
}

/// A history database shipped in the tree (another project's, with a secret in its diffs)
/// is never opened: `history` shows this workspace's own entries only.
#[test]
fn a_shipped_history_is_never_read() {
    let donor = Sandbox::new();
    donor.write("secret.env", "API_KEY=old\n");
    let run = donor.call(
        "Edit",
        json!({"file_path": "secret.env", "old_string": "old", "new_string": "hunter2"}),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let sb = Sandbox::new();
    std::fs::create_dir(sb.path(".filekit")).unwrap();
    std::fs::copy(
        donor.state_path("history.db"),
        sb.path(".filekit/history.db"),
    )
    .unwrap();
    let run = sb.call("history", json!({}));
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(!run.stdout.contains("secret.env"), "{}", run.stdout);
    let run = sb.filekit(&["history", "--show", "1"], None);
    assert!(!run.stdout.contains("hunter2"), "{}", run.stdout);
    // A link to another workspace's history is not followed either.
    std::fs::remove_file(sb.path(".filekit/history.db")).unwrap();
    std::os::unix::fs::symlink(
        donor.state_path("history.db"),
        sb.path(".filekit/history.db"),
    )
    .unwrap();
    let run = sb.call("history", json!({}));
    assert!(!run.stdout.contains("secret.env"), "{}", run.stdout);
    let donor_db = std::fs::read(donor.state_path("history.db")).unwrap();
    sb.write("x.txt", "x\n");
    let run = sb.call(
        "Edit",
        json!({"file_path": "x.txt", "old_string": "x", "new_string": "y"}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        donor_db,
        std::fs::read(donor.state_path("history.db")).unwrap(),
        "a write went into another workspace's history"
    );
}

/// Pruning the versions once deleted the oldest files of the directory `.filekit/versions`
/// linked to: now the versions are not in the tree, and a planted folder is never pruned.
#[test]
fn planted_versions_are_neither_pruned_nor_read() {
    let sb = Sandbox::new();
    let outside = tempfile::tempdir().unwrap();
    for i in 0..4 {
        std::fs::write(outside.path().join(format!("big{i}")), vec![b'x'; 4 << 20]).unwrap();
    }
    std::fs::create_dir(sb.path(".filekit")).unwrap();
    std::os::unix::fs::symlink(outside.path(), sb.path(".filekit/versions")).unwrap();
    // A FIFO named like a version, which a look-up by hash used to open and block on.
    let a_hash = {
        sb.write("a.txt", "alpha\n");
        common::hash_of(&sb, "a.txt")
    };
    rustix::fs::mknodat(
        rustix::fs::CWD,
        outside.path().join(&a_hash),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let before = tree(outside.path());
    for i in 0..70 {
        sb.write(&format!("f{i}.txt"), &format!("file {i}\n").repeat(2000));
    }
    let files: Vec<Value> = (0..70)
        .map(|i| json!({"path": format!("f{i}.txt")}))
        .collect();
    let run = sb.call("read_files", json!({"files": files}));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = sb.call(
        "read_files",
        json!({"files": [{"path": "a.txt", "since_hash": a_hash}]}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(before, tree(outside.path()), "the outside changed");
}

/// Leases are bounded: a lock of 100,000 paths (they need not exist) used to write 400 MB.
#[test]
fn leases_are_bounded() {
    let sb = Sandbox::new();
    let paths: Vec<String> = (0..100_000).map(|i| format!("p{i}.txt")).collect();
    let run = sb.call("lock", json!({"paths": paths, "holder": "me"}));
    assert_eq!(
        run.code, 2,
        "refused before anything was tried: {}",
        run.stdout
    );
    assert!(run.stdout.contains("TOO_LARGE"), "{}", run.stdout);
    assert!(run.stdout.contains("1000"), "{}", run.stdout);
    let locks = sb.state_dir().join("locks");
    let count = std::fs::read_dir(&locks).map(|r| r.count()).unwrap_or(0);
    assert_eq!(count, 0, "a refused lock left lease files");
    let paths: Vec<String> = (0..1000).map(|i| format!("p{i}.txt")).collect();
    let run = sb.call("lock", json!({"paths": paths, "holder": "me"}));
    assert_eq!(run.code, 0, "{}", run.stdout);
}

// ---------------------------------------------------------------------------------------------
// Deletes keep their promise: a recursive delete that cannot remove everything removes nothing.

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Makes `dir` and everything under it belong to `nobody` (when the tests run as root), so
/// that file modes apply to a filekit run by `common::call_unprivileged`.
fn give_to_nobody(dir: &Path) {
    if !is_root() {
        return;
    }
    let status = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(dir)
        .status()
        .unwrap();
    assert!(status.success());
}

fn tree_of_twenty(sb: &Sandbox) {
    for i in 0..20 {
        sb.write(&format!("tree/d{}/f{i}.txt", i % 4), "x\n");
    }
}

fn count_files(dir: &Path) -> usize {
    tree(dir)
        .values()
        .filter(|v| v.as_slice() != b"<dir>")
        .count()
}

#[test]
fn a_recursive_delete_with_a_read_only_folder_deletes_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    tree_of_twenty(&sb);
    give_to_nobody(sb.root());
    std::fs::set_permissions(sb.path("tree/d3"), std::fs::Permissions::from_mode(0o555)).unwrap();
    for atomic in [true, false] {
        let call = json!({"tool_name": "manage_files", "tool_args": {"atomic": atomic,
            "operations": [{"op": "delete", "path": "tree", "recursive": true}]}});
        let run = common::call_unprivileged(&sb, &call);
        assert_eq!(run.code, 1, "atomic {atomic}: {}{}", run.stdout, run.stderr);
        assert!(
            run.stdout.contains("nothing was deleted") && run.stdout.contains("tree/d3"),
            "atomic {atomic}: {}",
            run.stdout
        );
        assert_eq!(
            count_files(&sb.path("tree")),
            20,
            "atomic {atomic}: files deleted"
        );
    }
    let call =
        json!({"tool_name": "file_delete", "tool_args": {"path": "tree", "recursive": true}});
    let run = common::call_unprivileged(&sb, &call);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("tree/d3"), "{}", run.stdout);
    assert_eq!(run.json["success"], false, "{}", run.stdout);
    assert!(run.stdout.contains("1 failed"), "{}", run.stdout);
    assert_eq!(count_files(&sb.path("tree")), 20);
    // With the folder writable again, the same delete removes it all, and undo brings it back.
    std::fs::set_permissions(sb.path("tree/d3"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let call = json!({"tool_name": "manage_files", "tool_args": {"atomic": true,
        "operations": [{"op": "delete", "path": "tree", "recursive": true}]}});
    let run = common::call_unprivileged(&sb, &call);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(!sb.exists("tree"));
    let run = common::call_unprivileged(&sb, &json!({"tool_name": "undo", "tool_args": {}}));
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(count_files(&sb.path("tree")), 20);
}

#[test]
#[ignore = "needs root (chattr +i); .ci/run runs the ignored tests as root"]
fn a_recursive_delete_with_an_immutable_file_deletes_nothing() {
    let sb = Sandbox::new();
    tree_of_twenty(&sb);
    let locked = sb.path("tree/d2/f2.txt");
    let chattr = Command::new("chattr").arg("+i").arg(&locked).output();
    assert!(
        chattr.is_ok_and(|o| o.status.success()),
        "chattr +i failed: this test needs root and a file system with the immutable attribute"
    );
    let run = sb.call(
        "manage_files",
        json!({"operations": [{"op": "delete", "path": "tree", "recursive": true}]}),
    );
    let _ = Command::new("chattr").arg("-i").arg(&locked).status();
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("immutable") && run.stdout.contains("f2.txt"),
        "{}",
        run.stdout
    );
    assert_eq!(count_files(&sb.path("tree")), 20);
}

#[test]
#[ignore = "needs root (mount --bind); .ci/run runs the ignored tests as root"]
fn a_recursive_delete_over_a_mount_point_deletes_nothing() {
    let sb = Sandbox::new();
    tree_of_twenty(&sb);
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("theirs.txt"), "not the workspace's\n").unwrap();
    std::fs::create_dir(sb.path("tree/d1/mnt")).unwrap();
    let mounted = Command::new("mount")
        .arg("--bind")
        .arg(elsewhere.path())
        .arg(sb.path("tree/d1/mnt"))
        .output();
    assert!(
        mounted.is_ok_and(|o| o.status.success()),
        "mount --bind failed: this test needs root with CAP_SYS_ADMIN"
    );
    let run = sb.call(
        "manage_files",
        json!({"operations": [{"op": "delete", "path": "tree", "recursive": true}]}),
    );
    let _ = Command::new("umount").arg(sb.path("tree/d1/mnt")).status();
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("mounted"), "{}", run.stdout);
    assert_eq!(count_files(&sb.path("tree")), 20);
    assert!(elsewhere.path().join("theirs.txt").exists());
}

/// A delete, move or copy keeps the contents it changes for undo: a tree too large for that
/// (here a sparse 100 GB file, which costs no disk) is refused before any file is read, where
/// it once was read whole into memory.
#[test]
fn a_tree_too_large_to_keep_is_refused_before_it_is_read() {
    let sb = Sandbox::new();
    sb.write("big/small.txt", "s\n");
    std::fs::File::create(sb.path("big/huge.bin"))
        .unwrap()
        .set_len(100 << 30)
        .unwrap();
    for (op, needle) in [
        (
            json!({"op": "delete", "path": "big", "recursive": true}),
            "TOO_LARGE",
        ),
        (
            json!({"op": "move", "from": "big", "to": "moved"}),
            "TOO_LARGE",
        ),
        (
            json!({"op": "copy", "from": "big", "to": "copied"}),
            "TOO_LARGE",
        ),
    ] {
        let run = sb.call("manage_files", json!({"operations": [op]}));
        assert_eq!(run.code, 1, "{op}: {}", run.stdout);
        assert!(run.stdout.contains(needle), "{op}: {}", run.stdout);
        assert!(sb.exists("big/huge.bin") && sb.exists("big/small.txt"));
        assert!(!sb.exists("moved") && !sb.exists("copied"));
    }
}

// ---------------------------------------------------------------------------------------------
// The state verb: where the state is, secrets at rest purged, an old in-tree history imported
// only when asked.

fn raw_history_bytes(sb: &Sandbox) -> Vec<u8> {
    let mut all = Vec::new();
    for suffix in ["history.db", "history.db-wal"] {
        all.extend(std::fs::read(sb.state_path(suffix)).unwrap_or_default());
    }
    all
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn the_state_verb_shows_purges_and_imports() {
    const SECRET: &[u8] = b"API_TOKEN=9f8e7d6c5b4a39281706f5e4d3c2b1a0";
    let sb = Sandbox::new();
    sb.write(".env", "API_TOKEN=placeholder\n");
    let run = sb.call(
        "Write",
        json!({"file_path": sb.path(".env"), "content": format!("{}\n", String::from_utf8_lossy(SECRET))}),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    let shown = sb.filekit(&["state", "--json"], None);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    assert_eq!(shown.json["state_dir"], json!(sb.state_dir()));
    assert!(shown.json["history_bytes"].as_u64().unwrap() > 0);
    assert!(
        contains(&raw_history_bytes(&sb), SECRET),
        "the history keeps what was written (the test would prove nothing otherwise)"
    );
    // One entry forgotten: its contents are gone from the database's bytes.
    let run = sb.filekit(&["state", "purge", "--entry", "1"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !contains(&raw_history_bytes(&sb), SECRET),
        "the secret is still on disk"
    );
    assert_eq!(sb.filekit(&["history", "--json"], None).json, json!([]));
    let run = sb.filekit(&["state", "purge", "--entry", "7"], None);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("no history entry 7"), "{}", run.stderr);
    // The whole folder, and looking at it afterwards makes nothing.
    let dir = sb.state_dir();
    let run = sb.filekit(&["state", "purge"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!dir.exists());
    assert_eq!(sb.filekit(&["state"], None).code, 0);
    assert!(!dir.exists(), "`filekit state` made the folder it shows");

    // An older filekit kept its history in the tree: it is read only when imported.
    let old = Sandbox::new();
    old.write("a.txt", "a\n");
    let run = old.filekit(
        &[
            "--history",
            old.path(".filekit/history.db").to_str().unwrap(),
            "call",
            "--json",
            &json!({"tool_name": "Edit", "tool_args": {"file_path": "a.txt", "old_string": "a", "new_string": "b"}}).to_string(),
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(old.filekit(&["history", "--json"], None).json, json!([]));
    let run = old.filekit(&["state", "import", "a.txt"], None);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stderr.contains("not a filekit history"),
        "{}",
        run.stderr
    );
    let run = old.filekit(&["state", "import", ".filekit/history.db"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("imported 1 history entries"),
        "{}",
        run.stdout
    );
    let listed = old.filekit(&["history", "--json"], None);
    assert_eq!(
        listed.json.as_array().unwrap().len(),
        1,
        "{}",
        listed.stdout
    );
    let run = old.filekit(&["state", "import", ".filekit/history.db"], None);
    assert_eq!(run.code, 1, "a second import over a history");
    assert!(
        run.stderr.contains("already holds a history"),
        "{}",
        run.stderr
    );
}

/// Leases a repository ships (or a link brings in) refuse no write: a planted lease file of
/// filekit's old format in `.filekit/locks/` is not read, while a lease taken through filekit
/// still applies.
#[test]
fn planted_leases_refuse_nothing() {
    let sb = Sandbox::new();
    sb.write("a.txt", "one\n");
    // A real lease file, taken by "mallory" for this very path, moved into the tree.
    let run = sb.filekit(
        &["--holder", "mallory", "lock", "a.txt", "--ttl", "3600"],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    std::fs::create_dir_all(sb.path(".filekit")).unwrap();
    std::fs::rename(sb.state_path("locks"), sb.path(".filekit/locks")).unwrap();
    let run = sb.call(
        "Edit",
        json!({"file_path": "a.txt", "old_string": "one", "new_string": "two"}),
    );
    assert_eq!(
        run.code, 0,
        "a planted lease refused a write: {}",
        run.stdout
    );
    assert_eq!(sb.read("a.txt"), "two\n");
    // The same lease taken through filekit refuses another holder's write.
    let run = sb.filekit(
        &["--holder", "mallory", "lock", "a.txt", "--ttl", "3600"],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = sb.call(
        "Edit",
        json!({"file_path": "a.txt", "old_string": "two", "new_string": "three"}),
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("LOCKED"), "{}", run.stdout);
}
