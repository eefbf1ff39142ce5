//! An in-process connection: the server runs as a task on an in-memory pipe and the client talks
//! to it over the same newline-delimited JSON-RPC as stdio, so tests exercise the real path
//! (framing, dispatch, notifications, cancellation) without a subprocess.

use tokio::io::{DuplexStream, ReadHalf, WriteHalf};

use crate::client::{Client, ClientBuilder, ClientError};
use crate::server::Server;

/// The buffer of each direction of the pipe.
const PIPE_BYTES: usize = 1 << 20;

/// Starts `server` on one end of an in-memory pipe and returns the other end, as the reader and
/// writer a client uses. The server task ends when the client's writer is dropped.
pub fn pipe(server: &Server) -> (ReadHalf<DuplexStream>, WriteHalf<DuplexStream>) {
    let (client_end, server_end) = tokio::io::duplex(PIPE_BYTES);
    let server = server.clone();
    tokio::spawn(async move {
        let (reader, writer) = tokio::io::split(server_end);
        if let Err(e) = server.serve_io(reader, writer).await {
            tracing::debug!(error = %e, "in-process connection ended with an error");
        }
    });
    tokio::io::split(client_end)
}

impl Server {
    /// A client connected to this server in memory, with the default options (handshake at the
    /// latest handshake version). See [`Client::builder`] for the others.
    pub async fn connect_in_process(&self) -> Result<Client, ClientError> {
        Client::in_process(self).await
    }
}

impl ClientBuilder {
    /// Connects to `server` in memory.
    pub async fn in_process(self, server: &Server) -> Result<Client, ClientError> {
        let (reader, writer) = pipe(server);
        self.over_io(reader, writer).await
    }
}
