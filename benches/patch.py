#!/usr/bin/env python3
"""Patch benchmark (issue 25): real changes between two releases of registry packages, rendered
in the three formats models emit, clean and with each model mistake, applied by filekit and by
the peers agents use. Counts per format and mistake class: files byte-identical to the next
release, and silent wrong applications (the applier said it applied, the file is not the next
release). `in_sequence` renders each hunk as two SEARCH/REPLACE blocks, the second one's SEARCH
holding what the first wrote (blocks apply one after another in aider, Cline and Roo Code).

Corpus (fetched by scripts/setup-test-deps into .test-deps): lodash 4.17.20 -> 4.17.21 and
underscore 1.13.6 -> 1.13.7 (npm, .test-deps/merge), urllib3 2.2.2 -> 2.2.3 (PyPI,
.test-deps/patch and .test-deps/python).

Peers: GNU `patch -F2` and `git apply` (unified diffs), `codex-apply-patch` (PyPI: Codex's Rust
applier, Codex envelopes), aider's `do_replace` (aider-chat's editblock_coder.py, its functions
loaded without aider's heavy imports; SEARCH/REPLACE blocks).

    .venv/bin/python benches/patch.py [--filekit target/release/filekit] [--limit N]
"""

import argparse
import ast
import difflib
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEPS = REPO / ".test-deps"
PAIRS = [
    (DEPS / "merge/lodash-4.17.20/package", DEPS / "merge/lodash-4.17.21/package", "lodash"),
    (DEPS / "merge/underscore-1.13.6/package", DEPS / "merge/underscore-1.13.7/package", "underscore"),
    (DEPS / "patch/urllib3-2.2.2", DEPS / "python/urllib3-2.2.3", "urllib3"),
]
TEXT = {".js", ".ts", ".py", ".md", ".json", ".txt", ".cfg", ".toml", ".mjs", ".cjs", ".d.ts"}
MISTAKES = ["clean", "trailing_ws", "indentation", "tabs", "punctuation", "blank_dropped",
            "fewer_context", "line_numbers", "in_sequence"]
# Mistakes that only one format can make: line numbers are a diff's; blocks that build on what
# the block before them wrote are SEARCH/REPLACE's (applied one after another).
ONLY = {"line_numbers": "unified", "in_sequence": "search_replace"}
FORMATS = ["unified", "v4a", "search_replace"]


def corpus(limit):
    out = []
    for old_root, new_root, name in PAIRS:
        if not old_root.exists() or not new_root.exists():
            print(f"missing {old_root} or {new_root}: run scripts/setup-test-deps", file=sys.stderr)
            continue
        for new in sorted(new_root.rglob("*")):
            rel = new.relative_to(new_root)
            old = old_root / rel
            if not new.is_file() or not old.is_file() or new.suffix not in TEXT:
                continue
            try:
                a, b = old.read_text(), new.read_text()
            except UnicodeDecodeError:
                continue
            if a != b and len(a) < 400_000 and a.endswith("\n") and b.endswith("\n"):
                out.append((f"{name}/{rel}", a, b))
    return out[:limit] if limit else out


# ---------------------------------------------------------------- hunks and mistakes

def hunks(a, b, context):
    """[(old_start (1-based), [(tag, line)])] with tag ' ', '-', '+'; lines without newline."""
    al, bl = a.splitlines(), b.splitlines()
    out = []
    for group in difflib.SequenceMatcher(None, al, bl, autojunk=False).get_grouped_opcodes(context):
        lines = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [(" ", l) for l in al[i1:i2]]
            if tag in ("delete", "replace"):
                lines += [("-", l) for l in al[i1:i2]]
            if tag in ("insert", "replace"):
                lines += [("+", l) for l in bl[j1:j2]]
        out.append((group[0][1] + 1, lines))
    return out


CURLY = str.maketrans({'"': "\u201c", "'": "\u2019"})


