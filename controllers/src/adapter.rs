//! The one place that speaks quinn's `Controller` trait for the algorithms of this crate.

use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;
use std::time::{Duration, Instant};

use quinn_proto::congestion::{Controller, ControllerMetrics};
use quinn_proto::RttEstimator;

use crate::event::{Ack, AckBatch, CongestionEvent, Decision, RttSample};
use crate::rtt::{AckElicitingThreshold, RttTracker};
use crate::trace::{self, Snapshot, Traced, Tracer};
use crate::window::Window;

/// A congestion-control algorithm as a pure state machine over [`crate::event`] inputs.
pub trait Algorithm: Clone + Debug + Send + Sync + 'static {
    /// Reacts to one acknowledged packet: grows the window where the state allows it.
    fn on_ack(&mut self, ack: &Ack);

    /// The end of one ACK frame, after its packets' [`Algorithm::on_ack`] calls.
    fn on_ack_batch(&mut self, _batch: &AckBatch) {}

    /// Reacts to lost packets, a persistent-congestion verdict or an ECN mark.
    fn on_congestion(&mut self, event: &CongestionEvent) -> Decision;

    /// The path's maximum datagram size changed to `mss` bytes; the window keeps its size in MSS.
    fn on_mss_update(&mut self, mss: u64) {
        self.window_mut().set_mss(mss);
    }

    /// The congestion window and its state.
    fn window(&self) -> &Window;

    /// The congestion window, for the adapter to change (MSS updates, persistent congestion).
    fn window_mut(&mut self) -> &mut Window;
}

/// What runs inside an [`Adapter`]: an [`Algorithm`] of this crate, or a classifier in front of
/// a quinn controller ([`crate::LossFilter`]). The adapter keeps what both need (the RTT tracker
/// and the tracer) and speaks quinn's trait; a body decides the window.
pub(crate) trait Body: Traced + Clone + Send + Sync + 'static {
    /// quinn's `on_sent`; only a quinn controller inside wants it.
    fn on_sent(&mut self, _now: Instant, _bytes: u64, _last_packet_number: u64) {}

    /// One acknowledged packet; `estimator` is quinn's, for a quinn controller inside.
    fn on_ack(&mut self, ack: &Ack, estimator: &RttEstimator);

    /// The end of one ACK frame; `batch` is `None` when the frame acknowledged no packet the
    /// tracker saw. The body logs the window change itself: a quinn controller inside hears of
    /// every frame, an algorithm only of frames with a sample.
    fn on_end_acks(&mut self, tracer: &mut Tracer, batch: Option<&AckBatch>, end: EndOfAcks);

    /// Decides on lost packets, persistent congestion or an ECN mark; `before` is the snapshot
    /// from before the event.
    fn on_congestion(&mut self, event: &CongestionEvent, before: Snapshot) -> Decision;

    /// The packet size a congestion event's lost bytes are counted in.
    fn mss(&self) -> u64;

    /// The path's datagram size changed; the body logs any window change itself (a quinn
    /// controller's resize is its own, and was never logged).
    fn on_mtu_update(&mut self, tracer: &mut Tracer, new_mtu: u16);

    /// The window quinn enforces.
    fn window(&self) -> u64;

    /// What quinn's `PathStats` and qlog show.
    fn metrics(&self) -> ControllerMetrics;
}

/// quinn's `on_end_acks` arguments, for a quinn controller inside a body.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EndOfAcks {
    pub now: Instant,
    pub in_flight: u64,
    pub app_limited: bool,
    pub largest_packet_num_acked: Option<u64>,
}

impl<A: Algorithm> Traced for A {
    fn snapshot(&self) -> Snapshot {
        let window = self.window();
        Snapshot {
            cwnd: window.cwnd(),
            ssthresh: window.ssthresh(),
            state: window.state(),
        }
    }
}

impl<A: Algorithm> Body for A {
    fn on_ack(&mut self, ack: &Ack, _estimator: &RttEstimator) {
        Algorithm::on_ack(self, ack);
    }

    fn on_end_acks(&mut self, tracer: &mut Tracer, batch: Option<&AckBatch>, end: EndOfAcks) {
        if let Some(batch) = batch {
            trace::log_window_change(tracer, self, Some(end.now), |a| a.on_ack_batch(batch));
        }
    }

    fn on_congestion(&mut self, event: &CongestionEvent, _before: Snapshot) -> Decision {
        Algorithm::on_congestion(self, event)
    }

    fn mss(&self) -> u64 {
        Algorithm::window(self).mss()
    }

    fn on_mtu_update(&mut self, tracer: &mut Tracer, new_mtu: u16) {
        trace::log_window_change(tracer, self, None, |a| a.on_mss_update(u64::from(new_mtu)));
    }

    /// quinn holds back a packet when `in_flight + packet_size >= window`, so a window of exactly
    /// N MSS would let only N - 1 packets out, and Tahoe's 1-MSS restart window none at all. One
    /// byte more makes N MSS mean N packets in flight, as cwnd does in TCP and in the papers.
    fn window(&self) -> u64 {
        Algorithm::window(self).cwnd().saturating_add(1)
    }

    /// The same window quinn enforces (`cwnd + 1`, see [`Body::window`]), so that quinn's
    /// `PathStats::cwnd` and qlog agree; the crate's `tracing` events show `cwnd` itself. No
    /// ssthresh until the first reduction sets one: the unbounded start (`u64::MAX`) in a qlog
    /// trace would only stretch a viewer's axis to 2^64.
    fn metrics(&self) -> ControllerMetrics {
        let mut metrics = ControllerMetrics::default();
        metrics.congestion_window = Body::window(self);
        metrics.ssthresh = Some(Algorithm::window(self).ssthresh()).filter(|&s| s != u64::MAX);
        metrics
    }
}

