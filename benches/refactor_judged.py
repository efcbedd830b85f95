#!/usr/bin/env python3
"""The refactors of issue 28 judged by the compiler, on real code from registry packages.

A script chooses the selections (every extractable expression, every `const`, every function,
every type annotation, every function returning a `.then` chain ...: TypeScript's own parser
finds them in rxjs's sources, Python's `ast` in urllib3's modules), applies each refactor kind
through `filekit call` (file_edit's refactor mode, no language server) and asks the compiler
whether the code base still compiles:

- TS/TSX/JS: rxjs 7.8.1's src with its tsconfig; `tsc --noEmit -p src/tsconfig.base.json` must
  report no error it did not report before (the tsconfig is incremental, so a check after an
  edit re-checks what the edit can affect, as `tsc --watch` does).
- Python: urllib3 2.2.3's modules; `python -m compileall`, pyflakes (no new message) and
  importing every module of the package (no module that imported before fails).
- Python's convert_to_async: a generated program of generator-based coroutines
  (`coroutine_program`; urllib3 has none), judged the same way and by what it prints when run.

Every selection is applied to the pristine corpus: selections are taken in batches of distinct
files (so they cannot interact), each applied one at a time, the batch judged by one compiler
run, and a batch with new errors bisected down to the selections that caused them. Every file
is restored after its batch.

Per kind: selections tried, applied, refused (reasons counted) and broken (applied, but the
compiler finds a new error: a bug to fix, or a case to refuse). extract_function and
extract_method are asked without `untypedParameters`: under rxjs's `strict` a parameter whose
type cannot be known is refused, and a refusal that names a parameter the selection does not
use counts as failed. `--sample N` takes N
selections per kind spread evenly over the candidates (what CI runs, through
crates/cli/tests/judged/refactor_judged.rs); without it every candidate is tried.

With `--trust`, every TS selection is also applied with the workspace trusted (filekit serve
--trust-workspace: typescript-language-server from .test-deps does the kinds it offers) and
judged the same way; per kind the comparison says on how many selections the server's result
type-checks, how many of those ours applies (without breaking anything), and lists the ones
we refuse with our reason (issue 28: every kind applies on at least half of them).

Needs scripts/setup-test-deps (rxjs, typescript, urllib3, pyflakes) and a built filekit:
    cargo build -p filekit && .venv/bin/python benches/refactor_judged.py [--sample 12] [--json]
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NPM = REPO / ".test-deps/node_modules"
URLLIB3 = REPO / ".test-deps/python/urllib3-2.2.3/urllib3"

# kind -> (languages it is judged in, the name it is asked to extract to)
KINDS = {
    "extract_variable": (("ts", "py"), "extractedValue"),
    "extract_constant": (("ts", "py"), "EXTRACTED_VALUE"),
    "inline_variable": (("ts", "py"), None),
    "convert_to_arrow": (("ts",), None),
    "extract_type": (("ts",), "ExtractedType"),
    "convert_to_async": (("ts", "py"), None),
    # The selection is a name removed from a named import of a relative module (the whole
    # declaration when it was the only name); add_import is asked to bring it back by name.
    "add_import": (("ts", "py"), None),
    # Statements of a function's body (a method's: extract_method), under rxjs's `strict`:
    # a parameter whose type cannot be known is refused, naming it (checked: the names are
    # the selection's), never written untyped.
    "extract_function": (("ts",), "fkExtractedFn"),
    "extract_method": (("ts",), "fkExtractedMethod"),
}
BATCH = 40


@dataclass
class Selection:
    kind: str
    file: str
    start_line: int
    start_column: int
    end_line: int
    end_column: int
    # add_import: the name asked for, and the file as the agent has it (the name's import gone).
    symbol: str | None = None
    prepared: str | None = None
    # add_import in TS: the first use of the name in the prepared file (line, column), asked
    # for by position so that a trusted language server gets the same request.
    use_at: tuple[int, int] | None = None

    def args(self) -> dict:
        if self.kind == "add_import" and self.use_at:
            line, column = self.use_at
            return {"file": self.file, "refactor": "add_import", "selection_range": {
                "start_line": line, "start_column": column, "end_line": line, "end_column": column + len(self.symbol)}}
        if self.kind == "add_import":
            return {"file": self.file, "refactor": "add_import", "symbol": self.symbol}
        name = KINDS[self.kind][1]
        a = {
            "file": self.file,
            "refactor": self.kind,
            "selection_range": {
                "start_line": self.start_line,
                "start_column": self.start_column,
                "end_line": self.end_line,
                "end_column": self.end_column,
            },
        }
        if name and self.kind == "extract_method":
            # One name per file: the same new method in a class and in its subclass (judged
            # in one batch) would be one member declared twice.
            name = name + "_" + re.sub(r"\W", "_", Path(self.file).stem)
        if name:
            a["extracted_name"] = name
        return a

    def where(self) -> str:
        return f"{self.file}:{self.start_line}:{self.start_column}-{self.end_line}:{self.end_column}"


@dataclass
class Tally:
    tried: int = 0
    applied: int = 0
    refused: collections.Counter = field(default_factory=collections.Counter)
    broken: list = field(default_factory=list)
    # filekit answered with no JSON reply (a crash): always a bug
    failed: list = field(default_factory=list)
    # applied results by the reply's precision ("syntactic", or "semantic" from a server)
    precision: collections.Counter = field(default_factory=collections.Counter)


def without(text: str, s: Selection) -> str:
    """`text` without the characters of the selection's range (lines from 1, columns from 0)."""
    lines = text.split("\n")

    def index(line: int, column: int) -> int:
        return sum(len(x) + 1 for x in lines[: line - 1]) + column

    return text[: index(s.start_line, s.start_column)] + text[index(s.end_line, s.end_column):]


