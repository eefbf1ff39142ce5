"""The official Python client (mcp 2.3.0) completing calls through its own OAuth support against
the `tasks` example served with `--auth-issuer` behind the test OpenID provider (tests/idp).

Run: python oauth_client.py MCP_URL ISSUER [TOOL ARGUMENTS_JSON SCOPES]
Its `ClientCredentialsOAuthProvider` (mcp.client.auth.extensions.client_credentials: the
client-credentials grant, headless) is given a client id, a secret and the issuer those
credentials belong to (`issuer=`, a check the SDK asks for), never a token endpoint: it must find
the authorization server from the server's 401 (`resource_metadata`), the Protected Resource
Metadata and the provider's metadata. Every HTTP request is recorded through an httpx2 event
hook, so the discovery and the step-up are checked, not assumed. Cases, in both client modes
("legacy": initialize handshake; "auto": server/discover, stateless 2026-07-28):
- discover: client `writer`; lists the tools, calls `add_task` (needs `tasks:write`).
- step_up: client `writer` whose first token request asks for `tasks:read` only; `add_task` gets
  the 403 `insufficient_scope`, the client re-authorizes with the wider scope and retries.
- narrow: client `narrow` (the IdP grants it the read scopes only); the step-up meets a grant
  that does not widen, the retried call gets the 403 again and fails.
With TOOL, ARGUMENTS_JSON and SCOPES (another example: the tool to call, its arguments, and the
space-separated scopes its metadata lists), the discover case alone, calling that tool.
Prints one line per check, then "summary: N passed, M failed"; exits 1 when any check failed.
"""
import asyncio
import json
import sys
from urllib.parse import parse_qs

import httpx2
from mcp import Client
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client

from checks import check, fail, report

URL, ISSUER = sys.argv[1], sys.argv[2]
# The call of the discover case, and the scopes the metadata lists (the tasks example's unless
# another example's are given).
TOOL, ARGUMENTS, SCOPES = "add_task", None, ["tasks:read", "tasks:write"]
if len(sys.argv) > 3:
    TOOL, ARGUMENTS, SCOPES = sys.argv[3], json.loads(sys.argv[4]), sorted(sys.argv[5].split())
PRM = URL.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")


class Memory:
    """Token storage in memory (the SDK's `TokenStorage` protocol)."""

    def __init__(self) -> None:
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens) -> None:
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info) -> None:
        self.client_info = client_info


