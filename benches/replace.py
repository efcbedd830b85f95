#!/usr/bin/env python3
"""Tree-wide replace: filekit against fastmod, sd and sed -i, side by side, in one run.

Corpus: every .rs file of cargo's registry cache (~/.cargo/registry/src, filled by building
this workspace), copied into a scratch directory and restored before every run.

Cases: a literal and a regex with a capture group, each on a rare and on a frequent pattern.
Tools, each run on a fresh copy of the corpus:
  filekit replace      filekit replace 's/PAT/REP/g' . --glob '*.rs' (and with --no-history, --no-fsync)
  fastmod              fastmod --accept-all --extensions rs PAT REP
  rg -l | xargs sd     rg -l PAT | xargs sd PAT REP
  rg -l | xargs sed -i rg -l PAT | xargs sed -i -E 's/PAT/REP/g'
and, for the preview: `filekit replace --dry-run` (diffs included) against `rg PAT` finding
the same matches. After each tool the tree is hashed: every tool must leave the same bytes.

fastmod and sd are installed with `cargo install` into benches/.tools (once); rg comes from
Debian's ripgrep package (installed with apt-get when missing).

Usage: python3 benches/replace.py [--runs N]
Prints median times and ratios (tool / filekit: above 1 means filekit is faster).
"""

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "benches", ".tools")
FILEKIT = os.path.join(ROOT, "target", "release", "filekit")
REGISTRY = os.path.expanduser("~/.cargo/registry/src")

# (name, literal?, pattern (valid in Rust regex and in GNU ERE), replacement for
#  filekit/fastmod/sd, replacement for sed)
CASES = [
    ("literal, rare", True, "unsafe_op_in_unsafe_fn", "UNSAFE_OP_IN_UNSAFE_FN", None),
    ("literal, frequent", True, "self.", "this.", None),
    ("regex+group, rare", False, r"fn ([a-z_]+)_unchecked\(", r"fn ${1}_raw(", r"fn \1_raw("),
    ("regex+group, frequent", False, r"let mut ([a-z_]+) =", r"let mut ${1}_v =", r"let mut \1_v ="),
]


def ensure_tools():
    if shutil.which("rg") is None:
        subprocess.run(["apt-get", "install", "-y", "-q", "ripgrep"], check=True)
    bins = os.path.join(TOOLS, "bin")
    for crate, exe in [("fastmod", "fastmod"), ("sd", "sd")]:
        if not os.path.exists(os.path.join(bins, exe)):
            subprocess.run(
                ["cargo", "install", "--quiet", "--locked", "--root", TOOLS, crate], check=True
            )
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "filekit"], cwd=ROOT, check=True)
    return os.path.join(bins, "fastmod"), os.path.join(bins, "sd")


def build_corpus(dest):
    count = 0
    for dirpath, dirnames, filenames in os.walk(REGISTRY):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.endswith(".rs"):
                src = os.path.join(dirpath, name)
                rel = os.path.relpath(src, REGISTRY)
                out = os.path.join(dest, rel)
                os.makedirs(os.path.dirname(out), exist_ok=True)
                shutil.copyfile(src, out)
                count += 1
    return count