def selected(text: str, s: Selection) -> str:
    """The text of the selection's range."""
    lines = text.split("\n")

    def index(line: int, column: int) -> int:
        return sum(len(x) + 1 for x in lines[: line - 1]) + column

    return text[index(s.start_line, s.start_column): index(s.end_line, s.end_column)]


def first_use(text: str, name: str) -> tuple[int, int] | None:
    """The first whole-word occurrence of `name` after the imports, not in a comment line."""
    for i, line in enumerate(text.split("\n")):
        stripped = line.lstrip()
        if stripped.startswith(("import ", "//", "*", "/*", "} from")) or re.match(r"^\s*\w+,?$", line):
            continue
        m = re.search(rf"(?<![\w$.]){re.escape(name)}(?![\w$])", line)
        if m:
            return (i + 1, len(line[: m.start()]))
    return None


def reason(message: str) -> str:
    """A refusal message without its names and numbers, so that reasons can be counted."""
    m = re.sub(r"`[^`]*`", "`…`", message)
    m = re.sub(r"'[^']*'", "'…'", m)
    m = re.sub(r"\d+", "N", m)
    m = m.replace("cannot be extracted: ", "")
    m = re.sub(r"\s*\([^()]*\)$", "", m)  # the hint
    return m[:100]


# -------------------------------------------------------------------------------------------
# The corpora


class TypeScript:
    """rxjs's sources, judged by tsc."""

    lang = "ts"

    def __init__(self, dir: Path):
        self.dir = dir
        rxjs = NPM / "rxjs"
        self.tsc = NPM / "typescript/bin/tsc"
        if not (rxjs / "src/index.ts").is_file() or not self.tsc.is_file():
            sys.exit("rxjs or typescript is missing from .test-deps/node_modules: run scripts/setup-test-deps")
        shutil.copytree(rxjs / "src", dir / "src")
        shutil.copy(rxjs / "tsconfig.json", dir / "tsconfig.json")
        self.files = sorted(
            str(p.relative_to(dir)) for p in (dir / "src").rglob("*.ts") if p.is_file()
        )

    def candidates(self) -> list[Selection]:
        out = subprocess.run(
            ["node", str(REPO / "benches/refactor_judged_select.js"), str(NPM / "typescript"), str(self.dir), *self.files],
            capture_output=True, text=True, check=True,
        ).stdout
        sel = []
        texts = {}
        for line in out.splitlines():
            c = json.loads(line)
            s = Selection(c["kind"], c["file"], c["startLine"], c["startColumn"], c["endLine"], c["endColumn"],
                          c.get("symbol"))
            if s.kind == "add_import":
                if s.file not in texts:
                    texts[s.file] = (self.dir / s.file).read_text(encoding="utf-8")
                s.prepared = without(texts[s.file], s)
                s.use_at = first_use(s.prepared, s.symbol)
            sel.append(s)
        return sel

    def problems(self) -> collections.Counter:
        """tsc's errors as (file, code and message), without positions (an edit moves lines)."""
        out = subprocess.run(
            ["node", str(self.tsc), "--noEmit", "-p", "src/tsconfig.base.json", "--pretty", "false"],
            cwd=self.dir, capture_output=True, text=True,
        ).stdout
        found = collections.Counter()
        for line in out.splitlines():
            m = re.match(r"^(.*)\(\d+,\d+\): error (TS\d+: .*)$", line)
            if m:
                found[(m.group(1), m.group(2))] += 1
            elif line.startswith("error TS"):
                found[("", line)] += 1
        return found


