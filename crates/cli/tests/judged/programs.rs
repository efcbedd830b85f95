//! No program the workspace chose is started, through the real binary.
//!
//! A language server runs the workspace's code, so filekit starts none unless the person
//! running it said `--trust-workspace`; and even then never one inside the roots, found through
//! a relative or empty PATH entry, chosen by a `rust-toolchain.toml`, or the workspace's own
//! TypeScript. Each attack is made with tool calls where it can be (a prompt-injected agent
//! has nothing else), and checked with and without the opt-in: the planted program writes a
//! marker file outside the workspace, which must never appear.

use crate::common;

use common::{Run, Sandbox};
use serde_json::{Value, json};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Every run of the binary here ends within this, or the test fails (a language server that
/// hangs must not hang the suite).
const TIMEOUT: Duration = Duration::from_secs(180);

/// Runs `cmd` with `stdin`, killing it and failing the test past [`TIMEOUT`].
fn run_bounded(mut cmd: Command, stdin: Option<&str>) -> Run {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("start the command");
    {
        let mut input = child.stdin.take().unwrap();
        if let Some(s) = stdin {
            input.write_all(s.as_bytes()).unwrap();
        }
    }
    let deadline = Instant::now() + TIMEOUT;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} did not finish within {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Run::parse(child.wait_with_output().unwrap())
}

/// `filekit [--trust-workspace] --root <sandbox> call` of one tool, with `path` as PATH, run
/// in the sandbox (as an agent's MCP client or shell would start it).
fn call(sb: &Sandbox, trusted: bool, path: &str, tool: &str, args: Value) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_filekit"));
    cmd.current_dir(sb.root())
        .arg("--root")
        .arg(sb.root())
        .env("PATH", path)
        .env("XDG_STATE_HOME", sb.xdg_state_home())
        // As a user runs it: cargo's rustup proxy names its own toolchain to the tests.
        .env_remove("RUSTUP_TOOLCHAIN");
    if trusted {
        cmd.arg("--trust-workspace");
    }
    cmd.arg("call");
    let c = json!({"tool_name": tool, "tool_args": args});
    run_bounded(cmd, Some(&c.to_string()))
}

