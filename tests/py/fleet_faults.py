"""A replica dies mid-call: one handshake-era session (mode="legacy") on three replicas behind a
round-robin balancer that share their sessions and streams in Redis. The session calls `linger`,
which names the process running it in its first progress message; the client kills that process
(SIGKILL) on reading it. Its stream breaks; the client resumes it with `Last-Event-ID` on a live
replica, which replays the progress from Redis and, once the dead replica's lease has lapsed, ends
the call with a JSON-RPC error. The session goes on: CALLS more calls all answer, on the replicas
left.

Run: python fleet_faults.py URL CALLS
Prints one line per check ("ok fleet NAME" or "FAIL fleet NAME: why"), then "summary: N passed, M
failed"; exits 1 when any check failed.
"""
import asyncio
import os
import signal
import sys
import time

from mcp import Client, MCPError

from checks import check, report

URL, CALLS = sys.argv[1], int(sys.argv[2])


async def main() -> int:
    async with Client(URL, mode="legacy") as client:
        killed: list[int] = []
        seen: list[str] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            seen.append(message or "")
            if message and message.startswith("pid ") and not killed:
                pid = int(message[4:])
                killed.append(pid)
                os.kill(pid, signal.SIGKILL)

        started = time.monotonic()
        try:
            got = await client.call_tool("linger", {"ms": 20000}, progress_callback=on_progress)
            outcome: tuple = ("answered", got)
        except MCPError as e:
            outcome = ("error", e.code, e.message)
        took = time.monotonic() - started
        print(f"the killed replica's call ended after {took:.1f} s: {outcome}")
        check("fleet", "a replica was killed mid-call", len(killed) == 1, killed)
        check("fleet", "the call ended with a JSON-RPC error on the resumed stream",
              outcome[0] == "error" and outcome[1] == -32603 and "stopped before it answered" in outcome[2],
              outcome)
        check("fleet", "it ended long before the call would have", took < 15, took)

        wrong: list[object] = []
        replicas: set[int] = set()
        for i in range(CALLS):
            try:
                # An `add` every other call: a fixed pair per turn would meet two replicas in step.
                if i % 2:
                    got = await client.call_tool("add", {"a": i, "b": 1})
                    if got.is_error or got.structured_content != {"result": i + 1}:
                        wrong.append((i, got))
                served = await client.call_tool("replica", {})
                replicas.add(served.structured_content["result"])
            except Exception as e:  # noqa: BLE001 - every failure is reported
                wrong.append((i, repr(e)))
        check("fleet", f"{CALLS} later calls all answered", wrong == [], wrong[:3])
        check("fleet", "the later calls reached both live replicas",
              len(replicas) == 2 and killed[0] not in replicas, (replicas, killed))
    return report()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
