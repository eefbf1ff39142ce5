//! The headers of MCP's Streamable HTTP and the load-refusal code: named by the transport and by
//! tests, re-exported hidden from `http`.

/// The session header of the handshake era.
pub const SESSION_ID: &str = "mcp-session-id";
/// The protocol version header.
pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// The header a client resumes a broken event stream with (handshake era).
pub const LAST_EVENT_ID: &str = "last-event-id";
/// The stateless era's copy of the body's `method`.
pub const METHOD: &str = "mcp-method";
/// The stateless era's copy of the body's `params.name` (or `params.uri` of `resources/read`).
pub const NAME: &str = "mcp-name";

/// The headers above as [`HeaderName`](axum::http::HeaderName)s: a lookup by name skips parsing and lower-casing it.
pub(in crate::transport::http) mod names {
    use axum::http::HeaderName;
    pub(in crate::transport::http) const SESSION_ID: HeaderName =
        HeaderName::from_static(super::SESSION_ID);
    pub(in crate::transport::http) const PROTOCOL_VERSION: HeaderName =
        HeaderName::from_static(super::PROTOCOL_VERSION);
    pub(in crate::transport::http) const LAST_EVENT_ID: HeaderName =
        HeaderName::from_static(super::LAST_EVENT_ID);
    pub(in crate::transport::http) const METHOD: HeaderName =
        HeaderName::from_static(super::METHOD);
    pub(in crate::transport::http) const NAME: HeaderName = HeaderName::from_static(super::NAME);
}

/// The JSON-RPC error code of a request refused for load: a session already has
/// [`HttpOptions::max_in_flight_per_session`](super::HttpOptions::max_in_flight_per_session) requests in flight, or the server is at its
/// connection or session cap (with `503`). It is in the range JSON-RPC reserves for
/// implementation-defined server errors.
pub const SERVER_BUSY: i64 = -32000;
