//! [`Client::listen`]: the change notifications a client asks for, as one [`Listener`] in either
//! era. Stateless (2026-07-28): a `subscriptions/listen` request, acknowledged by the server,
//! whose notifications carry its id. Handshake: `resources/subscribe` for each URI, and the
//! list-changed notifications the server declared, sent to the whole session.

use super::*;
use crate::protocol::subscriptions::{ACKNOWLEDGED, LISTEN, SubscriptionFilter, subscription_id};

/// What the read loop hands a listener.
enum Event {
    Acknowledged(SubscriptionFilter),
    Change(Change),
}

/// One open listener, as the read loop sees it.
struct Sink {
    key: u64,
    /// The stream's subscription id (stateless era); `None` in the handshake era.
    id: Option<RequestId>,
    filter: SubscriptionFilter,
    tx: mpsc::UnboundedSender<Event>,
}

/// The client's open listeners, and (handshake era) how many of them watch each URI.
#[derive(Default)]
pub(super) struct Sinks {
    next_key: u64,
    open: Vec<Sink>,
    subscribed: HashMap<String, usize>,
}

/// Hands a notification the read loop did not handle itself to the listeners it belongs to: a
/// tagged one to its stream, an untagged change to every handshake-era listener that asked.
pub(super) fn route(inner: &ClientInner, method: &str, params: &Value) {
    let sinks = lock(&inner.listens);
    let tagged = subscription_id(Some(params));
    let event = match method {
        ACKNOWLEDGED => {
            let granted = params.get("notifications").unwrap_or(&Value::Null);
            Event::Acknowledged(SubscriptionFilter::from_json(granted))
        }
        _ => match Change::from_notification(method, params.get("uri")) {
            Some(change) => Event::Change(change),
            None => return,
        },
    };
    match (tagged, &event) {
        (Some(id), _) => {
            if let Some(sink) = sinks.open.iter().find(|s| s.id.as_ref() == Some(&id)) {
                let _ = sink.tx.send(event);
            }
        }
        (None, Event::Change(change)) => {
            let wanting = sinks.open.iter().filter(|s| s.id.is_none());
            for sink in wanting.filter(|s| s.filter.wants(change)) {
                let _ = sink.tx.send(Event::Change(change.clone()));
            }
        }
        (None, Event::Acknowledged(_)) => {}
    }
}

/// The connection is gone: every listener ends.
pub(super) fn disconnected(inner: &ClientInner) {
    let mut sinks = lock(&inner.listens);
    sinks.open.clear();
    sinks.subscribed.clear();
}

/// The change notifications of one [`Client::listen`], until it is closed or the server ends
/// it. Dropping it closes it without waiting.
pub struct Listener {
    inner: Arc<ClientInner>,
    key: u64,
    /// The stream's subscription id (stateless era).
    id: Option<RequestId>,
    granted: SubscriptionFilter,
    rx: mpsc::UnboundedReceiver<Event>,
    /// The answer to `subscriptions/listen`, which ends the stream (stateless era).
    answer: Option<oneshot::Receiver<Result<Value, ProtocolError>>>,
    graceful: bool,
    closed: bool,
}

impl Client {
    /// Starts listening for the changes `filter` asks for. In the stateless era this opens a
    /// `subscriptions/listen` stream and returns once the server acknowledged it; in the
    /// handshake era it sends `resources/subscribe` for each URI (once per URI, however many
    /// listeners watch it) and listens for the list changes the server declared. Either way
    /// [`Listener::acknowledged`] says what the server agreed to send.
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Listener, ClientError> {
        if self.inner.stateless() {
            self.listen_stateless(filter).await
        } else {
            self.listen_session(filter).await
        }
    }

    async fn listen_stateless(&self, filter: SubscriptionFilter) -> Result<Listener, ClientError> {
        let id = self.inner.new_id();
        let mut listener = self.inner.listener(Some(id.clone()), filter.clone());
        let params = json!({ "notifications": filter.to_json() });
        let pending = self.inner.start_as(id, LISTEN, params, true);
        // Kept on the listener at once: dropped from here on, it cancels the stream.
        let answer = listener.answer.insert(pending.rx);
        // "The server MUST send `notifications/subscriptions/acknowledged` as the first message
        // carrying the subscription's ID" (2026-07-28, basic/patterns/subscriptions).
        tokio::select! {
            biased;
            event = listener.rx.recv() => match event {
                Some(Event::Acknowledged(granted)) => listener.granted = granted,
                Some(Event::Change(_)) => {
                    return Err(ClientError::InvalidResult(
                        "a notification of the listen came before its acknowledgement".into(),
                    ));
                }
                None => return Err(ClientError::Closed),
            },
            answered = answer => {
                listener.answer = None;
                return match answered {
                    Ok(Err(e)) => Err(ClientError::Protocol(e)),
                    Ok(Ok(v)) => Err(ClientError::InvalidResult(format!(
                        "subscriptions/listen answered before it was acknowledged: {v}"
                    ))),
                    Err(_) => Err(ClientError::Closed),
                };
            }
        }
        Ok(listener)
    }

