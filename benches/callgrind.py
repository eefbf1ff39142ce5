#!/usr/bin/env python3
"""Instructions per call of ours, counted by callgrind (repeatable where wall clock is not).

    python3 benches/callgrind.py --stdio target/release/tasks-stdio \
        --http target/release/tasks-http [--n 2000] [--json out.json]

Each figure is (Ir of a process that served N calls - Ir of one that served none) / N, so the
process's startup, handshake, warm-up and exit cancel out. Instructions, not time: no cache
misses, no kernel work (TCP, pipes, wake-ups), no waiting.

- stdio: the stdio-only build of `examples/tasks.rs` reads `initialize`,
  `notifications/initialized` and N requests from a file (handshake era, as the stdio driver
  sends them), answers them and exits at end of input. The requests are the driver's
  (`benches/driver`): `valid` cycles through its 4 calls, `invalid` its 7, `list` is `tools/list`.
- http: the default build run as `tasks --http 127.0.0.1:0`; one keep-alive connection sends
  200 warm-up requests, then N stateless 2026-07-28 requests (the `_meta` envelope and the
  `MCP-Protocol-Version` / `Mcp-Method` / `Mcp-Name` headers), one at a time (`session`:
  `initialize` once, then the `valid` calls in that session, `Mcp-Session-Id` on each; `sse`,
  with `--sse benches/target/release/ours-progress`: `step` with a `progressToken`, answered as
  an event stream); the server is
  then stopped with SIGTERM (callgrind writes its counts on the way out). One request in
  flight: each call also pays the multi-thread runtime's wake-up and park.
- floor, with `--floor benches/target/release/floor`: the same HTTP requests (every workload,
  `sse` included: a request with a `progressToken` gets its canned event stream) sent to
  `floor http 127.0.0.1:0`, the least an HTTP server can do per call, for the ratio by
  instructions; with `--bare` (the same binary) run as `floor bare 127.0.0.1:0`: the same answers
  from hyper alone, no axum and no `Value`.
"""

import argparse
import glob
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import tempfile

META = ('{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
        '"io.modelcontextprotocol/clientCapabilities":{}}')
INITIALIZE = ('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":'
              '"2025-06-18","capabilities":{},"clientInfo":{"name":"mcp-bench-driver",'
              '"version":"1.0.0"}}}')
INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}'

VALID = [
    ("complete_task", '{"task_id":"T-1"}'),
    ("add_task", '{"title":"Tag the release","priority":"high"}'),
    ("complete_task", '{"task_id":"T-2"}'),
    ("add_task", '{"title":"Write the changelog"}'),
]
INVALID = [
    ("add_task", '{"title":"ab"}'),
    ("add_task", '{"title":"%s"}' % ("x" * 81)),
    ("add_task", '{"title":"Tag the release","priority":"urgent"}'),
    ("complete_task", '{"task_id":"X-1"}'),
    ("add_task", '{"priority":"low"}'),
    ("add_task", '{"title":42}'),
    ("add_task", '{"title":"Tag the release","colour":"red"}'),
]
WORKLOADS = ["valid", "invalid", "list"]
# Over HTTP also `session`: the valid calls in one handshake-era session (2025-06-18).
HTTP_WORKLOADS = WORKLOADS + ["session", "sse"]


def request(workload, i, meta=None):
    """Request i of a workload: (JSON text, method, tool name or None)."""
    members = []
    if workload == "list":
        method, tool = "tools/list", None
    elif workload == "sse":
        method, tool = "tools/call", "step"
        members.append('"name":"step","arguments":{}')
        meta = '{"progressToken":"p%d",%s' % (i, meta[1:])
    else:
        calls = VALID if workload == "valid" else INVALID
        tool, arguments = calls[i % len(calls)]
        method = "tools/call"
        members.append('"name":"%s","arguments":%s' % (tool, arguments))
    if meta:
        members.append('"_meta":%s' % meta)
    body = '{"jsonrpc":"2.0","id":%d,"method":"%s","params":{%s}}' % (
        1000 + i, method, ",".join(members))
    return body, method, tool


def total_ir(out_file):
    """The summed Ir of every dump callgrind wrote for this run."""
    total = 0
    for path in glob.glob(out_file + "*"):
        with open(path) as f:
            for line in f:
                m = re.match(r"(?:summary|totals): (\d+)", line)
                if m:
                    total += int(m.group(1))
                    break
    return total


def valgrind(out_file):
    # `--max-threads`: tokio's blocking pool may start up to 512 threads for tools that are not
    # `inline`, beyond valgrind's default of 500 (it then stops the process, exit status 1).
    return ["valgrind", "--tool=callgrind", "--max-threads=1024",
            "--callgrind-out-file=" + out_file, "--log-file=" + out_file + ".log"]


