"""Drives a fleet of atrium replicas behind a round-robin proxy (no stickiness) with the official
Python client (mcp 2.3.0, mode="legacy", Streamable HTTP): the whole atrium scenario of
scenario_examples.py (bookings, refusals, elicitation accepted, declined, dismissed, refused),
each of its sessions' requests landing on every replica in turn, then CALLS calls on one more
session.

Usage: python fleet.py URL REDIS_PORT CALLS
Prints "ok fleet NAME" or "FAIL fleet NAME: why" per check, then "summary: N passed, M failed";
exits 1 when a check failed.
"""
import asyncio
import subprocess
import sys
import tempfile
import traceback

from mcp import Client

import scenario_examples as se
from checks import check, fail, report

URL, REDIS_PORT, CALLS = sys.argv[1], sys.argv[2], int(sys.argv[3])


def flush_bookings() -> None:
    """Empties the fleet's calendar: where the stdio scenario starts a fresh server."""
    scan = ["redis-cli", "-p", REDIS_PORT, "--scan", "--pattern", "atrium:*"]
    keys = subprocess.run(scan, capture_output=True, text=True, check=True).stdout.split()
    if keys:
        subprocess.run(["redis-cli", "-p", REDIS_PORT, "DEL", *keys], capture_output=True, check=True)


class FleetServer(se.Server):
    """The scenario's server is the fleet behind the proxy: the client connects to its URL."""

    def __init__(self, command: str, args: list[str], workdir: str, label: str):
        super().__init__(command, args, workdir, label)
        if label == "atrium-no-elicitation-ours":
            flush_bookings()

    def params(self) -> str:
        return URL


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
        async with Client(URL, mode="legacy") as client:
            errors = []
            for i in range(CALLS):
                got = await client.call_tool("find_slots", {"room_id": "studio-a", "day": se.DAY})
                if got.is_error or got.structured_content != se.slots("studio-a", list(range(9, 17))):
                    errors.append((i, got))
            check("fleet", f"{CALLS} calls on one session", errors == [], errors[:3])
    except Exception:
        fail("fleet", f"{CALLS} calls ran", traceback.format_exc())
    return report()


sys.exit(asyncio.run(main()))
