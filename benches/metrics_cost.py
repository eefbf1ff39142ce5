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
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callgrind import INITIALIZE, INITIALIZED, META, request, total_ir, valgrind  # noqa: E402


def serve_and_call(binary, workload, n, metrics, out_file):
    """Starts the server under callgrind, makes 200 warm-up + n calls, each answer checked, stops
    it with SIGTERM: its total Ir."""
    command = valgrind(out_file) + [binary, "--http", "127.0.0.1:0"]
    if metrics:
        command.append("--metrics")
    env = dict(os.environ, RUST_LOG="off")
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        addr = None
        for line in server.stderr:
            m = re.match(rb"listening on http://([^/]+)/mcp", line)
            if m:
                addr = m.group(1).decode()
                break
        if addr is None:
            sys.exit("the server printed no address")
        host, port = addr.rsplit(":", 1)
        conn = http.client.HTTPConnection(host, int(port))
        base = {"Content-Type": "application/json",
                "Accept": "application/json, text/event-stream"}
        session = workload == "session"
        if session:
            conn.request("POST", "/mcp", INITIALIZE, base)
            answer = conn.getresponse()
            answer.read()
            base = dict(base, **{"Mcp-Session-Id": answer.getheader("Mcp-Session-Id"),
                                 "MCP-Protocol-Version": "2025-06-18"})
            conn.request("POST", "/mcp", INITIALIZED, base)
            conn.getresponse().read()
        for i in range(200 + n):
            if session:
                body, _, _ = request("valid", i)
                headers = base
            else:
                body, method, tool = request("valid", i, META)
                headers = dict(base, **{"MCP-Protocol-Version": "2026-07-28",
                                        "Mcp-Method": method, "Mcp-Name": tool})
            conn.request("POST", "/mcp", body, headers)
            answer = conn.getresponse()
            text = answer.read()
            if answer.status != 200 or b'"id":%d' % (1000 + i) not in text:
                sys.exit("unexpected answer %d %r" % (answer.status, text[:300]))
        if metrics:
            # The calls are in the histogram: the series a scrape would read.
            conn.request("GET", "/metrics")
            answer = conn.getresponse()
            scraped = answer.read()
            if b"mcp_server_operation_duration_seconds_count" not in scraped:
                sys.exit("--metrics: no operation histogram in %r" % scraped[:300])
        conn.close()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()
    return total_ir(out_file)


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
