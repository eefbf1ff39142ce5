"""The official Python client (mcp 2.3.0) through a rolling restart: atrium replicas behind a
round-robin proxy that share their sessions, streams and bookings in Redis, each replica in turn
SIGTERMed, drained and started again while this script calls, until STOP_FILE exists.

Four clients run side by side, three of them on 2025-11-25 sessions (mode="legacy"), one
stateless (mode="2026-07-28"):
- `quick`: `find_slots` in a loop on its session;
- `bookings`: `book_room` with an ambiguous hint, so each booking asks the user which room
  (elicitation, answered by the callback after THINK_SHORT seconds), then reports its progress
  and books: a call that spans a drain now and then;
- `long`: the same bookings with a slow user. Its first booking's user answers only once
  ANSWER_FILE exists (STOP_FILE + ".answer"): the test creates it when it finds the replica whose
  drain waits for that call, so the call spans that drain, its stream cut and resumed by the client
  with `Last-Event-ID` on another replica, where its progress and its answer arrive. Its later
  bookings' user answers after THINK_LONG seconds;
- `stateless`: `find_slots` at 2026-07-28, no session.

Every call's answer is checked (the slots; the booking's room, day and hour, its progress
[(1, "booking ROOM"), (2, "booked")]). Once STOP_FILE exists, each session makes one last call:
a session that answers it (and never got "Session terminated") was not lost.

Usage: python fleet_rolling.py URL STOP_FILE
Prints "ready" once every client has made a call (and the long booking's question has arrived),
then at the end one line
"rolling {json}" (calls, failed, failures, sessions, sessions_lost, longest pause in ms, per
client), then "ok rolling NAME" / "FAIL rolling NAME: why" per check and "summary: N passed, M
failed"; exits 1 when a check failed.
"""
import asyncio
import datetime
import json
import os
import sys
import time
import traceback

from mcp import Client, types

from checks import check, report

URL, STOP_FILE = sys.argv[1], sys.argv[2]
ANSWER_FILE = STOP_FILE + ".answer"
DAY = "2026-09-17"
THINK_SHORT, THINK_LONG = 0.2, 1.0
# The longest the first long booking's user waits for ANSWER_FILE: a guard only (the test writes
# it about 1.5 s after the drain of the replica running that booking began).
FIRST_THINK_MAX = 20.0
# A call that takes longer than this (beyond the user's thinking) has failed.
CALL_TIMEOUT = 30.0
ROOMS = {"studio-a": "Studio A", "studio-b": "Studio B"}


class Tally:
    """What one client saw."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.calls = 0
        self.failures: list[str] = []
        # The longest a call took, less the time the user spent answering its question.
        self.longest = 0.0
        self.lost = False

    def record(self, took: float, why: str | None) -> None:
        self.calls += 1
        self.longest = max(self.longest, took)
        if why is not None:
            self.failures.append(why)
            if "Session terminated" in why:
                self.lost = True


def stopped() -> bool:
    return os.path.exists(STOP_FILE)


def expected_slots() -> dict:
    return {"result": [{"room_id": "studio-a", "day": DAY, "start": f"{h:02d}:00", "end": f"{h + 1:02d}:00"}
                       for h in range(9, 17)]}


async def find_slots(client: Client) -> str | None:
    """One `find_slots` call: None when its answer is the expected one, else why not."""
    got = await client.call_tool("find_slots", {"room_id": "studio-a", "day": DAY})
    if got.is_error or got.structured_content != expected_slots():
        return f"find_slots answered {got!r}"
    return None


async def timed(tally: Tally, call) -> None:
    """Runs `call` (which returns why it failed, or None, and the user's thinking time)."""
    started = time.monotonic()
    thought = 0.0
    try:
        async with asyncio.timeout(CALL_TIMEOUT):
            why, thought = await call()
    except Exception as e:  # noqa: BLE001 - every failure is counted and shown
        why = f"{type(e).__name__}: {e}"
    tally.record(time.monotonic() - started - thought, why)
    if why is not None:
        # A failing call is not retried at once in a loop that never waits.
        await asyncio.sleep(0.05)


async def finder(tally: Tally, ready: asyncio.Event, mode: str) -> None:
    """`find_slots` in a loop in `mode`: "legacy" on a session (`quick`), whose last call, after
    every replica was restarted, must still answer; or "2026-07-28", stateless, with no session
    to outlive the restarts."""
    async with Client(URL, mode=mode, cache=None) as client:
        async def call():
            return await find_slots(client), 0.0

        await timed(tally, call)
        ready.set()
        while not stopped():
            await timed(tally, call)
        if mode == "legacy":
            await last_call(tally, client)


async def until_answer_file() -> None:
    """Waits until the test creates ANSWER_FILE (or FIRST_THINK_MAX has passed)."""
    deadline = time.monotonic() + FIRST_THINK_MAX
    while not os.path.exists(ANSWER_FILE) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)