def tree_hash(path):
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(path):
        # filekit's edit history is not part of the tree the tools produce.
        dirnames[:] = sorted(d for d in dirnames if not (dirpath == path and d == ".filekit"))
        for name in sorted(filenames):
            p = os.path.join(dirpath, name)
            h.update(os.path.relpath(p, path).encode())
            with open(p, "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def run_shell(cmd, cwd):
    # No stdin: rg given no path would search standard input instead of the tree.
    proc = subprocess.run(
        cmd, cwd=cwd, shell=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    # rg exits 1 when nothing matches; xargs passes on a tool's failure.
    if proc.returncode not in (0, 1):
        sys.exit(f"failed ({proc.returncode}): {cmd}\n{proc.stderr.decode()[:2000]}")


def q(s):
    return "'" + s.replace("'", "'\\''") + "'"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    fastmod, sd = ensure_tools()
    scratch = tempfile.mkdtemp(prefix="filekit-replace-bench-")
    pristine = os.path.join(scratch, "pristine")
    work = os.path.join(scratch, "work")
    files = build_corpus(pristine)
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(pristine) for f in fs)
    print(f"corpus: {files} .rs files, {size / 1e6:.0f} MB (cargo registry sources)")

    def fresh():
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(pristine, work)
        # The copy on disk before the clock starts: a tool that flushes (filekit does) should
        # pay for its own writes, not for the copy.
        os.sync()

    rows = []
    try:
        for name, literal, pat, rep, sed_rep in CASES:
            fk_expr = f"s/{pat.replace('/', chr(92) + '/')}/{rep.replace('/', chr(92) + '/')}/g"
            lit = "-F " if literal else ""
            sed_pat = pat.replace(".", "\\.") if literal else pat
            sed_expr = f"s/{sed_pat}/{(sed_rep or rep)}/g"
            commands = {
                "filekit": f"{FILEKIT} --root . replace {lit}{q(fk_expr)} . --glob '*.rs'",
                "filekit --no-history": f"{FILEKIT} --root . --no-history replace {lit}{q(fk_expr)} . --glob '*.rs'",
                "filekit --no-fsync": f"{FILEKIT} --root . replace --no-fsync {lit}{q(fk_expr)} . --glob '*.rs'",
                "fastmod": f"{fastmod} --accept-all {'--fixed-strings ' if literal else ''}--extensions rs {q(pat)} {q(rep)}",
                "rg | sd": f"rg -l {'-F ' if literal else ''}{q(pat)} -g '*.rs' . | xargs -r {sd} {'-F ' if literal else ''}{q(pat)} {q(rep)}",
                "rg | sed -i": f"rg -l {'-F ' if literal else ''}{q(pat)} -g '*.rs' . | xargs -r sed -i -E {q(sed_expr)}",
            }
            times = {}
            hashes = {}
            for tool, cmd in commands.items():
                samples = []
                for _ in range(args.runs):
                    fresh()
                    t = time.perf_counter()
                    run_shell(cmd, work)
                    samples.append(time.perf_counter() - t)
                times[tool] = statistics.median(samples)
                hashes[tool] = tree_hash(work)
            if len(set(hashes.values())) != 1:
                sys.exit(f"{name}: the tools left different trees: {hashes}")
            fresh()
            preview = {}
            for tool, cmd in {
                # Through a pipe: rg writing to /dev/null stops at the first match.
                "filekit --dry-run": f"{FILEKIT} --root . replace {lit}{q(fk_expr)} . --glob '*.rs' --dry-run | cat",
                "rg": f"rg {'-F ' if literal else ''}{q(pat)} -g '*.rs' . | cat",
            }.items():
                samples = []
                for _ in range(args.runs):
                    t = time.perf_counter()
                    run_shell(cmd, work)
                    samples.append(time.perf_counter() - t)
                preview[tool] = statistics.median(samples)
            rows.append((name, times, preview))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    print(f"{'case':<24} {'filekit':>9} {'no-hist':>9} {'no-fsync':>9} {'fastmod':>9} {'rg|sd':>9} {'rg|sed':>9}   {'fastmod/fk':>10} {'fastmod/nf':>10} {'sd/fk':>7} {'sed/fk':>7}   {'dry-run':>9} {'rg':>8} {'dry/rg':>7}")
    for name, t, p in rows:
        fk = t["filekit"]
        nf = t["filekit --no-fsync"]
        print(
            f"{name:<24} {fk*1000:>7.0f}ms {t['filekit --no-history']*1000:>7.0f}ms {nf*1000:>7.0f}ms {t['fastmod']*1000:>7.0f}ms {t['rg | sd']*1000:>7.0f}ms {t['rg | sed -i']*1000:>7.0f}ms"
            f"   {t['fastmod']/fk:>9.2f}x {t['fastmod']/nf:>9.2f}x {t['rg | sd']/fk:>6.2f}x {t['rg | sed -i']/fk:>6.2f}x"
            f"   {p['filekit --dry-run']*1000:>7.0f}ms {p['rg']*1000:>6.0f}ms {p['filekit --dry-run']/p['rg']:>6.2f}x"
        )
    print("filekit flushes written files to disk (two filesystem syncs per run) and records every file's old and new")
    print("content in its edit history (.filekit/history.db) so that the replace can be undone; --no-history skips")
    print("the record, --no-fsync the flush (keeping the record), as the other tools do neither.")
    print("Every tool left a byte-identical tree in every case.")


if __name__ == "__main__":
    main()