fn ok(run: &Run) -> &Value {
    assert_eq!(
        run.code, 0,
        "expected success\nstdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    &run.json
}

/// A directory outside the workspace where planted programs leave their mark.
struct Marker {
    dir: tempfile::TempDir,
}

impl Marker {
    fn new() -> Marker {
        Marker {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self) -> PathBuf {
        self.dir.path().join("MARKER")
    }

    /// A shell script that records that it ran (and what it was called as).
    fn script(&self) -> String {
        format!(
            "#!/bin/sh\necho \"ran $0\" >> '{}'\nexit 1\n",
            self.path().display()
        )
    }

    fn assert_absent(&self, what: &str) {
        let p = self.path();
        assert!(
            !p.exists(),
            "{what}: a program of the workspace ran: {}",
            std::fs::read_to_string(&p).unwrap_or_default()
        );
    }
}

fn make_executable(p: &Path) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// PATH without any directory that holds a language server (the machine's own, if any).
fn path_without_servers() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| {
            !["typescript-language-server", "pyright-langserver"]
                .iter()
                .any(|s| d.join(s).exists())
        })
        .collect();
    std::env::join_paths(dirs)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

fn deps_bin() -> PathBuf {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.test-deps/node_modules/.bin");
    assert!(
        bin.join("typescript-language-server").exists(),
        "typescript-language-server is missing from {}: run scripts/setup-test-deps",
        bin.display()
    );
    bin.canonicalize().unwrap()
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|d| d.is_absolute())
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

// ---------------------------------------------------------------------------------------------
// The rust-toolchain.toml attack, as it was found

/// A repository as cloned: git's sample hooks are executable (mode 755).
fn cloned_repository() -> Sandbox {
    let sb = Sandbox::new();
    sb.write(
        ".git/hooks/pre-commit.sample",
        "#!/bin/sh\n# An example hook script to verify what is about to be committed.\nexit 0\n",
    );
    make_executable(&sb.path(".git/hooks/pre-commit.sample"));
    sb.write(
        "Cargo.toml",
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    sb
}

/// The attack with tool calls only: copy an executable of the repository (its mode is kept)
/// to `tc/bin/rust-analyzer`, write a script into it, write a `rust-toolchain.toml` whose
/// toolchain is `<root>/tc`, write `src/lib.rs`, then ask for a semantic rename of it. A
/// rustup proxy started in the root would run the script.
fn plant_toolchain(sb: &Sandbox, marker: &Marker, path: &str) {
    let copy = call(
        sb,
        false,
        path,
        "manage_files",
        json!({"operations": [{"op": "copy", "from": ".git/hooks/pre-commit.sample", "to": "tc/bin/rust-analyzer"}]}),
    );
    ok(&copy);
    let script = marker.script();
    for (file, content) in [
        ("tc/bin/rust-analyzer", script.as_str()),
        (
            "rust-toolchain.toml",
            &format!("[toolchain]\npath = \"{}/tc\"\n", sb.root().display()),
        ),
        ("src/lib.rs", "pub fn greet() -> u32 {\n    1\n}\n"),
    ] {
        let w = call(
            sb,
            false,
            path,
            "Write",
            json!({"file_path": sb.path(file), "content": content}),
        );
        ok(&w);
    }
    let mode = std::fs::metadata(sb.path("tc/bin/rust-analyzer"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111, "the planted program is executable");
}

#[test]
fn a_rust_toolchain_file_cannot_make_filekit_run_its_program() {
    let marker = Marker::new();
    let sb = cloned_repository();
    let real_proxy = find_on_path("rustup").and_then(|_| find_on_path("rust-analyzer"));
    // Without rustup on this machine, the same class: the planted program on PATH.
    let path = match &real_proxy {
        Some(_) => std::env::var("PATH").unwrap(),
        None => format!(
            "{}:{}",
            sb.path("tc/bin").display(),
            std::env::var("PATH").unwrap()
        ),
    };
    plant_toolchain(&sb, &marker, &path);
    let rename = json!({"file": "src/lib.rs", "refactor": "rename_symbol", "symbol": "greet", "new_name": "welcome"});

    // Not trusted: no server at all; the reply says why and how to opt in.
    let run = call(&sb, false, &path, "file_edit", rename.clone());
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.json["error_code"], "NOT_TRUSTED", "{}", run.stdout);
    assert!(run.stdout.contains("--trust-workspace"), "{}", run.stdout);
    assert!(run.stdout.contains("rust-analyzer"), "{}", run.stdout);
    marker.assert_absent("untrusted rename of src/lib.rs");

    // Trusted: the user's toolchain is pinned, so the workspace's toolchain file chooses
    // nothing (here rust-analyzer may or may not be installed for it: either way the planted
    // program does not run).
    let run = call(&sb, true, &path, "file_edit", rename.clone());
    marker.assert_absent("trusted rename of src/lib.rs");
    if run.code != 0 {
        assert!(
            ["NOT_FOUND", "IO"].contains(&run.json["error_code"].as_str().unwrap_or("")),
            "{}",
            run.stdout
        );
    }
    if real_proxy.is_none() {
        assert_eq!(run.json["error_code"], "NOT_FOUND", "{}", run.stdout);
        assert!(
            run.stdout.contains("inside the workspace root"),
            "{}",
            run.stdout
        );
    }
    assert_eq!(sb.read("src/lib.rs"), "pub fn greet() -> u32 {\n    1\n}\n");

    // The attack is real: started the way filekit started servers before (by name, in the
    // root), the proxy runs the planted program.
    let mut cmd = Command::new("rust-analyzer");
    cmd.current_dir(sb.root())
        .env("PATH", &path)
        .env_remove("RUSTUP_TOOLCHAIN");
    let _ = run_bounded(cmd, Some(""));
    assert!(
        marker.path().exists(),
        "the planted toolchain did not run when started by name in the root: the test proves \
         nothing"
    );
}

// ---------------------------------------------------------------------------------------------
// Servers found on PATH inside the roots, or through relative PATH entries

const A_TS: &str = "export function area(r: number): number {\n  return r * r * 3;\n}\n";

fn ts_project() -> Sandbox {
    let sb = Sandbox::new();
    sb.write(
        "tsconfig.json",
        "{\"compilerOptions\": {\"strict\": true}, \"include\": [\"*.ts\"]}\n",
    );
    sb.write("a.ts", A_TS);
    sb.write(
        "b.ts",
        "import { area } from './a';\n\nexport const x = area(2);\n",
    );
    sb
}

/// A fake `typescript-language-server` at `rel` in the sandbox.
fn plant_server(sb: &Sandbox, rel: &str, marker: &Marker) {
    sb.write(rel, &marker.script());
    make_executable(&sb.path(rel));
}

fn rename_args() -> Value {
    json!({"file": "a.ts", "refactor": "rename_symbol", "symbol": "area", "new_name": "surface"})
}

/// add_import of a.ts's `area` into b.ts (a dry run): the last TS kind a server did, now
/// done on the syntax trees too, so the planted server is passed over for it as for rename.
fn import_args(sb: &Sandbox) -> Value {
    sb.write("b.ts", "export const v = area(2);\n");
    json!({"file": "b.ts", "refactor": "add_import", "selection_range": {"start_line": 1, "start_column": 17, "end_line": 1, "end_column": 21}, "dry_run": true})
}

/// Renames a.ts's `area` and imports it into b.ts (dry runs, so that the project stays as it
/// was), trusted or not, with `path`; the fake server must not run either way.
fn renames_without_the_planted_server(sb: &Sandbox, marker: &Marker, path: &str, why: &str) {
    let mut rename = rename_args();
    rename["dry_run"] = json!(true);

    let run = call(sb, false, path, "file_edit", rename.clone());
    assert_eq!(ok(&run)["precision"], "syntactic", "{}", run.stdout);
    let run = call(sb, false, path, "file_edit", import_args(sb));
    assert_eq!(ok(&run)["precision"], "syntactic", "{}", run.stdout);
    marker.assert_absent("untrusted");

    // Trusted: the candidate is passed over, and the reply names it and says why.
    let run = call(sb, true, path, "file_edit", rename);
    assert_eq!(ok(&run)["precision"], "syntactic", "{}", run.stdout);
    let warnings = run.json["warnings"].to_string();
    assert!(warnings.contains(why), "{}", run.stdout);
    let run = call(sb, true, path, "file_edit", import_args(sb));
    assert_eq!(ok(&run)["precision"], "syntactic", "{}", run.stdout);
    let warnings = run.json["warnings"].to_string();
    assert!(warnings.contains(why), "{}", run.stdout);
    assert!(
        warnings.contains("typescript-language-server"),
        "{}",
        run.stdout
    );
    marker.assert_absent("trusted");
    assert_eq!(sb.read("a.ts"), A_TS);
}

#[test]
fn a_server_in_the_workspaces_node_modules_bin_is_never_started() {
    // `npm run` puts <project>/node_modules/.bin on PATH.
    let marker = Marker::new();
    let sb = ts_project();
    plant_server(&sb, "node_modules/.bin/typescript-language-server", &marker);
    let path = format!(
        "{}:{}",
        sb.path("node_modules/.bin").display(),
        path_without_servers()
    );
    renames_without_the_planted_server(&sb, &marker, &path, "inside the workspace root");

    // A link from a directory outside to the planted server: passed over too.
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        sb.path("node_modules/.bin/typescript-language-server"),
        outside.path().join("typescript-language-server"),
    )
    .unwrap();
    let path = format!("{}:{}", outside.path().display(), path_without_servers());
    renames_without_the_planted_server(&sb, &marker, &path, "inside the workspace root");
}

#[test]
fn a_server_through_a_relative_or_empty_path_entry_is_never_started() {
    let marker = Marker::new();
    let sb = ts_project();
    plant_server(&sb, "bin/typescript-language-server", &marker);
    plant_server(&sb, "typescript-language-server", &marker);
    let path = format!("bin:{}", path_without_servers());
    renames_without_the_planted_server(&sb, &marker, &path, "relative PATH entry `bin`");
    let path = format!(":{}", path_without_servers());
    renames_without_the_planted_server(&sb, &marker, &path, "empty PATH entry");
}

#[test]
fn a_trusted_server_outside_is_used_and_what_it_runs_is_found_outside_too() {
    // Trusted, with the planted server first on PATH and the real one after it: the real one
    // is started (the planted one is named as passed over), and the server's own PATH leaves
    // the workspace out, so its `#!/usr/bin/env node` does not find the planted `node`.
    let marker = Marker::new();
    let sb = ts_project();
    plant_server(&sb, "node_modules/.bin/typescript-language-server", &marker);
    plant_server(&sb, "node_modules/.bin/node", &marker);
    // The workspace's own TypeScript, which typescript-language-server prefers to its own.
    sb.write(
        "node_modules/typescript/package.json",
        "{\"name\": \"typescript\", \"version\": \"5.9.3\"}\n",
    );
    sb.write(
        "node_modules/typescript/lib/tsserver.js",
        &format!(
            "require('fs').appendFileSync('{}', 'ran the workspace tsserver\\n');\nprocess.exit(1);\n",
            marker.path().display()
        ),
    );
    let path = format!(
        "{}:{}:{}",
        sb.path("node_modules/.bin").display(),
        deps_bin().display(),
        path_without_servers()
    );
    let run = call(&sb, true, &path, "file_edit", rename_args());
    marker.assert_absent("trusted rename with the real server");
    assert_eq!(ok(&run)["precision"], "semantic", "{}", run.stdout);
    assert!(
        run.json["warnings"]
            .to_string()
            .contains("node_modules/.bin/typescript-language-server"),
        "{}",
        run.stdout
    );
    assert!(sb.read("a.ts").contains("function surface("));
    assert!(sb.read("b.ts").contains("import { surface }"));
}

// ---------------------------------------------------------------------------------------------
// The one program a person chooses: the editor of the interactive review

#[test]
fn the_reviews_editor_is_never_one_planted_in_the_workspace() {
    // EDITOR names a program; a PATH with `.` (or the workspace's node_modules/.bin) would
    // find the workspace's own before the person's.
    let marker = Marker::new();
    let sb = Sandbox::new();
    sb.write("src/a.js", "const a = 1;\n");
    plant_server(&sb, "fixup", &marker);
    plant_server(&sb, "node_modules/.bin/fixup", &marker);
    let tools = tempfile::tempdir().unwrap();
    let editor = tools.path().join("fixup");
    std::fs::write(&editor, "#!/bin/sh\nsed -i s/let/EDITED/ \"$1\"\n").unwrap();
    make_executable(&editor);
    let path = format!(
        ".:{}:{}:{}",
        sb.path("node_modules/.bin").display(),
        tools.path().display(),
        std::env::var("PATH").unwrap()
    );
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_filekit"));
    cmd.current_dir(sb.root())
        .args(["--root"])
        .arg(sb.root())
        .args(["replace", "-i", "s/const/let/", "src"])
        .env("PATH", &path)
        .env("XDG_STATE_HOME", sb.xdg_state_home())
        .env("EDITOR", "fixup")
        .env("VISUAL", "fixup");
    let run = run_bounded(cmd, Some("e\nq\n"));
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    marker.assert_absent("the review's editor");
    assert_eq!(sb.read("src/a.js"), "EDITED a = 1;\n");
}
