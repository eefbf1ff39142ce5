"""Drives a fleet of atrium replicas behind a round-robin proxy (no stickiness) with the official
Python client (mcp 2.3.0, mode="legacy", Streamable HTTP): the whole atrium scenario of
scenario_examples.py (bookings, refusals, elicitation accepted, declined, dismissed, refused),
each of its sessions' requests landing on every replica in turn, then CALLS calls on one more
session. Then three bookings whose user takes longer to answer than the replicas keep a
request's stream open (`--close-streams-after`): each stream closes after its priming event
and the question, the client resumes it with `Last-Event-ID` on whichever replica nginx picks,
and the answer, the booking's progress and its log message arrive there.

Usage: python fleet.py URL REDIS_PORT CALLS
Prints "ok fleet NAME" or "FAIL fleet NAME: why" per check, "tools/call sent: N" (every
`tools/call` request the clients sent, counted where the SDK sends a request: what a Prometheus
scraping the replicas must count), then "summary: N passed, M failed"; exits 1 when a check failed.
"""
import asyncio
import subprocess
import sys
import tempfile
import traceback

from mcp import Client, types
from mcp.client.session import ClientSession

import scenario_examples as se
from checks import check, fail, report

URL, REDIS_PORT, CALLS = sys.argv[1], sys.argv[2], int(sys.argv[3])

TOOL_CALLS = 0
_send_request = ClientSession.send_request


async def counting_send_request(self, request, *args, **kwargs):
    """`ClientSession.send_request`, counting the `tools/call` requests that reach the wire (one
    refused before it is sent, for a missing name, is not counted)."""
    global TOOL_CALLS
    method = getattr(request, "method", None) or getattr(getattr(request, "root", None), "method", None)
    counted = method == "tools/call"
    TOOL_CALLS += counted
    try:
        return await _send_request(self, request, *args, **kwargs)
    except (ValueError, RuntimeError):
        TOOL_CALLS -= counted
        raise


ClientSession.send_request = counting_send_request


def flush_bookings() -> None:
    """Empties the fleet's calendar: where the stdio scenario starts a fresh server. On a Redis
    Cluster the keys are `{atrium}:…`, all in one slot, and REDIS_PORT is its master's."""
    for pattern in ["atrium:*", "{atrium}:*"]:
        scan = ["redis-cli", "-p", REDIS_PORT, "--scan", "--pattern", pattern]
        keys = subprocess.run(scan, capture_output=True, text=True, check=True).stdout.split()
        if keys:
            delete = ["redis-cli", "-c", "-p", REDIS_PORT, "DEL", *keys]
            subprocess.run(delete, capture_output=True, check=True)


class FleetServer(se.Server):
    """The scenario's server is the fleet behind the proxy: the client connects to its URL."""

    def __init__(self, command: str, args: list[str], workdir: str, label: str):
        super().__init__(command, args, workdir, label)
        if label == "atrium-no-elicitation-ours":
            flush_bookings()

    def params(self) -> str:
        return URL


async def resumed_bookings() -> None:
    """Bookings whose streams the replicas close before the user answers: each resumed."""
    flush_bookings()
    asked: list[object] = []

    async def slow_accept(context, params):
        asked.append(params)
        # Longer than the replicas' stream window: the question's stream closes meanwhile.
        await asyncio.sleep(0.8)
        return types.ElicitResult(action="accept", content={"room_id": "great-hall"})

    logs: list[object] = []

    async def on_log(params) -> None:
        logs.append(params)

    async with Client(URL, mode="legacy", elicitation_callback=slow_accept, logging_callback=on_log) as client:
        wrong, steps = [], []
        for n, hour in enumerate((13, 14, 15), start=1):
            progress: list[tuple[float, str | None]] = []

            async def on_progress(done: float, total: float | None, message: str | None) -> None:
                progress.append((done, message))

            before = len(logs)
            got = await client.call_tool("book_room", {"day": se.DAY, "hour": hour}, progress_callback=on_progress)
            await asyncio.sleep(0)
            if got.is_error or got.structured_content != se.booking(n, "great-hall", "Great Hall", hour):
                wrong.append((hour, got))
            said = [getattr(p, "data", None) for p in logs[before:]]
            expected_log = f"booked Great Hall on {se.DAY} at {hour:02d}:00 as bk_{n}"
            if progress != [(1.0, "booking Great Hall"), (2.0, "booked")] or said != [expected_log]:
                steps.append((hour, progress, said))
        check("fleet", "three bookings answered on resumed streams", wrong == [] and len(asked) == 3,
              (wrong[:2], len(asked)))
        # Sent after the user answered, so after the first stream closed: they came on the
        # stream the client resumed, from whichever replica it reached.
        check("fleet", "each booking's progress and log message arrived on the resumed stream", steps == [],
              steps[:2])


async def main() -> int:
    se.Server = FleetServer

    def on_step(example: str, mode: str, name: str, why: str | None, compared: bool) -> None:
        if why is None:
            check("fleet", f"{example} {name}", True)
        else:
            fail("fleet", f"{example} {name}", why)

    with tempfile.TemporaryDirectory(prefix="mcp-fleet-") as workdir:
        try:
            await se.atrium(se.Scenario("atrium", "legacy", on_step), "fleet", None, workdir)
        except Exception:
            fail("fleet", "atrium scenario ran", traceback.format_exc())

    try:
        await resumed_bookings()
    except Exception:
        fail("fleet", "bookings on resumed streams ran", traceback.format_exc())

    try:
        async with Client(URL, mode="legacy") as client:
            errors = []
            for i in range(CALLS):
                got = await client.call_tool("find_slots", {"room_id": "studio-a", "day": se.DAY})
                if got.is_error or got.structured_content != se.slots("studio-a", list(range(9, 17))):
                    errors.append((i, got))
            check("fleet", f"{CALLS} calls on one session", errors == [], errors[:3])
    except Exception:
        fail("fleet", f"{CALLS} calls ran", traceback.format_exc())
    print(f"tools/call sent: {TOOL_CALLS}")
    return report()


sys.exit(asyncio.run(main()))
