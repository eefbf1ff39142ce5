"""Drives the review example (a code-review assistant that asks the client's model and roots)
with the official Python client (mcp 2.3.0): over stdio and over Streamable HTTP, each in
mode="legacy" (initialize handshake: the server asks over the session) and mode="auto"
(2026-07-28: the server answers input_required and the client retries with inputResponses).
Then the client changes its roots: in legacy mode it sends notifications/roots/list_changed and
the server, told, asks roots/list at once (its on_roots_changed callback); in both modes
workspace_roots then returns the new roots. Without callbacks, both tools say which capability
the client did not declare.

Run: python review.py REVIEW_BINARY
Prints one line per check ("ok TRANSPORT-MODE NAME" or "FAIL ..."), then
"summary: N passed, M failed"; exits 1 when any check failed.
"""
import asyncio
import os
import subprocess
import sys
import warnings

from mcp import Client, StdioServerParameters, types

from checks import check, fail, report

REVIEW = sys.argv[1]
CODE = "fn add(a: i32, b: i32) -> i32 { a + b }"
ROOTS = ["file:///work/app", "file:///work/lib"]
CHANGED_ROOTS = ["file:///work/app", "file:///work/docs", "file:///work/tools"]

# Client.send_roots_list_changed warns that roots are deprecated in 2026-07-28: it is sent in
# legacy mode only, where they are not.
warnings.filterwarnings("ignore", message="The roots capability is deprecated")


async def scenario(target, label: str, mode: str) -> None:
    asked: list[types.CreateMessageRequestParams] = []

    async def on_sampling(context, params: types.CreateMessageRequestParams):
        asked.append(params)
        text = params.messages[-1].content.text
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=f"Adds two numbers ({len(text)} chars)"),
            model="python-test-model",
            stop_reason="endTurn",
        )

    current = list(ROOTS)
    listed: list[list[str]] = []  # the roots of each roots/list the server sent

    async def on_roots(context):
        listed.append(list(current))
        return types.ListRootsResult(
            roots=[types.Root(uri=u, name="app" if u.endswith("/app") else None) for u in current])

    async with Client(target, mode=mode, read_timeout_seconds=60,
                      sampling_callback=on_sampling, list_roots_callback=on_roots) as client:
        expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
        version = client.session.protocol_version
        check(label, "negotiated version", version == expected, version)
        names = sorted(t.name for t in (await client.list_tools()).tools)
        check(label, "list_tools", names == ["summarize", "workspace_roots"], names)

        summary = await client.call_tool("summarize", {"text": CODE})
        check(label, "summarize returns the model's text",
              not summary.is_error and summary.structured_content == {"result": f"Adds two numbers ({len(CODE)} chars)"},
              summary)
        check(label, "one sampling request", len(asked) == 1, asked)
        if asked:
            p = asked[0]
            check(label, "system prompt", p.system_prompt == "Summarize this code for a reviewer", p.system_prompt)
            check(label, "max tokens", p.max_tokens == 300, p.max_tokens)
            check(label, "the code as the user's message",
                  [(m.role, m.content.text) for m in p.messages] == [("user", CODE)], p.messages)

        roots = await client.call_tool("workspace_roots", {})
        check(label, "workspace_roots returns the roots' URIs",
              not roots.is_error and roots.structured_content == {"roots": ROOTS}, roots)

        current[:] = CHANGED_ROOTS
        if mode == "legacy":
            # The server hears the notification: its callback asks roots/list with no call open.
            before = len(listed)
            await client.send_roots_list_changed()
            for _ in range(200):
                if len(listed) > before:
                    break
                await asyncio.sleep(0.05)
            check(label, "roots/list_changed: the server asks for the new roots",
                  listed[before:] == [CHANGED_ROOTS], listed)
        roots = await client.call_tool("workspace_roots", {})
        check(label, "workspace_roots returns the changed roots",
              not roots.is_error and roots.structured_content == {"roots": CHANGED_ROOTS}, roots)


async def scenario_without_callbacks(target, label: str, mode: str) -> None:
    async with Client(target, mode=mode, read_timeout_seconds=60) as client:
        r = await client.call_tool("summarize", {"text": CODE})
        text = r.content[0].text if r.content else None
        check(label, "without sampling the tool says why", r.is_error and text ==
              "Error executing tool summarize: cannot summarize: the client does not support "
              "sampling (its model): it did not declare the `sampling` capability", text)
        r = await client.call_tool("workspace_roots", {})
        text = r.content[0].text if r.content else None
        check(label, "without roots the tool says why", r.is_error and text ==
              "Error executing tool workspace_roots: cannot list the workspace: the client does not "
              "support roots: it did not declare the `roots` capability", text)


async def run(target, label: str, mode: str) -> None:
    for body in (scenario, scenario_without_callbacks):
        try:
            await body(target, f"{label}-{mode}", mode)
        except Exception as e:  # a crash is one failed check; the other runs go on
            fail(f"{label}-{mode}", f"{body.__name__} ran", repr(e))


async def main() -> int:
    for mode in ["legacy", "auto"]:
        await run(StdioServerParameters(command=REVIEW, args=[]), "stdio", mode)
    # Only warnings on stderr: nothing reads it past the address line.
    server = subprocess.Popen([REVIEW, "--http", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "RUST_LOG": "warn"})
    try:
        url = None
        for line in server.stderr:
            if line.startswith("listening on "):
                url = line.split()[-1]
                break
        if url is None:
            fail("http", "setup", f"{REVIEW} did not start")
        else:
            for mode in ["legacy", "auto"]:
                await run(url, "http", mode)
    finally:
        server.kill()
        server.wait()
    return report()


sys.exit(asyncio.run(main()))
