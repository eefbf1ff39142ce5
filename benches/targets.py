#!/usr/bin/env python3
"""The performance issue's targets, read off one run of `benches/run.sh`, repeat by repeat.

    python3 benches/targets.py [--results benches/results] [--window 32]
    python3 benches/targets.py --runs LABEL=DIR LABEL=DIR ...   # the targets run by run

Reads `http.json` and `stdio.json` (each row one server, workload, window and repeat, as the
driver writes them) and prints markdown: for every target its ratio in each repeat (every
server of a repeat ran in it, alternating with the others), the median of those ratios, and
the ratio of the medians; then the side-by-side table of medians. A ratio is always taken
inside one repeat, never across runs. "Best rmcp" is the better of rmcp's peers on that measure
(over HTTP `rmcp-stateful` and `rmcp-json`; over stdio `rmcp-stdio`, `rmcp-pipes`,
`rmcp-pipes-1t`).

With `--runs`, each DIR holds one run's `http.json` and `stdio.json` (earlier runs: `git show
COMMIT:benches/results/http.json`); it prints one row per target and workload, each run's median
of the repeats and ratio of the medians, and in how many runs both statistics met the target.
"""

import argparse
import json
import os
import statistics

HTTP_WORKLOADS = ["valid", "invalid", "list", "session", "sse"]
STDIO_WORKLOADS = ["valid", "invalid", "list"]
HTTP_RMCP = ["rmcp-stateful", "rmcp-json"]
STDIO_RMCP = ["rmcp-stdio", "rmcp-pipes", "rmcp-pipes-1t"]
PYTHON = {"valid": "python-json", "invalid": "python-json", "list": "python-json",
          "session": "python-sessions", "sse": "python-sse"}
MODE = {"valid": "HTTP, stateless", "invalid": "HTTP, stateless", "list": "HTTP, stateless",
        "session": "HTTP, sessions", "sse": "HTTP, stateless, event stream"}


class Rows:
    def __init__(self, rows, window):
        self.rows = [r for r in rows if r.get("window") == window]
        self.repeats = sorted({r["repeat"] for r in self.rows})

    def get(self, workload, server, repeat, key):
        for r in self.rows:
            if (r["workload"], r["server"], r["repeat"]) == (workload, server, repeat):
                return r.get(key)
        return None

    def median(self, workload, server, key):
        values = [r[key] for r in self.rows
                  if (r["workload"], r["server"]) == (workload, server)
                  and r.get(key) is not None]
        return statistics.median(values) if values else None

    def best(self, workload, servers, repeat, key, pick):
        """The best of `servers` on `key` in one repeat (`pick`: max or min)."""
        values = [self.get(workload, s, repeat, key) for s in servers]
        values = [v for v in values if v is not None]
        return pick(values) if values else None

    def best_median(self, workload, servers, key, pick):
        values = [self.median(workload, s, key) for s in servers]
        values = [v for v in values if v is not None]
        return pick(values) if values else None


def ratio(a, b):
    return a / b if a is not None and b else None


def median_of(ratios):
    """The median of the repeats' ratios that could be taken (None where none could)."""
    present = [x for x in ratios if x is not None]
    return statistics.median(present) if present else None


def fmt(x, digits=2):
    return "–" if x is None else ("%." + str(digits) + "f") % x


# Each target's key, the name the tables give it, and the digits its ratios are printed with.
NAMES = {"calls": ("calls/s vs best rmcp", 2), "cpu-rmcp": ("CPU/call vs best rmcp", 2),
         "p99": ("p99 vs best rmcp", 2), "cpu-python": ("CPU/call vs Python", 3),
         "cpu-floor": ("CPU/call vs floor", 2)}


def targets(rows, workloads, rmcp, python, floor=True, subject="ours"):
    """[(key, target, digits, [per workload: (per-repeat ratios, ratio of medians)])]

    `subject`: whose ratios (`ours`; `floor` or `bare` to see what they score on the same
    targets, a bound on what any server on the same stack can reach)."""
    def measure(workload, repeat, what):
        ours = lambda key: rows.get(workload, subject, repeat, key)
        if what == "calls":
            return ratio(ours("calls_per_s"),
                         rows.best(workload, rmcp, repeat, "calls_per_s", max))
        if what == "cpu-rmcp":
            return ratio(ours("cpu_us_per_call"),
                         rows.best(workload, rmcp, repeat, "cpu_us_per_call", min))
        if what == "p99":
            return ratio(ours("p99_us"), rows.best(workload, rmcp, repeat, "p99_us", min))
        if what == "cpu-python":
            return ratio(ours("cpu_us_per_call"),
                         rows.get(workload, PYTHON[workload], repeat, "cpu_us_per_call"))
        if what == "cpu-floor":
            return ratio(ours("cpu_us_per_call"),
                         rows.get(workload, "floor", repeat, "cpu_us_per_call"))

    def of_medians(workload, what):
        ours = lambda key: rows.median(workload, subject, key)
        best = lambda key, pick: rows.best_median(workload, rmcp, key, pick)
        return {
            "calls": lambda: ratio(ours("calls_per_s"), best("calls_per_s", max)),
            "cpu-rmcp": lambda: ratio(ours("cpu_us_per_call"), best("cpu_us_per_call", min)),
            "p99": lambda: ratio(ours("p99_us"), best("p99_us", min)),
            "cpu-python": lambda: ratio(ours("cpu_us_per_call"),
                                        rows.median(workload, PYTHON[workload],
                                                    "cpu_us_per_call")),
            "cpu-floor": lambda: ratio(ours("cpu_us_per_call"),
                                       rows.median(workload, "floor", "cpu_us_per_call")),
        }[what]()

    out = []
    for what, (name, digits) in NAMES.items():
        if what == "cpu-python" and not python:
            continue
        if what == "cpu-floor" and not floor:
            continue
        per = [([measure(w, rep, what) for rep in rows.repeats], of_medians(w, what))
               for w in workloads]
        out.append((what, name, digits, per))
    return out


