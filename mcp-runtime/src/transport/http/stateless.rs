//! The stateless era (2026-07-28): which messages belong to it, the header rules a request must
//! follow (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), a connection per
//! request, and the HTTP status of a JSON-RPC error.

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::alphabet;
use base64::engine::{GeneralPurpose, GeneralPurposeConfig};
use serde_json::Value;

use super::dispatch::dispatch;
use super::frames::Lifetime;
use super::guard::Headers;
use super::{Endpoint, Refusal};
use crate::context::connection::Connection;
use crate::error::codes;
use crate::protocol::stateless::{has_envelope, unsupported_version};
use crate::protocol::value_member;
use crate::protocol::{
    HANDSHAKE_VERSIONS, Incoming, Request as RpcRequest, STATELESS_VERSIONS, params_meta,
};
use crate::server::Server;

/// True when `version` names a stateless protocol version.
pub(super) fn is_stateless_version(version: Option<&str>) -> bool {
    version.is_some_and(|v| STATELESS_VERSIONS.contains(&v))
}

/// A message without a session is stateless when the header names a version that is not a
/// handshake one, or when the body carries the `_meta` envelope.
pub(super) fn is_stateless_message(message: &Incoming, version: Option<&str>) -> bool {
    if version.is_some_and(|v| !HANDSHAKE_VERSIONS.contains(&v)) {
        return true;
    }
    match message {
        Incoming::Request(req) => {
            req.method == "server/discover" || has_envelope(params_meta(req.params.as_deref()))
        }
        _ => false,
    }
}

/// A stateless message: header checks, then a connection of its own.
pub(super) async fn stateless(
    endpoint: &Endpoint,
    headers: &Headers<'_>,
    message: Incoming,
) -> Result<Response, Refusal> {
    let Incoming::Request(req) = &message else {
        // Nothing to answer: no notification or response means anything without a session.
        return Ok(StatusCode::ACCEPTED.into_response());
    };
    check_stateless_headers(headers, req)
        .and_then(|()| check_param_headers(&endpoint.server, headers.map, req))
        .map_err(|r| r.with_id(&req.id))?;
    if req.method == "initialize" {
        return Err(Refusal::new(
            StatusCode::NOT_FOUND,
            codes::METHOD_NOT_FOUND,
            format!(
                "Method not found: initialize (removed in {}; call server/discover)",
                crate::protocol::LATEST_STATELESS_VERSION
            ),
        )
        .with_id(&req.id));
    }
    let (conn, outgoing) = Connection::for_one_request();
    let alone = Some(outgoing);
    Ok(dispatch(
        endpoint,
        &conn,
        message,
        Lifetime::Request,
        None,
        None,
        alone,
    )
    .await)
}

/// The stateless era's header rules: `MCP-Protocol-Version` present and equal to the `_meta`
/// version (which must be one we serve), `Mcp-Method` equal to the method, `Mcp-Name` equal to
/// the name the body carries.
fn check_stateless_headers(headers: &Headers, req: &RpcRequest) -> Result<(), Refusal> {
    let mismatch = |message: String| {
        Refusal::new(
            StatusCode::BAD_REQUEST,
            codes::HEADER_MISMATCH,
            format!("Header mismatch: {message}"),
        )
    };
    let Some(version) = headers.protocol_version() else {
        return Err(mismatch(
            "the MCP-Protocol-Version header is missing".into(),
        ));
    };
    let meta = params_meta(req.params.as_deref());
    match meta.and_then(|m| m.protocol_version.as_ref()) {
        // Missing `_meta` or version: the server answers -32602 with what is missing.
        None => {}
        Some(Value::String(v)) if v == version && !STATELESS_VERSIONS.contains(&version) => {
            return Err(Refusal {
                status: StatusCode::BAD_REQUEST,
                id: None,
                error: Some(Box::new(unsupported_version(version))),
            });
        }
        Some(Value::String(v)) if v == version => {}
        Some(v) => {
            return Err(mismatch(format!(
                "MCP-Protocol-Version is {version:?} but `_meta` says {v}"
            )));
        }
    }
    match headers.method() {
        Some(m) if m == req.method => {}
        Some(m) => {
            return Err(mismatch(format!(
                "Mcp-Method is {m:?} but the body's method is {:?}",
                req.method
            )));
        }
        None => return Err(mismatch("the Mcp-Method header is missing".into())),
    }
    let field = match req.method.as_str() {
        "resources/read" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => "name",
    };
    let named = matches!(
        req.method.as_str(),
        "tools/call"
            | "prompts/get"
            | "resources/read"
            | "tasks/get"
            | "tasks/update"
            | "tasks/cancel"
    );
    let body_name = req
        .params
        .as_ref()
        .and_then(|p| p.get(field))
        .and_then(Value::as_str);
    match (named.then_some(body_name).flatten(), headers.name()) {
        (Some(b), Some(h)) if b == h => Ok(()),
        (Some(b), Some(h)) => Err(mismatch(format!(
            "Mcp-Name is {h:?} but the body's `{field}` is {b:?}"
        ))),
        (Some(_), None) => Err(mismatch("the Mcp-Name header is missing".into())),
        (None, _) => Ok(()),
    }
}

