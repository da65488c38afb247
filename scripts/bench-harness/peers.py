#!/usr/bin/env python3
"""Start-up measurement and report of `scripts/bench peers`.

  peers.py startup --server NAME=CMD ... [--reps 10] [--init] --out startup.csv
  peers.py report --startup startup.csv --http http.csv --baseline NAME --ours NAME > peers.md
  peers.py ratios realistic.csv --ours NAME          (per workload: ours ÷ each peer, peak RSS)
  peers.py churn --driver churn_load --server NAME=CMD ... [--reps 2] [--conc 32] [--seconds 8]
                 --out churn.csv                     (legacy session churn, table on stdout)

startup: for each repetition, every server in turn (interleaved): spawn CMD (stdio), write one
`tools/list` request (MCP 2026-07-28, `_meta` in the request, the harness's
body-tools-list.json) and time spawn -> the first answer line read back. With --init the
client first sends a 2025-06-18 `initialize`, waits for its answer, sends
`notifications/initialized` and then the `tools/list` (for servers that need a handshake);
the same sequence is then used for every server. An answer without a JSON-RPC `result` (or,
for the servers, without 102 tools) fails the run. Before each spawn the machine must be idle
(matrix.py's wait_idle). The server's stdin is then closed; it is killed if it has not exited
within 5 s.
"""
import argparse
import csv
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from matrix import kv, proc_kb, start_server, stop_server, wait_idle, wait_port  # noqa: E402

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def servers(items):
    out = []
    for item in items:
        name, eq, cmd = item.partition("=")
        if not eq:
            sys.exit(f"--server takes NAME=CMD: {item}")
        out.append((name, cmd))
    return out


def read_answer(p, want_id, deadline):
    """The next JSON-RPC response with id want_id from p.stdout (notifications are skipped)."""
    while True:
        if time.monotonic() > deadline:
            raise TimeoutError("no answer within 30 s")
        line = p.stdout.readline()
        if not line:
            raise EOFError(f"server closed stdout (exit {p.poll()})")
        msg = json.loads(line)
        if msg.get("id") == want_id:
            return msg


def one(cmd, init):
    with open(os.path.join(HERE, "body-tools-list.json"), "rb") as f:
        body = f.read().strip() + b"\n"
    deadline = time.monotonic() + 30
    t0 = time.perf_counter()
    p = subprocess.Popen(shlex.split(cmd), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    try:
        if init:
            p.stdin.write(json.dumps(INIT).encode() + b"\n")
            p.stdin.flush()
            r = read_answer(p, 0, deadline)
            if "result" not in r:
                raise RuntimeError(f"initialize failed: {str(r)[:300]}")
            p.stdin.write(json.dumps(INITIALIZED).encode() + b"\n")
        p.stdin.write(body)
        p.stdin.flush()
        r = read_answer(p, 1, deadline)
        t1 = time.perf_counter()
        if "result" not in r:
            raise RuntimeError(f"tools/list failed: {str(r)[:300]}")
        return (t1 - t0) * 1000, len(r["result"].get("tools", []))
    finally:
        try:
            p.stdin.close()
            p.wait(5)
        except (subprocess.TimeoutExpired, BrokenPipeError):
            p.kill()
            p.wait()


def startup(a):
    srv = servers(a.server)
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["label", "rep", "init", "ms", "tools"])
        for rep in range(1, a.reps + 1):
            for name, cmd in srv:
                wait_idle(a.max_idle_wait)
                ms, tools = one(cmd, a.init)
                w.writerow([name, rep, int(a.init), f"{ms:.2f}", tools])
                f.flush()
                print(f"startup {name} rep={rep} ms={ms:.2f} tools={tools}", flush=True)