def mistake(hs, kind):
    out = []
    for start, lines in hs:
        if kind == "trailing_ws":
            lines = [(t, l + "  " if t == " " and l.strip() else l) for t, l in lines]
        elif kind == "indentation":
            lines = [(t, "  " + l if l.strip() else l) for t, l in lines]
        elif kind == "tabs":
            def tabbed(l):
                body = l.lstrip(" ")
                n = len(l) - len(body)
                return "\t" * (n // 4) + " " * (n % 4) + body
            lines = [(t, tabbed(l)) for t, l in lines]
        elif kind == "punctuation":
            lines = [(t, l.translate(CURLY) if t == " " else l) for t, l in lines]
        elif kind == "blank_dropped":
            # A blank context line between two context lines: next to a change, dropping it
            # would make the patch say another change (that one is placed as it says).
            ctx = lambda i: lines[i][0] == " " and lines[i][1].strip()
            k = next((i for i in range(1, len(lines) - 1)
                      if lines[i][0] == " " and not lines[i][1].strip() and ctx(i - 1) and ctx(i + 1)),
                     None)
            if k is not None:
                lines = lines[:k] + lines[k + 1:]
        elif kind == "line_numbers":
            start += 7
        elif kind == "in_sequence":
            out += in_two_steps(start, lines)
            continue
        out.append((start, lines))
    return out


def in_two_steps(start, lines):
    """One hunk as two blocks, the second one's SEARCH holding what the first wrote: the first
    makes every change but one (the last added line, or else the first removed one), the second
    makes that one on the text the first left."""
    plus = [i for i, (t, _) in enumerate(lines) if t == "+"]
    if plus:
        j = plus[-1]
        first = [x for i, x in enumerate(lines) if i != j]
        second = [("+" if i == j else " ", l) for i, (t, l) in enumerate(lines) if t != "-"]
    else:
        j = next(i for i, (t, _) in enumerate(lines) if t == "-")
        first = [(" " if i == j else t, l) for i, (t, l) in enumerate(lines)]
        second = [("-" if i == j else " ", l) for i, (t, l) in enumerate(lines)
                  if t != "-" or i == j]
    return [(start, first), (start, second)]


def render(fmt, path, hs):
    if fmt == "unified":
        s = f"--- a/{path}\n+++ b/{path}\n"
        for start, lines in hs:
            old = sum(1 for t, _ in lines if t != "+")
            new = sum(1 for t, _ in lines if t != "-")
            s += f"@@ -{start},{old} +{start},{new} @@\n" + "".join(t + l + "\n" for t, l in lines)
        return s
    if fmt == "v4a":
        s = f"*** Begin Patch\n*** Update File: {path}\n"
        for _, lines in hs:
            s += "@@\n" + "".join(t + l + "\n" for t, l in lines)
        return s + "*** End Patch\n"
    s = ""
    for _, lines in hs:
        old = "".join(l + "\n" for t, l in lines if t != "+")
        new = "".join(l + "\n" for t, l in lines if t != "-")
        s += f"{path}\n```\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n\n"
    return s


def blocks(hs):
    return [("".join(l + "\n" for t, l in lines if t != "+"),
             "".join(l + "\n" for t, l in lines if t != "-")) for _, lines in hs]


# ---------------------------------------------------------------- appliers

def run(cmd, cwd, stdin=None):
    r = subprocess.run(cmd, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=60)
    return r.returncode == 0


def filekit_apply(binary, state):
    def apply(work, path, text, fmt, hs):
        return run([binary, "--root", str(work), "--state-dir", state, "--no-history", "patch", "-",
                    "--format", fmt], work, text)
    return apply


def gnu_patch(work, path, text, fmt, hs):
    return run(["patch", "-p1", "-F2", "--batch", "--no-backup-if-mismatch", "-r", "-", "-s"],
               work, text)


def git_apply(work, path, text, fmt, hs):
    return run(["git", "apply", "-p1", "--unsafe-paths", "-"], work, text)


def codex_apply():
    try:
        import codex_apply_patch
    except ImportError:
        return None

    def apply(work, path, text, fmt, hs):
        cwd = os.getcwd()
        os.chdir(work)
        try:
            codex_apply_patch.apply_patch(text)
            return True
        except Exception:
            return False
        finally:
            os.chdir(cwd)
    return apply


def aider_apply():
    """aider's do_replace, from the aider-chat wheel's editblock_coder.py, without its imports
    of aider itself (only the module's functions and constants, on the standard library)."""
    src = DEPS / "patch/aider/editblock_coder.py"
    if not src.exists():
        return None
    tree = ast.parse(src.read_text())
    keep = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("aider")):
            continue
        if isinstance(node, ast.ClassDef):
            continue
        keep.append(node)
    ns = {"__name__": "aider_editblock"}
    exec(compile(ast.Module(body=keep, type_ignores=[]), str(src), "exec"), ns)
    do_replace = ns["do_replace"]
    fence = ns["DEFAULT_FENCE"]

    def apply(work, path, text, fmt, hs):
        f = Path(work) / path
        content = f.read_text()
        for before, after in blocks(hs):
            try:
                new = do_replace(f, content, before, after, fence)
            except Exception:
                new = None
            if not new:
                return False
            content = new
        f.write_text(content)
        return True
    return apply


