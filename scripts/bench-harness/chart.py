#!/usr/bin/env python3
"""SVG charts of load-benchmark results, for people who compare by looking.

  chart.py --title TITLE --out FILE.svg [--ours LABEL] [--ceiling LABEL]
           [--startup peers-startup.csv] RESULTS.csv...

RESULTS.csv are matrix.py's CSVs (one row per run). The chart has one panel of horizontal
bars per workload point (transport, method, concurrency or window): each server's median
req/s over its valid runs; then a panel of each server's peak RSS under load (the median,
over its valid runs, of the point with the most load), and, with --startup (peers.py's
CSV), one of the median start-up time to the first tools/list. `--ours` is drawn in the
accent colour (its variants, `<ours>-…`, in a lighter one) with its ratio to `--ceiling` (the baseline that does no MCP work) and to
each other server; the ceiling is drawn grey. Standard library only; no fonts embedded
(the SVG names a system sans-serif).
"""

import argparse
import csv
import statistics
import sys
from xml.sax.saxutils import escape

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

WIDTH = 860
LABEL_W = 210  # right edge of the server names
BAR_X = LABEL_W + 10
BAR_MAX = 340  # the longest bar
ROW = 22
OURS, OURS_VARIANT, CEILING, PEER = "#d9480f", "#f59f00", "#adb5bd", "#4263eb"


def medians(rows, key):
    """label -> median of `key` over the rows."""
    by = {}
    for r in rows:
        by.setdefault(r["label"], []).append(float(r[key]))
    return {label: statistics.median(v) for label, v in by.items()}


def point_name(transport, method, conc):
    unit = "c" if transport == "http" else "window"
    return f"{transport.upper() if transport == 'http' else transport} {method}, {unit}={conc}"


def panels(rows, startup, order):
    """[(title, unit, {label: value}, higher_is_better)]"""
    valid = [r for r in rows if r.get("valid") == "1"]
    points = sorted({(r["transport"], r["method"], int(r["conc"])) for r in valid})
    out = []
    for transport, method, conc in points:
        at = [r for r in valid if (r["transport"], r["method"], int(r["conc"])) == (transport, method, conc)]
        out.append((f"{point_name(transport, method, conc)}: throughput", "req/s", medians(at, "rps"), True))
    if points:
        # Peak RSS where the load is highest (the last point of each transport's sweep).
        heaviest = max(points, key=lambda p: p[2])
        at = [r for r in valid if (r["transport"], r["method"], int(r["conc"])) == heaviest]
        rss = {label: kb / 1024 for label, kb in medians(at, "peak_rss_kb").items()}
        out.append((f"peak RSS under {point_name(*heaviest)} (lower is better)", "MiB", rss, False))
    if startup:
        with open(startup) as f:
            srows = list(csv.DictReader(f))
        out.append(("start-up to the first tools/list answer over stdio (lower is better)", "ms",
                    medians(srows, "ms"), False))
    for i, (title, unit, values, better) in enumerate(out):
        known = [label for label in order if label in values]
        rest = sorted(label for label in values if label not in known)
        out[i] = (title, unit, [(label, values[label]) for label in known + rest], better)
    return out


def fmt(value, unit):
    if unit == "req/s":
        return f"{value:,.0f} req/s"
    if unit == "MiB":
        return f"{value:.1f} MiB"
    return f"{value:.1f} ms"


def ratio_note(label, value, values, ours, ceiling):
    """What a bar's note says beside its value."""
    got = dict(values)
    if label == ours and ceiling in got and got[ceiling]:
        return f"{value / got[ceiling]:.2f}× the ceiling"
    if label not in (ours, ceiling) and ours in got and value:
        return f"{ours} = {got[ours] / value:.2f}× this"
    return ""


def render(title, data, ours, ceiling):
    y = 50
    parts = []
    for panel_title, unit, values, _better in data:
        parts.append(f'<text x="16" y="{y}" class="h2">{escape(panel_title)}</text>')
        y += 12
        top = max((v for _, v in values), default=0) or 1
        for label, value in values:
            y += ROW
            colour = (OURS if label == ours else OURS_VARIANT if label.startswith(ours + "-")
                      else CEILING if label == ceiling else PEER)
            w = max(1.0, BAR_MAX * value / top)
            weight = ' font-weight="600"' if label == ours else ""
            parts.append(f'<text x="{LABEL_W}" y="{y - 6}" text-anchor="end"{weight}>{escape(label)}</text>')
            parts.append(f'<rect x="{BAR_X}" y="{y - 18}" width="{w:.1f}" height="16" rx="2" fill="{colour}"/>')
            note = ratio_note(label, value, values, ours, ceiling)
            text = fmt(value, unit) + (f"  ({note})" if note else "")
            parts.append(f'<text x="{BAR_X + w + 6:.1f}" y="{y - 6}" class="v">{escape(text)}</text>')
        y += 34
    height = y
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{escape(title)}">',
        "<style>text{font:13px system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;fill:#212529}"
        ".h1{font-size:16px;font-weight:600}.h2{font-size:13px;font-weight:600;fill:#495057}"
        ".v{fill:#495057}</style>",
        f'<rect width="{WIDTH}" height="{height}" fill="#fff"/>',
        f'<text x="16" y="22" class="h1">{escape(title)}</text>',
        *parts,
        "</svg>",
        "",
    ])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--title", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ours", default="mcp-framework")
    ap.add_argument("--ceiling", default="")
    ap.add_argument("--startup", help="peers.py startup CSV")
    ap.add_argument("--order", default="", help="comma list: the servers' order, top to bottom")
    a = ap.parse_args()
    rows = []
    for path in a.csv:
        with open(path) as f:
            rows += list(csv.DictReader(f))
    order = [s for s in a.order.split(",") if s] or [a.ours]
    data = panels(rows, a.startup, order)
    with open(a.out, "w") as f:
        f.write(render(a.title, data, a.ours, a.ceiling))
    print(f"chart: {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