def report(a):
    lines = ["# `scripts/bench peers`", ""]
    with open(a.startup) as f:
        rows = list(csv.DictReader(f))
    st = {}
    for r in rows:
        st.setdefault(r["label"], []).append(float(r["ms"]))
    names = list(dict.fromkeys(r["label"] for r in rows))
    init = rows and rows[0]["init"] == "1"
    base = statistics.median(st[a.baseline]) if a.baseline in st else None
    ours = statistics.median(st[a.ours]) if a.ours in st else None
    lines += ["## Start-up to the first answer (stdio)", "",
              f"Spawn → {'initialize → ' if init else ''}`tools/list` answer read back, "
              f"median of {max(len(v) for v in st.values())} interleaved runs.", "",
              "\"× baseline\" is the row's time over the baseline's; \"ours vs this\" is the "
              "row's time over this framework's (above 1: ours answers sooner).", "",
              "| server | median | min–max | × baseline | ours vs this |", "|---|---:|---:|---:|---:|"]
    for n in names:
        m = statistics.median(st[n])
        lines.append(f"| {n} | {m:.2f} ms | {min(st[n]):.2f}–{max(st[n]):.2f} ms "
                     f"| {m / base:.2f}× | {m / ours:.2f}× |" if base and ours else
                     f"| {n} | {m:.2f} ms | {min(st[n]):.2f}–{max(st[n]):.2f} ms | – | – |")
    lines.append("")
    if a.http and os.path.exists(a.http):
        with open(a.http) as f:
            allr = list(csv.DictReader(f))
        g, g_all = {}, {}
        for r in allr:
            key = (int(r["conc"]), r["label"])
            g_all.setdefault(key, []).append(r)
            if r["valid"] == "1":
                g.setdefault(key, []).append(r)
        # A point with no valid run (the machine was busy throughout) shows all its runs, marked.
        fallback = {k for k in g_all if k not in g}
        for k in fallback:
            g[k] = g_all[k]
        hr = allr
        concs = sorted({k[0] for k in g})
        labels = list(dict.fromkeys(r["label"] for r in hr))
        med = lambda rs, k: statistics.median(float(r[k]) for r in rs)
        # Older CSVs have no split columns.
        split = lambda rs: (f"{med(rs, 'anon_rss_kb') / 1024:.1f} / {med(rs, 'file_rss_kb') / 1024:.1f} MiB"
                            if all(r.get("anon_rss_kb") for r in rs) else "–")
        lines += ["## HTTP `tools/call add` (closed loop, HTTP/1.1 keep-alive)", "",
                  "Server on CPU 0, load generator on CPU 1; median over the valid runs "
                  "[min–max]; peak RSS is the server's VmHWM during the run; anon / code is its resident "
                  "memory at the end split into anonymous (heap, stacks) and file-backed pages (the "
                  "binary's code and read-only data the run touched). "
                  "\"× baseline\" is the row's req/s over the baseline's; \"ours vs this\" is "
                  "this framework's req/s over the row's (above 1: ours is faster). Runs with more than 20% of a core used by other "
                  "processes are invalid and left out; a point marked * had no valid run and shows "
                  "all of its runs (a busy machine: compare those ratios only, with care).", "",
                  "| conc | server | runs | req/s | × baseline | ours vs this | p50 | p99 | server CPU | peak RSS | anon / code | errors |",
                  "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for c in concs:
            b = g.get((c, a.baseline)); o = g.get((c, a.ours))
            for n in labels:
                rs = g.get((c, n))
                if not rs:
                    lines.append(f"| {c} | {n} | 0 | – | – | – | – | – | – | – | – | – |")
                    continue
                rps = [float(r["rps"]) for r in rs]
                m = statistics.median(rps)
                xb = f"{m / med(b, 'rps'):.2f}×" if b else "–"
                xo = f"{med(o, 'rps') / m:.2f}×" if o else "–"
                mark = "*" if (c, n) in fallback else ""
                lines.append(
                    f"| {c} | {n} | {len(rs)}{mark} | {m:,.0f} [{min(rps):,.0f}–{max(rps):,.0f}] | {xb} | {xo} "
                    f"| {med(rs, 'p50_us'):.0f} µs | {med(rs, 'p99_us'):.0f} µs "
                    f"| {med(rs, 'server_cpu_pct'):.0f}% | {med(rs, 'peak_rss_kb') / 1024:.1f} MiB "
                    f"| {split(rs)} "
                    f"| {sum(int(r['errors']) for r in rs)} |")
        lines.append("")
    print("\n".join(lines))


def ratios(a):
    """Per workload and concurrency: this framework's req/s over each peer's, and each
    server's peak RSS (medians over the valid runs, else over all runs, marked *)."""
    with open(a.csv) as f:
        rows = list(csv.DictReader(f))
    groups, every = {}, {}
    for r in rows:
        key = (r["method"], int(r["conc"]), r["label"])
        every.setdefault(key, []).append(r)
        if r["valid"] == "1":
            groups.setdefault(key, []).append(r)
    med = lambda rs, k: statistics.median(float(r[k]) for r in rs)
    labels = list(dict.fromkeys(r["label"] for r in rows))
    peers = [n for n in labels if n != a.ours]
    lines = ["", "## Ratios", "",
             f"\"{a.ours} ÷ peer\": this framework's median req/s over the peer's (above 1: ours "
             "is faster); peak RSS is each server's VmHWM during the run (median).", "",
             "| workload | conc | " + " | ".join(f"{a.ours} ÷ {p}" for p in peers) + " | peak RSS "
             + " / ".join(labels) + " |",
             "|---|---:|" + "---:|" * len(peers) + "---:|"]
    for method in dict.fromkeys(r["method"] for r in rows):
        for conc in sorted({int(r["conc"]) for r in rows if r["method"] == method}):
            pick = lambda n: groups.get((method, conc, n)) or every.get((method, conc, n))
            ours = pick(a.ours)
            cells = []
            for p in peers:
                theirs = pick(p)
                cells.append(f"{med(ours, 'rps') / med(theirs, 'rps'):.2f}×" if ours and theirs else "–")
            rss = " / ".join(f"{med(pick(n), 'peak_rss_kb') / 1024:.1f}" if pick(n) else "–"
                             for n in labels)
            lines.append(f"| {method} | {conc} | " + " | ".join(cells) + f" | {rss} MiB |")
    print("\n".join(lines))


def churn(a):
    """Legacy session churn: every repetition, each server in turn (interleaved) on CPU 0,
    started afresh with BENCH_LEGACY_SESSIONS=1, and the churn_load driver on CPU 1 for
    --seconds; sessions a second and the server's peak RSS (VmHWM) and RSS at the end
    (what the DELETEd sessions left behind)."""
    fields = ["label", "rep", "conc", "sessions", "rate", "errors", "p50_ms", "p99_ms",
              "peak_rss_kb", "rss_kb"]
    # Every server started below inherits it (rmcp serves sessions only when asked).
    os.environ["BENCH_LEGACY_SESSIONS"] = "1"
    rows = []
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for rep in range(a.reps):
            for name, cmd in servers(a.server):
                wait_idle(a.max_idle_wait)
                srv = start_server(cmd.format(port=a.port), "split")
                try:
                    wait_port(a.port, srv)
                    out = subprocess.run(
                        ["taskset", "-c", "1", a.driver, "--url", f"http://127.0.0.1:{a.port}/mcp",
                         "--conc", str(a.conc), "--seconds", str(a.seconds)],
                        check=True, capture_output=True, text=True,
                        timeout=a.seconds + 60)
                    r = kv(out.stdout.strip().splitlines()[-1])
                    row = dict(label=name, rep=rep, conc=a.conc, sessions=r["sessions"],
                               rate=r["rate"], errors=r["errors"], p50_ms=r["p50_ms"],
                               p99_ms=r["p99_ms"], peak_rss_kb=proc_kb(srv.pid, "VmHWM:"),
                               rss_kb=proc_kb(srv.pid, "VmRSS:"))
                    if out.stderr.strip():
                        print(f"{name}: {out.stderr.strip()}", file=sys.stderr)
                finally:
                    stop_server(srv)
                w.writerow(row)
                f.flush()
                rows.append(row)
                print(f"churn {name} rep={rep} rate={row['rate']} errors={row['errors']}",
                      file=sys.stderr, flush=True)
    by = {}
    for r in rows:
        by.setdefault(r["label"], []).append(r)
    med = lambda rs, k: statistics.median(float(r[k]) for r in rs)
    ours = by.get(a.ours)
    lines = ["", f"## Legacy session churn (initialize → notifications/initialized → tools/call "
             f"→ DELETE), {a.conc} workers, {a.seconds} s, median of {a.reps}", "",
             "| server | sessions/s | ours ÷ this | p50 | p99 | errors | peak RSS | RSS at the end |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, rs in by.items():
        ratio = f"{med(ours, 'rate') / med(rs, 'rate'):.2f}×" if ours and med(rs, "rate") else "–"
        lines.append(f"| {name} | {med(rs, 'rate'):,.0f} | {ratio} | {med(rs, 'p50_ms'):.2f} ms "
                     f"| {med(rs, 'p99_ms'):.2f} ms | {sum(int(r['errors']) for r in rs)} "
                     f"| {med(rs, 'peak_rss_kb') / 1024:.1f} MiB | {med(rs, 'rss_kb') / 1024:.1f} MiB |")
    print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("startup")
    s.add_argument("--server", action="append", required=True, help="NAME=CMD (stdio); repeatable")
    s.add_argument("--reps", type=int, default=10)
    s.add_argument("--init", action="store_true", help="initialize handshake before tools/list")
    s.add_argument("--max-idle-wait", type=float, default=30)
    s.add_argument("--out", required=True)
    r = sub.add_parser("report")
    r.add_argument("--startup", required=True)
    r.add_argument("--http")
    r.add_argument("--baseline", required=True)
    r.add_argument("--ours", required=True)
    c = sub.add_parser("churn")
    c.add_argument("--server", action="append", required=True, help="NAME=CMD with {port}; repeatable")
    c.add_argument("--driver", required=True, help="the churn_load binary")
    c.add_argument("--ours", required=True)
    c.add_argument("--reps", type=int, default=2)
    c.add_argument("--conc", type=int, default=32)
    c.add_argument("--seconds", type=float, default=8)
    c.add_argument("--port", type=int, default=18090)
    c.add_argument("--max-idle-wait", type=float, default=5)
    c.add_argument("--out", required=True)
    q = sub.add_parser("ratios")
    q.add_argument("csv")
    q.add_argument("--ours", required=True)
    a = ap.parse_args()
    {"startup": startup, "report": report, "ratios": ratios, "churn": churn}[a.cmd](a)


if __name__ == "__main__":
    main()
