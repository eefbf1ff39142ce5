"""Drives a Streamable HTTP server with the official Python client (mcp 2.3.0), in mode="legacy"
(initialize handshake, session) and mode="auto" (server/discover first, stateless 2026-07-28).

Run: python http_interop.py HTTP_REPLICA NOTES_SERVER
Starts the server on a free loopback port, prints one line per check ("ok MODE NAME" or
"FAIL MODE NAME: why"), then "summary: N passed, M failed"; exits 1 when any check failed.
"""
import asyncio
import subprocess
import sys

from mcp import Client

from checks import check, report
from prompt_checks import prompt_checks
from resource_checks import resource_checks

REPLICA, NOTES = sys.argv[1], sys.argv[2]


async def scenario(url: str, mode: str) -> None:
    logs: list[object] = []

    async def on_log(params) -> None:
        logs.append(params)

    async with Client(url, mode=mode, logging_callback=on_log) as client:
        session = client.session
        expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
        check(mode, "negotiated version", session.protocol_version == expected, session.protocol_version)
        check(mode, "server info", session.server_info is not None and session.server_info.name == "replica",
              session.server_info)
        names = [t.name for t in (await client.list_tools()).tools]
        check(mode, "list_tools", names == ["replica", "add", "steps", "linger"], names)
        added = await client.call_tool("add", {"a": 40, "b": 2})
        check(mode, "add", not added.is_error and added.structured_content == {"result": 42}, added)
        bad = await client.call_tool("add", {"a": "x", "b": 2})
        check(mode, "invalid arguments are a tool error", bad.is_error, bad)

        progress: list[float] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append(done)

        if mode == "legacy":
            await client.set_logging_level("info")
        stepped = await client.call_tool("steps", {}, progress_callback=on_progress)
        check(mode, "steps result", not stepped.is_error and stepped.structured_content == {"result": "two steps"}, stepped)
        check(mode, "progress over the event stream", progress == [1.0, 2.0], progress)
        if mode == "legacy":
            check(mode, "log message over the event stream", len(logs) == 1, logs)
        else:
            check(mode, "no log message without a requested level", logs == [], logs)
        served = await client.call_tool("replica", {})
        check(mode, "replica", not served.is_error and isinstance(served.structured_content.get("result"), int), served)


async def notes_prompts(url: str, mode: str) -> None:
    async with Client(url, mode=mode) as client:
        await prompt_checks(client, mode)
        await resource_checks(client, mode)


async def run_against(command: list[str], scenario) -> bool:
    """Starts `command`, runs `scenario(url, mode)` in both modes; False when it did not start."""
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        url = None
        for line in server.stderr:
            if line.startswith("listening on "):
                url = line.split()[-1]
                break
        if url is None:
            print(f"FAIL setup: {command[0]} did not start")
            return False
        for mode in ["legacy", "auto"]:
            try:
                await scenario(url, mode)
            except Exception as e:  # a crash is one failed check, the other mode still runs
                check(mode, f"{scenario.__name__} ran", False, e)
    finally:
        server.terminate()
        server.wait()
    return True


async def main() -> int:
    if not await run_against([REPLICA], scenario):
        return 1
    # ---- prompts and completion: the notes example over HTTP
    if not await run_against([NOTES, "--http", "127.0.0.1:0"], notes_prompts):
        return 1
    return report()


sys.exit(asyncio.run(main()))