/// The one implementation of quinn's `Controller` trait in this crate: turns quinn's callbacks
/// into the inputs of its body `B` (an [`Algorithm`], or a classifier in front of a quinn
/// controller, [`crate::LossFilter`]), keeps the RTT tracker and the tracer both need, and logs
/// what changes.
///
/// A future quinn release that changes the trait touches only this type and its bodies.
///
/// Several controllers share one type: Tahoe, Modified Tahoe, Reno, NewReno, SACK-FeW and
/// Westwood+ are all `Adapter<LossBasedAlgorithm>`, so a downcast to one of those aliases
/// succeeds for all six. [`Adapter::id`] is the way to tell them apart.
#[derive(Debug, Clone)]
pub struct Adapter<B> {
    body: B,
    rtt: RttTracker,
    tracer: Tracer,
    initial_window: u64,
}

impl<B> Adapter<B> {
    /// The id this controller's `tracing` events carry in their `flow` field.
    pub fn flow_id(&self) -> u64 {
        self.tracer.flow
    }

    /// The registry id of the controller, e.g. `"tahoe"` or `"composite+quinn-cubic"`: the
    /// documented way to tell apart controllers that share a type (see [`Adapter`]).
    pub fn id(&self) -> &str {
        &self.tracer.controller
    }

    /// `controller` names it in the logs; `now` is when quinn built it (the logs' time zero).
    pub(crate) fn with_body(
        controller: Arc<str>,
        body: B,
        initial_window: u64,
        now: Instant,
    ) -> Self {
        Self {
            body,
            rtt: RttTracker::new(AckElicitingThreshold::default()),
            tracer: Tracer::new(controller, now),
            initial_window,
        }
    }

    /// This controller for a sender that asked its receiver for `threshold` (ACK frequency): the
    /// frames the receiver owed at once are credited no ACK Delay (`rtt.rs`, "What is
    /// credited").
    pub fn with_ack_eliciting_threshold(mut self, threshold: AckElicitingThreshold) -> Self {
        self.rtt = RttTracker::new(threshold);
        self
    }

    pub(crate) fn body(&self) -> &B {
        &self.body
    }
}

impl<A: Algorithm> Adapter<A> {
    /// `controller` names it in the logs; `now` is when quinn built it (the logs' time zero).
    pub fn new(
        controller: impl Into<Arc<str>>,
        algorithm: A,
        initial_window: u64,
        now: Instant,
    ) -> Self {
        Self::with_body(controller.into(), algorithm, initial_window, now)
    }

    /// The algorithm's state, e.g. to inspect it after `into_any()` and a downcast.
    pub fn algorithm(&self) -> &A {
        &self.body
    }
}

impl<B: Body> Controller for Adapter<B> {
    fn on_sent(&mut self, now: Instant, bytes: u64, last_packet_number: u64) {
        self.body.on_sent(now, bytes, last_packet_number);
    }

    fn on_ack(
        &mut self,
        now: Instant,
        sent: Instant,
        bytes: u64,
        app_limited: bool,
        rtt: &RttEstimator,
    ) {
        self.tracer.acked(bytes);
        let (ack, resolved) = self.rtt.ack(now, sent, bytes, app_limited, rtt);
        if let Some(resolved) = resolved {
            trace::rtt_resolved(&self.tracer, now, &resolved);
        }
        trace::log_window_change(&mut self.tracer, &mut self.body, Some(now), |body| {
            body.on_ack(&ack, rtt)
        });
    }

    fn on_end_acks(
        &mut self,
        now: Instant,
        in_flight: u64,
        app_limited: bool,
        largest_packet_num_acked: Option<u64>,
    ) {
        let batch = self
            .rtt
            .end_of_ack(now, in_flight, app_limited, largest_packet_num_acked);
        let end = EndOfAcks {
            now,
            in_flight,
            app_limited,
            largest_packet_num_acked,
        };
        self.body.on_end_acks(&mut self.tracer, batch.as_ref(), end);
    }

    fn on_congestion_event(
        &mut self,
        now: Instant,
        sent: Instant,
        is_persistent_congestion: bool,
        lost_bytes: u64,
    ) {
        let event = congestion_event(
            now,
            sent,
            is_persistent_congestion,
            lost_bytes,
            self.body.mss(),
            self.rtt.sample(),
        );
        trace::log_decision(&mut self.tracer, &mut self.body, &event, |body, before| {
            body.on_congestion(&event, before)
        });
    }

    fn on_mtu_update(&mut self, new_mtu: u16) {
        self.body.on_mtu_update(&mut self.tracer, new_mtu);
    }

    fn window(&self) -> u64 {
        self.body.window()
    }

    fn metrics(&self) -> ControllerMetrics {
        self.body.metrics()
    }

    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(self.clone())
    }

    fn initial_window(&self) -> u64 {
        self.initial_window
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// The [`CongestionEvent`] for one `on_congestion_event` call.
pub(crate) fn congestion_event(
    now: Instant,
    sent: Instant,
    persistent: bool,
    lost_bytes: u64,
    mss: u64,
    rtt: Option<RttSample>,
) -> CongestionEvent {
    CongestionEvent {
        now,
        sent,
        lost_bytes,
        lost_packets: lost_bytes.div_ceil(mss.max(1)),
        persistent,
        window_packets: 0,
        sent_in_slow_start: false,
        // A loss before any ACK (e.g. during the handshake) has no RTT evidence yet; the age of
        // the lost packet is the best available bound.
        rtt: rtt
            .unwrap_or_else(|| RttSample::flat(now.saturating_duration_since(sent).max(MIN_RTT))),
    }
}

const MIN_RTT: Duration = Duration::from_micros(1);
