//! `tools/list` (pages, cursors) and `tools/call` (the caller's scope,
//! concurrency slots, timeouts, cancellation) on top of the tool table's call path.

use super::*;

impl Server {
    pub(super) fn list_tools(&self, req: &Request) -> Result<Value, ProtocolError> {
        let tools = &self.inner.tools;
        let start = match req.params.as_ref().and_then(|p| p.get("cursor")) {
            None | Some(Value::Null) => 0,
            Some(c) => c
                .as_str()
                .and_then(decode_cursor)
                .filter(|&n| n > 0 && n < tools.len())
                .ok_or_else(|| ProtocolError::invalid_params("Invalid params: invalid cursor"))?,
        };
        let end = match self.inner.options.page_size {
            Some(n) => (start + n).min(tools.len()),
            None => tools.len(),
        };
        let page: Vec<Value> = tools
            .iter()
            .skip(start)
            .take(end - start)
            .map(|t| t.to_json().clone())
            .collect();
        let mut result = Map::new();
        result.insert("tools".into(), Value::Array(page));
        if end < tools.len() {
            result.insert("nextCursor".into(), encode_cursor(end).into());
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
        let meta = params_meta(params);
        let request_scope = Arc::new(RequestScope {
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
        });
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
}

/// What `tools/call` needs to know about the caller, from `initialize` or from the envelope.
pub(super) struct Scope {
    pub(super) version: &'static str,
    /// `Some(log level)` for a stateless request.
    pub(super) stateless: Option<Option<LogLevel>>,
    pub(super) peer: Arc<Peer>,
}

/// Cursors are opaque to clients; this one is the offset of the page's first tool.
fn encode_cursor(offset: usize) -> String {
    format!("tools-{offset:x}")
}

fn decode_cursor(cursor: &str) -> Option<usize> {
    usize::from_str_radix(cursor.strip_prefix("tools-")?, 16).ok()
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
        assert_eq!(decode_cursor(&encode_cursor(26)), Some(26));
        assert_eq!(decode_cursor("nope"), None);
        assert_eq!(decode_cursor("tools-zz"), None);
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(format_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(format_duration(Duration::from_secs(2)), "2s");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.5s");
    }
}
