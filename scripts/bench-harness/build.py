#!/usr/bin/env python3
"""A user's build, timed: `scripts/bench build`.

Each project is a cargo project of its own (its own `Cargo.lock`) with one binary to build,
and the source file of that binary. For every repetition, in turn (A B A B ...; the order
flips each repetition so that neither always goes first):

- clean: `cargo build` (debug, `--locked`) of the binary into an empty target folder;
- incremental: the binary's source file touched, then built again (`--reps-incremental`
  times, each after the clean build of the same repetition).

Recorded per build: wall seconds, the crates cargo compiled (its `compiler-artifact`
messages that were not fresh), and, after a clean build, the size of the debug binary.
`build.py table CSV` prints medians with [min-max] and each project against the one given
as `--against`. Every build reads the local registry only (`--offline`): the crates must be
fetched before (`cargo fetch`), which `scripts/bench build` does.

    build.py run --reps 3 --out build.csv \
        --project 'mcp-framework=scripts/bench-peers/mcp-framework/Cargo.toml:bench-mcp-framework:examples/bench/main.rs' \
        --project 'rmcp=scripts/bench-peers/rmcp/Cargo.toml:bench-rmcp-distinct:scripts/bench-peers/rmcp/src/bin/distinct.rs'
    build.py table build.csv --against rmcp
"""

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

FIELDS = ["project", "rep", "kind", "seconds", "compiled", "binary_bytes"]


def parse_project(spec):
    name, rest = spec.split("=", 1)
    manifest, binary, source = rest.split(":")
    return {"name": name, "manifest": Path(manifest), "bin": binary, "source": Path(source)}


def build(project, target):
    """One `cargo build` of the project's binary: (seconds, crates compiled)."""
    cmd = [
        "cargo", "build", "--locked", "--offline", "--message-format=json",
        "--manifest-path", str(project["manifest"]), "--bin", project["bin"],
        "--target-dir", str(target),
    ]
    started = time.monotonic()
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        sys.stderr.write(done.stderr[-4000:])
        raise SystemExit(f"build.py: the build of {project['name']} failed")
    compiled = 0
    for line in done.stdout.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get("reason") == "compiler-artifact" and not message.get("fresh", False):
            compiled += 1
    return seconds, compiled


def run(args):
    projects = [parse_project(p) for p in args.project]
    root = Path(args.target_root)
    root.mkdir(parents=True, exist_ok=True)
    new = not Path(args.out).exists()
    with open(args.out, "a", newline="") as f:
        out = csv.DictWriter(f, FIELDS)
        if new:
            out.writeheader()
        for rep in range(1, args.reps + 1):
            order = projects if rep % 2 else list(reversed(projects))
            for project in order:
                target = root / project["name"]
                shutil.rmtree(target, ignore_errors=True)
                seconds, compiled = build(project, target)
                size = (target / "debug" / project["bin"]).stat().st_size
                out.writerow({"project": project["name"], "rep": rep, "kind": "clean",
                              "seconds": f"{seconds:.2f}", "compiled": compiled,
                              "binary_bytes": size})
                f.flush()
                print(f"{project['name']} clean #{rep}: {seconds:.1f} s, {compiled} crates, "
                      f"binary {size / 1e6:.0f} MB", flush=True)
                for _ in range(args.reps_incremental):
                    os.utime(project["source"])
                    seconds, compiled = build(project, target)
                    out.writerow({"project": project["name"], "rep": rep, "kind": "incremental",
                                  "seconds": f"{seconds:.2f}", "compiled": compiled,
                                  "binary_bytes": ""})
                    f.flush()
                    print(f"{project['name']} incremental #{rep}: {seconds:.2f} s", flush=True)
            if not args.keep:
                for project in projects:
                    shutil.rmtree(root / project["name"], ignore_errors=True)


def spread(values, fmt):
    return f"{fmt(statistics.median(values))} [{fmt(min(values))}–{fmt(max(values))}]"


def table(args):
    rows = list(csv.DictReader(open(args.csv)))
    names = list(dict.fromkeys(r["project"] for r in rows))
    median = {}
    print("| project | clean build (s) | crates compiled | debug binary (MB) | incremental (s) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name in names:
        clean = [r for r in rows if r["project"] == name and r["kind"] == "clean"]
        inc = [float(r["seconds"]) for r in rows if r["project"] == name and r["kind"] == "incremental"]
        secs = [float(r["seconds"]) for r in clean]
        crates = [int(r["compiled"]) for r in clean]
        size = [int(r["binary_bytes"]) / 1e6 for r in clean]
        median[name] = (statistics.median(secs), statistics.median(inc) if inc else None,
                        statistics.median(crates), statistics.median(size))
        print(f"| {name} | {spread(secs, lambda v: f'{v:.1f}')} | {statistics.median(crates):.0f} "
              f"| {statistics.median(size):.0f} | {spread(inc, lambda v: f'{v:.2f}') if inc else '—'} |")
    if args.against and args.against in median:
        base = median[args.against]
        print()
        for name in names:
            if name == args.against:
                continue
            m = median[name]
            inc = f"{m[1] / base[1]:.2f}×" if m[1] and base[1] else "—"
            print(f"- {name} against {args.against}: clean build **{m[0] / base[0]:.2f}×**, "
                  f"incremental **{inc}**, crates compiled {m[2]:.0f} vs {base[2]:.0f}, "
                  f"debug binary {m[3] / base[3]:.2f}×")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--project", action="append", required=True,
                   help="NAME=MANIFEST:BIN:SOURCE (the file touched for an incremental build)")
    r.add_argument("--reps", type=int, default=2)
    r.add_argument("--reps-incremental", type=int, default=3)
    r.add_argument("--target-root", default="target/bench-build")
    r.add_argument("--keep", action="store_true", help="keep the target folders afterwards")
    r.add_argument("--out", required=True)
    t = sub.add_parser("table")
    t.add_argument("csv")
    t.add_argument("--against")
    args = parser.parse_args()
    run(args) if args.command == "run" else table(args)


if __name__ == "__main__":
    main()