class Chains(TypeScript):
    """Promise chains (benches/refactor_judged_chains.ts; rxjs returns none): judged by tsc
    (strict) and by what the program prints when node runs it, before and after."""

    def __init__(self, dir: Path):
        self.dir = dir
        self.tsc = NPM / "typescript/bin/tsc"
        if not self.tsc.is_file():
            sys.exit("typescript is missing from .test-deps/node_modules: run scripts/setup-test-deps")
        (dir / "src").mkdir(parents=True)
        shutil.copy(REPO / "benches/refactor_judged_chains.ts", dir / "src/chains.ts")
        (dir / "tsconfig.json").write_text(json.dumps({
            "compilerOptions": {"strict": True, "target": "es2020", "module": "commonjs",
                                "lib": ["es2020", "dom"], "outDir": "out", "types": []},
            "include": ["src"],
        }))
        self.files = ["src/chains.ts"]

    def candidates(self) -> list[Selection]:
        return [c for c in super().candidates() if c.kind == "convert_to_async"]

    def problems(self) -> collections.Counter:
        out = subprocess.run(
            ["node", str(self.tsc), "-p", ".", "--pretty", "false"],
            cwd=self.dir, capture_output=True, text=True,
        ).stdout
        found = collections.Counter(
            ("tsc", line) for line in out.splitlines() if ": error TS" in line
        )
        run = subprocess.run(["node", "out/chains.js"], cwd=self.dir, capture_output=True, text=True, timeout=60)
        found[("node prints", run.stdout + run.stderr)] += 1
        return found


