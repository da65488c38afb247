#!/usr/bin/env python3
"""Run a benchmark matrix against one server and append one CSV row per run.

  matrix.py http  --label L --server 'CMD ... {port} ...' [--conc 1,8,32,128] [--path /mcp]
  matrix.py stdio --label L --server 'CMD ...'            [--window 1,64] [--init [VERSION]]
  matrix.py http  --server 'A=CMD_A {port}' --server 'B=CMD_B {port}' ...   # compare, interleaved
  matrix.py table [CSV ...]      # markdown summary: median [min-max] per point

Results drift by 10-20% between batches run minutes apart on this kind of machine, more
than the spread within a batch, so servers to be compared belong in one invocation: every
repetition of every point then runs each server back to back.

Every run starts the server fresh (so its peak RSS is that run's), waits until the machine
is idle (other processes such as builds may share these 2 cores), then loads it for --seconds.
Repetitions are interleaved (rep 1 of every point, then rep 2, ...) so a burst of
background load hits different points rather than every repetition of one point.
--pin off: nothing pinned; split: server on CPU 0 (`taskset -c 0`), load generator on CPU 1;
same: both on CPU 0 (lowest hand-off latency, half the machine).

Per run it records, besides the load figures: the server's CPU (% of one core) and peak
RSS (VmHWM, process tree) and, for HTTP runs, the resident memory at the end split into
anonymous (heap, stacks: RssAnon) and file-backed (the binary's code and read-only data:
RssFile), the generator's CPU, the rest of the machine's CPU ("foreign":
anything else that ran during the run) and steal (time the hypervisor took away).
A run whose foreign CPU exceeds --max-foreign (% of one core) is recorded with valid=0 and
repeated (at most --max-tries attempts per repetition); `table` summarizes valid runs only.
"""
import argparse
import csv
import os
import re
import resource
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
TICK = os.sysconf("SC_CLK_TCK")
FIELDS = ["ts", "label", "transport", "method", "gen", "pin", "conc", "rep", "valid", "rps",
          "p50_us", "p99_us", "errors", "n", "server_cpu_pct", "gen_cpu_pct", "foreign_cpu_pct",
          "steal_pct", "peak_rss_kb", "rss_kb", "anon_rss_kb", "file_rss_kb", "idle_wait_s"]
SERVER_CPUS = {"off": None, "split": "0", "same": "0"}
GEN_CPUS = {"off": None, "split": "1", "same": "0"}


def cpu_stat():
    """(busy, steal, total) jiffies over all CPUs from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = v[:8]
    return user + nice + system + irq + softirq, steal, sum(v[:8])


def wait_idle(max_wait, busy_limit=0.15):
    """Wait until two consecutive 0.5 s samples show < busy_limit of one core busy machine-wide."""
    t0, calm = time.monotonic(), 0
    while time.monotonic() - t0 < max_wait:
        b0, _, _ = cpu_stat()
        time.sleep(0.5)
        b1, _, _ = cpu_stat()
        calm = calm + 1 if (b1 - b0) / TICK / 0.5 < busy_limit else 0
        if calm >= 2:
            return time.monotonic() - t0
    print(f"  (machine still busy after {max_wait}s; running anyway)", file=sys.stderr)
    return time.monotonic() - t0


def tree(pid):
    out, i = [pid], 0
    while i < len(out):
        try:
            for t in os.listdir(f"/proc/{out[i]}/task"):
                with open(f"/proc/{out[i]}/task/{t}/children") as f:
                    out += [int(x) for x in f.read().split()]
        except OSError:
            pass
        i += 1
    return out


def proc_cpu_s(pid):
    """utime+stime (s) summed over pid's process tree."""
    total = 0
    for p in tree(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError):
            pass
    return total / TICK


def proc_kb(pid, key):
    total = 0
    for p in tree(pid):
        try:
            with open(f"/proc/{p}/status") as f:
                total += next((int(l.split()[1]) for l in f if l.startswith(key)), 0)
        except OSError:
            pass
    return total


def children_cpu_s():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def kv(line):
    return dict(x.split("=", 1) for x in line.split() if "=" in x)


class Meter:
    """Machine-wide CPU accounting over one run."""

    def __init__(self, server_pid=None):
        self.pid = server_pid
        self.t = time.monotonic()
        self.busy, self.steal, _ = cpu_stat()
        self.kids = children_cpu_s()
        self.srv = proc_cpu_s(server_pid) if server_pid else 0.0

    def stop(self, server_cpu_s=None):
        wall = time.monotonic() - self.t
        busy, steal, _ = cpu_stat()
        busy_s, steal_s = (busy - self.busy) / TICK, (steal - self.steal) / TICK
        kids = children_cpu_s() - self.kids
        srv = server_cpu_s if server_cpu_s is not None else proc_cpu_s(self.pid) - self.srv
        gen = kids if self.pid else kids - srv  # stdio: the server is a grandchild, inside kids
        pct = lambda s: round(100 * s / wall)
        return dict(server_cpu_pct=pct(srv), gen_cpu_pct=pct(gen),
                    foreign_cpu_pct=pct(max(0.0, busy_s - srv - gen)), steal_pct=pct(steal_s))


