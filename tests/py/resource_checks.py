"""The resource checks of the interop tests, over stdio (interop.py) and HTTP (http_interop.py):
the notes example's `notes://index` resource and `notes://{title}` template, listed, read, refused
for a note that does not exist, completed, and subscribed to: `resources/subscribe` and
`resources/unsubscribe` in the handshake era, a `subscriptions/listen` stream in 2026-07-28.
"""
from mcp import Client, MCPError, types

from checks import check


async def resource_checks(client: Client, mode: str) -> None:
    """Lists, reads and completes the notes' resources: shared by stdio and HTTP."""
    resources = (await client.list_resources()).resources
    check(mode, "resources listed", [(str(r.uri), r.name) for r in resources] == [("notes://index", "index")], resources)
    templates = (await client.list_resource_templates()).resource_templates
    check(mode, "templates listed", [t.uri_template for t in templates] == ["notes://{title}"], templates)
    read = await client.read_resource("notes://groceries")
    first = read.contents[0] if read.contents else None
    check(mode, "template read", first is not None and first.text == "milk, eggs" and first.mime_type == "text/plain", read)
    index = await client.read_resource("notes://index")
    check(mode, "fixed resource read", index.contents and index.contents[0].text == "groceries", index)
    # The era's "resource not found": -32002 in the 2025 era, -32602 in 2026-07-28.
    expected = -32002 if mode == "legacy" else types.INVALID_PARAMS
    try:
        await client.read_resource("notes://todo")
        check(mode, "unknown note is resource-not-found", False, "no error raised")
    except MCPError as error:
        check(mode, "unknown note is resource-not-found", error.code == expected, (error.code, error.message))
    reference = types.ResourceTemplateReference(type="ref/resource", uri="notes://{title}")
    done = await client.complete(reference, {"name": "title", "value": "gr"})
    check(mode, "template variable completion", done.completion.values == ["groceries"], done)
    if mode == "legacy":
        subscribed = await client.subscribe_resource("notes://groceries")
        check(mode, "subscribed", subscribed is not None, subscribed)
        unsubscribed = await client.unsubscribe_resource("notes://groceries")
        check(mode, "unsubscribed", unsubscribed is not None, unsubscribed)
    else:
        async with client.listen(resource_subscriptions=["notes://groceries"]) as sub:
            honored = sub.honored
        check(mode, "listen acknowledged", honored is not None and list(honored.resource_subscriptions or []) == ["notes://groceries"], honored)
