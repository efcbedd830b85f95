//! Shared helpers: a temporary workspace and ways to run the real `filekit` binary in it.
#![allow(dead_code)] // each test file uses a different part of this module

pub mod scenarios;
pub mod trees;

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A 1x1 transparent PNG.
pub const PNG_1X1: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
    0x42, 0x60, 0x82,
];

/// Ten numbered lines, `line 1` .. `line 10`.
pub const TEN_LINES: &str =
    "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\n";

/// A temporary directory that is the workspace root of every command run in it, and another,
/// outside it, that is filekit's state directory for those commands (`XDG_STATE_HOME`): the
/// tests never touch the state of the user who runs them.
pub struct Sandbox {
    dir: tempfile::TempDir,
    state: tempfile::TempDir,
}

/// What a run of the binary gave: exit code, stdout parsed as JSON when it is JSON, and both
/// streams as text.
pub struct Run {
    pub code: i32,
    pub json: Value,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn parse(out: Output) -> Run {
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        Run {
            code: out.status.code().unwrap_or(-1),
            json: serde_json::from_str(&stdout).unwrap_or(Value::Null),
            stdout,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// The reply's `error` (or DC's `message`) as text, for message checks.
    pub fn error(&self) -> String {
        let v = if self.json.is_array() {
            &self.json[0]
        } else {
            &self.json
        };
        v.get("error")
            .or_else(|| v.get("message"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    }
}

impl Sandbox {
    pub fn new() -> Sandbox {
        Sandbox {
            dir: tempfile::tempdir().expect("temp dir"),
            state: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// A sandbox in memory (`/dev/shm`, where the machine has one), for the scenarios of
    /// thousands of files whose subject is descriptors, signals and litter, not the disk: the
    /// same writes, each file's fsync included, without waiting for a disk to flush 20,000 of
    /// them. Elsewhere, the same as [`Sandbox::new`].
    pub fn in_memory() -> Sandbox {
        let shm = Path::new("/dev/shm");
        match (tempfile::tempdir_in(shm), tempfile::tempdir_in(shm)) {
            (Ok(dir), Ok(state)) => Sandbox { dir, state },
            _ => Sandbox::new(),
        }
    }

    /// The `XDG_STATE_HOME` of the commands run in this sandbox.
    pub fn xdg_state_home(&self) -> &Path {
        self.state.path()
    }

    /// The workspace's state directory (history, versions, leases, journals), once a command
    /// made it: the one folder under `$XDG_STATE_HOME/filekit/workspaces/`.
    pub fn state_dir(&self) -> PathBuf {
        let base = self.state.path().join("filekit/workspaces");
        let mut found: Vec<PathBuf> = std::fs::read_dir(&base)
            .unwrap_or_else(|e| panic!("no state directory under {}: {e}", base.display()))
            .flatten()
            .map(|e| e.path())
            .collect();
        assert_eq!(found.len(), 1, "state folders: {found:?}");
        found.pop().unwrap()
    }

    /// A path in the workspace's state directory (`history.db`, `versions`, `locks`).
    pub fn state_path(&self, rel: &str) -> PathBuf {
        self.state_dir().join(rel)
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn write(&self, rel: &str, content: &str) -> &Self {
        self.write_bytes(rel, content.as_bytes())
    }

    pub fn write_bytes(&self, rel: &str, content: &[u8]) -> &Self {
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(p, content).unwrap();
        self
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("reading {rel}: {e}"))
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.path(rel).exists()
    }

    /// Every file under the root with its bytes: compare before and after a failing call to
    /// show that nothing on disk changed.
    pub fn snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for e in entries.flatten() {
                let p = e.path();
                // The graph watcher's cookie folder is filekit's, not the user's files.
                if p.ends_with(".filekit/.gitignore") {
                    continue;
                }
                let ft = e.file_type().unwrap();
                if ft.is_dir() {
                    // `.filekit/` appears with the cookies and the (empty) journal folder
                    // with the first write: only what is in them counts.
                    if !p.ends_with(".filekit") && !p.ends_with(".filekit/journal") {
                        out.insert(p.clone(), b"<dir>".to_vec());
                    }
                    walk(&p, out);
                } else {
                    out.insert(
                        p.clone(),
                        std::fs::read(&p).unwrap_or_else(|_| b"<unreadable>".to_vec()),
                    );
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(self.root(), &mut out);
        out
    }

    /// Runs `filekit --root <sandbox> ARGS` in the sandbox with `stdin`.
    pub fn filekit(&self, args: &[&str], stdin: Option<&str>) -> Run {
        self.filekit_env(args, stdin, &[])
    }

    /// `filekit --root <sandbox> ARGS` in the sandbox, its streams piped, not started.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_filekit"));
        cmd.current_dir(self.root())
            .arg("--root")
            .arg(self.root())
            .args(args)
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .env("XDG_STATE_HOME", self.xdg_state_home())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    pub fn filekit_env(&self, args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Run {
        let mut cmd = self.command(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let stdin = stdin.unwrap_or_default().as_bytes().to_vec();
        run_measured(cmd, stdin, COMMAND_TIMEOUT).run
    }

    /// `filekit call` with `{"tool_name": tool, "tool_args": args}` on stdin (no table named:
    /// a name the curated table has is its tool).
    pub fn call(&self, tool: &str, args: Value) -> Run {
        let call = json!({"thoughts": ["testing"], "headline": "test", "tool_name": tool, "tool_args": args});
        self.filekit(&["call"], Some(&call.to_string()))
    }

    /// [`Sandbox::call`] of the tool of the table `table` (`filekit call --tools TABLE`).
    pub fn call_in(&self, table: &str, tool: &str, args: Value) -> Run {
        let call = json!({"tool_name": tool, "tool_args": args});
        self.filekit(&["call", "--tools", table], Some(&call.to_string()))
    }

    /// Like [`Sandbox::call`], and asserts that the call failed, that the failure message
    /// contains every one of `needles`, and that no file changed.
    pub fn call_fails(&self, tool: &str, args: Value, code: i32, needles: &[&str]) -> Run {
        self.fails(|| self.call(tool, args.clone()), tool, &args, code, needles)
    }

    /// [`Sandbox::call_fails`] of the tool of the table `table`.
    pub fn call_fails_in(
        &self,
        table: &str,
        tool: &str,
        args: Value,
        code: i32,
        needles: &[&str],
    ) -> Run {
        self.fails(
            || self.call_in(table, tool, args.clone()),
            tool,
            &args,
            code,
            needles,
        )
    }

    fn fails(
        &self,
        call: impl FnOnce() -> Run,
        tool: &str,
        args: &Value,
        code: i32,
        needles: &[&str],
    ) -> Run {
        let before = self.snapshot();
        let run = call();
        assert_eq!(
            run.code, code,
            "{tool} {args}: exit code\nstdout: {}\nstderr: {}",
            run.stdout, run.stderr
        );
        let all = format!("{}\n{}", run.stdout, run.stderr);
        for n in needles {
            assert!(
                all.contains(n),
                "{tool} {args}: expected {n:?} in the reply:\n{all}"
            );
        }
        assert_eq!(
            before,
            self.snapshot(),
            "{tool} {args}: files changed on disk after a failure"
        );
        run
    }
}

/// The `XDG_STATE_HOME` of commands a test runs outside a [`Sandbox`]: one private folder per
/// test process, so that tests never touch the state of the user who runs them. It lives in
/// Cargo's scratch folder of the build, which goes with `target/`.
pub fn test_state_home() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("filekit-test-state-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The content hash a read reports for `rel` (via `filekit read --json`).
pub fn hash_of(sb: &Sandbox, rel: &str) -> String {
    let run = sb.filekit(&["read", rel, "--json"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json[0]["content_hash"]
        .as_str()
        .expect("content_hash")
        .to_string()
}

/// Runs `filekit --root <sandbox> call --json CALL` as a user that file modes apply to, for
/// tests of permission errors. Tests usually run as root, whom modes do not stop: then the
/// binary runs as `nobody` through `setpriv` (util-linux), from a copy in a directory anyone
/// can read, with the sandbox's directories opened to others for reading (not writing).
/// Files keep their modes (644 from the usual umask); a test locks what it wants with
/// `chmod`.
pub fn call_unprivileged(sb: &Sandbox, call: &Value) -> Run {
    filekit_unprivileged(sb, &["call", "--json", &call.to_string()])
}

/// `filekit --root ROOT ARGS...` as [`call_unprivileged`] runs a call: a user whom modes stop.
pub fn filekit_unprivileged(sb: &Sandbox, args: &[&str]) -> Run {
    use std::os::unix::fs::PermissionsExt;
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    // A state directory of the user that runs it (filekit refuses one of another user).
    let state = sb.xdg_state_home().join("unprivileged");
    std::fs::create_dir_all(&state).unwrap();
    let mut cmd = if is_root {
        std::fs::set_permissions(sb.xdg_state_home(), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        rustix::fs::chown(
            &state,
            Some(rustix::fs::Uid::from_raw(65534)),
            Some(rustix::fs::Gid::from_raw(65534)),
        )
        .unwrap();
        let bin = unprivileged_binary();
        open_up(sb.root());
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(bin);
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_filekit"))
    };
    cmd.arg("--root")
        .arg(sb.root())
        .args(args)
        .env("XDG_STATE_HOME", &state)
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    run_measured(cmd, Vec::new(), COMMAND_TIMEOUT).run
}

/// Makes `dir` and the directories under it traversable and listable by others (their write
/// bits and the files' modes are kept: what a test locks stays locked).
fn open_up(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if !std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
        return;
    }
    // Others may list and enter it; whether anyone may write in it stays as the test set it.
    let mode = std::fs::metadata(dir).unwrap().permissions().mode() & 0o7777;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode | 0o055)).unwrap();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        open_up(&e.path());
    }
}

/// A copy of the binary that another user can run (the build's own folder may not be open to
/// them): one per build, shared by every test process, since a debug binary is ~250 MB and a
/// copy per process filled the disk of a CI machine.
fn unprivileged_binary() -> PathBuf {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let built = Path::new(env!("CARGO_BIN_EXE_filekit"));
    let meta = std::fs::metadata(built).unwrap();
    let dir = std::env::temp_dir().join(format!(
        "filekit-test-bin-{:x}-{:x}",
        meta.len(),
        meta.mtime_nsec() as u64 ^ (meta.mtime() as u64) << 20
    ));
    let bin = dir.join("filekit");
    if !bin.exists() {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        // Copied under a name of this process and renamed: another test process may be
        // copying too, and none may run a half-written binary.
        let part = dir.join(format!("filekit.{}", std::process::id()));
        std::fs::copy(built, &part).unwrap();
        std::fs::set_permissions(&part, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::rename(&part, &bin).unwrap();
        remove_stale_copies(&dir);
    } else {
        // In use: not stale, however old the build.
        let _ =
            std::fs::File::open(&dir).and_then(|d| d.set_modified(std::time::SystemTime::now()));
    }
    bin
}

/// Copies of earlier builds, left by test runs of hours ago (each rebuild makes one of
/// ~230 MB): removed, so that a day of edit-build-test cycles does not fill the disk. No test
/// run lasts an hour, so none is still using them.
fn remove_stale_copies(current: &Path) {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > std::time::Duration::from_secs(3600));
        if path != current
            && stale
            && entry
                .file_name()
                .to_string_lossy()
                .starts_with("filekit-test-bin-")
        {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// How long any run of the binary a test makes may take before it is killed and the test
/// fails: a hang (a FIFO opened blocking, unbounded work) must fail its test, not hang the
/// suite. Generous: debug builds on a loaded 2-core machine, and the largest runs of the
/// suite (thousands of files) take well under a minute.
pub const COMMAND_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// A run of the binary with its peak resident memory.
pub struct Measured {
    pub run: Run,
    /// The child's peak resident set size (`ru_maxrss` of `wait4`), in KiB.
    pub peak_rss_kib: u64,
}

impl Measured {
    pub fn peak_mib(&self) -> u64 {
        self.peak_rss_kib / 1024
    }
}

/// Runs `cmd` (streams piped, as [`Sandbox::command`] makes it) with `stdin`, kills it if it
/// has not ended after `timeout` (and panics: it hung), and returns what it gave with its
/// peak resident memory, from `wait4`'s resource usage of that child alone.
// The child is reaped by `wait4` (for its resource usage), which `Child` cannot do.
#[allow(clippy::zombie_processes)]
pub fn run_measured(mut cmd: Command, stdin: Vec<u8>, timeout: std::time::Duration) -> Measured {
    use std::io::Read;
    let mut child = cmd.spawn().expect("run filekit");
    let pid = child.id() as libc::pid_t;
    let mut input = child.stdin.take().unwrap();
    // Fed and drained on threads: a large request or reply must not block the child while
    // this thread waits for it to end.
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let deadline = std::time::Instant::now() + timeout;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value of that plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `pid` is our own child, not reaped yet; the pointers are to live locals.
        let got = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if got == pid {
            break;
        }
        assert!(got == 0, "wait4: {}", std::io::Error::last_os_error());
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            // SAFETY: as above; this reaps the killed child.
            unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
            panic!("filekit did not end within {timeout:?}: it hung (a FIFO? unbounded work?)");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let _ = feeder.join();
    let stdout = out.join().unwrap();
    let stderr = err.join().unwrap();
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    let stdout = String::from_utf8_lossy(&stdout).into_owned();
    Measured {
        run: Run {
            code,
            json: serde_json::from_str(&stdout).unwrap_or(Value::Null),
            stdout,
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        },
        // Linux gives `ru_maxrss` in KiB.
        peak_rss_kib: usage.ru_maxrss as u64,
    }
}

/// How long [`call_timed`] waits for the binary: no call a test makes takes long, and a hung
/// process fails its test instead of hanging the suite.
pub const CALL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// [`Sandbox::call`] with a timeout: the process is killed, and the test fails, when it has
/// not answered within [`CALL_TIMEOUT`].
pub fn call_timed(sb: &Sandbox, tool: &str, args: Value) -> Run {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_filekit"))
        .current_dir(sb.root())
        .arg("--root")
        .arg(sb.root())
        .arg("call")
        .env("XDG_STATE_HOME", sb.xdg_state_home())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run filekit call");
    let call = json!({"tool_name": tool, "tool_args": args});
    child
        .stdin
        .take()
        .unwrap()
        .write_all(call.to_string().as_bytes())
        .unwrap();
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out.read_to_end(&mut b);
        b
    });
    let err = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err.read_to_end(&mut b);
        b
    });
    let deadline = std::time::Instant::now() + CALL_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("filekit call {tool}: no answer within {CALL_TIMEOUT:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    Run::parse(Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    })
}

/// An MCP client over stdio that speaks JSON-RPC lines to a `filekit serve` it starts: one
/// process for many calls, as an agent's client runs it.
pub struct McpStdio {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
    next_id: u64,
}

impl McpStdio {
    /// Starts `cmd` (a `filekit ... serve` command line) and initializes the session.
    pub fn start(mut cmd: Command) -> McpStdio {
        use std::io::BufRead;
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run filekit serve");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut mcp = McpStdio {
            child,
            stdin,
            lines,
            next_id: 1,
        };
        let init = mcp.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "filekit-tests", "version": "1"}
            }),
        );
        assert!(init.get("result").is_some(), "initialize: {init}");
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and returns its response (notifications in between are skipped); a
    /// server that does not answer within [`CALL_TIMEOUT`] is killed and the test fails.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = std::time::Instant::now() + CALL_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    let status = self.child.wait();
                    panic!("filekit serve ended before it answered {method}: {status:?}");
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    panic!("filekit serve: no answer to {method} within {CALL_TIMEOUT:?}");
                }
            };
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                panic!("filekit serve wrote a line that is not JSON: {line}");
            };
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
        }
    }

    /// The `result` of `tools/call` of `tool` with `args`.
    pub fn call_tool(&mut self, tool: &str, args: &Value) -> Value {
        let response = self.request("tools/call", json!({"name": tool, "arguments": args}));
        response
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("tools/call {tool}: no result: {response}"))
    }
}

impl McpStdio {
    /// The server's peak resident memory so far (`VmHWM` of /proc), in MiB.
    pub fn peak_mib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kib| kib / 1024)
    }

    /// The processor time the server has taken so far (user and system, all its threads), in
    /// seconds: what a call costs, whatever else the machine runs.
    pub fn cpu_seconds(&self) -> f64 {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        // The fields after the command's name, which is in parentheses and may hold spaces.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map_or("", |(_, rest)| rest)
            .split_whitespace()
            .collect();
        let ticks = |i: usize| {
            fields
                .get(i)
                .and_then(|f| f.parse::<u64>().ok())
                .unwrap_or(0)
        };
        // utime and stime are the 14th and 15th fields, the 12th and 13th after the name.
        // SAFETY: sysconf reads a constant of the system.
        let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1);
        (ticks(11) + ticks(12)) as f64 / per_second as f64
    }

    /// True while the server process runs.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for McpStdio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