def stdio_ir(binary, workload, n, tmp):
    lines = [INITIALIZE, INITIALIZED] + [request(workload, i)[0] for i in range(n)]
    input_path = os.path.join(tmp, "stdio-%s-%d.in" % (workload, n))
    with open(input_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    out_file = os.path.join(tmp, "stdio-%s-%d.out" % (workload, n))
    env = dict(os.environ, RUST_LOG="off")
    with open(input_path) as stdin:
        done = subprocess.run(valgrind(out_file) + [binary], stdin=stdin,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                              check=True)
    answers = done.stdout.count(b"\n")
    if answers != n + 1:
        sys.exit("stdio %s: %d answers to %d requests" % (workload, answers, n + 1))
    return total_ir(out_file)


def cpu_seconds(pid):
    """The user and system CPU time of process `pid` so far, from /proc."""
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def http_calls(command, workload, warm_up, n, headers=None, after=None):
    """Starts `command` (a server that prints `listening on http://ADDR/mcp`, under valgrind or
    not), sends it `warm_up` + n requests of `workload` one at a time on one keep-alive
    connection, each answer checked, then stops it with SIGTERM (callgrind writes its counts on
    the way out). `headers(addr)`: more headers for every request; `after(conn)`: run on the
    connection once the calls are answered. Returns the server's CPU seconds over the n calls.

    Stateless 2026-07-28 requests carry the `_meta` envelope and the `MCP-Protocol-Version` /
    `Mcp-Method` / `Mcp-Name` headers; `session` sends `initialize` once, then the `valid` calls
    in that session (2025-06-18), `Mcp-Session-Id` on each, as the driver's `session` workload."""
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
            sys.exit("%s: the server printed no address" % " ".join(command))
        host, port = addr.rsplit(":", 1)
        conn = http.client.HTTPConnection(host, int(port))
        base = {"Content-Type": "application/json",
                "Accept": "application/json, text/event-stream"}
        if headers:
            base.update(headers(addr))
        session = workload == "session"
        if session:
            conn.request("POST", "/mcp", INITIALIZE, base)
            answer = conn.getresponse()
            answer.read()
            base = dict(base, **{"Mcp-Session-Id": answer.getheader("Mcp-Session-Id"),
                                 "MCP-Protocol-Version": "2025-06-18"})
            conn.request("POST", "/mcp", INITIALIZED, base)
            conn.getresponse().read()
        start = cpu_seconds(server.pid)
        for i in range(warm_up + n):
            if i == warm_up:
                start = cpu_seconds(server.pid)
            if session:
                body, _, _ = request("valid", i)
                sent = base
            else:
                body, method, tool = request(workload, i, META)
                sent = dict(base, **{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method})
                if tool:
                    sent["Mcp-Name"] = tool
            conn.request("POST", "/mcp", body, sent)
            answer = conn.getresponse()
            text = answer.read()
            if answer.status != 200 or b'"id":%d' % (1000 + i) not in text or (
                    workload == "sse" and b"notifications/progress" not in text):
                sys.exit("http %s: unexpected answer %d %r" % (workload, answer.status, text[:300]))
        used = cpu_seconds(server.pid) - start
        if after:
            after(conn)
        conn.close()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()
    return used


def http_ir(binary, workload, n, tmp, floor=None):
    """`floor`: None for ours, else the floor's mode (`http`, or `bare` for hyper alone)."""
    label = {None: "http", "http": "floor", "bare": "bare"}[floor]
    out_file = os.path.join(tmp, "%s-%s-%d.out" % (label, workload, n))
    command = [binary, floor, "127.0.0.1:0"] if floor else [binary, "--http", "127.0.0.1:0"]
    http_calls(valgrind(out_file) + command, workload, 200, n)
    return total_ir(out_file)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stdio", help="the stdio-only build of examples/tasks.rs")
    parser.add_argument("--http", help="the default build of examples/tasks.rs")
    parser.add_argument("--sse", help="benches/ours-progress (the `sse` workload: a stateless call "
                        "of `step` with a progressToken, answered as an event stream)")
    parser.add_argument("--floor", help="benches/floor: the same HTTP workloads (its `sse` too) "
                        "on the floor, run as `floor http ADDR`")
    parser.add_argument("--bare", help="benches/floor again, run as `floor bare ADDR`: the same "
                        "answers from hyper alone (no axum, no `Value`)")
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--workloads", default=",".join(HTTP_WORKLOADS),
                        help="of valid, invalid, list (both transports) and session (HTTP)")
    parser.add_argument("--json", help="write the figures here too")
    parser.add_argument("--keep", help="write callgrind's files to this directory and keep them "
                        "(for callgrind_annotate)")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        tmp = args.keep or scratch
        os.makedirs(tmp, exist_ok=True)
        floor_ir = lambda *a: http_ir(*a, floor="http")
        bare_ir = lambda *a: http_ir(*a, floor="bare")
        for transport, binary, measure in [("stdio", args.stdio, stdio_ir),
                                           ("http", args.http, http_ir),
                                           ("http", args.sse, http_ir),
                                           ("floor", args.floor, floor_ir),
                                           ("bare", args.bare, bare_ir)]:
            if not binary:
                continue
            for workload in args.workloads.split(","):
                served = WORKLOADS if transport == "stdio" else HTTP_WORKLOADS
                # `sse` runs on the --sse binary, and only there.
                if workload not in served or (
                        transport not in ("floor", "bare")
                        and (workload == "sse") != (binary == args.sse)):
                    continue
                base = measure(binary, workload, 0, tmp)
                loaded = measure(binary, workload, args.n, tmp)
                per_call = (loaded - base) / args.n
                results["%s/%s" % (transport, workload)] = per_call
                print("%-6s %-8s %10.0f Ir/call   (%d with %d calls, %d with none)"
                      % (transport, workload, per_call, loaded, args.n, base), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"n": args.n, "ir_per_call": results}, f, indent=1)


if __name__ == "__main__":
    main()
