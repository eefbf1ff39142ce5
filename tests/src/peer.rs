//! Ways to reach a server in a test: through the [`Client`] or line by line ([`RawPeer`]), in
//! memory or over a child process's stdio, in either protocol era.

use std::process::{ExitStatus, Stdio};

use mcp_runtime::client::ClientBuilder;
use mcp_runtime::{CallToolResult, Client, ClientError};
use serde_json::Value;
use tokio::process::Child;

pub use test_support::HANG;
pub use test_support::stdio::{Era, RawPeer, envelope};

use crate::kit::KitOptions;

/// Where the server runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// A task of the test, over an in-memory pipe.
    InProcess,
    /// A child process (`kit_server`), over its stdin and stdout.
    Stdio,
}

/// Both places a server runs.
pub const VIAS: [Via; 2] = [Via::InProcess, Via::Stdio];

/// The four combinations every behaviour is tested in.
pub const SETUPS: [(Via, Era); 4] = [
    (Via::InProcess, Era::Handshake),
    (Via::InProcess, Era::Stateless),
    (Via::Stdio, Era::Handshake),
    (Via::Stdio, Era::Stateless),
];

/// A client builder set to `era`.
pub fn client_builder(era: Era) -> ClientBuilder {
    let b = Client::builder().client_info("kit-test-client", "9.9.9");
    match era {
        Era::Handshake => b,
        Era::Stateless => b.stateless(),
    }
}

/// Starts the `kit_server` binary at `bin` with `options`, stderr inherited (the test's log).
pub fn spawn_kit(bin: &str, options: &KitOptions) -> Child {
    test_support::stdio::spawn(bin, &options.to_args(), Stdio::inherit())
}

/// A raw peer `via` memory or stdio on a kit server with `options`.
pub fn raw_kit(bin: &str, via: Via, options: &KitOptions, era: Era) -> RawPeer {
    match via {
        Via::InProcess => RawPeer::in_process(&options.server(), era),
        Via::Stdio => RawPeer::child(bin, &options.to_args(), era),
    }
}

/// A raw peer `via` memory or stdio on a kit server with default options.
pub fn raw_default(bin: &str, via: Via, era: Era) -> RawPeer {
    raw_kit(bin, via, &KitOptions::default(), era)
}

/// A client connection and, over stdio, the child process behind it.
pub struct Conn {
    /// The client.
    pub client: Client,
    child: Option<Child>,
}

impl Conn {
    /// Connects a client built by `builder` to a kit server with `options`, `via` memory or stdio.
    pub async fn kit(bin: &str, via: Via, options: &KitOptions, builder: ClientBuilder) -> Conn {
        match via {
            Via::InProcess => Conn {
                client: builder
                    .in_process(&options.server())
                    .await
                    .expect("in-process connect"),
                child: None,
            },
            Via::Stdio => {
                let mut child = spawn_kit(bin, options);
                let stdin = child.stdin.take().unwrap();
                let stdout = child.stdout.take().unwrap();
                let client = builder.over_io(stdout, stdin).await.expect("stdio connect");
                Conn {
                    client,
                    child: Some(child),
                }
            }
        }
    }

    /// Connects a client of `era` to a kit server, `via` memory or stdio, with the default
    /// options but for what `set` changes.
    pub async fn kit_with(
        bin: &str,
        via: Via,
        era: Era,
        set: impl FnOnce(&mut KitOptions),
    ) -> Conn {
        let mut options = KitOptions::default();
        set(&mut options);
        Conn::kit(bin, via, &options, client_builder(era)).await
    }

    /// Connects a client of `era` to a kit server with default options, `via` memory or stdio.
    pub async fn plain(bin: &str, via: Via, era: Era) -> Conn {
        Conn::kit_with(bin, via, era, |_| {}).await
    }

    /// Calls the tool `name` with `arguments`; the result (a transport or protocol error panics).
    pub async fn call(&self, name: &str, arguments: Value) -> CallToolResult {
        self.client
            .call_tool(name, arguments)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// Sends `method` with `params`, which must fail with the JSON-RPC error `code`; returns the
    /// error's message. `what` names the case in a failure.
    pub async fn refused(&self, method: &str, params: Value, code: i64, what: &str) -> String {
        refused_with(self.client.request(method, params).await, code, what)
    }

    /// Sends `method` once with each of `cases`, which must all fail with the JSON-RPC error
    /// `code`.
    pub async fn refuses_each(
        &self,
        method: &str,
        cases: impl IntoIterator<Item = Value>,
        code: i64,
    ) {
        for params in cases {
            let what = format!("{method} {params}");
            self.refused(method, params, code, &what).await;
        }
    }

    /// Closes the client's side and returns the child's exit status (stdio only).
    pub async fn finish(self) -> Option<ExitStatus> {
        self.client.close().await;
        match self.child {
            Some(mut child) => Some(
                tokio::time::timeout(HANG, child.wait())
                    .await
                    .expect("the server exits after end of input")
                    .expect("wait"),
            ),
            None => None,
        }
    }
}

/// Each transport in `era`.
pub fn vias_in(era: Era) -> [(Via, Era); 2] {
    VIAS.map(|via| (via, era))
}

/// Runs `test` once per setup, each on a fresh client of a kit server with default options, and
/// closes the connection after it.
pub async fn on_each(
    bin: &str,
    setups: impl IntoIterator<Item = (Via, Era)>,
    test: impl AsyncFn(&Conn, Via, Era),
) {
    for (via, era) in setups {
        let conn = Conn::plain(bin, via, era).await;
        test(&conn, via, era).await;
        conn.finish().await;
    }
}

/// The JSON-RPC error of `outcome`, which must have failed with `code`; its message.
pub fn refused_with<T: std::fmt::Debug>(
    outcome: Result<T, ClientError>,
    code: i64,
    what: &str,
) -> String {
    let err = match outcome {
        Ok(result) => panic!("{what}: expected error {code}, got {result:?}"),
        Err(e) => e,
    };
    let e = err
        .protocol()
        .unwrap_or_else(|| panic!("{what}: not a protocol error: {err}"));
    assert_eq!(e.code, code, "{what}: {e}");
    e.message.clone()
}
