//! Roots: the directories and files the client says the server may work on (`roots/list`), and
//! the notice that they changed (`notifications/roots/list_changed`).

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::Context;
use super::ask::{AskError, Question};
use super::connection::{Connection, Peer, PeerRequestError};
use crate::protocol::Implementation;

/// One root: a URI (`file://` for now) and an optional name for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// The root's URI.
    pub uri: String,
    /// A name to show for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Root {
    /// A root at `uri`, unnamed.
    pub fn new(uri: impl Into<String>) -> Self {
        Root {
            uri: uri.into(),
            name: None,
        }
    }

    setters! {
        /// A name to show for the root.
        pub fn name(name: impl Into<String>) => name = Some(name.into());
    }
}

/// Reads a `roots/list` result.
pub(crate) fn parse_roots(result: Value) -> Result<Vec<Root>, AskError> {
    #[derive(Deserialize)]
    struct ListRootsResult {
        roots: Vec<Root>,
    }
    serde_json::from_value::<ListRootsResult>(result)
        .map(|r| r.roots)
        .map_err(|e| AskError::InvalidResponse(format!("not a roots/list result: {e}")))
}

impl Context {
    /// The client's roots (`roots/list`), in whichever era the call is in (see
    /// [`Context::sample`]: a request, a task's question, or an `input_required` round trip).
    ///
    /// Fails with [`AskError::Unsupported`] when the client did not declare `roots`.
    pub async fn roots(&self) -> Result<Vec<Root>, AskError> {
        if self.scope().is_none() {
            return Err(AskError::NotConnected);
        }
        if !self.client_capabilities().roots() {
            return Err(AskError::Unsupported("roots"));
        }
        let answer = self
            .ask(Question::Roots, json!({}))
            .await
            .map_err(AskError::from_request)?;
        parse_roots(answer)
    }
}

/// A client said its roots changed (`notifications/roots/list_changed`, handshake era): what a
/// [`crate::ServerBuilder::on_roots_changed`] callback gets, with the way to read the new roots.
pub struct RootsChanged {
    pub(crate) conn: Connection,
    pub(crate) peer: Arc<Peer>,
    pub(crate) timeout: Duration,
}

impl RootsChanged {
    /// The client's `clientInfo`.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.peer.client_info.as_ref()
    }

    /// The client's roots now: a `roots/list` request over the same connection (on the session's
    /// own stream over HTTP), bounded by the server's `client_request_timeout`.
    pub async fn roots(&self) -> Result<Vec<Root>, AskError> {
        if !self.peer.capabilities.roots() {
            return Err(AskError::Unsupported("roots"));
        }
        let asked = self.conn.request("roots/list", json!({}));
        let result = match tokio::time::timeout(self.timeout, asked).await {
            Ok(Ok(result)) => result,
            Ok(Err(PeerRequestError::Error(e))) => return Err(AskError::Client(e)),
            Ok(Err(PeerRequestError::Closed)) => return Err(AskError::Disconnected),
            Err(_) => return Err(AskError::TimedOut(self.timeout)),
        };
        parse_roots(result)
    }
}

impl std::fmt::Debug for RootsChanged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RootsChanged")
            .field("client_info", &self.peer.client_info)
            .finish()
    }
}
