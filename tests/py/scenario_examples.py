"""Drives each example server through its seed's scenario with the official Python client
(mcp 2.3.0) over stdio, in mode="legacy" (initialize handshake) and mode="auto" (2026-07-28).

Usage: python scenario_examples.py [--references DIR] EXAMPLE=BINARY [EXAMPLE=BINARY ...]
       (EXAMPLE is one of tasks, shop, notes, atrium)

Every step runs against our binary and checks the exact result (content texts, structuredContent,
isError, or the JSON-RPC error). With --references, the same steps also run against the Python
reference server DIR/<example>_server.py on a second connection, and the two results must be
equal: same isError, same structuredContent, same texts (for a structured result, the same JSON
value in the text blocks: the reference pretty-prints it, one block per list item). Steps that
differ by design run against ours only:
- argument validation: our message names the field the JSON Schema way, pydantic's is its own;
  where pydantic also rejects, the reference must reject too; where it is lax ("5" for an integer,
  unknown arguments) the reference is not called, so both servers keep the same state;
- in auto mode, the elicitation steps: our runtime asks through an `input_required` result,
  the reference cannot ask on a 2026-07-28 connection and fails the call instead.

Each server runs under `sh`, which copies everything it writes to stdout (all the client
received) and its stderr to files, so the crash path is checked on the bytes that left.

Prints "ok EXAMPLE MODE STEP" or "FAIL EXAMPLE MODE STEP: why" per step, then per example and
mode "figures: EXAMPLE MODE: N passed, M failed, K compared with the reference", then
"summary: N passed, M failed". Exits 1 when a step failed.
"""
import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import traceback
from typing import Any, Callable

from mcp import Client, MCPError, StdioServerParameters, types

EXPECTED_VERSION = {"legacy": "2025-11-25", "auto": "2026-07-28"}
TEE = 'err=$1; out=$2; shift 2; "$@" 2>"$err" | tee "$out"'


class Failed(Exception):
    pass


def expect(condition: bool, what: str, detail: Any = "") -> None:
    if not condition:
        raise Failed(f"{what}: {detail!r}" if detail != "" else what)


