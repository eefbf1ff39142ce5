"""The tasks contract on the official MCP Python SDK (mcp 2.3.0), served over Streamable HTTP.

The contract is the reference server itself: `tasks_server.py` from $MCP_REFERENCE_SERVERS (default
`../shared/reference-servers` beside the repository), imported, not copied.

    python tasks_http.py ADDR              # stateless_http=True, json_response=True
    python tasks_http.py ADDR sessions     # stateless_http=False (a session per initialize), json_response=True
    python tasks_http.py ADDR progress     # stateless, event-stream responses, plus the SSE workload's tool `step`

Logging is at WARNING (uvicorn's per-request access log off), session cap 10,000 as ours.
"""
import os
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
reference = os.environ.get("MCP_REFERENCE_SERVERS") or str(here.parent.parent.parent / "shared" / "reference-servers")
sys.path.insert(0, reference)

from tasks_server import server  # noqa: E402
from mcp.server.mcpserver import Context  # noqa: E402

addr = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:8000"
host, port = addr.rsplit(":", 1)
sessions = "sessions" in sys.argv[2:]
server.settings.log_level = "WARNING"

if "progress" in sys.argv[2:]:

    @server.tool()
    async def step(ctx: Context) -> str:
        """Report progress once (1 of 1), then answer."""
        await ctx.report_progress(1, 1)
        return "done"

server.run(
    transport="streamable-http",
    host=host,
    port=int(port),
    stateless_http=not sessions,
    # The SSE workload needs event streams: a JSON-response server drops a call's notifications.
    json_response="progress" not in sys.argv[2:],
    max_sessions=10_000,
)
