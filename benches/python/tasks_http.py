"""The tasks contract on the official MCP Python SDK (mcp 2.3.0), served over Streamable HTTP.

The contract is the reference server itself: `tasks_server.py` from $MCP_REFERENCE_SERVERS (default
`../shared/reference-servers` beside the repository), imported, not copied.

    python tasks_http.py ADDR              # stateless_http=True, json_response=True
    python tasks_http.py ADDR sessions     # stateless_http=False (a session per initialize), json_response=True

Logging is at WARNING (uvicorn's per-request access log off), session cap 10,000 as ours.
"""
import os
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
reference = os.environ.get("MCP_REFERENCE_SERVERS") or str(here.parent.parent.parent / "shared" / "reference-servers")
sys.path.insert(0, reference)

from tasks_server import server  # noqa: E402

addr = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:8000"
host, port = addr.rsplit(":", 1)
sessions = "sessions" in sys.argv[2:]
server.settings.log_level = "WARNING"
server.run(
    transport="streamable-http",
    host=host,
    port=int(port),
    stateless_http=not sessions,
    json_response=True,
    max_sessions=10_000,
)