    async fn listen_session(&self, filter: SubscriptionFilter) -> Result<Listener, ClientError> {
        let caps = self.session().map(|s| &s.capabilities);
        let declared = |kind: &str, key: &str| {
            caps.and_then(|c| c.get(kind))
                .and_then(|k| k.get(key))
                .and_then(Value::as_bool)
                == Some(true)
        };
        let mut granted = filter;
        granted.tools_list_changed &= declared("tools", "listChanged");
        granted.prompts_list_changed &= declared("prompts", "listChanged");
        granted.resources_list_changed &= declared("resources", "listChanged");
        if !declared("resources", "subscribe") {
            granted.resource_subscriptions.clear();
        }
        let listener = self.inner.listener(None, granted.clone());
        // The URIs no other listener watched yet: subscribed to here.
        let mut first = Vec::new();
        {
            let mut sinks = lock(&self.inner.listens);
            for uri in &granted.resource_subscriptions {
                let watchers = sinks.subscribed.entry(uri.clone()).or_default();
                if *watchers == 0 {
                    first.push(uri.clone());
                }
                *watchers += 1;
            }
        }
        for uri in first {
            if let Err(e) = self.subscribe(&uri).await {
                listener.close().await;
                return Err(e);
            }
        }
        Ok(listener)
    }
}

impl ClientInner {
    /// A listener registered with the read loop.
    fn listener(self: &Arc<Self>, id: Option<RequestId>, filter: SubscriptionFilter) -> Listener {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut sinks = lock(&self.listens);
        sinks.next_key += 1;
        let key = sinks.next_key;
        sinks.open.push(Sink {
            key,
            id: id.clone(),
            filter: filter.clone(),
            tx,
        });
        Listener {
            inner: self.clone(),
            key,
            id,
            granted: filter,
            rx,
            answer: None,
            graceful: false,
            closed: false,
        }
    }
}

impl Listener {
    /// The next change; `None` once the listen has ended (the server closed it, see
    /// [`Listener::ended_gracefully`], or the connection is gone).
    pub async fn next(&mut self) -> Option<Change> {
        loop {
            let event = match &mut self.answer {
                Some(answer) => tokio::select! {
                    // What the server sent before its closing answer comes first.
                    biased;
                    event = self.rx.recv() => event,
                    answered = answer => {
                        self.answer = None;
                        self.graceful = matches!(answered, Ok(Ok(_)));
                        self.forget();
                        return None;
                    }
                },
                None => self.rx.recv().await,
            };
            match event? {
                Event::Change(change) => return Some(change),
                Event::Acknowledged(_) => continue,
            }
        }
    }

    /// What the server agreed to send: the filter it acknowledged (stateless era), or the part
    /// of the filter its capabilities declare (handshake era).
    pub fn acknowledged(&self) -> &SubscriptionFilter {
        &self.granted
    }

    /// The stream's subscription id, the id of its `subscriptions/listen` (stateless era).
    pub fn subscription_id(&self) -> Option<&RequestId> {
        self.id.as_ref()
    }

    /// True once the server ended the listen with its closing result, rather than the
    /// connection dropping.
    pub fn ended_gracefully(&self) -> bool {
        self.graceful
    }

    /// Stops listening and waits until the server knows: `notifications/cancelled` for the
    /// stream (stateless era), or `resources/unsubscribe` for each URI no other listener
    /// watches (handshake era).
    pub async fn close(mut self) {
        for pending in self.stop() {
            let _ = pending.response().await;
        }
    }

    /// Unregisters this listener and tells the server; the unsubscriptions sent, to wait for.
    fn stop(&mut self) -> Vec<PendingRequest> {
        if std::mem::replace(&mut self.closed, true) {
            return Vec::new();
        }
        self.forget();
        let inner = &self.inner;
        let Some(id) = &self.id else {
            // Handshake era: unsubscribe from the URIs no other listener watches.
            let mut sinks = lock(&inner.listens);
            let mut last = Vec::new();
            for uri in &self.granted.resource_subscriptions {
                if let Some(n) = sinks.subscribed.get_mut(uri) {
                    *n -= 1;
                    if *n == 0 {
                        sinks.subscribed.remove(uri);
                        last.push(uri.clone());
                    }
                }
            }
            drop(sinks);
            let params = last.into_iter().map(|uri| json!({"uri": uri}));
            return params
                .map(|p| inner.start("resources/unsubscribe", p, true))
                .collect();
        };
        // Stateless era, the stream still open: "send `notifications/cancelled` referencing the
        // `subscriptions/listen` request ID (stdio)" (basic/patterns/subscriptions,
        // Cancellation).
        if self.answer.take().is_some() {
            lock(&inner.pending).remove(id);
            let params = json!({"requestId": id.to_json(), "reason": "listener closed"});
            inner.send(notification_message("notifications/cancelled", params));
        }
        Vec::new()
    }

    /// Takes this listener off the read loop's list.
    fn forget(&self) {
        lock(&self.inner.listens).open.retain(|s| s.key != self.key);
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        drop(self.stop());
    }
}

impl fmt::Debug for Listener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Listener")
            .field("subscription_id", &self.id)
            .field("acknowledged", &self.granted)
            .finish()
    }
}
