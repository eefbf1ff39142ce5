#!/usr/bin/env python3
"""What the metrics cost a call, in instructions (callgrind): the same binary with and without
`--metrics`, in one run.

    python3 benches/metrics_cost.py --http target/release/tasks [--n 2000] [--repeat 3] [--json out.json]

The server is the default build of `examples/tasks.rs` (the `metrics` feature compiled in) run as
`tasks --http 127.0.0.1:0`, with and without `--metrics` (then every request is timed into
`mcp.server.operation.duration` and counted in flight, on an OpenTelemetry SDK meter provider read
by the Prometheus exporter; nothing scrapes it during the run). Workloads, from
`benches/callgrind.py`, one request at a time on one keep-alive connection:

- `valid`: stateless 2026-07-28 `tools/call`s (the `_meta` envelope and the MCP headers);
- `session`: the same calls in one 2025-06-18 session (`initialize` once, `Mcp-Session-Id`).

Each figure is (Ir of a server that answered 200 warm-up calls and N calls - Ir of one that
answered the 200 warm-up calls alone) / N, as in callgrind.py; with `--repeat R`, the median of R
such figures, the rows alternating within each repeat.
"""

import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callgrind import http_calls, total_ir, valgrind  # noqa: E402


def serve_and_call(binary, workload, n, metrics, out_file):
    """The total Ir of a server under callgrind that answered 200 warm-up + n calls (with
    `--metrics`, its `/metrics` then read once and checked)."""
    command = valgrind(out_file) + [binary, "--http", "127.0.0.1:0"]
    if metrics:
        command.append("--metrics")
    http_calls(command, workload, 200, n, after=scraped if metrics else None)
    return total_ir(out_file)


def scraped(conn):
    """The calls are in the histogram: the series a scrape would read."""
    conn.request("GET", "/metrics")
    text = conn.getresponse().read()
    if b"mcp_server_operation_duration_seconds_count" not in text:
        sys.exit("--metrics: no operation histogram in %r" % text[:300])


def per_call(binary, workload, n, metrics, tmp):
    label = "%s-%s" % (workload, "on" if metrics else "off")
    full = serve_and_call(binary, workload, n, metrics, os.path.join(tmp, label + "-n.out"))
    base = serve_and_call(binary, workload, 0, metrics, os.path.join(tmp, label + "-0.out"))
    return (full - base) / n


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--http", required=True, help="the default build of examples/tasks.rs")
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--workloads", default="valid,session")
    parser.add_argument("--json", help="write the figures here too")
    args = parser.parse_args()
    workloads = args.workloads.split(",")
    runs = {(w, m): [] for w in workloads for m in (False, True)}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
            for w in workloads:
                for m in (False, True):
                    runs[(w, m)].append(per_call(args.http, w, args.n, m, tmp))
    median = {k: sorted(v)[len(v) // 2] for k, v in runs.items()}
    print("Instructions per call (callgrind, N = %d, median of %d, one keep-alive connection)\n"
          % (args.n, args.repeat))
    print("| workload | metrics off | `--metrics` | change |")
    print("| --- | ---: | ---: | ---: |")
    for w in workloads:
        off, on = median[(w, False)], median[(w, True)]
        print("| %s | %s | %s | %+.1f %% |" % (w, format(round(off), ","), format(round(on), ","),
                                            100 * (on / off - 1)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"%s/%s" % (w, "on" if m else "off"): v for (w, m), v in runs.items()}, f,
                      indent=2)


if __name__ == "__main__":
    main()
