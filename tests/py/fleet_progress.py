"""Progress and log messages across a fleet: one handshake-era session (mode="legacy") on
replicas behind a round-robin balancer that share their sessions in Redis. The log level is set
once, on whichever replica the balancer picks; each later call lands on any replica, which reads
the level from the session store and sends the call's progress and log message on the call's
own event stream.

Run: python fleet_progress.py URL CALLS
Prints one line per check ("ok fleet NAME" or "FAIL fleet NAME: why"), then "summary: N passed, M
failed"; exits 1 when any check failed.
"""
import asyncio
import sys

from mcp import Client

from checks import check, report

URL, CALLS = sys.argv[1], int(sys.argv[2])


async def main() -> int:
    logs: list[object] = []

    async def on_log(params) -> None:
        logs.append(params)

    async with Client(URL, mode="legacy", logging_callback=on_log) as client:
        await client.set_logging_level("info")
        replicas: set[int] = set()
        wrong: list[object] = []
        for i in range(CALLS):
            progress: list[float] = []

            async def on_progress(done: float, total: float | None, message: str | None) -> None:
                progress.append(done)

            before = len(logs)
            stepped = await client.call_tool("steps", {}, progress_callback=on_progress)
            await asyncio.sleep(0)
            if stepped.is_error or progress != [1.0, 2.0] or len(logs) != before + 1:
                wrong.append((i, stepped, progress, logs[before:]))
            served = await client.call_tool("replica", {})
            replicas.add(served.structured_content["result"])
        check("fleet", f"progress and a log message on each of {CALLS} calls", wrong == [], wrong[:3])
        check("fleet", "the calls reached every replica", len(replicas) >= 3, replicas)
    return report()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