class Server:
    """One server process behind a client connection, with its captured stdout and stderr."""

    def __init__(self, command: str, args: list[str], workdir: str, label: str):
        self.command, self.args = command, args
        self.stderr_path = os.path.join(workdir, f"{label}.stderr")
        self.stdout_path = os.path.join(workdir, f"{label}.stdout")
        self.asked: list[types.ElicitRequestFormParams] = []
        self.answers: list[types.ElicitResult] = []
        self.client: Client | None = None

    def params(self) -> StdioServerParameters:
        return StdioServerParameters(
            command="/bin/sh",
            args=["-c", TEE, "sh", self.stderr_path, self.stdout_path, self.command, *self.args],
        )

    async def on_elicit(self, context, params):
        self.asked.append(params)
        if not self.answers:
            return types.ErrorData(code=types.INVALID_REQUEST, message="the scenario planned no answer")
        return self.answers.pop(0)

    def stdout(self) -> str:
        with open(self.stdout_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def stderr(self) -> str:
        with open(self.stderr_path, encoding="utf-8", errors="replace") as f:
            return f.read()


def texts(result: types.CallToolResult) -> list[str]:
    return [c.text if c.type == "text" else json.dumps(c.model_dump(mode="json")) for c in result.content]


def structured_text_value(result: types.CallToolResult) -> Any:
    """The JSON value the text blocks of a structured result carry (one block per list item on the
    reference side, one block for the whole value on ours)."""
    sc = result.structured_content
    inner = sc["result"] if isinstance(sc, dict) and list(sc) == ["result"] else sc
    blocks = texts(result)
    if isinstance(inner, str):
        return blocks[0] if len(blocks) == 1 else blocks
    if isinstance(inner, list) and len(blocks) != 1:
        return [json.loads(b) for b in blocks]
    value = json.loads(blocks[0]) if len(blocks) == 1 else None
    if isinstance(inner, list) and not isinstance(value, list):
        value = [value]
    return value


def describe(result: types.CallToolResult) -> dict:
    return {"isError": result.is_error, "texts": texts(result), "structured": result.structured_content}


def same_result(ours: types.CallToolResult, ref: types.CallToolResult) -> None:
    expect(ours.is_error == ref.is_error, "isError differs from the reference", (describe(ours), describe(ref)))
    expect(ours.structured_content == ref.structured_content, "structuredContent differs from the reference",
           (ours.structured_content, ref.structured_content))
    if ours.structured_content is None:
        expect(texts(ours) == texts(ref), "texts differ from the reference", (texts(ours), texts(ref)))
    else:
        expect(structured_text_value(ours) == structured_text_value(ref),
               "the text blocks carry a different value than the reference's", (texts(ours), texts(ref)))


class Scenario:
    """The steps of one example in one mode; `ours` and `ref` are the two connections."""

    def __init__(self, example: str, mode: str, report: Callable[[str, str, str | None, bool], None]):
        self.example, self.mode, self.report = example, mode, report
        self.ours: Server | None = None
        self.ref: Server | None = None

    async def step(self, name: str, body, compared: bool) -> None:
        try:
            await body()
            self.report(self.example, self.mode, name, None, compared)
        except Failed as e:
            self.report(self.example, self.mode, name, str(e), compared)
        except Exception:  # a crash in a step is that step's failure, with its traceback
            self.report(self.example, self.mode, name, traceback.format_exc(), compared)

    async def call(self, name: str, tool: str, args: dict, *, text: str | None = None,
                   structured: Any = None, error: bool = False, first_text: str | None = None,
                   compare: bool = True, servers: tuple[str, ...] = ("ours", "ref")) -> None:
        """A tools/call whose result is fully known: `text` is the only text block (error or plain
        result), `structured` the structuredContent, `first_text` the first block only."""
        compare = compare and self.ref is not None and "ref" in servers

        async def body():
            ours = await self.ours.client.call_tool(tool, args)
            check_expected(ours, "ours")
            if compare:
                ref = await self.ref.client.call_tool(tool, args)
                check_expected(ref, "reference")
                same_result(ours, ref)

        def check_expected(result: types.CallToolResult, side: str) -> None:
            got = describe(result)
            expect(result.is_error == error, f"{side}: isError is not {error}", got)
            if text is not None:
                expect(texts(result) == [text], f"{side}: the text is not {text!r}", got)
            if first_text is not None:
                expect(texts(result)[:1] == [first_text], f"{side}: the first text is not {first_text!r}", got)
            expect(result.structured_content == structured, f"{side}: structuredContent is not {structured!r}", got)
            if structured is not None and side == "ours":
                expect(len(result.content) == 1, "ours: one text block for a structured result", got)
                expect(structured_text_value(result) == (structured.get("result", structured)
                                                         if list(structured) == ["result"] else structured),
                       "ours: the text block is not the structured value's JSON", got)

        await self.step(name, body, compare)

    async def rejected(self, name: str, tool: str, args: dict, message: str, *, reference_rejects: bool) -> None:
        """Arguments that break the published schema: our exact message; the reference is called
        only where pydantic also rejects them (so both servers keep the same state)."""
        compare = reference_rejects and self.ref is not None

        async def body():
            ours = await self.ours.client.call_tool(tool, args)
            expect(ours.is_error and texts(ours) == [f"Invalid arguments for tool {tool}: {message}"],
                   "ours: not the validation message", describe(ours))
            expect(ours.structured_content is None, "ours: structuredContent on a rejected call", describe(ours))
            if compare:
                ref = await self.ref.client.call_tool(tool, args)
                expect(ref.is_error and texts(ref)[0].startswith(f"Error executing tool {tool}: 1 validation error"),
                       "reference: does not reject the arguments", describe(ref))

        await self.step(name, body, compare)

    async def protocol_error(self, name: str, tool: str | None, args: dict, code: int, message: str,
                             *, same_message: bool, servers: tuple[str, ...] = ("ours", "ref")) -> None:
        """A call that must fail as a JSON-RPC error (MCPError), not as a tool result."""
        compare = self.ref is not None and "ref" in servers

        async def raised(server: Server) -> MCPError:
            try:
                if tool is None:
                    params = {"arguments": args}
                    got = await server.client.session.send_request(
                        types.Request(method="tools/call", params=params), types.CallToolResult)
                else:
                    got = await server.client.call_tool(tool, args)
            except MCPError as e:
                return e
            raise Failed(f"no MCPError raised, got {got!r}")

        async def body():
            ours = await raised(self.ours)
            expect((ours.code, ours.message) == (code, message), "ours: not the expected error", (ours.code, ours.message))
            if compare:
                ref = await raised(self.ref)
                expect(ref.code == ours.code, "reference: another error code", (ref.code, ref.message))
                if same_message:
                    expect(ref.message == ours.message, "reference: another message", (ref.message, ours.message))

        await self.step(name, body, compare)

    async def unknown_tool(self) -> None:
        await self.call("unknown tool", "delete_task", {"task_id": "T-1"}, error=True,
                        first_text="Unknown tool: delete_task", compare=False)
        if self.ref is not None:
            async def body():
                ours = await self.ours.client.call_tool("delete_task", {"task_id": "T-1"})
                ref = await self.ref.client.call_tool("delete_task", {"task_id": "T-1"})
                expect(ref.is_error and texts(ref)[:1] == texts(ours)[:1], "reference: another first block",
                       (texts(ours), texts(ref)))
                expect(len(texts(ours)) == 2 and texts(ours)[1].startswith("Valid tools: "),
                       "ours: the second block lists the valid tools", texts(ours))
            await self.step("unknown tool as the reference says it", body, True)

    async def nameless_call(self) -> None:
        await self.protocol_error("tools/call without a name is -32602", None, {}, types.INVALID_PARAMS,
                                  "Invalid request parameters", same_message=True)

    async def session(self, server_name: str, version: str, instructions: str | None, tool_names: list[str]) -> None:
        async def body():
            s = self.ours.client.session
            expect(s.protocol_version == EXPECTED_VERSION[self.mode], "negotiated version", s.protocol_version)
            info = s.server_info
            expect(info is not None and (info.name, info.version) == (server_name, version), "server info", info)
            expect(s.instructions == instructions, "instructions", s.instructions)
            names = [t.name for t in (await self.ours.client.list_tools()).tools]
            expect(names == tool_names, "tool names", names)
            if self.ref is not None:
                r = self.ref.client.session
                expect(r.protocol_version == s.protocol_version, "reference: another version", r.protocol_version)
                expect(r.server_info.name == info.name, "reference: another name", r.server_info)
                expect(r.instructions == s.instructions, "reference: other instructions", r.instructions)
                ref_names = [t.name for t in (await self.ref.client.list_tools()).tools]
                expect(ref_names == names, "reference: other tools", ref_names)

        await self.step("session and tools", body, self.ref is not None)


@contextlib.asynccontextmanager
async def connect(server: Server, mode: str, elicitation: bool):
    async with Client(server.params(), mode=mode, read_timeout_seconds=120,
                      elicitation_callback=server.on_elicit if elicitation else None) as client:
        server.client = client
        yield server


@contextlib.asynccontextmanager
async def pair(sc: Scenario, binary: str, reference: str | None, workdir: str, label: str, elicitation: bool = False):
    """Connects to our binary and, when given, to the reference server (under the same mode)."""
    async with contextlib.AsyncExitStack() as stack:
        sc.ours = await stack.enter_async_context(
            connect(Server(binary, [], workdir, f"{label}-ours"), sc.mode, elicitation))
        sc.ref = None
        if reference is not None:
            sc.ref = await stack.enter_async_context(
                connect(Server(sys.executable, [reference], workdir, f"{label}-ref"), sc.mode, elicitation))
        yield sc.ours, sc.ref


# ---- tasks (seed 003) ---------------------------------------------------------------------------

SEED_TASKS = [
    {"id": "T-1", "title": "Write the release notes", "priority": "normal", "status": "open"},
    {"id": "T-2", "title": "Fix the login redirect bug", "priority": "high", "status": "done"},
    {"id": "T-3", "title": "Update the API docs", "priority": "low", "status": "open"},
]


async def tasks(sc: Scenario, binary: str, reference: str | None, workdir: str) -> None:
    async with pair(sc, binary, reference, workdir, "tasks"):
        await sc.session("tasks", "1.0.0", "Read and update the task tracker of one software project.",
                         ["list_tasks", "add_task", "complete_task"])
        await sc.call("list_tasks: all three", "list_tasks", {}, structured={"tasks": SEED_TASKS, "count": 3})
        await sc.call("list_tasks: open only", "list_tasks", {"status": "open"},
                      structured={"tasks": [SEED_TASKS[0], SEED_TASKS[2]], "count": 2})
        await sc.call("list_tasks: status null is no filter", "list_tasks", {"status": None},
                      structured={"tasks": SEED_TASKS, "count": 3})

        await sc.rejected("add_task: title too short", "add_task", {"title": "v2"},
                          "/title: must be at least 3 characters (got 2)", reference_rejects=True)
        await sc.rejected("add_task: title too long", "add_task", {"title": "x" * 81},
                          "/title: must be at most 80 characters (got 81)", reference_rejects=True)
        await sc.rejected("add_task: priority not in the enum", "add_task", {"title": "Tag v1.2", "priority": "urgent"},
                          '/priority: must be one of "low", "normal", "high" (got "urgent")', reference_rejects=True)
        await sc.rejected("add_task: title of the wrong type", "add_task", {"title": 5},
                          "/title: must be a string (got number)", reference_rejects=True)
        await sc.rejected("add_task: unknown argument", "add_task", {"title": "Tag v1.2", "due": "friday"},
                          '/: unknown argument "due" (allowed: title, priority)', reference_rejects=False)
        await sc.rejected("add_task: missing title", "add_task", {"priority": "low"},
                          '/: missing required argument "title"', reference_rejects=True)
        await sc.rejected("list_tasks: status not in the enum", "list_tasks", {"status": "closed"},
                          '/status: must be one of "open", "done" (got "closed")', reference_rejects=True)
        await sc.rejected("complete_task: task_id does not match the pattern", "complete_task", {"task_id": "X-1"},
                          r"/task_id: must match the pattern ^T-\d+$", reference_rejects=True)
        await sc.rejected("complete_task: task_id of the wrong type", "complete_task", {"task_id": 1},
                          "/task_id: must be a string (got number)", reference_rejects=True)
        await sc.call("state unchanged after the rejected calls", "list_tasks", {},
                      structured={"tasks": SEED_TASKS, "count": 3})

        t4 = {"id": "T-4", "title": "Tag v1.2", "priority": "high", "status": "open"}
        await sc.call("add_task: valid", "add_task", {"title": "Tag v1.2", "priority": "high"}, structured=t4)
        t5 = {"id": "T-5", "title": "abc", "priority": "normal", "status": "open"}
        await sc.call("add_task: 3 characters, default priority", "add_task", {"title": "abc"}, structured=t5)
        t6 = {"id": "T-6", "title": "y" * 80, "priority": "low", "status": "open"}
        await sc.call("add_task: 80 characters", "add_task", {"title": "y" * 80, "priority": "low"}, structured=t6)
        done1 = dict(SEED_TASKS[0], status="done")
        await sc.call("complete_task: T-1", "complete_task", {"task_id": "T-1"}, structured=done1)
        await sc.call("complete_task: T-1 again (idempotent)", "complete_task", {"task_id": "T-1"}, structured=done1)
        await sc.call("complete_task: ToolError for T-9", "complete_task", {"task_id": "T-9"}, error=True,
                      text="Error executing tool complete_task: No task with ID T-9. Call list_tasks to see the valid IDs.")
        await sc.unknown_tool()
        await sc.nameless_call()
        await sc.call("list_tasks: done after the calls", "list_tasks", {"status": "done"},
                      structured={"tasks": [done1, SEED_TASKS[1]], "count": 2})


# ---- shop (seed 000) ----------------------------------------------------------------------------

A1042 = {"id": "A1042", "status": "paid", "total": 59.9}
SECRETS = ("hunter2", "10.0.0.5")


async def shop(sc: Scenario, binary: str, reference: str | None, workdir: str) -> None:
    async with pair(sc, binary, reference, workdir, "shop") as (ours, ref):
        await sc.session("shop", "1.0.0", None, ["get_order", "cancel_order"])
        await sc.call("get_order: 1042", "get_order", {"order_id": 1042}, structured=A1042)
        await sc.call("get_order: 1042 verbose", "get_order", {"order_id": 1042, "verbose": True}, structured=A1042)
        await sc.call("get_order: 1043", "get_order", {"order_id": 1043},
                      structured={"id": "A1043", "status": "shipped", "total": 12.5})
        await sc.call("get_order: ToolError for 7", "get_order", {"order_id": 7}, error=True,
                      text="Error executing tool get_order: no order with id 7")
        await sc.call("get_order: 0 is in range", "get_order", {"order_id": 0}, error=True,
                      text="Error executing tool get_order: no order with id 0")
        await sc.call("get_order: 9999 is in range", "get_order", {"order_id": 9999}, error=True,
                      text="Error executing tool get_order: no order with id 9999")
        await sc.call("get_order: the crash of 13 says nothing", "get_order", {"order_id": 13}, error=True,
                      text="Error executing tool get_order")

        await sc.rejected("get_order: order_id above 9999", "get_order", {"order_id": 10000},
                          "/order_id: must be <= 9999 (got 10000)", reference_rejects=True)
        await sc.rejected("get_order: order_id below 0", "get_order", {"order_id": -1},
                          "/order_id: must be >= 0 (got -1)", reference_rejects=True)
        await sc.rejected("get_order: a string for the integer", "get_order", {"order_id": "5"},
                          "/order_id: must be an integer (got string)", reference_rejects=False)
        await sc.rejected("get_order: a fraction for the integer", "get_order", {"order_id": 1.5},
                          "/order_id: must be an integer (got 1.5)", reference_rejects=True)
        await sc.rejected("get_order: a boolean for the integer", "get_order", {"order_id": True},
                          "/order_id: must be an integer (got boolean)", reference_rejects=False)
        await sc.rejected("get_order: a string for the boolean", "get_order", {"order_id": 1042, "verbose": "yes"},
                          "/verbose: must be a boolean (got string)", reference_rejects=False)
        await sc.rejected("get_order: unknown argument", "get_order", {"order_id": 1042, "expand": True},
                          '/: unknown argument "expand" (allowed: order_id, verbose)', reference_rejects=False)
        await sc.rejected("get_order: missing order_id", "get_order", {},
                          '/: missing required argument "order_id"', reference_rejects=True)
        await sc.rejected("cancel_order: a string for the integer", "cancel_order", {"order_id": "A1042"},
                          "/order_id: must be an integer (got string)", reference_rejects=True)

        await sc.call("cancel_order: 1042", "cancel_order", {"order_id": 1042}, text="order 1042 cancelled",
                      structured={"result": "order 1042 cancelled"})
        await sc.unknown_tool()
        await sc.nameless_call()

    sides = [("ours", ours)] + ([("reference", ref)] if ref is not None else [])

    async def crash_logged_not_sent():
        for side, server in sides:
            expect("db at 10.0.0.5 refused password 'hunter2'" in server.stderr(),
                   f"{side}: the internal error is not in the server's stderr", server.stderr()[-2000:])
            sent = server.stdout()
            expect("Error executing tool get_order" in sent, f"{side}: the stdout capture missed the calls")
            for secret in SECRETS:
                expect(secret not in sent, f"{side}: {secret!r} reached the client",
                       [line for line in sent.splitlines() if secret in line])

    await sc.step("crash: logged on stderr, never sent to the client", crash_logged_not_sent, ref is not None)


# ---- notes (seed 001) ---------------------------------------------------------------------------

async def notes(sc: Scenario, binary: str, reference: str | None, workdir: str) -> None:
    async with pair(sc, binary, reference, workdir, "notes"):
        await sc.session("Notes", "1.0.0", None, ["get_note"])
        await sc.call("get_note: groceries", "get_note", {"title": "groceries"},
                      structured={"title": "groceries", "body": "milk, eggs", "words": 2})
        await sc.call("get_note: ToolError for nope", "get_note", {"title": "nope"}, error=True,
                      text="Error executing tool get_note: No note 'nope'. Known titles: ['groceries']")
        await sc.call("get_note: a title with a quote is shown as Python shows it", "get_note", {"title": "it's"},
                      error=True, text="Error executing tool get_note: No note \"it's\". Known titles: ['groceries']")
        await sc.call("get_note: exact title only", "get_note", {"title": "Groceries"}, error=True,
                      text="Error executing tool get_note: No note 'Groceries'. Known titles: ['groceries']")
        await sc.rejected("get_note: missing title", "get_note", {},
                          '/: missing required argument "title"', reference_rejects=True)
        await sc.rejected("get_note: title of the wrong type", "get_note", {"title": 3},
                          "/title: must be a string (got number)", reference_rejects=True)
        await sc.rejected("get_note: unknown argument", "get_note", {"title": "groceries", "tag": "x"},
                          '/: unknown argument "tag" (allowed: title)', reference_rejects=False)
        await sc.unknown_tool()
        await sc.nameless_call()
        await sc.call("get_note: still serving", "get_note", {"title": "groceries"},
                      structured={"title": "groceries", "body": "milk, eggs", "words": 2})


# ---- atrium (seed 004) --------------------------------------------------------------------------

DAY = "2026-09-17"
ROOMS = "Studio A (studio-a), Studio B (studio-b), Great Hall (great-hall)"


def slots(room: str, starts: list[int], minutes: int = 60) -> dict:
    def end(h: int) -> str:
        m = h * 60 + minutes
        return f"{m // 60:02d}:{m % 60:02d}"
    return {"result": [{"room_id": room, "day": DAY, "start": f"{h:02d}:00", "end": end(h)} for h in starts]}


def booking(n: int, room_id: str, room: str, hour: int) -> dict:
    return {"id": f"bk_{n}", "room_id": room_id, "room": room, "day": DAY, "hour": hour}


def accept(room_id: str) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"room_id": room_id})