class Python:
    """urllib3's modules, judged by compileall, pyflakes and importing them."""

    lang = "py"

    def __init__(self, dir: Path):
        self.dir = dir
        if not (URLLIB3 / "__init__.py").is_file():
            sys.exit(f"{URLLIB3} is missing: run scripts/setup-test-deps")
        self.package = "urllib3"
        shutil.copytree(URLLIB3, dir / "urllib3", ignore=shutil.ignore_patterns("__pycache__"))
        self.files = sorted(str(p.relative_to(dir)) for p in (dir / "urllib3").rglob("*.py"))
        self.modules = [
            f[: -len(".py")].replace("/", ".").removesuffix(".__init__") for f in self.files
        ]

    def candidates(self) -> list[Selection]:
        out = []
        for f in self.files:
            raw = (self.dir / f).read_bytes()
            lines = raw.split(b"\n")
            tree = ast.parse(raw)
            docstrings = {
                id(n.body[0].value)
                for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and n.body and isinstance(n.body[0], ast.Expr)
                and isinstance(n.body[0].value, ast.Constant)
            }
            skip = set(docstrings)
            for n in ast.walk(tree):
                # Annotations, decorators and statement-level expressions are not extracted.
                if isinstance(n, ast.Expr):
                    skip.add(id(n.value))
                for a in ("annotation", "returns"):
                    sub = getattr(n, a, None)
                    if sub is not None:
                        skip.update(id(x) for x in ast.walk(sub))
                for d in getattr(n, "decorator_list", []):
                    skip.update(id(x) for x in ast.walk(d))
                if isinstance(n, ast.Call):
                    skip.add(id(n.func))
            col = lambda ln, off: len(lines[ln - 1][:off].decode("utf-8"))  # noqa: E731
            for n in ast.walk(tree):
                if id(n) in skip or getattr(n, "ctx", ast.Load()).__class__ is not ast.Load:
                    continue
                if isinstance(n, (ast.Call, ast.BinOp, ast.Attribute, ast.Compare)) or (
                    isinstance(n, ast.Constant) and isinstance(n.value, (str, int, float, bytes))
                    and not isinstance(n.value, bool)
                ):
                    s = (n.lineno, col(n.lineno, n.col_offset), n.end_lineno, col(n.end_lineno, n.end_col_offset))
                    out.append(Selection("extract_variable", f, *s))
                    # A call is never a module constant: its constant is extract_variable's
                    # (assigned where it runs), judged there.
                    if not isinstance(n, ast.Call):
                        out.append(Selection("extract_constant", f, *s))
            # inline_variable: every simple local assignment (`name = value` in a function).
            for fn in ast.walk(tree):
                if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for n in ast.walk(fn):
                    if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                        t = n.targets[0]
                        s = (t.lineno, col(t.lineno, t.col_offset), t.end_lineno, col(t.end_lineno, t.end_col_offset))
                        out.append(Selection("inline_variable", f, *s))
            out.extend(self.imported_names(f, raw.decode("utf-8"), tree))
        # A name assigned in a function nested in another is found twice by ast.walk (the
        # names of one import statement share its range: the symbol tells them apart).
        unique = {(c.kind, c.file, c.start_line, c.start_column, c.end_line, c.end_column, c.symbol): c for c in out}
        return list(unique.values())

    def imported_names(self, f: str, text: str, tree: ast.Module) -> list[Selection]:
        """add_import: every name a top-level `from .x import ...` takes (not renamed), removed
        from its statement (the statement, when it was the only name)."""
        out = []
        lines = text.split("\n")
        for st in tree.body:
            if not isinstance(st, ast.ImportFrom) or st.level == 0:
                continue
            names = [a.name for a in st.names]
            for a in st.names:
                if a.asname or a.name == "*":
                    continue
                rest = [n if x.asname is None else f"{n} as {x.asname}" for n, x in zip(names, st.names) if x is not a]
                module = "." * st.level + (st.module or "")
                one = f"from {module} import {', '.join(rest)}"
                # Wrapped as black and isort write it when too long.
                kept = [one] if len(one) <= 88 else (
                    [f"from {module} import ("] + [f"    {r}," for r in rest] + [")"]
                )
                kept = kept if rest else []
                prepared = "\n".join(lines[: st.lineno - 1] + kept + lines[st.end_lineno:])
                sel = Selection("add_import", f, st.lineno, 0, st.end_lineno, 0, a.name, prepared)
                out.append(sel)
        return out

    def problems(self) -> collections.Counter:
        found = collections.Counter()
        py = sys.executable
        c = subprocess.run([py, "-m", "compileall", "-q", self.package], cwd=self.dir, capture_output=True, text=True)
        for line in c.stdout.splitlines():
            if line.startswith("***") or "Error" in line:
                found[("compileall", re.sub(r"line \d+", "line N", line))] += 1
        f = subprocess.run([py, "-m", "pyflakes", self.package], cwd=self.dir, capture_output=True, text=True)
        for line in (f.stdout + f.stderr).splitlines():
            m = re.match(r"^([^:]+):\d+:(?:\d+:)? (.*)$", line)
            # Messages name other lines ("redefinition of unused 'x' from line 539"), which move.
            msg = re.sub(r"line \d+", "line N", m.group(2) if m else line)
            found[("pyflakes", m.group(1) if m else "", msg)] += 1
        probe = (
            "import importlib, sys\n"
            "for m in sys.argv[1:]:\n"
            "    try:\n"
            "        importlib.import_module(m)\n"
            "    except BaseException as e:\n"
            "        print(m, type(e).__name__)\n"
        )
        i = subprocess.run([py, "-c", probe, *self.modules], cwd=self.dir, capture_output=True, text=True)
        for line in i.stdout.splitlines():
            found[("import", line)] += 1
        return found


