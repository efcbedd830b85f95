"""Moves that keep imports right (issue 8) over MCP: file_move and file_delete of document
004 with updateImports, served by `--tools semantic`; the server keeps the import graph
between calls, so a file changed between two calls must be seen by the second."""

import pytest

pytestmark = pytest.mark.anyio


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "text", None))


def project(workspace):
    (workspace / "src" / "lib").mkdir(parents=True)
    (workspace / "src" / "app").mkdir(parents=True)
    (workspace / "src" / "lib" / "user.ts").write_text("import { id } from './id';\nexport const user = id;\n")
    (workspace / "src" / "lib" / "id.ts").write_text("export const id = 1;\n")
    (workspace / "src" / "app" / "main.ts").write_text("import { user } from '../lib/user';\nexport const m = user;\n")


async def test_a_move_updates_importers_and_the_graph_follows_later_changes(connect, workspace):
    project(workspace)
    async with connect("--tools", "semantic") as session:
        result = await session.call_tool(
            "file_move", {"source": "src/lib/user.ts", "destination": "src/core/user.ts"})
        assert not result.isError, text_of(result)
        reply = result.structuredContent
        assert reply["totalImportsUpdated"] == 2
        assert reply["importsUpdated"][0]["file"] == "src/app/main.ts"
        assert (workspace / "src/app/main.ts").read_text().startswith("import { user } from '../core/user';")
        assert (workspace / "src/core/user.ts").read_text().startswith("import { id } from '../lib/id';")

        # A new importer written behind the server's back is seen by the next call.
        (workspace / "src" / "app" / "late.ts").write_text('import { user } from "../core/user";\n')
        result = await session.call_tool(
            "file_move", {"source": "src/core/user.ts", "destination": "src/user.ts", "dryRun": True})
        assert not result.isError, text_of(result)
        files = sorted(f["file"] for f in result.structuredContent["importsUpdated"])
        assert files == ["src/app/late.ts", "src/app/main.ts", "src/core/user.ts"]
        assert any("+import { user } from \"../user\";" in d["diff"]
                   for d in result.structuredContent["diffs"])
        assert (workspace / "src/app/late.ts").read_text() == 'import { user } from "../core/user";\n'


async def test_a_delete_removes_the_import_declarations(connect, workspace):
    project(workspace)
    async with connect("--tools", "semantic") as session:
        result = await session.call_tool("file_delete", {"path": "src/lib/user.ts"})
    assert not result.isError, text_of(result)
    reply = result.structuredContent
    assert reply["totalImportsRemoved"] == 1
    assert reply["unresolvedUses"] == [
        {"file": "src/app/main.ts", "line": 1, "symbol": "user", "from": "../lib/user"}]
    assert (workspace / "src/app/main.ts").read_text() == "export const m = user;\n"


async def test_rename_exports_renames_the_main_export_at_every_import_site(connect, workspace):
    (workspace / "src" / "services").mkdir(parents=True)
    (workspace / "src" / "services" / "UserService.ts").write_text(
        "export class UserService {\n  static make(): UserService { return new UserService(); }\n}\n")
    (workspace / "src" / "main.ts").write_text(
        "import { UserService } from './services/UserService';\n"
        "import { UserService as Users } from './services/UserService';\n"
        "import * as svc from './services/UserService';\n"
        "export const a = new UserService(), b = new Users(), c = new svc.UserService();\n")
    (workspace / "src" / "index.ts").write_text("export * from './services/UserService';\n")
    (workspace / "src" / "app.ts").write_text(
        "import { UserService } from './index';\nexport const d: UserService = UserService.make();\n")
    async with connect("--tools", "semantic") as session:
        # A new name that an importer already binds: refused, nothing written.
        (workspace / "src" / "clash.ts").write_text(
            "import { UserService } from './services/UserService';\nconst AuthService = 1;\n"
            "export const e = [UserService, AuthService];\n")
        result = await session.call_tool(
            "file_rename", {"path": "src/services/UserService.ts", "newName": "AuthService.ts",
                            "renameExports": True})
        assert result.isError
        assert "src/clash.ts" in text_of(result) and "AuthService" in text_of(result)
        assert (workspace / "src/services/UserService.ts").exists()
        assert not (workspace / "src/services/AuthService.ts").exists()
        (workspace / "src" / "clash.ts").unlink()

        result = await session.call_tool(
            "file_rename", {"path": "src/services/UserService.ts", "newName": "AuthService.ts",
                            "renameExports": True})
        assert not result.isError, text_of(result)
        reply = result.structuredContent
        assert reply["symbolsRenamed"] == [
            {"old": "UserService", "new": "AuthService", "occurrences": reply["totalSymbolsRenamed"]}]
        assert reply["precision"] == "syntactic"
        assert sorted(f["file"] for f in reply["exportsRenamed"]) == [
            "src/app.ts", "src/main.ts", "src/services/UserService.ts"]
    assert (workspace / "src/services/AuthService.ts").read_text() == (
        "export class AuthService {\n  static make(): AuthService { return new AuthService(); }\n}\n")
    assert (workspace / "src/main.ts").read_text() == (
        "import { AuthService } from './services/AuthService';\n"
        "import { AuthService as Users } from './services/AuthService';\n"
        "import * as svc from './services/AuthService';\n"
        "export const a = new AuthService(), b = new Users(), c = new svc.AuthService();\n")
    assert (workspace / "src/index.ts").read_text() == "export * from './services/AuthService';\n"
    assert (workspace / "src/app.ts").read_text() == (
        "import { AuthService } from './index';\nexport const d: AuthService = AuthService.make();\n")


