//! Captures the controllers' `tracing` events (target `discern::cwnd`) during a netns run, with
//! the time each was emitted. quinn drives every connection on a task it spawns inside
//! `connect()`, instrumented with the span current at that moment; the runner connects each flow
//! inside a span `netns_flow` (fields `index`, `role`), so every event of a flow's sender carries
//! its flow index. Events outside such a span, or in a receiver's, are ignored.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Subscriber};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::registry::LookupSpan;

pub const TARGET: &str = "discern::cwnd";
pub const SPAN: &str = "netns_flow";

/// One controller event.
#[derive(Debug, Clone, PartialEq)]
pub struct CwndEvent {
    pub flow: usize,
    pub at: Instant,
    pub loss: bool,
    pub cwnd: Option<u64>,
    pub ssthresh: Option<u64>,
    /// `random` or `congestion`, for loss decisions.
    pub verdict: Option<String>,
}

pub type Sink = Arc<Mutex<Vec<CwndEvent>>>;

#[derive(Debug, Clone, Copy)]
struct FlowTag {
    index: usize,
    sender: bool,
}

#[derive(Default)]
struct TagVisitor {
    index: Option<u64>,
    sender: bool,
}

impl Visit for TagVisitor {
    fn record_u64(&mut self, field: &Field, value: u64) {
        if field.name() == "index" {
            self.index = Some(value);
        }
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        if field.name() == "index" {
            self.index = u64::try_from(value).ok();
        }
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "role" {
            self.sender = value == "sender";
        }
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "role" {
            self.sender = format!("{value:?}").trim_matches('"') == "sender";
        }
    }
}

struct EventVisitor<'a>(&'a mut CwndEvent);

impl EventVisitor<'_> {
    fn text(&mut self, name: &str, value: &str) {
        match name {
            "event" => self.0.loss = value == "loss",
            "verdict" => self.0.verdict = Some(value.to_string()),
            _ => {}
        }
    }
    fn number(&mut self, name: &str, value: u64) {
        match name {
            "cwnd" => self.0.cwnd = Some(value),
            "ssthresh" => self.0.ssthresh = Some(value),
            _ => {}
        }
    }
}

impl Visit for EventVisitor<'_> {
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.number(field.name(), value);
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        if let Ok(v) = u64::try_from(value) {
            self.number(field.name(), v);
        }
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.text(field.name(), value);
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let s = format!("{value:?}");
        let s = s.trim_matches('"');
        match s.parse::<u64>() {
            Ok(v) => self.number(field.name(), v),
            Err(_) => self.text(field.name(), s),
        }
    }
}

pub struct CaptureLayer {
    sink: Sink,
}

impl CaptureLayer {
    pub fn new(sink: Sink) -> Self {
        Self { sink }
    }
}

fn wanted(meta: &Metadata<'_>) -> bool {
    if meta.is_span() {
        meta.name() == SPAN
    } else {
        meta.target() == TARGET
    }
}

impl<S> Layer<S> for CaptureLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn register_callsite(&self, meta: &'static Metadata<'static>) -> Interest {
        if wanted(meta) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, meta: &Metadata<'_>, _ctx: Context<'_, S>) -> bool {
        wanted(meta)
    }

    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if attrs.metadata().name() != SPAN {
            return;
        }
        let mut v = TagVisitor::default();
        attrs.record(&mut v);
        if let (Some(index), Some(span)) = (v.index, ctx.span(id)) {
            span.extensions_mut().insert(FlowTag {
                index: index as usize,
                sender: v.sender,
            });
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        if event.metadata().target() != TARGET {
            return;
        }
        let Some(span) = ctx.event_span(event) else {
            return;
        };
        let tag = span
            .scope()
            .find_map(|s| s.extensions().get::<FlowTag>().copied());
        let Some(tag) = tag.filter(|t| t.sender) else {
            return;
        };
        let mut e = CwndEvent {
            flow: tag.index,
            at: Instant::now(),
            loss: false,
            cwnd: None,
            ssthresh: None,
            verdict: None,
        };
        event.record(&mut EventVisitor(&mut e));
        if let Ok(mut sink) = self.sink.lock() {
            sink.push(e);
        }
    }
}
