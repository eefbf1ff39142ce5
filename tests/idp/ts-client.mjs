// The official TypeScript MCP client (@modelcontextprotocol/client, pinned in package.json)
// completing calls through its own OAuth support against an example served with
// `--auth-issuer`: its `ClientCredentialsProvider` is given a client id, a secret and the issuer
// those credentials belong to (`expectedIssuer`, a check the SDK asks for), never a token
// endpoint; it must find the authorization server from the server's 401 (`resource_metadata`),
// the Protected Resource Metadata and the provider's metadata. Every HTTP request the client
// makes is recorded (method, URL, status; for a token request the scope and resource it asked
// for), so the caller can check the discovery and the step-up happened as they should.
//
//   node tests/idp/ts-client.mjs MCP_URL ISSUER [CALL_JSON]
//
// With CALL_JSON ({"name": TOOL, "arguments": {...}}: another example's call), the `discover`
// case alone, in both eras, calling that tool.
//
// Runs four cases against the `tasks` example in both protocol eras (`versionNegotiation` mode
// "legacy": the initialize handshake; "auto": server/discover, then the stateless 2026-07-28
// era) and prints one JSON line, {"legacy": {CASE: {...}}, "auto": {...}}:
// - `discover`: client `writer`; lists the tools, calls `add_task` (needs `tasks:write`).
// - `step_up`: client `writer` whose first token request asks for `tasks:read` only; `add_task`
//   gets the 403 `insufficient_scope`, the client re-authorizes with the wider scope and retries.
// - `narrow`: client `narrow` (the IdP grants it the read scopes only); the client's step-up
//   meets a grant that does not widen and gives up with an error.
// - `narrow_throw`: the same with `onInsufficientScope: "throw"`: the error names the scope.
import {
  Client,
  ClientCredentialsProvider,
  InsufficientScopeError,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";

const [url, issuer, callJson] = process.argv.slice(2);
if (!url || !issuer) {
  console.error("usage: node ts-client.mjs MCP_URL ISSUER");
  process.exit(2);
}

/** A `fetch` that records each request into `log` and otherwise changes nothing. */
function recording(log) {
  return async (input, init) => {
    const target = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const response = await fetch(input, init);
    const entry = { method: init?.method ?? "GET", url: target, status: response.status };
    if (init?.body instanceof URLSearchParams) {
      entry.scope = init.body.get("scope");
      entry.resource = init.body.get("resource");
      entry.grant = init.body.get("grant_type");
    }
    const challenge = response.headers.get("www-authenticate");
    if (challenge) entry.challenge = challenge;
    log.push(entry);
    return response;
  };
}

/** A `ClientCredentialsProvider` whose first token request asks for `first` only. */
class NarrowFirst extends ClientCredentialsProvider {
  constructor(options, first) {
    super(options);
    this.first = first;
  }
  prepareTokenRequest(scope) {
    const asked = this.first ?? scope;
    this.first = undefined;
    return super.prepareTokenRequest(asked);
  }
}

async function run(mode, { clientId, first, onInsufficientScope, call }) {
  const log = [];
  const options = { clientId, clientSecret: `${clientId}-secret`, expectedIssuer: issuer };
  const provider = first ? new NarrowFirst(options, first) : new ClientCredentialsProvider(options);
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    authProvider: provider,
    fetch: recording(log),
    ...(onInsufficientScope ? { onInsufficientScope } : {}),
  });
  const client = new Client(
    { name: "ts-oauth-check", version: "1.0.0" },
    { versionNegotiation: { mode } },
  );
  const out = { client: clientId, requests: log };
  try {
    await client.connect(transport);
    out.protocol = client.getNegotiatedProtocolVersion() ?? null;
    out.tools = (await client.listTools()).tools.map((t) => t.name);
    const result = await client.callTool(call);
    out.call = { isError: Boolean(result.isError), structured: result.structuredContent ?? null };
  } catch (e) {
    out.error = {
      name: e?.name ?? String(e),
      message: String(e?.message ?? e),
      insufficientScope: e instanceof InsufficientScopeError,
      requiredScope: e?.requiredScope ?? null,
    };
  }
  out.granted = provider.tokens()?.scope ?? null;
  await client.close().catch(() => {});
  return out;
}

const addTask = { name: "add_task", arguments: { title: "from the TypeScript client" } };
const summary = {};
for (const mode of ["legacy", "auto"]) {
  if (callJson) {
    summary[mode] = { discover: await run(mode, { clientId: "writer", call: JSON.parse(callJson) }) };
    continue;
  }
  summary[mode] = {
    discover: await run(mode, { clientId: "writer", call: addTask }),
    step_up: await run(mode, { clientId: "writer", first: "tasks:read", call: addTask }),
    narrow: await run(mode, { clientId: "narrow", call: addTask }),
    narrow_throw: await run(mode, { clientId: "narrow", onInsufficientScope: "throw", call: addTask }),
  };
}
console.log(JSON.stringify(summary));
