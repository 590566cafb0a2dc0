//! Captures the controllers' `tracing` events (target `discern::cwnd`; ARCHITECTURE.md, "Logs")
//! during a run, for both runners.
//!
//! Events are attributed to a flow by the span [`SPAN`] (fields `index` and `role`) that the
//! runner enters around every call into a flow's sender-side connection (simulator) or
//! instruments the flow's connect with (netns: quinn spawns each connection's driver inside
//! `connect()`, under the span current then). Events outside such a span, or inside a
//! receiver-side one, are ignored. The layer filters for itself ([`CaptureLayer::filtered`]):
//! every other callsite (quinn-proto's own tracing) stays disabled, so it costs nothing, unless
//! another layer asks for it ([`crate::log`]), which then sees it.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Subscriber};
use tracing_subscriber::filter::Filtered;
use tracing_subscriber::layer::{Context, Filter, Layer};
use tracing_subscriber::registry::LookupSpan;

pub use quinn_discern::event::Verdict;
pub use quinn_discern::trace::{RTT_TARGET, TARGET};

use quinn_discern::trace::Record;
/// The span a runner enters (or instruments a flow's tasks with) around a flow's sender-side
/// work, with fields `index` (the flow) and `role` (`sender` or `receiver`).
pub const SPAN: &str = "discern_flow";

/// One controller event, as far as the runners use it.
#[derive(Debug, Clone, PartialEq)]
pub struct CwndEvent {
    /// Flow index (from the span), not the controller's own id.
    pub flow: usize,
    /// When the event was emitted (wall clock; the simulator keeps its own virtual time).
    pub at: Instant,
    pub loss: bool,
    /// The window after a window or loss event; `None` for an `rtt` event.
    pub window: Option<Window>,
    pub verdict: Option<Verdict>,
    pub sent_age_us: Option<u64>,
    /// An `rtt` event (an ACK frame's delay recovered), kept only by
    /// [`CaptureLayer::with_delays`].
    pub delay: Option<FrameDelay>,
    /// The decision answered an ECN congestion mark (quinn's `lost_bytes == 0` event), not a loss.
    pub ecn_mark: bool,
}

/// The window a `window` or `loss` event reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub cwnd: u64,
    /// `None` before the controller's first reduction.
    pub ssthresh: Option<u64>,
}

/// The fields of an `rtt` event: one ACK frame whose ACK delay the controller recovered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameDelay {
    /// When the event was emitted minus when the frame was processed.
    pub frame_age_us: u64,
    /// When the event was emitted minus when the frame's newest packet was sent.
    pub sent_age_us: u64,
    /// The frame's raw RTT sample.
    pub rtt_us: u64,
    pub ack_delay_us: u64,
    pub owd_hint_us: u64,
}

/// Captured events, drained by the runner.
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

/// The layer: keeps `discern::cwnd` events of sender-side spans.
pub struct CaptureLayer {
    sink: Sink,
    /// Whether to keep the `TRACE`-level `rtt` events too (one per ACK frame).
    delays: bool,
}

impl CaptureLayer {
    /// Window and loss events only.
    pub fn new(sink: Sink) -> Self {
        Self {
            sink,
            delays: false,
        }
    }

    /// Also every `rtt` event, for a runner that checks recovered ACK delays against its ground
    /// truth and drains the sink as it goes.
    pub fn with_delays(sink: Sink) -> Self {
        Self { sink, delays: true }
    }

    /// The layer behind its own filter ([`Wanted`]), as the runners add it to a registry. A
    /// layer's own `enabled` would disable what it does not want for every layer of the
    /// subscriber; a per-layer filter disables it for this one only.
    pub fn filtered<S>(self) -> Filtered<Self, Wanted, S>
    where
        S: Subscriber + for<'a> LookupSpan<'a>,
    {
        let wanted = Wanted {
            delays: self.delays,
        };
        self.with_filter(wanted)
    }
}

/// What [`CaptureLayer`] reads: the flow spans, the `discern::cwnd` events, and the `rtt` events
/// where it keeps them.
#[derive(Debug, Clone, Copy)]
pub struct Wanted {
    delays: bool,
}

impl Wanted {
    fn wants(&self, meta: &Metadata<'_>) -> bool {
        if meta.is_span() {
            meta.name() == SPAN
        } else {
            meta.target() == TARGET || (self.delays && meta.target() == RTT_TARGET)
        }
    }
}

impl<S> Filter<S> for Wanted {
    fn enabled(&self, meta: &Metadata<'_>, _ctx: &Context<'_, S>) -> bool {
        self.wants(meta)
    }

    fn callsite_enabled(&self, meta: &'static Metadata<'static>) -> Interest {
        if self.wants(meta) {
            Interest::always()
        } else {
            Interest::never()
        }
    }
}

