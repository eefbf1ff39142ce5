//! A `tracing` layer that keeps every event and span it sees, with their fields, for tests that
//! check what the operator (or an OpenTelemetry exporter) is given.

#![allow(dead_code)] // each test file uses a part of it

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::sync::{Arc, Mutex, MutexGuard};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// Fields by name, each as text (a string as itself, anything else as its `Debug`).
pub type Fields = BTreeMap<String, String>;

/// An event: its level and fields (the message under `message`).
#[derive(Debug, Clone)]
pub struct EventRecord {
    pub level: tracing::Level,
    pub fields: Fields,
    /// The name of the span the event happened in.
    pub span: Option<String>,
}

/// A span: its name, the fields recorded on it, and whether it was closed.
#[derive(Debug, Clone)]
pub struct SpanRecord {
    pub name: String,
    pub fields: Fields,
    pub closed: bool,
}

#[derive(Default)]
pub struct Recorded {
    pub events: Vec<EventRecord>,
    pub spans: Vec<SpanRecord>,
    open: HashMap<u64, usize>,
}

/// The layer; clones share what was recorded.
#[derive(Clone, Default)]
pub struct Recorder(Arc<Mutex<Recorded>>);

impl Recorder {
    /// A recorder installed as the current thread's default subscriber until the guard drops.
    pub fn install() -> (Recorder, tracing::subscriber::DefaultGuard) {
        let recorder = Recorder::default();
        let subscriber = tracing_subscriber::registry().with(recorder.clone());
        (recorder, tracing::subscriber::set_default(subscriber))
    }

    pub fn get(&self) -> MutexGuard<'_, Recorded> {
        self.0.lock().unwrap()
    }
}

impl Recorded {
    /// The closed spans named `name`.
    pub fn closed_spans(&self, name: &str) -> Vec<&SpanRecord> {
        self.spans
            .iter()
            .filter(|s| s.closed && s.name == name)
            .collect()
    }
}

struct Collect<'a>(&'a mut Fields);

impl Visit for Collect<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Recorder {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
        let mut fields = Fields::new();
        attrs.record(&mut Collect(&mut fields));
        let mut all = self.get();
        let at = all.spans.len();
        all.spans.push(SpanRecord {
            name: attrs.metadata().name().to_owned(),
            fields,
            closed: false,
        });
        all.open.insert(id.into_u64(), at);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        let mut all = self.get();
        if let Some(&at) = all.open.get(&id.into_u64()) {
            values.record(&mut Collect(&mut all.spans[at].fields));
        }
    }

    fn on_event(&self, event: &tracing::Event<'_>, cx: Context<'_, S>) {
        let mut fields = Fields::new();
        event.record(&mut Collect(&mut fields));
        let span = cx.event_span(event).map(|s| s.name().to_owned());
        self.get().events.push(EventRecord {
            level: *event.metadata().level(),
            fields,
            span,
        });
    }

    fn on_close(&self, id: Id, _: Context<'_, S>) {
        let mut all = self.get();
        if let Some(at) = all.open.remove(&id.into_u64()) {
            all.spans[at].closed = true;
        }
    }
}