def taskset(cpus):
    return ["taskset", "-c", cpus] if cpus else []


def start_server(cmd, pin):
    argv = taskset(SERVER_CPUS[pin]) + shlex.split(cmd)
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            start_new_session=True)


def stop_server(p):
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        if p.poll() is not None:
            return
        os.killpg(p.pid, sig)  # the group this script created for the server
        try:
            p.wait(wait)
        except subprocess.TimeoutExpired:
            pass


def port_open(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def wait_port(port, proc, timeout=60):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if proc.poll() is not None:
            sys.exit(f"server exited early with {proc.returncode}")
        if port_open(port):
            time.sleep(0.2)
            if proc.poll() is None:
                return
        time.sleep(0.1)
    sys.exit(f"server did not listen on 127.0.0.1:{port} within {timeout}s")


def run_http(a, cmd, pin, conc):
    if port_open(a.port):
        sys.exit(f"something already listens on 127.0.0.1:{a.port}; pick another --port")
    srv = start_server(cmd.format(port=a.port), pin)
    try:
        wait_port(a.port, srv)
        env = dict(os.environ, METHOD=a.method, MCP_PATH=a.path, GEN=a.gen, WARMUP="0")
        if GEN_CPUS[pin]:
            env["GEN_CPUS"] = GEN_CPUS[pin]
        http = [os.path.join(HERE, "http.sh"), str(a.port), str(conc)]
        if a.warmup > 0:  # discarded, outside the measured window
            subprocess.run(http + [str(a.warmup)], env=env, check=True, stdout=subprocess.DEVNULL)
        idle = wait_idle(a.max_idle_wait)
        m = Meter(srv.pid)
        out = subprocess.run(http + [str(a.seconds)], env=env, check=True, capture_output=True,
                             text=True).stdout
        cpu = m.stop()
        r = kv(out.strip().splitlines()[-1])
        return dict(rps=r["rps"], p50_us=round(float(r["p50_ms"]) * 1000, 1),
                    p99_us=round(float(r["p99_ms"]) * 1000, 1), errors=r["errors"], n=r["n"],
                    peak_rss_kb=proc_kb(srv.pid, "VmHWM:"), rss_kb=proc_kb(srv.pid, "VmRSS:"),
                    anon_rss_kb=proc_kb(srv.pid, "RssAnon:"),
                    file_rss_kb=proc_kb(srv.pid, "RssFile:"), idle_wait_s=round(idle, 1), **cpu)
    finally:
        stop_server(srv)


def run_stdio(a, cmd, pin, window):
    driver = [a.driver, "--window", str(window), "--seconds",
              str(a.seconds), "--requests", str(a.requests), "--warmup", str(a.warmup_msgs),
              "--method", a.method]
    if a.init:
        driver += ["--init", a.init]
    driver, server = taskset(GEN_CPUS[pin]) + driver, taskset(SERVER_CPUS[pin]) + shlex.split(cmd)
    idle = wait_idle(a.max_idle_wait)
    m = Meter()
    out = subprocess.run(driver + ["--"] + server, check=True, capture_output=True, text=True,
                         timeout=a.seconds * 2 + 60).stdout
    r = kv(out.strip().splitlines()[-1])
    # the driver measures the server's CPU over its timed phase; use that, not the lifetime
    cpu = m.stop(server_cpu_s=float(r["server_cpu_pct"]) / 100 * float(r["secs"]))
    cpu["server_cpu_pct"] = r["server_cpu_pct"]
    return dict(rps=r["msgs_per_s"], p50_us=r["p50_us"], p99_us=r["p99_us"], errors=r["errors"],
                n=r["n"], peak_rss_kb=r["peak_rss_kb"], rss_kb=r["rss_kb"],
                idle_wait_s=round(idle, 1), **cpu)


def matrix(a):
    servers = []
    for item in a.server:
        name, eq, rest = item.partition("=")
        if eq and re.fullmatch(r"[\w.+-]+", name) and not (a.label and len(a.server) == 1):
            servers.append((name, rest))
        elif a.label and len(a.server) == 1:
            servers.append((a.label, item))
        else:
            sys.exit("give --label NAME with one --server CMD, or --server NAME=CMD for each server")
    points = [int(x) for x in (a.conc if a.cmd == "http" else a.window).split(",")]
    pins = ["split" if p == "on" else p for p in a.pin.split(",")]
    assert all(p in SERVER_CPUS for p in pins), "--pin takes off,split,same"
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    new = not os.path.exists(a.out)
    with open(a.out, "a", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        if new:
            w.writeheader()
        for rep in range(1, a.reps + 1):
            for pin in pins:
                for pt in points:
                    for label, cmd in servers:
                        run_point(a, w, f, label, cmd, pin, pt, rep)


def run_point(a, w, f, label, cmd, pin, pt, rep):
    for _ in range(a.max_tries):
        r = (run_http if a.cmd == "http" else run_stdio)(a, cmd, pin, pt)
        valid = int(float(r["foreign_cpu_pct"]) <= a.max_foreign)
        row = dict(ts=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                   label=label, transport=a.cmd, method=a.method, gen=a.gen,
                   pin=pin, conc=pt, rep=rep, valid=valid, **r)
        w.writerow(row)
        f.flush()
        print(" ".join(f"{k}={row.get(k, '')}" for k in FIELDS[1:]), flush=True)
        if valid:
            break


def fmt_us(x):
    return f"{x:.1f} µs" if x < 100 else f"{x:.0f} µs" if x < 1000 else f"{x / 1000:.2f} ms"


def table(paths):
    rows = []
    for p in paths:
        with open(p) as f:
            rows += list(csv.DictReader(f))
    groups, dropped = {}, {}
    for r in rows:
        key = (r["label"], r["transport"], r["method"], r["gen"], r["pin"], int(r["conc"]))
        if r["valid"] == "1":
            groups.setdefault(key, []).append(r)
        else:
            dropped[key] = dropped.get(key, 0) + 1
    print("| server | transport | gen | pin | conc/window | runs (dropped) | req/s median [min–max] "
          "| p50 median [range] | p99 median [range] | server CPU | peak RSS | max foreign CPU | errors |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for key in sorted(set(groups) | set(dropped)):
        g = groups.get(key)
        if not g:
            print(f"| {key[0]} | {key[1]} {key[2]} | {key[3]} | {key[4]} | {key[5]} | 0 ({dropped[key]}) "
                  "| – | – | – | – | – | – | – |")
            continue
        col = lambda k: [float(r[k]) for r in g]
        rps, p50, p99 = col("rps"), col("p50_us"), col("p99_us")
        label, transport, method, gen, pin, conc = key
        print(f"| {label} | {transport} {method} | {gen} | {pin} | {conc} "
              f"| {len(g)} ({dropped.get(key, 0)}) "
              f"| {statistics.median(rps):,.0f} [{min(rps):,.0f}–{max(rps):,.0f}] "
              f"| {fmt_us(statistics.median(p50))} [{fmt_us(min(p50))}–{fmt_us(max(p50))}] "
              f"| {fmt_us(statistics.median(p99))} [{fmt_us(min(p99))}–{fmt_us(max(p99))}] "
              f"| {statistics.median(col('server_cpu_pct')):.0f}% "
              f"| {statistics.median(col('peak_rss_kb')) / 1024:.1f} MiB "
              f"| {max(col('foreign_cpu_pct')):.0f}% | {sum(col('errors')):.0f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("http", "stdio"):
        s = sub.add_parser(name)
        s.add_argument("--label", help="name of the server (with a single --server CMD)")
        s.add_argument("--server", required=True, action="append",
                       help="command line ('{port}' is replaced for http), or NAME=CMD; repeatable")
        s.add_argument("--method", default="tools/call",
                       choices=["tools/call", "tools/list", "records", "resources/read"])
        s.add_argument("--seconds", type=int, default=10)
        s.add_argument("--reps", type=int, default=3)
        s.add_argument("--pin", default="off,split", help="comma list of off, split, same")
        s.add_argument("--max-idle-wait", type=float, default=300)
        s.add_argument("--max-foreign", type=float, default=20,
                       help="%% of one core used by other processes above which a run is redone")
        s.add_argument("--max-tries", type=int, default=3)
        s.add_argument("--out", default=os.path.join(HERE, "results", "raw.csv"))
    h = sub.choices["http"]
    h.add_argument("--port", type=int, default=18080)
    h.add_argument("--conc", default="1,8,32,128")
    h.add_argument("--path", default="/mcp")
    h.add_argument("--gen", default="oha", choices=["oha", "wrk"])
    h.add_argument("--warmup", type=int, default=2, help="seconds of discarded load per run")
    st = sub.choices["stdio"]
    st.add_argument("--window", default="1,64")
    st.add_argument("--requests", type=int, default=10_000_000, help="cap; --seconds usually ends the run")
    st.add_argument("--warmup-msgs", type=int, default=1000)
    st.add_argument("--init", nargs="?", const="2025-06-18", help="legacy initialize handshake first")
    st.add_argument("--driver", required=True, help="the stdio load driver (examples/stdio_load)")
    t = sub.add_parser("table")
    t.add_argument("csv", nargs="*", default=[os.path.join(HERE, "results", "raw.csv")])
    a = ap.parse_args()
    if a.cmd == "table":
        table(a.csv)
    else:
        a.gen = getattr(a, "gen", "stdio_load")
        matrix(a)


if __name__ == "__main__":
    main()
