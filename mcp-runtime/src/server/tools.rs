//! `tools/list` (pages, cursors, the encoded first page) and `tools/call` (the caller's scope,
//! concurrency slots, timeouts, cancellation) on top of the tool table's call path.

use super::*;

impl Server {
    /// The whole response line to `req` when it is a handshake-era `tools/list` for the first
    /// page: its `result` is the same for every caller, so it is encoded once and only the id is
    /// written per call. `None` for anything else (a cursor, a `_meta`, no handshake yet, an id
    /// already in flight), which takes [`Server::handle`] as usual.
    pub(crate) fn encoded_list_response(
        &self,
        req: &Request,
        conn: &Connection,
    ) -> Option<Vec<u8>> {
        if req.method != "tools/list" {
            return None;
        }
        if let Some(params) = &req.params
            && (params.contains_key("_meta") || params.get("cursor").is_some_and(|c| !c.is_null()))
        {
            return None;
        }
        if conn.lock_session().handshake.is_none()
            || lock(&conn.inner.in_flight).contains_key(&req.id)
        {
            return None;
        }
        let result = self.inner.first_list_page.get_or_init(|| {
            let page = self
                .list_tools(req)
                .unwrap_or_else(|_| json!({"tools": []}));
            serde_json::to_vec(&page).unwrap_or_default().into()
        });
        if let Some(span) = super::span::RequestSpan::new(req, conn) {
            span.finish_ok();
        }
        let id = serde_json::to_vec(&req.id).ok()?;
        let mut line = Vec::with_capacity(result.len() + id.len() + 40);
        line.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        line.extend_from_slice(&id);
        line.extend_from_slice(br#","result":"#);
        line.extend_from_slice(result);
        line.extend_from_slice(b"}\n");
        Some(line)
    }

    pub(super) fn list_tools(&self, req: &Request) -> Result<Value, ProtocolError> {
        let tools = &self.inner.tools;
        self.page(req, "tools", tools.len(), |start, n| {
            tools
                .iter()
                .skip(start)
                .take(n)
                .map(|t| t.to_json().clone())
                .collect()
        })
    }

    /// One page of a list of `len` items under `key` (`tools`, `resources`…): from the request's
    /// cursor, `page_size` long, `items(start, n)` giving the page's items.
    pub(super) fn page(
        &self,
        req: &Request,
        key: &str,
        len: usize,
        items: impl FnOnce(usize, usize) -> Vec<Value>,
    ) -> Result<Value, ProtocolError> {
        let start = match req.params.as_ref().and_then(|p| p.get("cursor")) {
            None | Some(Value::Null) => 0,
            Some(c) => c
                .as_str()
                .and_then(|c| decode_cursor(key, c))
                .filter(|&n| n > 0 && n < len)
                .ok_or_else(|| ProtocolError::invalid_params("Invalid params: invalid cursor"))?,
        };
        let end = match self.inner.options.page_size {
            Some(n) => (start + n).min(len),
            None => len,
        };
        let mut result = Map::new();
        result.insert(key.into(), Value::Array(items(start, end - start)));
        if end < len {
            result.insert("nextCursor".into(), encode_cursor(key, end).into());
        }
        Ok(Value::Object(result))
    }

    pub(super) async fn call_tool(
        &self,
        req: &mut Request,
        conn: &Connection,
        cancel: &CancelToken,
        scope: Scope,
    ) -> Outcome {
        // The arguments move into the call; the rest of the params is only read.
        let arguments = req.params.as_mut().and_then(|p| p.remove("arguments"));
        let params = req.params.as_ref();
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            // The message is the Python SDK's exact text; the reason travels in `data`.
            return Outcome::Answer(Err(ProtocolError::invalid_params(
                "Invalid request parameters",
            )
            .with_data(json!({"reason": "tools/call needs a string `name`"}))));
        };
        if arguments
            .as_ref()
            .is_some_and(|a| !a.is_object() && !a.is_null())
        {
            return Outcome::Answer(Err(ProtocolError::invalid_params(
                "Invalid request parameters",
            )
            .with_data(json!({"reason": "tools/call `arguments` must be an object"}))));
        }
        let request_scope = self.request_scope(req, conn, cancel, scope);
        let ctx = Context::attached(name, req.id.to_json(), request_scope.clone());

        // A slot first (waiting is not running: the timeout starts once the tool does).
        let _permit = match &self.inner.call_slots {
            Some(slots) => match slots.clone().acquire_owned().await {
                Ok(p) => Some(p),
                Err(_) => return Outcome::Answer(Err(ProtocolError::internal("server closed"))),
            },
            None => None,
        };
        let call = self.inner.tools.call_output(
            &self.inner.state,
            ctx,
            name,
            arguments,
            self.inner.options.unknown_tool,
        );
        let call: Pin<Box<dyn Future<Output = _> + Send>> = match self.inner.options.call_timeout {
            None => Box::pin(call),
            Some(limit) => Box::pin(async move {
                match tokio::time::timeout(limit, call).await {
                    Ok(r) => r,
                    Err(_) => {
                        tracing::warn!(tool = name, ?limit, "tool call timed out");
                        Ok(CallToolResult::error_text(format!(
                            "Error executing tool {name}: timed out after {}",
                            format_duration(limit)
                        ))
                        .into())
                    }
                }
            }),
        };
        let outcome = tokio::select! {
            r = call => match r {
                Ok(result) => Outcome::Called(result),
                Err(e) => Outcome::Answer(Err(e)),
            },
            _ = request_scope.input_needed.cancelled() => {
                let requests = lock(&request_scope.input_requests).clone();
                let mut result = json!({"resultType": "input_required", "inputRequests": requests});
                if let Some(state) = lock(&request_scope.request_state_out).take() {
                    result["requestState"] = state.into();
                }
                Outcome::Answer(Ok(result))
            }
        };
        request_scope
            .finished
            .store(true, std::sync::atomic::Ordering::Release);
        outcome
    }

