//! Trees of many small files for the tests of tree-wide writes under limits and
//! interruptions: made, counted (each file entirely old or entirely new), searched for
//! leftovers, and commands run under a chosen open-file limit or interrupted mid-write.

use super::Sandbox;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// A tree of `files` files, `per_dir` to a folder: `d<k>/f<i>.txt`, each naming its number
/// and holding one `colour` for a replace to change.
pub struct Tree {
    pub files: usize,
    pub per_dir: usize,
}

impl Tree {
    pub fn new(files: usize) -> Tree {
        Tree {
            files,
            per_dir: 100,
        }
    }

    pub fn rel(&self, i: usize) -> String {
        format!("d{}/f{i}.txt", i / self.per_dir)
    }

    pub fn old(i: usize) -> String {
        format!("file {i}\nthe colour of it\nend\n")
    }

    pub fn new_text(i: usize) -> String {
        format!("file {i}\nthe color of it\nend\n")
    }

    /// Writes (or puts back) every file as old.
    pub fn write_old(&self, sb: &Sandbox) {
        for i in 0..self.files {
            sb.write(&self.rel(i), &Tree::old(i));
        }
    }

    /// (old, new) counts; panics on a file that is neither (torn, or missing).
    pub fn census(&self, sb: &Sandbox) -> (usize, usize) {
        let (mut old, mut new) = (0, 0);
        for i in 0..self.files {
            let rel = self.rel(i);
            let text =
                std::fs::read_to_string(sb.path(&rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
            if text == Tree::old(i) {
                old += 1;
            } else if text == Tree::new_text(i) {
                new += 1;
            } else {
                panic!("{rel} is neither old nor new: {text:?}");
            }
        }
        (old, new)
    }

    /// The file the commit step renames into place a quarter of the way through its run
    /// (the selection is in path order), and its new text: once it is new, the run is
    /// writing, with most of it still to do.
    pub fn written_early(&self) -> (String, String) {
        let mut order: Vec<usize> = (0..self.files).collect();
        order.sort_by_key(|&i| self.rel(i));
        let i = order[self.files / 4];
        (self.rel(i), Tree::new_text(i))
    }
}

/// filekit's temporary files anywhere in the tree outside `.filekit/`.
pub fn temp_files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name == ".filekit" {
                continue;
            }
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(e.path());
            } else if name.starts_with(".filekit.") {
                out.push(e.path().display().to_string());
            }
        }
    }
    out
}

/// What a finished request may not leave: temporary files in the tree, records of runs in the
/// state directory's journal, backups under `.filekit/journal/`.
pub fn assert_no_litter(sb: &Sandbox, when: &str) {
    let temps = temp_files(sb.root());
    assert!(temps.is_empty(), "{when}: temporary files left: {temps:?}");
    for journal in [sb.path(".filekit/journal"), sb.state_path("journal")] {
        if journal.exists() {
            let left: Vec<PathBuf> = std::fs::read_dir(&journal)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .collect();
            assert!(left.is_empty(), "{when}: journals left: {left:?}");
        }
    }
}

/// Makes `cmd` start with an open-file limit of `soft` (and `hard`), as `ulimit -Sn`/`-Hn`.
pub fn limit_open_files(cmd: &mut Command, soft: u64, hard: u64) {
    use rustix::process::{Resource, Rlimit, setrlimit};
    // SAFETY: the closure runs in the forked child before exec and makes one system call;
    // it allocates nothing and takes no lock.
    unsafe {
        cmd.pre_exec(move || {
            setrlimit(
                Resource::Nofile,
                Rlimit {
                    current: Some(soft),
                    maximum: Some(hard),
                },
            )
            .map_err(std::io::Error::from)
        });
    }
}

/// `filekit replace 's/colour/color/g' .` in the sandbox (`--atomic` when asked), its
/// streams piped.
pub fn replace_command(sb: &Sandbox, atomic: bool) -> Command {
    replace_command_with(sb, atomic, &[])
}

/// [`replace_command`] with more arguments (`--no-fsync`: files written as they are found).
pub fn replace_command_with(sb: &Sandbox, atomic: bool, more: &[&str]) -> Command {
    let mut args = vec!["replace", "s/colour/color/g", "."];
    if atomic {
        args.push("--atomic");
    }
    args.extend(more);
    sb.command(&args)
}

/// Runs `cmd` to its end (at most `timeout`), its output drained; the exit code, or
/// 128 + the signal that ended it.
pub fn run_to_end(mut cmd: Command, timeout: Duration) -> (i32, String, String) {
    let mut child = cmd.stdin(Stdio::null()).spawn().expect("run filekit");
    let (out, err) = drain(&mut child);
    let code = wait_with_timeout(&mut child, timeout);
    (code, out.join().unwrap(), err.join().unwrap())
}