async def atrium(sc: Scenario, binary: str, reference: str | None, workdir: str) -> None:
    # In auto mode the reference cannot elicit (it fails the call instead), so the elicitation
    # steps, and the steps after them whose state depends on them, run against ours only.
    elicit_with_ref = ("ours", "ref") if sc.mode == "legacy" else ("ours",)
    async with pair(sc, binary, reference, workdir, "atrium", elicitation=True) as (ours, ref):
        await sc.session("atrium", "1.0.0", None, ["find_slots", "book_room", "cancel_booking"])
        await sc.call("find_slots: Studio B has 09:00 booked", "find_slots", {"room_id": "studio-b", "day": DAY},
                      structured=slots("studio-b", list(range(10, 17))))
        await sc.call("find_slots: 30 minutes", "find_slots", {"room_id": "studio-b", "day": DAY, "minutes": 30},
                      structured=slots("studio-b", list(range(10, 17)), 30))
        await sc.call("find_slots: 120 minutes", "find_slots", {"room_id": "studio-a", "day": DAY, "minutes": 120},
                      structured=slots("studio-a", list(range(9, 16)), 120))
        await sc.call("find_slots: ToolError for an unknown room", "find_slots", {"room_id": "attic", "day": DAY},
                      error=True, text=f"Error executing tool find_slots: Unknown room 'attic'. Rooms: {ROOMS}.")
        await sc.call("find_slots: ToolError for a day that does not exist", "find_slots",
                      {"room_id": "studio-a", "day": "2026-02-30"}, error=True,
                      text="Error executing tool find_slots: Invalid day '2026-02-30': use YYYY-MM-DD, for example 2026-09-17.")
        await sc.call("find_slots: ToolError for another date format", "find_slots",
                      {"room_id": "studio-a", "day": "17/09/2026"}, error=True,
                      text="Error executing tool find_slots: Invalid day '17/09/2026': use YYYY-MM-DD, for example 2026-09-17.")

        await sc.rejected("find_slots: minutes not in [30, 60, 120]", "find_slots",
                          {"room_id": "studio-a", "day": DAY, "minutes": 45},
                          "/minutes: must be one of 30, 60, 120 (got 45)", reference_rejects=True)
        await sc.rejected("find_slots: minutes as a string", "find_slots",
                          {"room_id": "studio-a", "day": DAY, "minutes": "60"},
                          "/minutes: must be an integer (got string)", reference_rejects=True)
        await sc.rejected("find_slots: missing day", "find_slots", {"room_id": "studio-a"},
                          '/: missing required argument "day"', reference_rejects=True)
        await sc.rejected("book_room: hour as a string", "book_room", {"day": DAY, "hour": "11", "room_hint": "studio-a"},
                          "/hour: must be an integer (got string)", reference_rejects=False)
        await sc.rejected("book_room: a fractional hour", "book_room", {"day": DAY, "hour": 9.5, "room_hint": "studio-a"},
                          "/hour: must be an integer (got 9.5)", reference_rejects=True)
        await sc.rejected("book_room: unknown argument", "book_room",
                          {"day": DAY, "hour": 11, "room_hint": "studio-a", "minutes": 60},
                          '/: unknown argument "minutes" (allowed: day, hour, room_hint)', reference_rejects=False)
        await sc.rejected("cancel_booking: booking_id of the wrong type", "cancel_booking", {"booking_id": 1},
                          "/booking_id: must be a string (got number)", reference_rejects=True)

        await sc.call("book_room: ToolError, already booked", "book_room", {"day": DAY, "hour": 9, "room_hint": "studio b"},
                      error=True, text=f"Error executing tool book_room: Studio B is already booked at 09:00 on {DAY}.")
        await sc.call("book_room: ToolError, outside opening hours", "book_room",
                      {"day": DAY, "hour": 17, "room_hint": "studio-a"}, error=True,
                      text="Error executing tool book_room: Rooms can be booked from 09:00 to 16:00 (whole hours); got hour 17.")
        await sc.call("book_room: ToolError, no room matches", "book_room", {"day": DAY, "hour": 11, "room_hint": "attic"},
                      error=True, text=f"Error executing tool book_room: No room matches 'attic'. Rooms: {ROOMS}.")
        await sc.call("book_room: ToolError, invalid day", "book_room", {"day": "tomorrow", "hour": 11}, error=True,
                      text="Error executing tool book_room: Invalid day 'tomorrow': use YYYY-MM-DD, for example 2026-09-17.")
        await sc.call("book_room: an unambiguous alias", "book_room", {"day": DAY, "hour": 10, "room_hint": "the big room"},
                      structured=booking(2, "great-hall", "Great Hall", 10))
        await sc.call("book_room: a name in another case", "book_room", {"day": DAY, "hour": 14, "room_hint": "STUDIO A"},
                      structured=booking(3, "studio-a", "Studio A", 14))
        await sc.call("find_slots: the new booking is taken", "find_slots",
                      {"room_id": "great-hall", "day": DAY, "minutes": 120},
                      structured=slots("great-hall", [11, 12, 13, 14, 15], 120))
        await sc.call("cancel_booking: bk_3", "cancel_booking", {"booking_id": "bk_3"}, text="Cancelled bk_3.",
                      structured={"result": "Cancelled bk_3."})
        await sc.call("cancel_booking: bk_3 again (idempotent)", "cancel_booking", {"booking_id": "bk_3"},
                      text="No booking called bk_3 — nothing to cancel.",
                      structured={"result": "No booking called bk_3 — nothing to cancel."})
        await sc.protocol_error("cancel_booking: a malformed id is -32602", "cancel_booking", {"booking_id": "42"},
                                types.INVALID_PARAMS, "malformed booking id: '42' (expected bk_<number>)",
                                same_message=True)
        await sc.unknown_tool()
        await sc.nameless_call()

        # Elicitation: no hint is ambiguous; the user picks the Great Hall.
        question = f"Which room for {DAY} at 11:00? Options: {ROOMS}."
        for server in (ours, ref):
            if server is not None:
                server.answers = [accept("great-hall")]
        await sc.call("book_room: ambiguous, the user accepts great-hall", "book_room", {"day": DAY, "hour": 11},
                      structured=booking(4, "great-hall", "Great Hall", 11), servers=elicit_with_ref)

        async def asked_once():
            sides = [("ours", ours)] + ([("reference", ref)] if "ref" in elicit_with_ref and ref else [])
            for side, server in sides:
                expect([a.message for a in server.asked] == [question], f"{side}: the question", server.asked)
                schema = server.asked[0].requested_schema
                schema = schema.model_dump(mode="json", by_alias=True, exclude_none=True) \
                    if hasattr(schema, "model_dump") else schema
                props = {k: {kk: vv for kk, vv in v.items() if kk != "title"} for k, v in schema["properties"].items()}
                expect(props == {"room_id": {"type": "string"}} and schema.get("required") == ["room_id"],
                       f"{side}: the form's schema", schema)
        await sc.step("book_room: the user was asked once, with a one-field form", asked_once, "ref" in elicit_with_ref)

        nothing_booked = "Error executing tool book_room: No room was chosen, so nothing was booked."
        for title, answer, text in [
            ("ambiguous hint, the user declines", types.ElicitResult(action="decline"), nothing_booked),
            ("ambiguous hint, the user dismisses the form", types.ElicitResult(action="cancel"), nothing_booked),
            ("the user picks a room that was not offered", accept("great-hall"),
             "Error executing tool book_room: 'great-hall' is not one of the offered rooms: "
             "Studio A (studio-a), Studio B (studio-b)."),
        ]:
            for server in (ours, ref):
                if server is not None:
                    server.answers = [answer]
            await sc.call(f"book_room: {title}", "book_room",
                          {"day": DAY, "hour": 12, "room_hint": "studio"}, error=True,
                          text=text, servers=elicit_with_ref)
        for server in (ours, ref):
            if server is not None:
                server.answers = [types.ElicitResult(action="accept", content={})]
        await sc.call("book_room: an answer that does not fit the form is a hidden error", "book_room",
                      {"day": DAY, "hour": 12, "room_hint": "studio"}, error=True,
                      text="Error executing tool book_room", servers=elicit_with_ref)
        for server in (ours, ref):
            if server is not None:
                server.answers = [types.ErrorData(code=types.INTERNAL_ERROR, message="no user at the keyboard")]
        await sc.protocol_error("book_room: the client's error answering the question is the call's error",
                                "book_room", {"day": DAY, "hour": 12, "room_hint": "studio"},
                                types.INTERNAL_ERROR, "no user at the keyboard", same_message=True,
                                servers=elicit_with_ref)
        await sc.call("find_slots: only the accepted answer booked anything", "find_slots",
                      {"room_id": "great-hall", "day": DAY}, structured=slots("great-hall", [9, 12, 13, 14, 15, 16]),
                      servers=elicit_with_ref)
        await sc.call("find_slots: the declined hour is still free", "find_slots",
                      {"room_id": "studio-a", "day": DAY}, structured=slots("studio-a", list(range(9, 17))))

    # A client without the elicitation capability is told to call again with a hint.
    async with pair(sc, binary, reference, workdir, "atrium-no-elicitation"):
        await sc.call("book_room: ambiguous, no elicitation capability", "book_room", {"day": DAY, "hour": 11},
                      error=True, text="Error executing tool book_room: Which room? "
                                       f"{ROOMS}. Call book_room again with room_hint set to one of them.")
        await sc.call("book_room: nothing was booked", "find_slots", {"room_id": "great-hall", "day": DAY},
                      structured=slots("great-hall", list(range(9, 17))))