    /// The scope of one request: what its `Context` reports and reaches (the connection, the
    /// caller, progress, elicitation), shared by `tools/call` and `resources/read`.
    pub(super) fn request_scope(
        &self,
        req: &Request,
        conn: &Connection,
        cancel: &CancelToken,
        scope: Scope,
    ) -> Arc<RequestScope> {
        let params = req.params.as_ref();
        let meta = params_meta(params);
        Arc::new(RequestScope {
            conn: conn.clone(),
            request: req.id.clone(),
            version: scope.version,
            stateless: scope.stateless.is_some(),
            peer: scope.peer,
            request_log_level: scope.stateless.flatten(),
            progress_token: meta
                .and_then(|m| m.get("progressToken"))
                .filter(|t| t.is_string() || t.is_number())
                .cloned(),
            last_progress: Mutex::new(None),
            finished: AtomicBool::new(false),
            cancel: cancel.clone(),
            input_responses: params
                .and_then(|p| p.get("inputResponses"))
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
            input_requests: Mutex::new(Map::new()),
            input_needed: CancelToken::default(),
            elicit_seq: AtomicU64::new(0),
            request_state_in: params
                .and_then(|p| p.get("requestState"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            request_state_out: Mutex::new(None),
            client_request_timeout: self.inner.options.client_request_timeout,
        })
    }
}

/// What `tools/call` needs to know about the caller, from `initialize` or from the envelope.
pub(super) struct Scope {
    pub(super) version: &'static str,
    /// `Some(log level)` for a stateless request.
    pub(super) stateless: Option<Option<LogLevel>>,
    pub(super) peer: Arc<Peer>,
}

impl Scope {
    /// A request on a session that began with `initialize`.
    pub(super) fn of_session(h: Handshake) -> Scope {
        Scope {
            version: h.version,
            stateless: None,
            peer: h.peer,
        }
    }

    /// A stateless request, from its envelope.
    pub(super) fn of_envelope(envelope: Envelope) -> Scope {
        Scope {
            version: envelope.version,
            stateless: Some(envelope.log_level),
            peer: Arc::new(Peer {
                client_info: envelope.client_info,
                capabilities: envelope.capabilities,
            }),
        }
    }
}

/// Cursors are opaque to clients; this one is the list's key and the offset of the page's first
/// item (`tools-1a`).
fn encode_cursor(key: &str, offset: usize) -> String {
    format!("{key}-{offset:x}")
}

fn decode_cursor(key: &str, cursor: &str) -> Option<usize> {
    usize::from_str_radix(cursor.strip_prefix(key)?.strip_prefix('-')?, 16).ok()
}

/// `2s`, `1.5s`, `250ms`.
fn format_duration(d: Duration) -> String {
    if d.as_millis() < 1000 {
        format!("{}ms", d.as_millis())
    } else {
        format!("{}s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn cursors_round_trip_and_reject_garbage() {
        assert_eq!(
            decode_cursor("tools", &encode_cursor("tools", 26)),
            Some(26)
        );
        assert_eq!(encode_cursor("tools", 26), "tools-1a");
        assert_eq!(decode_cursor("tools", "nope"), None);
        assert_eq!(decode_cursor("tools", "tools-zz"), None);
        assert_eq!(decode_cursor("resources", "tools-1a"), None);
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(format_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(format_duration(Duration::from_secs(2)), "2s");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.5s");
    }
}