def print_targets(title, rows, workloads, found):
    print("### %s (window %d; %d repeats)\n" % (title, rows.rows[0]["window"], len(rows.repeats)))
    header = ["target: " + " / ".join(workloads)]
    header += ["repeat %d" % r for r in rows.repeats] + ["median of the repeats",
                                                        "ratio of the medians"]
    print("| " + " | ".join(header) + " |")
    print("|---" + "|---:" * (len(header) - 1) + "|")
    for _, name, digits, per in found:
        cells = [name]
        for i in range(len(rows.repeats)):
            cells.append(" / ".join(fmt(ratios[i], digits) for ratios, _ in per))
        medians = [median_of(ratios) for ratios, _ in per]
        cells.append(" / ".join(fmt(m, digits) for m in medians))
        cells.append(" / ".join(fmt(m, digits) for _, m in per))
        print("| " + " | ".join(cells) + " |")
    print()


def print_subjects(rows):
    """The HTTP targets that compare with rmcp and Python, scored by ours, the floor and `bare`."""
    subjects = [s for s in ("ours", "floor", "bare")
                if any(r["server"] == s for r in rows.rows)]
    print("### The same HTTP targets scored by the floor and `bare` (window %d): median of the "
          "repeats / ratio of the medians\n" % rows.rows[0]["window"])
    print("| target | workload | " + " | ".join(subjects) + " |")
    print("|---|---" + "|---:" * len(subjects) + "|")
    found = {s: targets(rows, HTTP_WORKLOADS, HTTP_RMCP, python=True, floor=False, subject=s)
             for s in subjects}
    for i, (what, name, digits, _) in enumerate(found[subjects[0]]):
        for j, w in enumerate(HTTP_WORKLOADS):
            cells = []
            for s in subjects:
                ratios, of_medians = found[s][i][3][j]
                cells.append("%s / %s" % (fmt(median_of(ratios), digits), fmt(of_medians, digits)))
            print("| %s | %s | %s |" % (name, w, " | ".join(cells)))
    print()


# The targets: (transport, target, workloads it applies to, bound, "max" or "min").
BOUNDS = [
    ("HTTP", "calls", HTTP_WORKLOADS, 2.0, "min"),
    ("HTTP", "cpu-rmcp", HTTP_WORKLOADS, 0.4, "max"),
    ("HTTP", "p99", HTTP_WORKLOADS, 0.5, "max"),
    ("HTTP", "cpu-python", HTTP_WORKLOADS, 1 / 40, "max"),
    ("HTTP", "cpu-floor", HTTP_WORKLOADS, 2.0, "max"),
    ("stdio", "calls", ["valid", "invalid"], 3.0, "min"),
    ("stdio", "cpu-rmcp", ["valid", "invalid"], 0.33, "max"),
    ("stdio", "cpu-floor", ["valid"], 2.0, "max"),
]