type Drained = std::thread::JoinHandle<String>;

fn drain(child: &mut Child) -> (Drained, Drained) {
    use std::io::Read;
    let read = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = r.read_to_end(&mut s);
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    (
        read(Box::new(child.stdout.take().expect("stdout piped"))),
        read(Box::new(child.stderr.take().expect("stderr piped"))),
    )
}

fn wait_with_timeout(child: &mut Child, timeout: Duration) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status
                .code()
                .unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("filekit did not end within {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Starts `cmd` and sends it `signal` as soon as `rel` holds `new` (its write has begun),
/// or as soon as the process started when `rel` is `None`. Returns the exit code (or 128 +
/// the signal that ended it), stdout, stderr, and whether the signal was sent before the
/// process ended.
pub fn interrupt_when(
    mut cmd: Command,
    sb: &Sandbox,
    rel: Option<(&str, &str)>,
    signal: rustix::process::Signal,
    timeout: Duration,
) -> (i32, String, String, bool) {
    let mut child = cmd.stdin(Stdio::null()).spawn().expect("run filekit");
    let (out, err) = drain(&mut child);
    let deadline = Instant::now() + timeout;
    let mut sent = false;
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        let due = match rel {
            None => true,
            Some((rel, new)) => std::fs::read_to_string(sb.path(rel)).is_ok_and(|t| t == new),
        };
        if due {
            let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
            sent = rustix::process::kill_process(pid, signal).is_ok();
            break;
        }
        assert!(Instant::now() < deadline, "the write never began");
        std::thread::yield_now();
    }
    let code = wait_with_timeout(&mut child, timeout);
    (code, out.join().unwrap(), err.join().unwrap(), sent)
}

/// The paths of the newest history entry, relative to the root, sorted.
pub fn newest_entry_paths(sb: &Sandbox) -> Vec<String> {
    let run = sb.filekit(&["history", "--json", "--limit", "1"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let root = format!("{}/", sb.root().display());
    let mut paths: Vec<String> = run.json[0]["paths"]
        .as_array()
        .unwrap_or_else(|| panic!("no entry: {}", run.stdout))
        .iter()
        .map(|p| p.as_str().unwrap().trim_start_matches(&root).to_string())
        .collect();
    paths.sort();
    paths
}

pub fn history_len(sb: &Sandbox) -> usize {
    let run = sb.filekit(&["history", "--json", "--limit", "1000"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json.as_array().map_or(0, Vec::len)
}

/// The files of the tree that are new now, relative to the root, sorted.
pub fn new_files(sb: &Sandbox, tree: &Tree) -> Vec<String> {
    let mut out: Vec<String> = (0..tree.files)
        .filter(|&i| sb.read(&tree.rel(i)) == Tree::new_text(i))
        .map(|i| tree.rel(i))
        .collect();
    out.sort();
    out
}

/// After a request that wrote some files and was stopped (or not): the newest history entry
/// names exactly the files that are new, and one undo puts every file back.
pub fn written_files_are_recorded_and_undone(sb: &Sandbox, tree: &Tree, entries_before: usize) {
    let new = new_files(sb, tree);
    if new.is_empty() {
        assert_eq!(history_len(sb), entries_before, "an entry for nothing");
        return;
    }
    assert_eq!(
        history_len(sb),
        entries_before + 1,
        "one entry for the request"
    );
    assert_eq!(newest_entry_paths(sb), new, "the entry is what was written");
    let run = sb.filekit(&["undo"], None);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(tree.census(sb), (tree.files, 0), "undo put every file back");
    assert_no_litter(sb, "after the undo");
}

/// An MCP client over stdio, JSON-RPC lines to `filekit serve`.
pub struct Mcp {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    next_id: u64,
}

impl Mcp {
    pub fn start(mut cmd: Command) -> Mcp {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run filekit serve");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let Ok(v) = serde_json::from_str::<Value>(&line) else {
                    panic!("filekit serve wrote a line that is not JSON: {line}");
                };
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let mut mcp = Mcp {
            child,
            stdin,
            lines,
            next_id: 1,
        };
        let id = mcp.send_request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "scale-test", "version": "1"}}),
        );
        mcp.wait_for(|m| m["id"] == json!(id), Duration::from_secs(60));
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    pub fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The first message that `matches`, the others before it passed over.
    pub fn wait_for(&mut self, matches: impl Fn(&Value) -> bool, timeout: Duration) -> Value {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let m = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("filekit serve: no awaited message in {timeout:?}"));
            if matches(&m) {
                return m;
            }
        }
    }

    /// Closes stdin (the client is done) and waits for the server to end.
    pub fn finish(mut self, timeout: Duration) -> i32 {
        drop(self.stdin.take());
        wait_with_timeout(&mut self.child, timeout)
    }
}