impl<S> Layer<S> for CaptureLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
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
        let Some(record) = Record::decode(event) else {
            return;
        };
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
            window: None,
            verdict: None,
            sent_age_us: None,
            delay: None,
            ecn_mark: false,
        };
        let window = |e: &mut CwndEvent, w: &quinn_discern::trace::WindowRecord| {
            e.window = Some(Window {
                cwnd: w.cwnd,
                ssthresh: w.ssthresh,
            });
        };
        match &record {
            Record::Window(w) => window(&mut e, w),
            Record::Loss(loss) => {
                window(&mut e, &loss.window);
                e.loss = true;
                e.verdict = Some(loss.verdict);
                e.sent_age_us = Some(loss.sent_age_us);
                // quinn reports a CE mark as a congestion event that lost nothing.
                e.ecn_mark = loss.lost_bytes == 0 && loss.lost_packets == 0;
            }
            Record::Rtt(rtt) => {
                e.delay = Some(FrameDelay {
                    frame_age_us: rtt.frame_age_us,
                    sent_age_us: rtt.sent_age_us,
                    rtt_us: rtt.rtt_us,
                    ack_delay_us: rtt.ack_delay_us,
                    owd_hint_us: rtt.owd_hint_us,
                });
            }
            _ => return,
        }
        if let Ok(mut sink) = self.sink.lock() {
            sink.push(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing_subscriber::layer::SubscriberExt;

    #[test]
    fn rtt_events_are_kept_only_when_asked_for() {
        let capture = |layer: fn(Sink) -> CaptureLayer| {
            let sink = Sink::default();
            let subscriber = tracing_subscriber::registry().with(layer(sink.clone()).filtered());
            tracing::subscriber::with_default(subscriber, || {
                let s = tracing::info_span!(SPAN, index = 1u64, role = "sender");
                s.in_scope(|| {
                    tracing::trace!(target: "discern::rtt", flow = 9u64, controller = "x",
                        t_us = 1u64, event = "rtt", frame_age_us = 5u64, sent_age_us = 45u64,
                        rtt_us = 40u64, ack_delay_us = 3u64, credited_us = 2u64,
                        owd_hint_us = 20u64);
                });
            });
            let got = sink.lock().unwrap().clone();
            got
        };
        assert!(capture(CaptureLayer::new).is_empty());
        let got = capture(CaptureLayer::with_delays);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].sent_age_us, None);
        assert_eq!(
            got[0].delay,
            Some(FrameDelay {
                frame_age_us: 5,
                sent_age_us: 45,
                rtt_us: 40,
                ack_delay_us: 3,
                owd_hint_us: 20,
            })
        );
    }

    #[test]
    fn the_capture_hides_no_event_from_another_layer_that_wants_it() {
        #[derive(Clone, Default)]
        struct Count(Arc<Mutex<usize>>);
        impl<S: Subscriber> Layer<S> for Count {
            fn on_event(&self, _event: &Event<'_>, _ctx: Context<'_, S>) {
                *self.0.lock().unwrap() += 1;
            }
        }
        let (sink, rounds) = (Sink::default(), Count::default());
        let only_rounds =
            tracing_subscriber::filter::filter_fn(|meta| meta.target() == "discern::round");
        let subscriber = tracing_subscriber::registry()
            .with(CaptureLayer::new(sink.clone()).filtered())
            .with(rounds.clone().with_filter(only_rounds));
        tracing::subscriber::with_default(subscriber, || {
            let s = tracing::info_span!(SPAN, index = 0u64, role = "sender");
            s.in_scope(|| {
                tracing::debug!(target: "discern::round", round = 1u64);
                tracing::trace!(target: "discern::cwnd", flow = 1u64, controller = "x",
                    t_us = 1u64, acked_bytes = 0u64, event = "window", cwnd = 9u64,
                    ssthresh = 9u64, state = "avoidance");
            });
        });
        assert_eq!(
            *rounds.0.lock().unwrap(),
            1,
            "the other layer saw its event"
        );
        assert_eq!(sink.lock().unwrap().len(), 1, "the capture kept its own");
    }

    #[test]
    fn captures_sender_events_only() {
        let sink = Sink::default();
        let subscriber =
            tracing_subscriber::registry().with(CaptureLayer::new(sink.clone()).filtered());
        tracing::subscriber::with_default(subscriber, || {
            let s = tracing::info_span!(SPAN, index = 3u64, role = "sender");
            let r = tracing::info_span!(SPAN, index = 3u64, role = "receiver");
            s.in_scope(|| {
                tracing::debug!(target: "discern::cwnd", flow = 99u64, controller = "x",
                    t_us = 7u64, acked_bytes = 0u64, event = "loss", cwnd = 1000u64, ssthresh = 500u64,
                    state = "recovery", verdict = "random", reduced = false, lost_packets = 1u64,
                    lost_bytes = 1200u64, losses_in_window = 1u64, sent_age_us = 42u64,
                    rtt_us = 40u64, srtt_us = 40u64, min_rtt_us = 40u64, reason = "test");
                tracing::debug!(target: "other", cwnd = 1u64);
            });
            r.in_scope(|| {
                tracing::trace!(target: "discern::cwnd", flow = 1u64, controller = "x",
                    t_us = 1u64, acked_bytes = 0u64, event = "window", cwnd = 7u64, ssthresh = 7u64,
                    state = "avoidance");
            });
            tracing::trace!(target: "discern::cwnd", flow = 1u64, controller = "x", t_us = 1u64,
                acked_bytes = 0u64, event = "window", cwnd = 8u64, ssthresh = 8u64, state = "avoidance");
        });
        let mut got = sink.lock().unwrap().clone();
        let at = got.first().map(|e| e.at).unwrap_or_else(Instant::now);
        got.iter_mut().for_each(|e| e.at = at);
        assert_eq!(
            got,
            vec![CwndEvent {
                flow: 3,
                at,
                loss: true,
                window: Some(Window {
                    cwnd: 1000,
                    ssthresh: Some(500),
                }),
                verdict: Some(Verdict::Random),
                sent_age_us: Some(42),
                delay: None,
                ecn_mark: false,
            }]
        );
    }
}