def run_by_run(runs, window):
    """One row per target and workload: each run's two statistics, and how many runs met it."""
    found = []
    for label, path in runs:
        per_run = {}
        for transport, name in [("HTTP", "http.json"), ("stdio", "stdio.json")]:
            file = os.path.join(path, name)
            if not os.path.exists(file):
                continue
            rows = Rows(json.load(open(file)), window)
            workloads = HTTP_WORKLOADS if transport == "HTTP" else STDIO_WORKLOADS
            rmcp = HTTP_RMCP if transport == "HTTP" else STDIO_RMCP
            for what, _, _, per in targets(rows, workloads, rmcp, python=transport == "HTTP"):
                for w, (ratios, of_medians) in zip(workloads, per):
                    per_run[(transport, what, w)] = (median_of(ratios), of_medians)
        found.append((label, per_run))
    print("### The targets run by run (window %d): median of the repeats / ratio of the medians\n"
          % window)
    print("| transport | target | workload | bound | " + " | ".join(l for l, _ in found)
          + " | met (both statistics) |")
    print("|---|---|---|---:" + "|---:" * len(found) + "|---|")
    for transport, what, workloads, bound, kind in BOUNDS:
        for w in workloads:
            cells, met, counted = [], 0, 0
            for _, per_run in found:
                pair = per_run.get((transport, what, w))
                if pair is None or None in pair:
                    cells.append("–")
                    continue
                digits = NAMES[what][1]
                cells.append("%s / %s" % (fmt(pair[0], digits), fmt(pair[1], digits)))
                ok = all(x >= bound if kind == "min" else x <= bound for x in pair)
                counted += 1
                met += ok
            limit = ("≥ " if kind == "min" else "≤ ") + ("1/40" if what == "cpu-python"
                                                           else "%g" % bound)
            print("| %s | %s | %s | %s | %s | %d of %d |" % (
                transport, NAMES[what][0], w, limit, " | ".join(cells), met, counted))
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--results", default=os.path.join(here, "results"))
    parser.add_argument("--window", type=int, default=32)
    parser.add_argument("--runs", nargs="+", metavar="LABEL=DIR",
                        help="print the targets run by run over these runs' results")
    args = parser.parse_args()
    if args.runs:
        run_by_run([tuple(r.split("=", 1)) for r in args.runs], args.window)
        return
    http_path = os.path.join(args.results, "http.json")
    stdio_path = os.path.join(args.results, "stdio.json")
    http = json.load(open(http_path)) if os.path.exists(http_path) else []
    stdio = json.load(open(stdio_path)) if os.path.exists(stdio_path) else []
    if http:
        rows = Rows(http, args.window)
        print_targets("HTTP targets", rows, HTTP_WORKLOADS,
                      targets(rows, HTTP_WORKLOADS, HTTP_RMCP, python=True))
        print_subjects(rows)
        idle = [r["bytes_per_session"] for r in http
                if r.get("workload") == "idle-sessions" and r["server"] == "ours"]
        if idle:
            print("Memory per idle session, ours, by repeat: %s bytes (median %s)\n" % (
                " / ".join("%.0f" % b for b in idle), "%.0f" % statistics.median(idle)))
    if stdio:
        rows = Rows(stdio, args.window)
        print_targets("stdio targets", rows, STDIO_WORKLOADS,
                      targets(rows, STDIO_WORKLOADS, STDIO_RMCP, python=False))
    loads = [r["load1"] for r in http + stdio if "load1" in r]
    if loads:
        print("One-minute load average during the run: %.2f-%.2f\n" % (min(loads), max(loads)))
    if http or stdio:
        print("### Medians side by side (window %d)\n" % args.window)
        print("| workload | transport | ours calls/s | best rmcp calls/s | Python calls/s | "
              "floor calls/s | ours CPU µs/call | best rmcp CPU µs/call | Python CPU µs/call | "
              "floor CPU µs/call | ours p99 µs | best rmcp p99 µs |")
        print("|---|---" + "|---:" * 10 + "|")
        n = lambda x, d=0: "–" if x is None else ("{:,.%df}" % d).format(x)
        for data, workloads, rmcp, transport in [(http, HTTP_WORKLOADS, HTTP_RMCP, None),
                                                 (stdio, STDIO_WORKLOADS, STDIO_RMCP, "stdio")]:
            if not data:
                continue
            rows = Rows(data, args.window)
            for w in workloads:
                py = PYTHON[w] if transport is None else None
                m = lambda server, key: rows.median(w, server, key) if server else None
                print("| %s | %s | %s |" % (w, transport or MODE[w], " | ".join([
                    n(m("ours", "calls_per_s")),
                    n(rows.best_median(w, rmcp, "calls_per_s", max)),
                    n(m(py, "calls_per_s")),
                    n(m("floor", "calls_per_s")),
                    n(m("ours", "cpu_us_per_call"), 1),
                    n(rows.best_median(w, rmcp, "cpu_us_per_call", min), 1),
                    n(m(py, "cpu_us_per_call")),
                    n(m("floor", "cpu_us_per_call"), 1),
                    n(m("ours", "p99_us")),
                    n(rows.best_median(w, rmcp, "p99_us", min)),
                ])))
        print()
    if any("sys_share" in r for r in http + stdio):
        print_kernel_share(http, stdio, args.window)


def print_kernel_share(http, stdio, window):
    """CPU per call split into user and kernel time, for every server (medians over the
    repeats of CPU per call and of the kernel's share of it, from the driver's `sys_share`)."""
    print("### CPU per call, user + kernel (window %d, medians, µs)\n" % window)
    print("| transport | workload | server | CPU µs/call | user | kernel | kernel share |")
    print("|---|---|---|---:|---:|---:|---:|")
    for data, transport in [(http, "HTTP"), (stdio, "stdio")]:
        rows = Rows(data, window)
        for w in dict.fromkeys(r["workload"] for r in rows.rows):
            for server in dict.fromkeys(r["server"] for r in rows.rows if r["workload"] == w):
                cpu = rows.median(w, server, "cpu_us_per_call")
                share = rows.median(w, server, "sys_share")
                if cpu is None or share is None:
                    continue
                print("| %s | %s | %s | %.1f | %.1f | %.1f | %.0f %% |" % (
                    transport, w, server, cpu, cpu * (1 - share), cpu * share, 100 * share))
    print()


if __name__ == "__main__":
    main()