def coroutine_program(n: int = 36) -> str:
    """A program of generator-based coroutines (`@types.coroutine`, `yield from`; asyncio's
    decorator is gone since Python 3.11) of every shape convert_to_async converts or refuses,
    each called from `main` and printing what it returns, so that a conversion that changes a
    meaning changes what the program prints. Deterministic: the same program every run."""
    import random

    rnd = random.Random(28)
    out = [
        "import asyncio",
        "import types",
        "from types import coroutine",
        "",
        "LOG = []",
        "",
        "",
        "def traced(f):",
        "    LOG.append(f.__name__)",
        "    return f",
        "",
        "",
        "@types.coroutine",
        "def tick():",
        "    yield",
        "",
        "",
        "def plain(n):",
        "    yield n",
        "",
        "",
        "@types.coroutine",
        "def c0(x):",
        "    yield from tick()",
        "    return x + 1",
    ]
    runnable = ["c0"]
    for i in range(1, n):
        j, k = rnd.choice(runnable), rnd.choice(runnable)
        shape = i % 12
        deco = ["@types.coroutine"]
        run = True
        if shape == 0:
            body = [f"v = yield from {j}(x + 1)", f"return v * 2 + {i}"]
        elif shape == 1:
            body = ["total = 0", "for k in range(2):", f"    total += yield from {j}(x + k)", f"return total - {i}"]
        elif shape == 2:
            body = [f"return (yield from {j}(x)) + (yield from {k}(x - 1))"]
        elif shape == 3:
            body = [f"v = yield from ({j}(x) if x % 2 else {k}(x))", f"return v + {i}"]
        elif shape == 4:
            body = [f"LOG.append({i})", "yield from tick()", "LOG.append(x)", "return len(LOG)"]
        elif shape == 5:
            # A bare yield: a generator, refused.
            body = ["yield", f"return x + {i}"]
        elif shape == 6:
            # `yield from` in a nested function: refused.
            body = ["def inner():", f"    yield from {j}(x)", f"return (yield from {j}(x)), inner"]
            run = False
        elif shape == 7:
            body = [f"v = yield from {j}(x)", f"return -v + {i}"]
            deco = ["@coroutine"]
        elif shape == 8:
            body = [f"v = yield from {j}(x)", f"return v * {i}"]
            deco = ["@traced", "@types.coroutine"]
        elif shape == 9:
            body = ["try:", f"    v = yield from {j}(x)", "    if v % 3 == 0:", "        raise ValueError(v)",
                    "except ValueError:", "    v = -1", f"return v + {i}"]
        elif shape == 10:
            # No `yield from`: `types.coroutine` leaves it a plain function; refused.
            body = [f"return x * {i}"]
            run = False
        else:
            # `yield from` a plain generator: refused (`await` takes no generator).
            body = ["v = yield from plain(x)", "return v"]
            run = False
        out += ["", "", *deco, f"def c{i}(x):", *("    " + b for b in body)]
        if run:
            runnable.append(f"c{i}")
    # A plain generator delegating to one of them: that one is refused.
    out += ["", "", "def feeder(x):", f"    yield from {runnable[3]}(x)"]
    out += ["", "", "async def main():"]
    out += [f"    print({f!r}, await {f}({rnd.randint(1, 9)}))" for f in runnable]
    out += ["    print(LOG)", "", "", "asyncio.run(main())", ""]
    return "\n".join(out)


class Coroutines(Python):
    """A generated program of generator-based coroutines (`coroutine_program`): judged by
    compileall, pyflakes and what the program prints when Python runs it, before and after."""

    def __init__(self, dir: Path):
        self.dir = dir
        self.package = "coroutines"
        (dir / "coroutines").mkdir(parents=True)
        (dir / "coroutines/program.py").write_text(coroutine_program())
        self.files = ["coroutines/program.py"]
        self.modules = []

    def candidates(self) -> list[Selection]:
        tree = ast.parse((self.dir / self.files[0]).read_text())
        return [
            Selection("convert_to_async", self.files[0], n.lineno, n.col_offset + 4, n.lineno, n.col_offset + 4)
            for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]

    def problems(self) -> collections.Counter:
        found = super().problems()
        run = subprocess.run([sys.executable, self.files[0]], cwd=self.dir, capture_output=True, text=True, timeout=60)
        found[("python prints", run.stdout + run.stderr)] += 1
        return found


# -------------------------------------------------------------------------------------------
# Applying and judging


