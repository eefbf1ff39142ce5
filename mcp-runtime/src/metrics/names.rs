//! The names the metrics are published under, and the attribute values a request maps to: each a
//! `&'static str` from a fixed set, so that recording allocates nothing and no client can grow a
//! series per value it makes up (an unknown method is `_OTHER`, an unknown tool has no
//! `gen_ai.tool.name`).

/// `mcp.server.operation.duration`: the semantic conventions' histogram of a request's handling,
/// from its arrival until its answer is ready (seconds).
pub const OPERATION_DURATION: &str = "mcp.server.operation.duration";
/// `mcp.server.session.duration`: the semantic conventions' histogram of a handshake-era session's
/// life on this server, from its `initialize` to its end (seconds).
pub const SESSION_DURATION: &str = "mcp.server.session.duration";
/// `mcp.server.active_sessions` (ours; the conventions name no such gauge): the handshake-era
/// sessions this server opened that have not ended, by `network.transport`.
pub const ACTIVE_SESSIONS: &str = "mcp.server.active_sessions";
/// `mcp.server.active_streams` (ours): the HTTP event streams (`text/event-stream` responses
/// still being written) open in this process.
pub const ACTIVE_STREAMS: &str = "mcp.server.active_streams";
/// `mcp.server.active_requests` (ours, after HTTP's `http.server.active_requests`): the requests
/// in flight, by `mcp.method.name`.
pub const ACTIVE_REQUESTS: &str = "mcp.server.active_requests";
/// `mcp.server.active_tasks` (ours): the tasks this server runs, by `mcp.task.status`
/// (`working`, `input_required`).
pub const ACTIVE_TASKS: &str = "mcp.server.active_tasks";
/// `mcp.server.finished_tasks` (ours): a counter of the tasks this server ran that ended, by
/// `mcp.task.status` (`completed`, `failed`, `cancelled`).
pub const FINISHED_TASKS: &str = "mcp.server.finished_tasks";

/// The JSON-RPC method (semantic conventions).
pub const METHOD_NAME: &str = "mcp.method.name";
/// The tool a `tools/call` names (semantic conventions, from GenAI).
pub const TOOL_NAME: &str = "gen_ai.tool.name";
/// `execute_tool` for a `tools/call` (semantic conventions, from GenAI).
pub const OPERATION_NAME: &str = "gen_ai.operation.name";
/// Why the operation failed: the JSON-RPC error code as text, `tool_error` for a result with
/// `isError: true`, or (ours) `cancelled` for a request cancelled before its answer.
pub const ERROR_TYPE: &str = "error.type";
/// The JSON-RPC error code of an error response, as text (semantic conventions).
pub const STATUS_CODE: &str = "rpc.response.status_code";
/// The protocol version: the one a session negotiated, or a stateless request's envelope's.
pub const PROTOCOL_VERSION: &str = "mcp.protocol.version";
/// `pipe` (stdio, and an in-process client) or `tcp` (HTTP).
pub const NETWORK_TRANSPORT: &str = "network.transport";
/// A task's status (ours, as MCP spells the status).
pub const TASK_STATUS: &str = "mcp.task.status";

/// The methods recorded under their own name; any other is [`OTHER_METHOD`]. `tools/call` first:
/// the lookup stops at the first match.
pub(crate) const METHODS: &[&str] = &[
    "tools/call",
    "tools/list",
    "initialize",
    "ping",
    "logging/setLevel",
    "server/discover",
    "subscriptions/listen",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "completion/complete",
    "tasks/get",
    "tasks/result",
    "tasks/cancel",
    "tasks/list",
    "tasks/update",
];

/// The method of a request whose method is not one of [`METHODS`] (as HTTP's conventions name
/// an unknown method).
pub(crate) const OTHER_METHOD: &str = "_OTHER";

/// The index of `method` in [`METHODS`], or `METHODS.len()` for any other.
pub(crate) fn method_index(method: &str) -> usize {
    METHODS
        .iter()
        .position(|m| *m == method)
        .unwrap_or(METHODS.len())
}

/// The name the index of [`method_index`] stands for.
pub(crate) fn method_name(index: usize) -> &'static str {
    METHODS.get(index).copied().unwrap_or(OTHER_METHOD)
}

/// `error.type` of a JSON-RPC error code: the code as text, static for the codes this server
/// answers with (and JSON-RPC's own), so that recording one allocates nothing.
pub(crate) fn error_code(code: i64) -> std::borrow::Cow<'static, str> {
    let known = match code {
        -32700 => "-32700",
        -32600 => "-32600",
        -32601 => "-32601",
        -32602 => "-32602",
        -32603 => "-32603",
        -32000 => "-32000",
        -32001 => "-32001",
        -32002 => "-32002",
        -32020 => "-32020",
        -32021 => "-32021",
        -32022 => "-32022",
        -32042 => "-32042",
        _ => return code.to_string().into(),
    };
    known.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_map_to_themselves_and_the_rest_to_other() {
        for (i, m) in METHODS.iter().enumerate() {
            assert_eq!(method_index(m), i);
            assert_eq!(method_name(i), *m);
        }
        assert_eq!(method_name(method_index("made/up")), OTHER_METHOD);
    }

    #[test]
    fn error_codes_read_as_their_number() {
        for code in [-32700, -32602, -32000, -32042, -1, 7] {
            assert_eq!(error_code(code), code.to_string());
        }
    }
}