# ---------------------------------------------------------------- the run

def show(binary, name, fmt, kind, text, a, b, what):
    """What filekit did with one file, on stderr: the patch, its reply, and the difference of
    what it wrote from the next release."""
    work = tempfile.mkdtemp(prefix="fk-bench-show-")
    try:
        target = Path(work) / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(a)
        r = subprocess.run([binary, "--root", work, "--no-history", "patch", "-", "--format", fmt],
                           cwd=work, input=text, capture_output=True, text=True, timeout=60)
        got = target.read_text()
        diff = "\n".join(difflib.unified_diff(b.splitlines(), got.splitlines(), "next release",
                                              "filekit", lineterm=""))
        print(f"== filekit {what}: {name} ({fmt}, {kind})\n{text}\n-- filekit said:\n"
              f"{r.stdout}{r.stderr}\n-- written vs next release:\n{diff}", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--filekit", default=str(REPO / "target/release/filekit"))
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--show", action="store_true",
                    help="show every file filekit applied wrong, or refused where a peer applied it "
                         "right: the patch, and what filekit said or wrote")
    args = ap.parse_args()
    if not Path(args.filekit).exists():
        args.filekit = str(REPO / "target/debug/filekit")
    files = corpus(args.limit)
    state = tempfile.mkdtemp(prefix="fk-bench-state-")
    appliers = {"filekit": (filekit_apply(args.filekit, state), FORMATS),
                "patch -F2": (gnu_patch, ["unified"]),
                "git apply": (git_apply, ["unified"])}
    if (c := codex_apply()):
        appliers["codex-apply-patch"] = (c, ["v4a"])
    if (a := aider_apply()):
        appliers["aider do_replace"] = (a, ["search_replace"])
    shown = args.filekit if args.show else None
    ok = defaultdict(int)
    wrong = defaultdict(int)
    total = defaultdict(int)
    for name, a, b in files:
        for kind in MISTAKES:
            hs = mistake(hunks(a, b, 1 if kind == "fewer_context" else 3), kind)
            for fmt in FORMATS:
                if ONLY.get(kind, fmt) != fmt:
                    continue
                text = render(fmt, name, hs)
                total[(fmt, kind)] += 1
                right = set()
                for who, (apply, fmts) in appliers.items():
                    if fmt not in fmts:
                        continue
                    work = tempfile.mkdtemp(prefix="fk-bench-")
                    try:
                        target = Path(work) / name
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_text(a)
                        said = apply(work, name, text, fmt, hs)
                        got = target.read_text() if target.exists() else None
                        if got == b:
                            ok[(who, fmt, kind)] += 1
                            right.add(who)
                        elif said:
                            wrong[(who, fmt, kind)] += 1
                            if shown and who == "filekit":
                                show(shown, name, fmt, kind, text, a, b, "applied it wrong")
                    finally:
                        shutil.rmtree(work, ignore_errors=True)
                if shown and "filekit" not in right and right:
                    show(shown, name, fmt, kind, text, a, b, f"refused what {', '.join(right)} applied")
    shutil.rmtree(state, ignore_errors=True)
    print(f"corpus: {len(files)} changed files ({', '.join(p[2] for p in PAIRS)})\n")
    print("| format | mistake | files | " + " | ".join(
        f"{w}" for w in appliers) + " |")
    print("|---|---|---|" + "---|" * len(appliers))
    for fmt in FORMATS:
        for kind in MISTAKES:
            if (fmt, kind) not in total:
                continue
            cells = []
            for who, (_, fmts) in appliers.items():
                if fmt not in fmts:
                    cells.append("")
                    continue
                cells.append(f"{ok[(who, fmt, kind)]} ({wrong[(who, fmt, kind)]} wrong)")
            print(f"| {fmt} | {kind} | {total[(fmt, kind)]} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
