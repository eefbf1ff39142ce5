"""The prompts and completion checks of the interop tests, over stdio (interop.py) and HTTP
(http_interop.py): the notes example's summarize_note prompt, listed, got with arguments, refused
for an unknown note, and its argument completed.
"""
from mcp import Client, MCPError, types

from checks import check


async def prompt_checks(client: Client, mode: str) -> None:
    """Lists the prompts, gets one with arguments, completes its argument: shared by stdio and HTTP."""
    prompts = (await client.list_prompts()).prompts
    check(mode, "prompts listed", [p.name for p in prompts] == ["summarize_note"], prompts)
    argument = prompts[0].arguments[0] if prompts and prompts[0].arguments else None
    check(mode, "prompt argument", argument is not None and argument.name == "title" and argument.required is True, argument)
    got = await client.get_prompt("summarize_note", {"title": "groceries"})
    first = got.messages[0].content if got.messages else None
    check(mode, "prompt with arguments", first is not None and first.type == "resource" and first.resource.text == "milk, eggs", got)
    try:
        await client.get_prompt("summarize_note", {"title": "todo"})
        check(mode, "unknown note is -32602", False, "no error raised")
    except MCPError as error:
        check(mode, "unknown note is -32602", error.code == types.INVALID_PARAMS, (error.code, error.message))
    reference = types.PromptReference(type="ref/prompt", name="summarize_note")
    done = await client.complete(reference, {"name": "title", "value": "gro"})
    check(mode, "completion", done.completion.values == ["groceries"], done)
