//! JSON-RPC batches: accepted on a session that negotiated 2025-03-26, whose spec makes receiving
//! them a MUST (later versions removed them), over stdio and HTTP alike.

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use serde_json::value::RawValue;

use super::{Reply, Server, WriteJson};
use crate::context::connection::Connection;
use crate::error::ProtocolError;
use crate::protocol::Incoming;

/// One element of a batch: a message to handle, or the answer it already got (it is not a
/// message, or the transport refused it, e.g. over a session's in-flight cap).
pub(crate) type BatchItem = Result<Incoming, Box<Reply>>;

/// The answer to a batch: one error for an empty batch (JSON-RPC 2.0 §6), else the answers to its
/// requests, in their order, as one array.
#[derive(Debug)]
pub(crate) enum BatchAnswer {
    One(Reply),
    Many(Vec<Reply>),
}

/// Each answer by [`Reply`]'s own writer, so that a batch's structured results are copied as
/// they are, as a single answer's are.
impl WriteJson for BatchAnswer {
    fn write_json(&self, buf: &mut Vec<u8>) -> serde_json::Result<()> {
        match self {
            BatchAnswer::One(reply) => reply.write_json(buf),
            BatchAnswer::Many(replies) => {
                buf.push(b'[');
                for (i, reply) in replies.iter().enumerate() {
                    if i > 0 {
                        buf.push(b',');
                    }
                    reply.write_json(buf)?;
                }
                buf.push(b']');
                Ok(())
            }
        }
    }
}

impl serde::Serialize for BatchAnswer {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            BatchAnswer::One(reply) => reply.serialize(serializer),
            BatchAnswer::Many(replies) => replies.serialize(serializer),
        }
    }
}

/// The elements of a batch, each read as its own message from its own JSON text (so that an id
/// of any size stays exact); `None` when `bytes` is not a JSON array.
pub(crate) fn batch_items(bytes: &[u8]) -> Option<Vec<BatchItem>> {
    let raw: Vec<&RawValue> = serde_json::from_slice(bytes).ok()?;
    Some(
        raw.into_iter()
            .map(|item| {
                if item.get().starts_with('[') {
                    return Err(Box::new(Reply::error(
                        None,
                        ProtocolError::invalid_request(
                            "Invalid Request: a batch element must be a message object, not an array",
                        ),
                    )));
                }
                Incoming::parse_text(item.get()).map_err(|r| Box::new(Reply::from(r)))
            })
            .collect(),
    )
}

impl Server {
    /// Whether `conn` negotiated a version whose spec makes receiving JSON-RPC batches a MUST
    /// (2025-03-26; later versions removed batches).
    pub(crate) fn accepts_batches(&self, conn: &Connection) -> bool {
        conn.lock_session()
            .handshake
            .as_ref()
            .is_some_and(|h| h.version == "2025-03-26")
    }

    /// Handles a JSON-RPC batch on a connection that accepts them: each element as its own
    /// message, the answers gathered into one array in the order of the requests. An empty batch
    /// is one Invalid Request; a batch of notifications and responses only gets no answer;
    /// `initialize` may not be batched.
    pub(crate) fn batch(
        &self,
        items: Vec<BatchItem>,
        conn: &Connection,
    ) -> BoxFuture<'static, Option<BatchAnswer>> {
        if items.is_empty() {
            let error = ProtocolError::invalid_request("Invalid Request: an empty batch");
            let answer = BatchAnswer::One(Reply::error(None, error));
            return futures_util::future::ready(Some(answer)).boxed();
        }
        let answers: Vec<BoxFuture<'static, Option<Reply>>> = items
            .into_iter()
            .map(|item| match item {
                Ok(Incoming::Request(req)) if req.method == "initialize" => {
                    let error = ProtocolError::invalid_request(
                        "Invalid Request: `initialize` must not be part of a batch",
                    );
                    futures_util::future::ready(Some(Reply::error(Some(req.id), error))).boxed()
                }
                Ok(message) => self.handle(message, conn),
                Err(answered) => futures_util::future::ready(Some(*answered)).boxed(),
            })
            .collect();
        async move {
            let answers: Vec<Reply> = futures_util::future::join_all(answers)
                .await
                .into_iter()
                .flatten()
                .collect();
            (!answers.is_empty()).then_some(BatchAnswer::Many(answers))
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::{BatchAnswer, Incoming, ProtocolError, Reply, WriteJson, batch_items};

    #[test]
    fn each_element_is_read_from_its_own_text() {
        let items = batch_items(
            br#"[{"jsonrpc":"2.0","id":18446744073709551617,"method":"ping"}, 7, [], {"jsonrpc":"2.0","method":"x"}]"#,
        )
        .unwrap();
        assert_eq!(items.len(), 4);
        let Ok(Incoming::Request(req)) = &items[0] else {
            panic!("{:?}", items[0]);
        };
        assert_eq!(
            serde_json::to_string(&req.id).unwrap(),
            "18446744073709551617"
        );
        let refusal = |i: usize| match &items[i] {
            Err(reply) => reply.to_string(),
            other => panic!("{other:?}"),
        };
        assert!(
            refusal(1).contains("a message must be a JSON object"),
            "{}",
            refusal(1)
        );
        assert!(refusal(2).contains("not an array"), "{}", refusal(2));
        assert!(matches!(items[3], Ok(Incoming::Notification(_))));
        assert!(batch_items(b"{}").is_none());
        assert!(batch_items(b"[1,").is_none());
    }

    /// A batch's answers written by the replies' own writer are what serde writes.
    #[test]
    fn a_batch_is_written_as_serde_writes_it() {
        use crate::server::ReplyBody;
        use crate::tool::output::IntoToolOutput;
        use serde_json::json;
        let call = |id: u64, value: serde_json::Value| Reply {
            id: Some(id.into()),
            body: ReplyBody::Call(value.into_tool_output().unwrap().of_tool("t", false), None),
        };
        let answers = [
            BatchAnswer::One(Reply::error(None, ProtocolError::invalid_request("empty"))),
            BatchAnswer::One(call(1, json!({"a": "q\"\n"}))),
            BatchAnswer::Many(vec![
                call(2, json!({"b": [1, {}]})),
                Reply::error(Some(3.into()), ProtocolError::method_not_found("x")),
                call(4, json!({})),
            ]),
            BatchAnswer::Many(vec![call(5, json!({"c": null}))]),
        ];
        for answer in answers {
            let mut written = Vec::new();
            answer.write_json(&mut written).unwrap();
            assert_eq!(
                String::from_utf8(written).unwrap(),
                serde_json::to_string(&answer).unwrap()
            );
        }
    }
}
