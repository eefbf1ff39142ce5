//! The client's two loops: one writes outgoing messages, one reads and routes what the
//! server sends (responses, notifications, change notifications to their listeners, requests
//! such as elicitation, sampling and roots).

use super::listen;
use super::*;

pub(super) fn str_field(v: &Value, key: &str) -> Result<String, ClientError> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| ClientError::InvalidResult(format!("missing `{key}`")))
}

pub(super) fn elicitation_request(params: &Value) -> ElicitationRequest {
    ElicitationRequest {
        message: params
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        requested_schema: params
            .get("requestedSchema")
            .cloned()
            .unwrap_or(Value::Null),
    }
}

pub(super) async fn write_loop<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut rx: mpsc::UnboundedReceiver<Outgoing>,
) {
    while let Some(m) = rx.recv().await {
        match m {
            Outgoing::Message(m) => {
                if let Err(e) = write_message(&mut writer, &m).await {
                    tracing::debug!(error = %e, "client write failed");
                    return;
                }
            }
            Outgoing::Close => break,
        }
    }
    let _ = writer.shutdown().await;
}

pub(super) async fn read_loop<R: AsyncRead + Unpin>(
    inner: Arc<ClientInner>,
    mut lines: LineReader<R>,
) {
    /// However the loop ends (end of input, or its task aborted when the client is dropped),
    /// nothing more arrives: requests and listens waiting for the server end.
    struct Ended(Arc<ClientInner>);
    impl Drop for Ended {
        fn drop(&mut self) {
            self.0.closed.store(true, Ordering::Release);
            lock(&self.0.pending).clear();
            listen::disconnected(&self.0);
        }
    }
    let _ended = Ended(inner.clone());
    loop {
        let bytes = match lines.next_line().await {
            Ok(Some(Line::Complete(b))) => b,
            Ok(Some(Line::TooLong(n))) => {
                tracing::warn!(bytes = n, "client skipped an oversized message");
                continue;
            }
            Ok(None) | Err(_) => break,
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match Incoming::parse(&bytes) {
            Ok(Incoming::Response(r)) => match lock(&inner.pending).remove(&r.id) {
                Some(tx) => {
                    let _ = tx.send(r.outcome);
                }
                None => {
                    inner.unmatched.fetch_add(1, Ordering::Relaxed);
                    tracing::debug!(id = ?r.id, "response for no pending request");
                }
            },
            Ok(Incoming::Notification(n)) => {
                let params = n
                    .params
                    .map_or_else(|| Value::Object(Map::new()), |p| p.into_value());
                match n.method.as_str() {
                    "notifications/progress" => {
                        if let Some(f) = &inner.on_progress {
                            f(Progress {
                                token: params.get("progressToken").cloned().unwrap_or(Value::Null),
                                progress: params
                                    .get("progress")
                                    .and_then(Value::as_f64)
                                    .unwrap_or(0.0),
                                total: params.get("total").and_then(Value::as_f64),
                                message: params
                                    .get("message")
                                    .and_then(Value::as_str)
                                    .map(Into::into),
                            });
                        }
                    }
                    "notifications/message" => {
                        if let Some(f) = &inner.on_log {
                            let level = params
                                .get("level")
                                .and_then(Value::as_str)
                                .and_then(LogLevel::parse)
                                .unwrap_or(LogLevel::Info);
                            f(LogMessage {
                                level,
                                logger: params
                                    .get("logger")
                                    .and_then(Value::as_str)
                                    .map(Into::into),
                                data: params.get("data").cloned().unwrap_or(Value::Null),
                            });
                        }
                    }
                    method => listen::route(&inner, method, &params),
                }
            }
            Ok(Incoming::Request(req)) => {
                let inner = inner.clone();
                tokio::spawn(async move {
                    let params = req
                        .params
                        .map_or_else(|| Value::Object(Map::new()), |p| p.into_value());
                    let response = match super::input::answer(&inner, &req.method, &params).await {
                        Ok(result) => result_response(&req.id, result),
                        Err(e) => error_response(&req.id.to_json(), &e),
                    };
                    inner.send(response);
                });
            }
            Err(rejected) => {
                tracing::warn!(error = %rejected.error, "client got an invalid message")
            }
        }
    }
}
