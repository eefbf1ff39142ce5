"""Stress for the stdio transport: several clients, each with its own server process, write
windows of requests before reading their answers (the pattern of tests/tests/it/memory.rs), for a
bounded time. Every answer is checked (one per request, each id once, a result or an error), and
a server that stops answering for --stall seconds fails the run with what its pipes held, so a
lost wake-up shows as a failure with evidence rather than as a hang.

    python3 tests/py/stdio_stress.py --server target/release/kit_server --seconds 600 --clients 3

Exit status: 0 when every client ran its time without a stall or a wrong answer, 1 otherwise.
"""

import argparse
import fcntl
import json
import os
import struct
import subprocess
import sys
import termios
import threading
import time

INIT = (
    b'{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":'
    b'"2025-06-18","capabilities":{},"clientInfo":{"name":"stress","version":"1"}}}\n'
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
)


def call(i):
    """Request `i`: every other one valid; the rest, in turn, each way a call can fail."""

    def tools_call(name, a):
        return (
            '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s",'
            '"arguments":{"a":%s,"b":2}}}' % (i, name, a)
        )

    if i % 2 == 0:
        return tools_call("add", "1")
    return [
        tools_call("add", '"x"'),
        tools_call("add", "9223372036854775808"),
        tools_call("nope", "1"),
        '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":' % i,
        '{"jsonrpc":"1.0","id":%d,"method":"tools/call"}' % i,
    ][(i // 2) % 5]


def unread_bytes(pid, fd):
    """Bytes waiting in the pipe behind the server's descriptor `fd`, or None."""
    try:
        f = os.open("/proc/%d/fd/%d" % (pid, fd), os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        return struct.unpack("i", fcntl.ioctl(f, termios.FIONREAD, b"\0\0\0\0"))[0]
    except OSError:
        return None
    finally:
        os.close(f)


class Client:
    def __init__(self, server, window, deadline):
        self.proc = subprocess.Popen(
            [server], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, bufsize=0,
        )
        self.window = window
        self.deadline = deadline
        self.calls = 0
        self.last_progress = time.monotonic()
        self.error = None

    def run(self):
        try:
            self.proc.stdin.write(INIT)
            out = self.proc.stdout
            if not out.readline():
                raise AssertionError("no answer to initialize")
            sent = 0
            while time.monotonic() < self.deadline:
                ids = range(sent, sent + self.window)
                self.proc.stdin.write("".join(call(i) + "\n" for i in ids).encode())
                seen = set()
                nulls = 0
                for _ in ids:
                    line = out.readline()
                    if not line:
                        raise AssertionError("the server closed its output")
                    answer = json.loads(line)
                    if "result" not in answer and "error" not in answer:
                        raise AssertionError("neither a result nor an error: %r" % line)
                    if answer.get("id") is None:
                        nulls += 1
                    else:
                        seen.add(answer["id"])
                    self.last_progress = time.monotonic()
                # The malformed lines are answered with id null; every other id exactly once.
                expected = {i for i in ids if not (i % 2 == 1 and (i // 2) % 5 == 3)}
                if seen != expected or nulls != len(ids) - len(expected):
                    raise AssertionError("answers do not match the window at %d" % sent)
                sent += self.window
                self.calls = sent
            self.proc.stdin.close()
            if self.proc.wait(timeout=30) != 0:
                raise AssertionError("the server exited with %s" % self.proc.returncode)
        except Exception as e:  # reported by main; a killed server ends here too
            if self.error is None:
                self.error = "%s: %s" % (type(e).__name__, e)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--server", required=True, help="a stdio server binary (kit_server)")
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--clients", type=int, default=3)
    p.add_argument("--window", type=int, default=2000)
    p.add_argument("--stall", type=float, default=30, help="seconds without an answer = a stall")
    args = p.parse_args()

    deadline = time.monotonic() + args.seconds
    clients = [Client(args.server, args.window, deadline) for _ in range(args.clients)]
    threads = [threading.Thread(target=c.run, daemon=True) for c in clients]
    for t in threads:
        t.start()
    stalled = []
    while any(t.is_alive() for t in threads):
        time.sleep(1)
        now = time.monotonic()
        for c, t in zip(clients, threads):
            if t.is_alive() and c not in stalled and now - c.last_progress > args.stall:
                pid = c.proc.pid
                c.error = (
                    "stalled: no answer for %.0f s after %d calls; server pid %d, its stdin "
                    "pipe holding %s bytes unread, its stdout %s"
                    % (now - c.last_progress, c.calls, pid, unread_bytes(pid, 0),
                       unread_bytes(pid, 1))
                )
                stalled.append(c)
                c.proc.kill()
    failed = [c for c in clients if c.error]
    total = sum(c.calls for c in clients)
    for n, c in enumerate(clients):
        print("client %d: %d calls%s" % (n, c.calls, ", " + c.error if c.error else ""))
    print("%d calls over %d clients in %.0f s: %s"
          % (total, len(clients), args.seconds, "FAILED" if failed else "ok"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
