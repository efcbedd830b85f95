"""No program the workspace chose is started (issue 23 item 4), over MCP (stdio and HTTP).

The attack as it was found, with tool calls only: copy an executable of the repository (git's
sample hook, mode 755) to tc/bin/rust-analyzer, write a script into it, write a
rust-toolchain.toml whose toolchain is <root>/tc, write src/lib.rs and ask file_edit for a
rename. A rustup proxy started in the root runs the script. Without --trust-workspace no
server is started at all (NOT_TRUSTED); with it the user's toolchain is pinned, so the
toolchain file chooses nothing. A server planted in <root>/node_modules/.bin on PATH (as
`npm run` puts it there) is never started either. crates/cli/tests/judged/programs.rs runs the same
through `filekit call`, and more."""

import os
import pathlib
import shutil

import pytest

pytestmark = pytest.mark.anyio


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "text", None))


def script(marker):
    return f"#!/bin/sh\necho \"ran $0\" >> '{marker}'\nexit 1\n"


def path_without_servers():
    dirs = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(
        d for d in dirs
        if not any((pathlib.Path(d) / s).exists() for s in ("typescript-language-server", "pyright-langserver")))


@pytest.mark.parametrize("trusted", [False, True], ids=["untrusted", "trusted"])
async def test_a_rust_toolchain_file_cannot_make_the_server_run_its_program(
        open_session, workspace, tmp_path, monkeypatch, trusted):
    marker = tmp_path / "MARKER"
    hooks = workspace / ".git" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "pre-commit.sample").write_text("#!/bin/sh\nexit 0\n")
    (hooks / "pre-commit.sample").chmod(0o755)
    (workspace / "Cargo.toml").write_text('[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n')
    # As a user runs it: cargo's rustup proxy names its own toolchain to the tests.
    monkeypatch.delenv("RUSTUP_TOOLCHAIN", raising=False)
    if not (shutil.which("rustup") and shutil.which("rust-analyzer")):
        # No rustup here: the same class, the planted program on PATH.
        monkeypatch.setenv("PATH", f"{workspace / 'tc' / 'bin'}{os.pathsep}{os.environ['PATH']}")
    extra = ["--tools", "all"] + (["--trust-workspace"] if trusted else [])
    async with open_session(workspace, *extra) as session:
        copied = await session.call_tool("manage_files", {"operations": [
            {"op": "copy", "from": ".git/hooks/pre-commit.sample", "to": "tc/bin/rust-analyzer"}]})
        assert not copied.isError, text_of(copied)
        for rel, content in [
            ("tc/bin/rust-analyzer", script(marker)),
            ("rust-toolchain.toml", f'[toolchain]\npath = "{workspace}/tc"\n'),
            ("src/lib.rs", "pub fn greet() -> u32 {\n    1\n}\n"),
        ]:
            written = await session.call_tool("Write", {"file_path": str(workspace / rel), "content": content})
            assert not written.isError, text_of(written)
        assert os.stat(workspace / "tc" / "bin" / "rust-analyzer").st_mode & 0o111 == 0o111
        renamed = await session.call_tool("file_edit", {
            "file": "src/lib.rs", "refactor": "rename_symbol", "symbol": "greet", "new_name": "welcome"})
    assert not marker.exists(), f"a program of the workspace ran: {marker.read_text()}"
    if not trusted:
        assert renamed.isError
        assert renamed.structuredContent["error_code"] == "NOT_TRUSTED", text_of(renamed)
        assert "--trust-workspace" in text_of(renamed)


@pytest.mark.parametrize("trusted", [False, True], ids=["untrusted", "trusted"])
async def test_a_server_in_node_modules_bin_is_never_started(
        open_session, workspace, tmp_path, monkeypatch, trusted):
    marker = tmp_path / "MARKER"
    bin_dir = workspace / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "typescript-language-server").write_text(script(marker))
    (bin_dir / "typescript-language-server").chmod(0o755)
    (workspace / "a.ts").write_text("export function area(r: number): number {\n  return r * r * 3;\n}\n")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{path_without_servers()}")
    extra = ["--tools", "semantic"] + (["--trust-workspace"] if trusted else [])
    async with open_session(workspace, *extra) as session:
        renamed = await session.call_tool("file_edit", {
            "file": "a.ts", "refactor": "rename_symbol", "symbol": "area", "newName": "surface"})
        # add_import, the last TS kind a server did, is done on the syntax trees too.
        (workspace / "b.ts").write_text("export const v = surface(2);\n")
        imported = await session.call_tool("file_edit", {
            "file": "b.ts", "refactor": "add_import",
            "selectionRange": {"startLine": 1, "startColumn": 17, "endLine": 1, "endColumn": 24}})
    assert not marker.exists(), f"a program of the workspace ran: {marker.read_text()}"
    assert not renamed.isError, text_of(renamed)
    assert renamed.structuredContent["precision"] == "syntactic"
    assert "function surface(" in (workspace / "a.ts").read_text()
    assert not imported.isError, text_of(imported)
    assert imported.structuredContent["precision"] == "syntactic"
    if trusted:
        # The planted server was passed over, and the reply says why.
        assert "inside the workspace root" in text_of(imported)
        assert str(bin_dir / "typescript-language-server") in text_of(imported)
