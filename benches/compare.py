#!/usr/bin/env python3
"""filekit against the naive way, end to end, in one run.

The naive way is what an agent framework does without filekit: read the file, and for each
edit block count the search text in the whole text (it must match once), replace it, and
move on; write the file at the end. filekit is timed as a user runs it: one `filekit call`
process per request (process start, JSON parsing, the edits, the diff and the atomic write
included).

Cases (issue 2):
  - 400 edit blocks on a 10,000-line Markdown file (document 003's case)
  - 4,000 edit blocks on a 40,000-line file (1.8 MB: filekit edits files up to 2 MiB whole,
    the bound of core/src/limits.rs; the issue's 100,000-line case is 4.5 MB and is refused)
  - reading a 10,000-line file with line numbers
  - a batch read of 1,000 small files

Usage: python3 benches/compare.py [--runs N]   (builds target/release/filekit if needed)
Prints a table of median times and the ratio naive / filekit (above 1: filekit is faster).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "filekit")


def document(lines):
    out = []
    for i in range(lines):
        if i % 10 == 0:
            out.append(f"Spell {i}\n")
        else:
            out.append(f"Level {i % 9} text of line {i} with some words in it\n")
    return "".join(out)


def blocks(count):
    return [
        {
            "search": f"Spell {k * 10}\nLevel",
            "replace": f"### Spell {k * 10}\n\n**Level",
            "label": f"spell {k}",
        }
        for k in range(count)
    ]


def naive_blocks(path, edits):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    failed = 0
    for e in edits:
        if text.count(e["search"]) != 1:
            failed += 1
            continue
        text = text.replace(e["search"], e["replace"], 1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return failed


def naive_read_numbered(path):
    with open(path, encoding="utf-8") as f:
        return "".join(f"{i:>6}\t{line}" for i, line in enumerate(f, 1))


def naive_read_many(paths):
    out = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            out.append(f.read())
    return out


def filekit_call(root, call):
    proc = subprocess.run(
        [BIN, "--root", root, "call"],
        input=json.dumps(call).encode(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    if proc.returncode != 0:
        sys.exit(f"filekit call failed ({proc.returncode}): {proc.stderr.decode()[:2000]}"
                 f"{proc.stdout.decode()[:2000]}")
    return proc.stdout


def timed(fn, runs, setup=None):
    times = []
    for _ in range(runs):
        if setup:
            setup()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--filekit", help="the binary to time (default: build target/release/filekit)")
    args = ap.parse_args()
    global BIN
    if args.filekit:
        BIN = os.path.abspath(args.filekit)
    elif not os.path.exists(BIN) or os.environ.get("FILEKIT_BENCH_BUILD") != "0":
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "filekit"], cwd=ROOT, check=True)

    work = tempfile.mkdtemp(prefix="filekit-bench-")
    rows = []
    try:
        for lines, count, naive_runs in [(10_000, 400, args.runs), (40_000, 4_000, 1)]:
            original = document(lines)
            path = os.path.join(work, "doc.md")
            edits = blocks(count)

            def reset():
                with open(path, "w", encoding="utf-8") as f:
                    f.write(original)

            call = {"tool_name": "batch_edit_blocks", "tool_args": {"path": path, "edits": edits}}
            fk = timed(lambda: filekit_call(work, call), args.runs, reset)
            with open(path, encoding="utf-8") as f:
                fk_result = f.read()
            nv = timed(lambda: naive_blocks(path, edits), naive_runs, reset)
            with open(path, encoding="utf-8") as f:
                if f.read() != fk_result:
                    sys.exit("filekit and the naive loop disagree on the result")
            rows.append((f"{count} edit blocks, {lines}-line file", fk, nv))

        big = os.path.join(work, "read.md")
        with open(big, "w", encoding="utf-8") as f:
            f.write(document(10_000))
        call = {"tool_name": "Read", "tool_args": {"file_path": big, "limit": 10_000}}
        fk = timed(lambda: filekit_call(work, call), args.runs)
        nv = timed(lambda: naive_read_numbered(big), args.runs)
        rows.append(("read 10,000 lines with numbers", fk, nv))

        small_dir = os.path.join(work, "small")
        os.mkdir(small_dir)
        paths = []
        for i in range(1000):
            p = os.path.join(small_dir, f"f{i}.txt")
            with open(p, "w", encoding="utf-8") as f:
                f.write(f"file {i}\nsecond line\n")
            paths.append(p)
        call = {"tool_name": "fs_read", "tool_args": {"mode": "Line", "paths": paths}}
        fk = timed(lambda: filekit_call(work, call), args.runs)
        nv = timed(lambda: naive_read_many(paths), args.runs)
        rows.append(("batch read of 1,000 small files", fk, nv))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"{'case':<40} {'filekit':>10} {'naive':>10} {'naive/filekit':>14}")
    for name, fk, nv in rows:
        print(f"{name:<40} {fk * 1000:>8.1f}ms {nv * 1000:>8.1f}ms {nv / fk:>13.1f}x")
    print("filekit: one `filekit call` process per request (start-up, JSON, edits, diff, write).")
    print("naive: in-process Python (no start-up): count + replace over the whole text per edit.")


if __name__ == "__main__":
    main()
