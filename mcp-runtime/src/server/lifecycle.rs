//! The 2025 era's lifecycle requests: `initialize` (the version negotiated, the handshake kept on
//! the connection) and `logging/setLevel`; and the notifications a client sends
//! (`notifications/initialized`, `notifications/cancelled`, `notifications/roots/list_changed`).

use std::sync::Arc;

use serde_json::{Value, json};

use super::Server;
use crate::context::connection::{Connection, Handshake, Peer};
use crate::error::ProtocolError;
use crate::protocol::handshake::{InitializeParams, initialize_result};
use crate::protocol::{LogLevel, Notification, Request, RequestId};

impl Server {
    pub(super) fn initialize(
        &self,
        req: &Request,
        conn: &Connection,
    ) -> Result<Value, ProtocolError> {
        let params = InitializeParams::parse(req.params.as_deref())?;
        let version = params.negotiated_version();
        let mut session = conn.lock_session();
        if session.handshake.is_some() {
            return Err(ProtocolError::invalid_request(
                "Invalid Request: this connection is already initialized",
            ));
        }
        tracing::info!(
            requested = %params.requested_version,
            version,
            client = ?params.client_info.as_ref().map(|c| &c.name),
            "initialize"
        );
        session.handshake = Some(Handshake {
            version,
            peer: Arc::new(Peer {
                client_info: params.client_info,
                capabilities: params.capabilities,
            }),
        });
        drop(session);
        #[cfg(feature = "metrics")]
        super::metrics::session_opened(self, conn, version);
        self.inner.resource_updates.session_opened(conn);
        Ok(initialize_result(
            version,
            &self.capabilities_for(version),
            &self.inner.info,
            self.instructions(),
        ))
    }

    pub(super) fn set_level(
        &self,
        req: &Request,
        conn: &Connection,
    ) -> Result<Value, ProtocolError> {
        let level = req
            .params
            .as_ref()
            .and_then(|p| p.get("level"))
            .and_then(Value::as_str)
            .and_then(LogLevel::parse)
            .ok_or_else(|| {
                ProtocolError::invalid_params(
                    "Invalid params: `level` must be a log level such as \"info\"",
                )
            })?;
        conn.lock_session().log_level = Some(level);
        Ok(json!({}))
    }

    pub(super) fn notification(&self, n: Notification, conn: &Connection) {
        match n.method.as_str() {
            "notifications/initialized" => conn.lock_session().initialized = true,
            "notifications/cancelled" => {
                let id = n
                    .params
                    .as_ref()
                    .and_then(|p| p.get("requestId"))
                    .and_then(RequestId::from_json);
                let reason = n
                    .params
                    .as_ref()
                    .and_then(|p| p.get("reason"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                match id {
                    Some(id) if conn.cancel(&id) => {
                        tracing::info!(?id, reason, "request cancelled by the client")
                    }
                    Some(id) => tracing::debug!(?id, "cancellation for no request in flight"),
                    None => tracing::debug!("cancellation without a requestId"),
                }
            }
            "notifications/roots/list_changed" => self.roots_changed(conn),
            other => tracing::debug!(method = other, "notification ignored"),
        }
    }

    /// `notifications/roots/list_changed`: the builder's callback, on a task of its own (it may
    /// ask `roots/list`, whose answer this connection's reader must be free to deliver).
    fn roots_changed(&self, conn: &Connection) {
        let peer = conn
            .lock_session()
            .handshake
            .as_ref()
            .map(|h| h.peer.clone());
        let (Some(f), Some(peer)) = (&self.inner.on_roots_changed, peer) else {
            tracing::debug!("roots changed; no callback, or no handshake yet");
            return;
        };
        tracing::debug!("the client's roots changed");
        let changed = crate::context::roots::RootsChanged {
            conn: conn.clone(),
            peer,
            timeout: self.inner.options.client_request_timeout,
        };
        tokio::spawn(f(changed));
    }
}