class NarrowFirst(ClientCredentialsOAuthProvider):
    """A `ClientCredentialsOAuthProvider` whose first token request asks for `first` only."""

    def __init__(self, first: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.first = first

    async def _exchange_token_client_credentials(self) -> httpx2.Request:
        if self.first is not None:
            self.context.client_metadata.scope, self.first = self.first, None
        return await super()._exchange_token_client_credentials()


def token_requests(log: list[dict]) -> list[dict]:
    return [entry for entry in log if entry["url"].startswith(ISSUER) and entry["method"] == "POST"]


async def run(mode: str, client_id: str, first: str | None = None) -> tuple[dict, list[dict], object]:
    """Connects as `client_id`, lists the tools, calls `TOOL`: (outcome, requests, provider)."""
    log: list[dict] = []

    async def record(response: httpx2.Response) -> None:
        request = response.request
        entry = {"method": request.method, "url": str(request.url), "status": response.status_code,
                 "challenge": response.headers.get("www-authenticate")}
        if request.method == "POST" and str(request.url).startswith(ISSUER):
            form = parse_qs(request.content.decode())
            entry["scope"] = form.get("scope", [None])[0]
            entry["resource"] = form.get("resource", [None])[0]
        log.append(entry)

    options = dict(server_url=URL, storage=Memory(), client_id=client_id,
                   client_secret=f"{client_id}-secret", issuer=ISSUER)
    provider = NarrowFirst(first, **options) if first else ClientCredentialsOAuthProvider(**options)
    outcome: dict = {}
    async with httpx2.AsyncClient(auth=provider, event_hooks={"response": [record]}, timeout=10) as http:
        try:
            async with Client(streamable_http_client(URL, http_client=http), mode=mode) as client:
                outcome["protocol"] = client.session.protocol_version
                outcome["tools"] = [t.name for t in (await client.list_tools()).tools]
                arguments = ARGUMENTS if ARGUMENTS is not None else {"title": f"from the Python client ({mode})"}
                result = await client.call_tool(TOOL, arguments)
                outcome["call"] = result
        except Exception as e:  # noqa: BLE001 - the error is the outcome the case checks
            outcome["error"] = e
    return outcome, log, provider


def challenges(log: list[dict], status: int) -> list[str]:
    return [entry["challenge"] or "" for entry in log if entry["status"] == status and entry["url"] == URL]


async def cases(mode: str) -> None:
    await discover(mode)
    if len(sys.argv) > 3:
        return
    await step_up_and_narrow(mode)


async def discover(mode: str) -> None:
    # discover: 401 -> PRM named by resource_metadata -> the IdP's metadata -> token -> calls.
    outcome, log, provider = await run(mode, "writer")
    first_401 = next((i for i, e in enumerate(log) if e["url"] == URL and e["status"] == 401), None)
    check(mode, "discover: the first call gets the 401 with resource_metadata",
          first_401 is not None and f'resource_metadata="{PRM}"' in (log[first_401]["challenge"] or ""), log)
    urls = [e["url"] for e in log]
    prm_at = urls.index(PRM) if PRM in urls else None
    check(mode, "discover: then reads the Protected Resource Metadata it names",
          first_401 is not None and prm_at is not None and prm_at > first_401, urls)
    asm = [i for i, u in enumerate(urls) if u.startswith(ISSUER + "/.well-known/")]
    check(mode, "discover: then the provider's metadata", bool(asm) and prm_at is not None and asm[0] > prm_at, urls)
    tokens = token_requests(log)
    check(mode, "discover: one token request, for this resource", len(tokens) == 1
          and tokens[0]["resource"] == URL and tokens[0]["status"] == 200, tokens)
    check(mode, "discover: asking for the metadata's scopes_supported",
          sorted((tokens[0]["scope"] or "").split()) == SCOPES, tokens)
    check(mode, "discover: protocol", outcome.get("protocol") == ("2025-11-25" if mode == "legacy" else "2026-07-28"),
          outcome)
    check(mode, "discover: list_tools", TOOL in outcome.get("tools", []), outcome)
    call = outcome.get("call")
    check(mode, f"discover: {TOOL} succeeds", call is not None and not call.is_error, outcome)


async def step_up_and_narrow(mode: str) -> None:
    # step_up: a tasks:read token, the 403 insufficient_scope, a wider token, the retried call succeeds.
    outcome, log, provider = await run(mode, "writer", first="tasks:read")
    tokens = token_requests(log)
    forbidden = challenges(log, 403)
    check(mode, "step_up: the 403 names insufficient_scope and tasks:write",
          len(forbidden) == 1 and 'error="insufficient_scope"' in forbidden[0] and 'scope="tasks:write"' in forbidden[0],
          forbidden)
    check(mode, "step_up: a second token request with the wider scope",
          [t["scope"] for t in tokens][:1] == ["tasks:read"] and len(tokens) == 2
          and "tasks:write" in (tokens[1]["scope"] or "").split(), tokens)
    call = outcome.get("call")
    check(mode, "step_up: the retried add_task succeeds", call is not None and not call.is_error, outcome)

    # narrow: the IdP grants read scopes only; the step-up cannot widen it; the call fails.
    outcome, log, provider = await run(mode, "narrow")
    tokens = token_requests(log)
    forbidden = challenges(log, 403)
    check(mode, "narrow: granted the read scope only",
          provider.context.current_tokens is not None and provider.context.current_tokens.scope == "tasks:read",
          provider.context.current_tokens)
    check(mode, "narrow: 403 insufficient_scope, one step-up token request, 403 again",
          len(forbidden) == 2 and all('error="insufficient_scope"' in c for c in forbidden) and len(tokens) == 2,
          {"forbidden": forbidden, "tokens": tokens})
    # The second 403 reaches the session as an error naming the scope; nothing ran.
    check(mode, "narrow: add_task fails naming the scope",
          "call" not in outcome and "tasks:write" in repr(outcome.get("error")), outcome)
    print(f"note {mode} narrow: the client ended with {outcome.get('error') or outcome.get('call')!r}")


async def main() -> int:
    for mode in ["legacy", "auto"]:
        try:
            await cases(mode)
        except Exception as e:  # a crash is one failed check, the other mode still runs
            fail(mode, "cases ran", repr(e))
    return report()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