/// The stateless era's custom headers (SEP-2243): a tool argument whose schema carries
/// `"x-mcp-header": "Name"` travels in `Mcp-Param-Name` too, so that proxies can route on it. The
/// header must be present when the body has the argument and carry the same value, literally or
/// as `=?base64?…?=` (strict Base64, padding included).
fn check_param_headers(
    server: &Server,
    headers: &HeaderMap,
    req: &RpcRequest,
) -> Result<(), Refusal> {
    if req.method != "tools/call" {
        return Ok(());
    }
    let params = req.params.as_deref();
    let Some(tool) = params
        .and_then(|p| p.name.as_ref())
        .and_then(Value::as_str)
        .and_then(|n| server.tools().get(n))
    else {
        return Ok(());
    };
    let Some(properties) =
        value_member(tool.input_schema(), "properties").and_then(Value::as_object)
    else {
        return Ok(());
    };
    let arguments = params.and_then(|p| p.arguments.as_ref());
    for (arg, schema) in properties {
        let Some(suffix) = value_member(schema, "x-mcp-header").and_then(Value::as_str) else {
            continue;
        };
        let header = format!("mcp-param-{suffix}");
        let body = arguments
            .and_then(|a| value_member(a, arg))
            .filter(|v| !v.is_null());
        let given = headers
            .get(header.as_str())
            .map(|v| v.to_str().map(str::trim));
        let mismatch = |what: String| {
            Refusal::new(
                StatusCode::BAD_REQUEST,
                codes::HEADER_MISMATCH,
                format!("Header mismatch: Mcp-Param-{suffix} {what}"),
            )
        };
        match (body, given) {
            (None, None) => {}
            (Some(_), None) => {
                return Err(mismatch(format!("is missing but the body has `{arg}`")));
            }
            (_, Some(Err(_))) => return Err(mismatch("is not visible ASCII".into())),
            (body, Some(Ok(raw))) => {
                let value =
                    decode_param(raw).ok_or_else(|| mismatch("has invalid Base64".into()))?;
                let expected = match body {
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(v @ (Value::Number(_) | Value::Bool(_))) => Some(v.to_string()),
                    _ => None,
                };
                if expected.as_deref() != Some(value.as_str()) {
                    return Err(mismatch(format!("does not match the body's `{arg}`")));
                }
            }
        }
    }
    Ok(())
}

/// A parameter header's value: `=?base64?…?=` decoded (strict), anything else literally.
fn decode_param(raw: &str) -> Option<String> {
    match raw
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(encoded) => String::from_utf8(PARAM_BASE64.decode(encoded).ok()?).ok(),
        None => Some(raw.to_owned()),
    }
}

/// Standard Base64 (`+` and `/`) with canonical padding, as the header rule asks. Bits past the
/// last whole byte are ignored rather than refused.
const PARAM_BASE64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true),
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_headers_decode_strict_base64_or_stay_literal() {
        for (raw, expected) in [
            ("=?base64?SGVsbG8=?=", Some("Hello")),
            ("=?base64?SGVsbG8?=", None),
            ("=?base64?SGVs!!!bG8=?=", None),
            ("=?base64?SGk=?=", Some("Hi")),
            // Bits past the last byte are ignored; the URL-safe alphabet is not accepted.
            ("=?base64?SGl=?=", Some("Hi")),
            ("=?base64?Pz8_?=", None),
            ("=?base64?Pz8/?=", Some("???")),
            ("=?base64?SGk=SGk=?=", None),
            ("=?base64?SG===?=", None),
            ("=?base64??=", Some("")),
            ("=?base64?SGVsbG8=", Some("=?base64?SGVsbG8=")),
            ("SGVsbG8=", Some("SGVsbG8=")),
            ("plain", Some("plain")),
        ] {
            assert_eq!(decode_param(raw).as_deref(), expected, "{raw}");
        }
    }
}
