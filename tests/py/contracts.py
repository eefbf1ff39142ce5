"""Compares the tools/list of a Rust example with its Python reference server, both over stdio.

Usage: python contracts.py REFERENCE_SERVER.py RUST_SERVER_BINARY
Prints one line per difference and exits 1 if there is any. Both sides are normalized first:
pydantic's auto-generated `title` keys are dropped, `$ref`s are inlined, and the deliberate
differences of the Rust toolkit (listed in ALLOWED below) are applied to the reference side.
"""
import asyncio
import json
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters


async def list_tools(command: str, args: list[str], mode: str) -> list[dict]:
    async with Client(StdioServerParameters(command=command, args=args), mode=mode) as client:
        result = await client.list_tools()
        return [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in result.tools]


def inline_refs(schema, defs):
    if isinstance(schema, dict):
        if "$ref" in schema and len(schema) == 1:
            name = schema["$ref"].rsplit("/", 1)[-1]
            return inline_refs(defs[name], defs)
        return {k: inline_refs(v, defs) for k, v in schema.items() if k != "$defs"}
    if isinstance(schema, list):
        return [inline_refs(v, defs) for v in schema]
    return schema


def drop_titles(schema, in_properties=False):
    """Drops `title` annotation keys (a property may itself be called `title`)."""
    if isinstance(schema, dict):
        return {
            k: drop_titles(v, in_properties=(k == "properties"))
            for k, v in schema.items()
            if in_properties or k != "title"
        }
    if isinstance(schema, list):
        return [drop_titles(v) for v in schema]
    return schema


def normalize_schema(schema, rust_side):
    if schema is None:
        return None
    schema = drop_titles(inline_refs(schema, schema.get("$defs", {})))
    if rust_side:
        # Deliberate: the Rust toolkit rejects unknown arguments and says so in the schema.
        if schema.get("additionalProperties") is False:
            schema.pop("additionalProperties")
    return schema


def normalize(tool, rust_side):
    out = {k: v for k, v in tool.items() if k not in ("inputSchema", "outputSchema", "_meta", "execution")}
    out["inputSchema"] = normalize_schema(tool.get("inputSchema"), rust_side)
    out["outputSchema"] = normalize_schema(tool.get("outputSchema"), rust_side)
    return out


def diff(path, a, b, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a:
                out.append(f"{path}/{k}: only in rust: {json.dumps(b[k])}")
            elif k not in b:
                out.append(f"{path}/{k}: only in reference: {json.dumps(a[k])}")
            else:
                diff(f"{path}/{k}", a[k], b[k], out)
    elif a != b or type(a) is not type(b):
        out.append(f"{path}: reference {json.dumps(a)} != rust {json.dumps(b)}")


async def main() -> int:
    reference, rust = sys.argv[1], sys.argv[2]
    ref_tools = await list_tools(sys.executable, [reference], "legacy")
    rust_tools = await list_tools(rust, [], "auto")
    problems: list[str] = []
    ref_names = [t["name"] for t in ref_tools]
    rust_names = [t["name"] for t in rust_tools]
    if ref_names != rust_names:
        problems.append(f"tool names differ: reference {ref_names} != rust {rust_names}")
    for ref, ours in zip(ref_tools, rust_tools):
        diff(ref["name"], normalize(ref, False), normalize(ours, True), problems)
    for p in problems:
        print("DIFF", p)
    print(f"compared {len(ref_tools)} reference tools with {len(rust_tools)} rust tools: {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
