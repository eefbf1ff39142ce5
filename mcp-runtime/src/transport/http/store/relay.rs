//! [`Relay`]: what one replica hands another about a session it cannot act on alone. A client's
//! answer to an elicitation, or its `notifications/cancelled`, can land on any replica; the call
//! it is about runs on one. The replica that received it publishes it; every replica listens, and
//! the one serving the call acts on it. The other way, a session's `GET` stream is held by one
//! replica: it announces the stream, and the others publish what they have for it. A resource
//! change the application raises on one replica is published to all of them.

use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::{StoreError, StoreFuture};

/// Carries [`Relayed`] messages between the replicas of one fleet.
pub trait Relay: Send + Sync + 'static {
    /// Hands `message` to every replica listening (this one included).
    fn publish<'a>(&'a self, message: &'a Relayed) -> StoreFuture<'a, ()>;

    /// Starts listening (on the current tokio runtime); every message published from now on
    /// arrives on the receiver, until it is dropped. A listener that loses its connection
    /// reconnects by itself; what is published meanwhile is lost.
    fn listen(&self) -> mpsc::UnboundedReceiver<Relayed>;
}

/// What a [`Relayed`] message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelayKind {
    /// A message the client sent (a response, or `notifications/cancelled`), for the replica
    /// serving the call it is about.
    FromClient,
    /// A message for the client's `GET` stream, for the replica holding it.
    ToStream,
    /// A replica opened the session's `GET` stream: the others send it what they have.
    StreamOpened,
    /// The stream closed: the others keep their messages again.
    StreamClosed,
    /// A resource change the application raised on one replica (the message is its
    /// notification): every replica tells its own listeners of it.
    Change,
}

impl RelayKind {
    const NAMES: [(RelayKind, &'static str); 5] = [
        (RelayKind::FromClient, "client"),
        (RelayKind::ToStream, "stream"),
        (RelayKind::StreamOpened, "opened"),
        (RelayKind::StreamClosed, "closed"),
        (RelayKind::Change, "change"),
    ];

    fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(k, _)| *k == self)
            .map_or("", |(_, n)| n)
    }

    fn parse(name: &str) -> Option<Self> {
        Self::NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(k, _)| *k)
    }
}

/// One message between replicas, about one session.
#[derive(Debug, Clone, PartialEq)]
pub struct Relayed {
    /// What it is.
    pub kind: RelayKind,
    /// The session's id (empty for a [`RelayKind::Change`], which is about every session).
    pub session: String,
    /// The replica that sent it (each router draws a random number).
    pub from: u64,
    /// When it was sent, in microseconds since the Unix epoch: the receiver logs the latency.
    pub sent_us: u64,
    /// The JSON-RPC message (empty for [`RelayKind::StreamOpened`] and `StreamClosed`).
    pub message: String,
}

impl Relayed {
    /// Its text on the wire.
    pub fn encode(&self) -> String {
        json!({"k": self.kind.name(), "s": self.session, "f": self.from, "t": self.sent_us,
            "m": self.message})
        .to_string()
    }

    /// Reads what [`Relayed::encode`] wrote.
    pub fn decode(text: &[u8]) -> Result<Relayed, StoreError> {
        let bad = || StoreError::new("a relayed message is malformed");
        let value: Value = serde_json::from_slice(text).map_err(|_| bad())?;
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        let number = |key: &str| value.get(key).and_then(Value::as_u64);
        Ok(Relayed {
            kind: text("k")
                .and_then(|k| RelayKind::parse(&k))
                .ok_or_else(bad)?,
            session: text("s").ok_or_else(bad)?,
            from: number("f").ok_or_else(bad)?,
            sent_us: number("t").ok_or_else(bad)?,
            message: text("m").ok_or_else(bad)?,
        })
    }
}

/// Microseconds since the Unix epoch, now.
pub fn now_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relayed_message_reads_back_and_garbage_is_an_error() {
        let relayed = Relayed {
            kind: RelayKind::FromClient,
            session: "ab12".into(),
            from: u64::MAX,
            sent_us: 1_700_000_000_000_000,
            message: r#"{"jsonrpc":"2.0","id":7,"result":{"action":"decline"}}"#.into(),
        };
        assert_eq!(
            Relayed::decode(relayed.encode().as_bytes()).unwrap(),
            relayed
        );
        for kind in RelayKind::NAMES.map(|(k, _)| k) {
            let other = Relayed {
                kind,
                ..relayed.clone()
            };
            assert_eq!(Relayed::decode(other.encode().as_bytes()).unwrap(), other);
        }
        let unknown = br#"{"k":"gossip","s":"a","f":1,"t":2,"m":""}"#;
        for garbage in [
            &b"not json"[..],
            b"{}",
            br#"{"s":"a","f":1,"t":2}"#,
            unknown,
        ] {
            assert!(Relayed::decode(garbage).is_err());
        }
    }
}