SCENARIOS = {"tasks": tasks, "shop": shop, "notes": notes, "atrium": atrium}


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--references", help="the directory of the Python reference servers")
    parser.add_argument("servers", nargs="+", metavar="EXAMPLE=BINARY")
    args = parser.parse_args()

    rows: list[tuple[str, str, str, str | None, bool]] = []

    def report(example: str, mode: str, name: str, why: str | None, compared: bool) -> None:
        rows.append((example, mode, name, why, compared))
        print(f"ok {example} {mode} {name}" if why is None else f"FAIL {example} {mode} {name}: {why}", flush=True)

    order: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="mcp-scenarios-") as workdir:
        for spec in args.servers:
            example, _, binary = spec.partition("=")
            if example not in SCENARIOS or not binary:
                parser.error(f"not EXAMPLE=BINARY with EXAMPLE one of {', '.join(SCENARIOS)}: {spec}")
            reference = None
            if args.references:
                reference = os.path.join(args.references, f"{example}_server.py")
                if not os.path.exists(reference):
                    parser.error(f"no reference server {reference}")
            for mode in ("legacy", "auto"):
                order.append((example, mode))
                sc = Scenario(example, mode, report)
                try:
                    here = os.path.join(workdir, f"{example}-{mode}")
                    os.makedirs(here)
                    await SCENARIOS[example](sc, binary, reference, here)
                except Exception:  # a scenario that could not run is a failure, with its traceback
                    report(example, mode, "scenario", traceback.format_exc(), False)

    failed = 0
    for example, mode in order:
        mine = [r for r in rows if (r[0], r[1]) == (example, mode)]
        bad = sum(1 for r in mine if r[3] is not None)
        compared = sum(1 for r in mine if r[4] and r[3] is None)
        failed += bad
        print(f"figures: {example} {mode}: {len(mine) - bad} passed, {bad} failed, {compared} compared with the reference")
    print(f"summary: {len(rows) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
