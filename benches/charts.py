#!/usr/bin/env python3
"""Charts from the load driver's JSON output: calls/s and p99 latency against concurrency.

    python3 benches/charts.py [RESULTS_DIR] [OUT_DIR]    # defaults: benches/results benches/charts

Reads every `*.json` in RESULTS_DIR (records written by `driver suite --json` and `driver http
--json`: one object per run), takes the median over repeats of each (transport, workload,
concurrency, server), and writes one SVG per transport and workload, `<transport>-<workload>.svg`,
with two panels: calls/s and p99 latency, both on a log scale (the Python SDK is two orders of
magnitude from the others). Plain Python, no dependencies, no network.
"""
import json
import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path

COLOURS = {
    "ours": "#d62728",
    "rmcp": "#1f77b4",
    "python": "#2ca02c",
    "floor": "#7f7f7f",
    "bare": "#bcbcbc",
}
DASHES = ["", "6,3", "2,3", "8,3,2,3"]
PANEL_W, PANEL_H = 420, 300
MARGIN = dict(left=70, right=20, top=40, bottom=50)


def family(server):
    return server.split("-")[0]


def medians(records):
    runs = defaultdict(list)
    for r in records:
        if "window" not in r:
            continue  # idle-session records
        runs[(r["transport"], r["workload"], r["server"], r["window"])].append(r)
    out = defaultdict(dict)
    for (transport, workload, server, window), rs in runs.items():
        out[(transport, workload, server)][window] = {
            "calls_per_s": statistics.median(r["calls_per_s"] for r in rs),
            "p99_us": statistics.median(r["p99_us"] for r in rs),
            "load1": statistics.median(r.get("load1", float("nan")) for r in rs),
        }
    return out


def log_ticks(lo, hi):
    ticks = []
    e = math.floor(math.log10(lo))
    while 10**e <= hi * 1.0001:
        for m in (1, 2, 5):
            v = m * 10**e
            if lo / 1.0001 <= v <= hi * 1.0001:
                ticks.append(v)
        e += 1
    return ticks or [lo, hi]


def fmt(v):
    if v >= 1e6:
        return f"{v / 1e6:g}M"
    if v >= 1e3:
        return f"{v / 1e3:g}k"
    return f"{v:g}"


def panel(x0, title, unit, series, windows, key):
    values = [p[key] for _, pts in series for p in pts.values() if p[key] > 0]
    lo, hi = min(values), max(values)
    lo = 10 ** math.floor(math.log10(lo))
    hi = 10 ** math.ceil(math.log10(hi))
    plot_w = PANEL_W - MARGIN["left"] - MARGIN["right"]
    plot_h = PANEL_H - MARGIN["top"] - MARGIN["bottom"]
    left, top = x0 + MARGIN["left"], MARGIN["top"]

    def x(window):
        i = windows.index(window)
        return left + (plot_w * i / max(1, len(windows) - 1))

    def y(v):
        return top + plot_h * (1 - (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)))

    out = [f'<text x="{left + plot_w / 2}" y="22" text-anchor="middle" font-weight="bold">{title}</text>']
    out.append(f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#999"/>')
    for t in log_ticks(lo, hi):
        out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y(t):.1f}" y2="{y(t):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{left - 6}" y="{y(t) + 4:.1f}" text-anchor="end" font-size="11">{fmt(t)}</text>')
    for w in windows:
        out.append(f'<text x="{x(w):.1f}" y="{top + plot_h + 18}" text-anchor="middle" font-size="11">{w}</text>')
    out.append(
        f'<text x="{left + plot_w / 2}" y="{top + plot_h + 38}" text-anchor="middle" font-size="12">concurrent clients (connections / requests in flight)</text>'
    )
    out.append(
        f'<text x="{x0 + 16}" y="{top + plot_h / 2}" text-anchor="middle" font-size="12" transform="rotate(-90 {x0 + 16} {top + plot_h / 2})">{unit}</text>'
    )
    for i, (server, pts) in enumerate(series):
        colour = COLOURS.get(family(server), "#9467bd")
        dash = DASHES[i % len(DASHES)] if family(server) != "ours" else ""
        coords = [(x(w), y(pts[w][key])) for w in windows if w in pts and pts[w][key] > 0]
        path = " ".join(f"{cx:.1f},{cy:.1f}" for cx, cy in coords)
        out.append(
            f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/>'
        )
        for cx, cy in coords:
            out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3" fill="{colour}"/>')
    return out


def chart(transport, workload, series):
    windows = sorted({w for _, pts in series for w in pts})
    width = 2 * PANEL_W + 170
    loads = [p["load1"] for _, pts in series for p in pts.values() if not math.isnan(p["load1"])]
    load = f", load average {min(loads):.1f}-{max(loads):.1f}" if loads else ""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{PANEL_H + 30}" font-family="sans-serif" font-size="12">',
        f'<rect width="100%" height="100%" fill="white"/>',
    ]
    out += panel(0, f"{transport} · {workload} · calls/s (higher is better)", "calls/s", series, windows, "calls_per_s")
    out += panel(PANEL_W, f"{transport} · {workload} · p99 latency (lower is better)", "p99 µs", series, windows, "p99_us")
    for i, (server, _) in enumerate(series):
        colour = COLOURS.get(family(server), "#9467bd")
        dash = DASHES[i % len(DASHES)] if family(server) != "ours" else ""
        ly = MARGIN["top"] + 18 * i
        lx = 2 * PANEL_W + 10
        out.append(f'<line x1="{lx}" x2="{lx + 26}" y1="{ly}" y2="{ly}" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/>')
        out.append(f'<text x="{lx + 32}" y="{ly + 4}">{server}</text>')
    out.append(
        f'<text x="10" y="{PANEL_H + 20}" font-size="11" fill="#555">medians over repeats; 2 shared vCPUs, driver on the same machine{load}</text>'
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    results = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent / "results")
    charts = Path(sys.argv[2] if len(sys.argv) > 2 else Path(__file__).parent / "charts")
    charts.mkdir(parents=True, exist_ok=True)
    records = []
    for path in sorted(results.glob("*.json")):
        records += json.loads(path.read_text())
    by_chart = defaultdict(list)
    for (transport, workload, server), pts in sorted(medians(records).items()):
        if server == "floor-batch":
            continue  # the floor line is enough at this scale
        by_chart[(transport, workload)].append((server, pts))
    order = ["ours", "rmcp", "python", "floor", "bare"]
    for (transport, workload), series in sorted(by_chart.items()):
        series.sort(key=lambda s: (order.index(family(s[0])) if family(s[0]) in order else 9, s[0]))
        path = charts / f"{transport}-{workload}.svg"
        path.write_text(chart(transport, workload, series))
        print(path)


if __name__ == "__main__":
    main()