class Server:
    """`filekit serve --trust-workspace` over MCP's stdio: typescript-language-server (from
    .test-deps) does the kinds it offers, kept warm across the selections (a `filekit call` per
    selection would start the server and load rxjs's project each time)."""

    def __init__(self, filekit: Path, root: Path, state: Path):
        env = dict(os.environ)
        env["PATH"] = f"{NPM / '.bin'}{os.pathsep}{env.get('PATH', '')}"
        env["XDG_STATE_HOME"] = str(state)
        self.proc = subprocess.Popen(
            [str(filekit), "serve", "--trust-workspace", "--root", str(root)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, env=env,
        )
        self.next_id = 0
        self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "refactor_judged", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict) -> None:
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def rpc(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("filekit serve ended")
            m = json.loads(line)
            if m.get("id") == self.next_id:
                return m

    def call(self, args: dict) -> dict | None:
        """file_edit's reply (the same object `filekit call --json` prints), None on a crash."""
        try:
            r = self.rpc("tools/call", {"name": "file_edit", "arguments": args})
        except (RuntimeError, json.JSONDecodeError):
            return None
        return r.get("result", {}).get("structuredContent")

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


class Judge:
    def __init__(self, corpus, filekit: Path, state: Path, server: Server | None = None):
        self.corpus = corpus
        self.filekit = filekit
        self.state = state
        # With a server, the trusted side of the comparison: typescript-language-server does
        # the kinds it offers on the same selections.
        self.server = server
        self.baseline = corpus.problems()

    def apply(self, s: Selection, trusted: bool = False) -> tuple[str, str]:
        """('applied', new text) or ('refused', reason) or ('failed', output)."""
        if trusted:
            reply = self.server.call(s.args())
            if reply is None:
                return "failed", "no reply from filekit serve"
        else:
            call = json.dumps({"tool_name": "file_edit", "tool_args": s.args()})
            r = subprocess.run(
                [str(self.filekit), "call", "--root", str(self.corpus.dir), "--no-history",
                 "--state-dir", str(self.state), "--json", call],
                capture_output=True, text=True,
            )
            try:
                reply = json.loads(r.stdout)
            except json.JSONDecodeError:
                return "failed", (r.stdout + r.stderr)[-2000:]
        self.precision = reply.get("precision", "")
        if reply.get("success") is True:
            return "applied", (self.corpus.dir / s.file).read_text(encoding="utf-8")
        details = reply.get("details") or {}
        if details.get("fact") == "untyped_parameters":
            # A refusal for parameters without a type names them: names the selection uses.
            text = s.prepared if s.prepared is not None else (self.corpus.dir / s.file).read_text(encoding="utf-8")
            used = set(re.findall(r"[\w$]+", selected(text, s)))
            named = [p.get("name") for p in details.get("parameters", [])]
            if not named or any(n not in used for n in named):
                return "failed", f"the refusal names {named}, not all used by the selection: {reply.get('error')}"
        return "refused", reply.get("error") or reply.get("message") or json.dumps(reply)[:300]

    def new_problems(self) -> list:
        return sorted((self.corpus.problems() - self.baseline).elements())

    def judge(self, batch: list[tuple[Selection, str, str]]) -> list:
        """The selections of `batch` (selection, original, edited) whose edit breaks the
        corpus, with the new problems: all edited at once, then halves when something broke."""
        for s, _, new in batch:
            (self.corpus.dir / s.file).write_text(new, encoding="utf-8")
        found = self.new_problems()
        for s, old, _ in batch:
            (self.corpus.dir / s.file).write_text(old, encoding="utf-8")
        if not found:
            return []
        if len(batch) == 1:
            return [(batch[0][0], found)]
        mid = len(batch) // 2
        return self.judge(batch[:mid]) + self.judge(batch[mid:])

    def run(self, selections: list[Selection], tallies: dict, progress: bool,
            server_tallies: dict | None = None, outcomes: dict | None = None) -> None:
        """Applies and judges `selections` (ours into `tallies`; with a server, the server's
        too into `server_tallies`), and records each selection's outcome on each side in
        `outcomes[(where, kind)]`: side -> ('applied' | 'refused' | 'broken' | 'failed', reason)."""
        sides = [(False, tallies)] + ([(True, server_tallies)] if self.server else [])
        outcomes = {} if outcomes is None else outcomes
        pending = list(selections)
        done = 0
        while pending:
            batch, files, rest = [], set(), []
            for s in pending:
                if s.file in files or len(batch) >= BATCH:
                    rest.append(s)
                else:
                    files.add(s.file)
                    batch.append(s)
            pending = rest
            for trusted, tally in sides:
                side = "server" if trusted else "ours"
                edited = []
                for s in batch:
                    t = tally[(s.kind, self.corpus.lang)]
                    t.tried += 1
                    path = self.corpus.dir / s.file
                    old = path.read_text(encoding="utf-8")
                    if s.prepared is not None:
                        path.write_text(s.prepared, encoding="utf-8")
                    outcome, detail = self.apply(s, trusted)
                    path.write_text(old, encoding="utf-8")
                    got = outcomes.setdefault((s.where(), s.kind), {})
                    # the refusal as said (its hint dropped), for the listing of the comparison
                    got[side] = (outcome, "" if outcome == "applied" else re.sub(r"\s*\([^()]*\)$", "", detail)[:300])
                    if outcome == "applied":
                        t.applied += 1
                        t.precision[self.precision] += 1
                        if detail != old:
                            edited.append((s, old, detail))
                    elif outcome == "refused":
                        t.refused[reason(detail)] += 1
                    else:
                        t.failed.append((s.where(), detail))
                for s, found in self.judge(edited) if edited else []:
                    old, new = next((o, n) for x, o, n in edited if x is s)
                    outcomes[(s.where(), s.kind)][side] = ("broken", "; ".join(str(p[-1]) for p in found)[:200])
                    tally[(s.kind, self.corpus.lang)].broken.append(
                        {"selection": s.where(), "args": s.args(), "problems": [list(p) for p in found][:8],
                         "diff": diff(old, new, s.file)}
                    )
            done += len(batch)
            if progress:
                print(f"  {self.corpus.lang}: {done}/{len(selections)}", file=sys.stderr)


def diff(old: str, new: str, name: str) -> str:
    import difflib

    d = difflib.unified_diff(old.splitlines(True), new.splitlines(True), name, name, n=2)
    return "".join(d)[:3000]


def sample(cands: list[Selection], n: int | None) -> list[Selection]:
    """`n` selections spread evenly over the candidates (all of them without `n`)."""
    cands = sorted(cands, key=lambda s: (s.file, s.start_line, s.start_column, s.end_line, s.end_column))
    if n is None or len(cands) <= n:
        return cands
    return [cands[i * len(cands) // n] for i in range(n)]


def tallies_json(tallies: dict) -> dict:
    return {f"{k}/{lang}": {"tried": t.tried, "applied": t.applied, "precision": dict(t.precision),
                             "refused": dict(t.refused), "broken": t.broken, "failed": t.failed}
            for (k, lang), t in tallies.items()}


def print_table(tallies: dict, title: str) -> None:
    print(title)
    print(f"{'kind':<18} {'lang':<4} {'tried':>6} {'applied':>8} {'refused':>8} {'broken':>7}  top refusals")
    for (k, lang), t in tallies.items():
        top = "; ".join(f"{n}× {r}" for r, n in t.refused.most_common(3))
        print(f"{k:<18} {lang:<4} {t.tried:>6} {t.applied:>8} {sum(t.refused.values()):>8} "
              f"{len(t.broken) + len(t.failed):>7}  {top}")


def comparison(kinds: list[str], outcomes: dict) -> dict:
    """Per kind, on the selections both sides were asked: where the server's result
    type-checks (applied, not broken), how often ours applies too (issue 28: at least half),
    and the selections where the server is ok and ours refuses, with our reason."""
    out = {}
    for k in kinds:
        rows = [(w, o) for (w, kind), o in sorted(outcomes.items()) if kind == k and "server" in o]
        server_ok = [(w, o) for w, o in rows if o["server"][0] == "applied"]
        ours = collections.Counter(o["ours"][0] for _, o in server_ok)
        out[k] = {
            "tried": len(rows),
            "server_applied": sum(o["server"][0] in ("applied", "broken") for _, o in rows),
            "server_broken": sum(o["server"][0] == "broken" for _, o in rows),
            "ours_applied": sum(o["ours"][0] in ("applied", "broken") for _, o in rows),
            "ours_broken": sum(o["ours"][0] == "broken" for _, o in rows),
            "server_ok": len(server_ok),
            # ours applied there and type-checks
            "ours_ok_where_server_ok": ours["applied"],
            "ours_broken_where_server_ok": ours["broken"],
            "ratio": round(ours["applied"] / len(server_ok), 2) if server_ok else None,
            "we_refuse": [{"selection": w, "reason": o["ours"][1]} for w, o in server_ok
                          if o["ours"][0] in ("refused", "failed")],
        }
    return out


def print_comparison(compare: dict) -> None:
    print("\ntypescript-language-server (trusted) and ours, on the same selections")
    print(f"{'kind':<18} {'tried':>6} {'server applied/broken':>22} {'ours applied/broken':>20} "
          f"{'server ok':>10} {'ours ok there':>14} {'ratio':>6}")
    for k, c in compare.items():
        ratio = "-" if c["ratio"] is None else f"{c['ratio']:.2f}"
        print(f"{k:<18} {c['tried']:>6} {c['server_applied']:>13}/{c['server_broken']:<8} "
              f"{c['ours_applied']:>11}/{c['ours_broken']:<8} {c['server_ok']:>10} "
              f"{c['ours_ok_where_server_ok']:>14} {ratio:>6}")
    for k, c in compare.items():
        if c["we_refuse"]:
            print(f"\n{k}: the server's result type-checks, ours refuses:")
            for r in c["we_refuse"]:
                print(f"  {r['selection']}: {r['reason']}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--filekit", type=Path, default=REPO / "target/debug/filekit")
    ap.add_argument("--sample", type=int, help="selections per kind and language (default: all)")
    ap.add_argument("--kinds", help="comma-separated kinds (default: all)")
    ap.add_argument("--lang", choices=["ts", "py"], action="append", help="default: both")
    ap.add_argument("--json", action="store_true", help="print the tallies as JSON")
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--trust", action="store_true",
                    help="also apply every TS selection with the workspace trusted "
                         "(typescript-language-server does the kinds it offers) and compare")
    a = ap.parse_args()
    if not a.filekit.exists():
        sys.exit(f"{a.filekit} is missing: cargo build -p filekit")
    kinds = a.kinds.split(",") if a.kinds else list(KINDS)
    for k in kinds:
        if k not in KINDS:
            sys.exit(f"unknown kind {k}: one of {', '.join(KINDS)}")
    langs = a.lang or ["ts", "py"]
    tallies = {(k, lang): Tally() for k in kinds for lang in KINDS[k][0] if lang in langs}
    server_tallies = {(k, lang): Tally() for (k, lang) in tallies if lang == "ts"}
    outcomes: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        corpora = (("ts", TypeScript), ("ts", Chains), ("py", Python), ("py", Coroutines))
        for i, (lang, Corpus) in enumerate(corpora):
            if lang not in langs:
                continue
            corpus = Corpus(tmp / f"{lang}{i}")
            # pyright offers no extract refactors: Python's kinds are syntactic either way.
            server = Server(a.filekit, corpus.dir, tmp / f"server-state{i}") if a.trust and lang == "ts" else None
            judge = Judge(corpus, a.filekit, tmp / "state", server)
            cands = [c for c in corpus.candidates() if (c.kind, lang) in tallies]
            chosen = []
            for k in kinds:
                chosen += sample([c for c in cands if c.kind == k], a.sample)
            try:
                judge.run(chosen, tallies, a.progress, server_tallies, outcomes)
            finally:
                if server:
                    server.close()
    compare = comparison(kinds, outcomes) if a.trust else None
    if a.json:
        if a.trust:
            print(json.dumps({"ours": tallies_json(tallies), "server": tallies_json(server_tallies),
                              "compare": compare}, indent=1))
        else:
            print(json.dumps(tallies_json(tallies), indent=1))
    else:
        print_table(tallies, "ours (no language server)")
        if a.trust:
            print()
            print_table(server_tallies, "typescript-language-server (trusted workspace)")
            print_comparison(compare)
        for (k, lang), t in tallies.items():
            for b in t.broken:
                print(f"\nBROKEN {k} {lang} {b['selection']}: {b['problems']}\n{b['diff']}")
            for w, out in t.failed:
                print(f"\nFAILED {k} {lang} {w}: {out}")
    return 1 if any(t.broken or t.failed for t in tallies.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
