"""Drives our stdio servers with the official Python client (mcp 2.3.0), in mode="legacy"
(initialize handshake) and in the default mode="auto" (server/discover first, 2026-07-28).

Run: python interop.py TASKS_SERVER KIT_SERVER NOTES_SERVER
Prints one line per check ("ok MODE NAME" or "FAIL MODE NAME: why"), then a summary line
"summary: N passed, M failed"; exits 1 when any check failed.
"""
import asyncio
import json
import sys
import traceback

from mcp import Client, MCPError, StdioServerParameters, types

from checks import check, fail, report
from prompt_checks import prompt_checks
from resource_checks import resource_checks

TASKS, KIT, NOTES = sys.argv[1], sys.argv[2], sys.argv[3]


async def tasks_scenario(mode: str) -> None:
    params = StdioServerParameters(command=TASKS, env={"RUST_LOG": "warn"})
    async with Client(params, mode=mode) as client:
        session = client.session
        expected_version = "2025-11-25" if mode == "legacy" else "2026-07-28"
        check(mode, "negotiated version", session.protocol_version == expected_version, session.protocol_version)
        info = session.server_info
        check(mode, "server info", info is not None and info.name == "tasks" and info.version == "1.0.0", info)
        check(mode, "instructions", session.instructions == "Read and update the task tracker of one software project.", session.instructions)

        tools = (await client.list_tools()).tools
        names = [t.name for t in tools]
        check(mode, "list_tools order", names == ["list_tasks", "add_task", "complete_task"], names)
        by_name = {t.name: t for t in tools}
        check(mode, "add_task minLength", by_name["add_task"].input_schema["properties"]["title"].get("minLength") == 3,
              by_name["add_task"].input_schema)
        check(mode, "complete_task pattern", by_name["complete_task"].input_schema["properties"]["task_id"].get("pattern") == r"^T-\d+$",
              by_name["complete_task"].input_schema)
        check(mode, "list_tasks readOnlyHint", by_name["list_tasks"].annotations is not None and by_name["list_tasks"].annotations.read_only_hint is True,
              by_name["list_tasks"].annotations)

        listed = await client.call_tool("list_tasks", {"status": "open"})
        check(mode, "list_tasks structured", not listed.is_error and listed.structured_content["count"] == 2, listed)

        added = await client.call_tool("add_task", {"title": "Tag v1.2", "priority": "high"})
        check(mode, "add_task structured", not added.is_error and added.structured_content ==
              {"id": "T-4", "title": "Tag v1.2", "priority": "high", "status": "open"}, added)
        check(mode, "add_task text is the JSON", json.loads(added.content[0].text) == added.structured_content, added)

        missing = await client.call_tool("complete_task", {"task_id": "T-9"})
        check(mode, "tool error", missing.is_error and missing.content[0].text ==
              "Error executing tool complete_task: No task with ID T-9. Call list_tasks to see the valid IDs.", missing)

        unknown = await client.call_tool("delete_task", {"task_id": "T-1"})
        check(mode, "unknown tool", unknown.is_error and unknown.content[0].text == "Unknown tool: delete_task", unknown)

        try:
            await client.session.send_request(types.Request(method="tools/call", params={"arguments": {}}), types.CallToolResult)
            check(mode, "missing name is -32602", False, "no error raised")
        except MCPError as error:
            check(mode, "missing name is -32602", error.code == types.INVALID_PARAMS, (error.code, error.message))

        again = await client.call_tool("list_tasks", {})
        check(mode, "still serving", not again.is_error and again.structured_content["count"] == 4, again)


async def kit_scenario(mode: str) -> None:
    logs: list[tuple[str, object]] = []
    asked: list[str] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append((params.level, params.data))

    async def on_elicit(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"color": "green", "sure": True})

    params = StdioServerParameters(command=KIT, env={"RUST_LOG": "warn"})
    async with Client(params, mode=mode, logging_callback=on_log, elicitation_callback=on_elicit,
                      log_level="warning") as client:
        if mode == "legacy":
            await client.session.set_logging_level("warning")
        progress: list[tuple[float, float | None, str | None]] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append((done, total, message))

        counted = await client.call_tool("count", {"steps": 3}, progress_callback=on_progress)
        check(mode, "count result", not counted.is_error and counted.structured_content == {"result": "counted to 3"}, counted)
        check(mode, "progress reports", [p[0] for p in progress] == [1.0, 2.0, 3.0] and progress[0][1] == 3.0, progress)

        chatty = await client.call_tool("chatty", {})
        await asyncio.sleep(0)  # notifications are delivered before the response; let callbacks run
        levels = [level for level, _ in logs]
        check(mode, "log levels at warning and above", not chatty.is_error and levels == ["warning", "error"], logs)

        picked = await client.call_tool("pick_color", {"prompt": "Favourite color?"})
        check(mode, "elicitation accepted", not picked.is_error and picked.structured_content == {"result": "picked Green (sure: Some(true))"}, picked)
        check(mode, "elicitation asked once with the message", asked == ["Favourite color?"], asked)

        boom = await client.call_tool("explode", {})
        check(mode, "panic hidden", boom.is_error and boom.content[0].text == "Error executing tool explode", boom)


# ---- prompts, resources and completion: the notes example ----------------------------------------

async def notes_scenario(mode: str) -> None:
    params = StdioServerParameters(command=NOTES, env={"RUST_LOG": "warn"})
    async with Client(params, mode=mode) as client:
        await prompt_checks(client, mode)
        await resource_checks(client, mode)


async def main() -> int:
    for mode in ["legacy", "auto"]:
        for scenario in (tasks_scenario, kit_scenario, notes_scenario):
            try:
                await scenario(mode)
            except Exception:  # a crash is a failed check, with its traceback for the log
                fail(mode, scenario.__name__, traceback.format_exc())
    return report()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