async def test_rename_file_of_the_file_table_updates_imports_and_says_where(connect, workspace):
    project(workspace)
    async with connect("--tools", "file") as session:
        result = await session.call_tool(
            "file_rename_file", {"old_path": "src/lib/user.ts", "new_path": "src/core/user.ts"})
    assert not result.isError, text_of(result)
    assert "updated 2 import(s) in 2 file(s): src/app/main.ts, src/lib/user.ts" in text_of(result)
    assert (workspace / "src/app/main.ts").read_text().startswith("import { user } from '../core/user';")
    assert (workspace / "src/core/user.ts").read_text().startswith("import { id } from '../lib/id';")
async def test_a_warm_server_sees_an_importer_edited_outside_filekit(connect, workspace):
    """The server's file watcher: an importer changed by someone else between two calls is
    rewritten by the second move, with the import it has now."""
    project(workspace)
    async with connect("--tools", "semantic") as session:
        result = await session.call_tool(
            "file_move", {"source": "src/lib/id.ts", "destination": "src/core/id.ts"})
        assert not result.isError, text_of(result)
        assert (workspace / "src/lib/user.ts").read_text().startswith("import { id } from '../core/id';")

        # Someone else edits main.ts: it now imports id too (and keeps its other import).
        main = workspace / "src" / "app" / "main.ts"
        main.write_text("import { user } from '../lib/user';\nimport { id } from \"../core/id\";\n"
                        "export const m = [user, id];\n")
        result = await session.call_tool(
            "file_move", {"source": "src/core/id.ts", "destination": "src/shared/ids/id.ts"})
        assert not result.isError, text_of(result)
        files = sorted(f["file"] for f in result.structuredContent["importsUpdated"])
        assert files == ["src/app/main.ts", "src/lib/user.ts"]
        assert main.read_text() == ("import { user } from '../lib/user';\n"
                                    "import { id } from \"../shared/ids/id\";\n"
                                    "export const m = [user, id];\n")
        assert (workspace / "src/lib/user.ts").read_text().startswith(
            "import { id } from '../shared/ids/id';")

        # And an edit that drops the import: nothing to rewrite there any more.
        main.write_text("export const m = 1;\n")
        result = await session.call_tool(
            "file_move", {"source": "src/shared/ids/id.ts", "destination": "src/lib/id.ts"})
        assert not result.isError, text_of(result)
        files = sorted(f["file"] for f in result.structuredContent["importsUpdated"])
        assert files == ["src/lib/user.ts"]
        assert main.read_text() == "export const m = 1;\n"
        assert (workspace / "src/lib/user.ts").read_text().startswith("import { id } from './id';")


async def test_a_warm_server_sees_files_and_folders_created_outside_filekit(connect, workspace):
    """Files created by someone else between two calls, in a folder that existed and in new
    folders (which the watcher then watches too), are importers like any other."""
    project(workspace)
    async with connect("--tools", "semantic") as session:
        result = await session.call_tool(
            "file_move", {"source": "src/lib/id.ts", "destination": "src/core/id.ts"})
        assert not result.isError, text_of(result)

        (workspace / "src" / "app" / "extra.ts").write_text("import { id } from '../core/id';\n")
        deep = workspace / "src" / "feature" / "deep"
        deep.mkdir(parents=True)
        (deep / "uses.ts").write_text("export { id } from '../../core/id';\n")
        result = await session.call_tool(
            "file_move", {"source": "src/core/id.ts", "destination": "src/id.ts"})
        assert not result.isError, text_of(result)
        files = sorted(f["file"] for f in result.structuredContent["importsUpdated"])
        assert files == ["src/app/extra.ts", "src/feature/deep/uses.ts", "src/lib/user.ts"]
        assert (workspace / "src/app/extra.ts").read_text() == "import { id } from '../id';\n"
        assert (deep / "uses.ts").read_text() == "export { id } from '../../id';\n"

        # A file added later in the new folder is seen as well (its folder is watched now),
        # and a folder renamed behind the server's back is followed.
        (deep / "more.ts").write_text("import { id } from '../../id';\n")
        (workspace / "src" / "feature").rename(workspace / "src" / "feat")
        result = await session.call_tool(
            "file_move", {"source": "src/id.ts", "destination": "src/lib/id.ts"})
        assert not result.isError, text_of(result)
        files = sorted(f["file"] for f in result.structuredContent["importsUpdated"])
        assert files == ["src/app/extra.ts", "src/feat/deep/more.ts", "src/feat/deep/uses.ts",
                         "src/lib/user.ts"]
        assert (workspace / "src/feat/deep/more.ts").read_text() == "import { id } from '../../lib/id';\n"
        assert (workspace / "src/feat/deep/uses.ts").read_text() == "export { id } from '../../lib/id';\n"