async def booker(tally: Tally, ready: asyncio.Event, think: float, year: int, hold_first: bool = False) -> None:
    """Books a room on a day of its own each time (year, then day by day), hint "studio". With
    `hold_first`, `ready` is set once the first booking's question has arrived, and its user
    answers once ANSWER_FILE exists."""
    thinking: list[float] = []

    async def on_elicit(context, params):
        started = time.monotonic()
        if hold_first and tally.calls == 0:
            ready.set()
            await until_answer_file()
        else:
            await asyncio.sleep(think)
        thinking.append(time.monotonic() - started)
        room = "studio-a" if tally.calls % 2 else "studio-b"
        return types.ElicitResult(action="accept", content={"room_id": room})

    async with Client(URL, mode="legacy", cache=None, elicitation_callback=on_elicit) as client:
        first = datetime.date(year, 1, 1)

        async def call():
            day = (first + datetime.timedelta(days=tally.calls)).isoformat()
            room = "studio-a" if tally.calls % 2 else "studio-b"
            progress: list[tuple[float, str | None]] = []

            async def on_progress(done: float, total: float | None, message: str | None) -> None:
                progress.append((done, message))

            thinking.clear()
            got = await client.call_tool("book_room", {"day": day, "hour": 10, "room_hint": "studio"},
                                         progress_callback=on_progress)
            await asyncio.sleep(0)
            thought = sum(thinking)
            content = got.structured_content or {}
            want = {"room_id": room, "room": ROOMS[room], "day": day, "hour": 10}
            if got.is_error or {k: content.get(k) for k in want} != want or not str(content.get("id")).startswith("bk_"):
                return f"book_room on {day} answered {got!r}", thought
            if progress != [(1.0, f"booking {ROOMS[room]}"), (2.0, "booked")]:
                return f"book_room on {day}: progress {progress!r}", thought
            if len(thinking) != 1:
                return f"book_room on {day}: asked {len(thinking)} times", thought
            return None, thought

        await timed(tally, call)
        if hold_first and not os.path.exists(ANSWER_FILE):
            tally.failures.append("the first booking ended before its user was told to answer")
        ready.set()
        while not stopped():
            await timed(tally, call)
        await last_call(tally, client)


async def last_call(tally: Tally, client: Client) -> None:
    """The session's last call, after every replica was restarted: it answers if the session lives."""
    try:
        async with asyncio.timeout(CALL_TIMEOUT):
            why = await find_slots(client)
    except Exception as e:  # noqa: BLE001
        why = f"{type(e).__name__}: {e}"
    if why is not None:
        tally.lost = True
        tally.failures.append(f"last call: {why}")


async def main() -> int:
    tallies = {name: Tally(name) for name in ("quick", "bookings", "long", "stateless")}
    readies = {name: asyncio.Event() for name in tallies}
    runs = [
        finder(tallies["quick"], readies["quick"], "legacy"),
        booker(tallies["bookings"], readies["bookings"], THINK_SHORT, 2030),
        booker(tallies["long"], readies["long"], THINK_LONG, 2050, hold_first=True),
        finder(tallies["stateless"], readies["stateless"], "2026-07-28"),
    ]
    tasks = [asyncio.create_task(run) for run in runs]

    async def announce() -> None:
        for event in readies.values():
            await event.wait()
        print("ready", flush=True)

    announcer = asyncio.create_task(announce())
    results = await asyncio.gather(*tasks, return_exceptions=True)
    announcer.cancel()
    for (name, tally), result in zip(tallies.items(), results):
        if isinstance(result, BaseException):
            tally.lost = name != "stateless"
            tally.failures.append("".join(traceback.format_exception(result)))
    sessions = [t for name, t in tallies.items() if name != "stateless"]
    figures = {
        "calls": sum(t.calls for t in tallies.values()),
        "failed": sum(len(t.failures) for t in tallies.values()),
        "failures": [f for t in tallies.values() for f in t.failures][:5],
        "sessions": len(sessions),
        "sessions_lost": sum(t.lost for t in sessions),
        "longest_pause_ms": round(max(t.longest for t in tallies.values()) * 1000),
        "clients": {name: {"calls": t.calls, "failed": len(t.failures), "longest_ms": round(t.longest * 1000)}
                    for name, t in tallies.items()},
    }
    print("rolling " + json.dumps(figures), flush=True)
    for name, tally in tallies.items():
        check("rolling", f"{name}: every call answered as expected", tally.failures == [], tally.failures[:3])
        enough = 2 if name == "long" else 5
        check("rolling", f"{name}: called through the restart", tally.calls >= enough, tally.calls)
    check("rolling", "no session lost", figures["sessions_lost"] == 0, figures)
    return report()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
