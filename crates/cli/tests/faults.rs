//! Permission faults in a batch, through `filekit call` as a user that file modes
//! apply to (`call_unprivileged`): a directory that became read-only and a file that became
//! unreadable since the agent looked. Each affected file is reported with what to do, nothing
//! is half-written, and the other files of the (non-atomic) batch are written.

use crate::common;
use common::*;
use serde_json::json;
use std::os::unix::fs::PermissionsExt;

fn chmod(path: &std::path::Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn permission_changes_fail_only_the_affected_files() {
    let sb = Sandbox::new();
    sb.write("locked/a.txt", "old\n");
    sb.write("secret/b.txt", "old\n");
    sb.write("free/c.txt", "old\n");
    let is_root = rustix::process::geteuid().is_root();
    if is_root {
        // The unprivileged run is `nobody`: it owns the directory it may write in.
        let nobody = Some(rustix::process::Uid::from_raw(65534).as_raw());
        std::os::unix::fs::chown(sb.path("free"), nobody, None).unwrap();
        std::os::unix::fs::chown(sb.path("free/c.txt"), nobody, None).unwrap();
    }
    let call = json!({"tool_name": "edit_files", "tool_args": {"files": [
        {"path": "locked/a.txt", "edits": [{"str_replace": {"old": "old", "new": "new"}}]},
        {"path": "secret/b.txt", "edits": [{"str_replace": {"old": "old", "new": "new"}}]},
        {"path": "free/c.txt", "edits": [{"str_replace": {"old": "old", "new": "new"}}]},
    ]}});
    // Locked after the agent read them: no new file in `locked/`, no reading `b.txt`.
    let run = {
        let restore = |sb: &Sandbox| {
            chmod(&sb.path("locked"), 0o755);
            chmod(&sb.path("secret/b.txt"), 0o644);
        };
        // call_unprivileged opens directories for reading; lock after it would, by locking
        // what it leaves alone: the file's mode, and the directory's write bit for its owner
        // (root when the test runs as root, where `nobody` could not write anyway).
        chmod(&sb.path("secret/b.txt"), 0o000);
        if !is_root {
            chmod(&sb.path("locked"), 0o555);
        }
        let run = call_unprivileged(&sb, &call);
        restore(&sb);
        run
    };
    let files = run.json["files"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", run.stdout));
    let text = |i: usize| files[i].to_string();
    assert_eq!(files[0]["status"], "failed", "{}", text(0));
    assert!(text(0).contains("permission denied"), "{}", text(0));
    assert_eq!(files[1]["status"], "failed", "{}", text(1));
    assert!(text(1).contains("permission denied"), "{}", text(1));
    assert!(
        text(1).contains("check the file's permissions"),
        "{}",
        text(1)
    );
    assert_eq!(files[2]["status"], "modified", "{}", text(2));
    assert_eq!(sb.read("locked/a.txt"), "old\n");
    assert_eq!(sb.read("secret/b.txt"), "old\n");
    assert_eq!(sb.read("free/c.txt"), "new\n");
    let leftovers: Vec<_> = sb
        .snapshot()
        .into_keys()
        .filter(|p| p.to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
