//! The one place that speaks quinn's `Controller` trait for the algorithms of this crate.

use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;
use std::time::{Duration, Instant};

use quinn_proto::congestion::{Controller, ControllerMetrics};
use quinn_proto::RttEstimator;

use crate::event::{Ack, AckBatch, CongestionEvent, Decision, RttSample};
use crate::rtt::RttTracker;
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

/// Turns quinn's `Controller` callbacks into [`Algorithm`] inputs and logs what changes.
///
/// A future quinn release that changes the trait touches only this type (and
/// [`crate::LossFilter`]).
#[derive(Debug, Clone)]
pub struct Adapter<A> {
    algorithm: A,
    rtt: RttTracker,
    tracer: Tracer,
    initial_window: u64,
}

impl<A: Algorithm> Adapter<A> {
    /// `controller` names it in the logs; `now` is when quinn built it (the logs' time zero).
    pub fn new(
        controller: impl Into<Arc<str>>,
        algorithm: A,
        initial_window: u64,
        now: Instant,
    ) -> Self {
        Self {
            algorithm,
            rtt: RttTracker::new(),
            tracer: Tracer::new(controller.into(), now),
            initial_window,
        }
    }

    /// The algorithm's state, e.g. to inspect it after `into_any()` and a downcast.
    pub fn algorithm(&self) -> &A {
        &self.algorithm
    }

    /// The id this controller's `tracing` events carry in their `flow` field.
    pub fn flow_id(&self) -> u64 {
        self.tracer.flow
    }

    /// The registry id of the controller, e.g. `"tahoe"`. Several controllers share one type
    /// (Tahoe, Reno, NewReno and SACK-Few are all `Adapter<LossBasedAlgorithm>`); after
    /// `into_any()` and a downcast this tells them apart.
    pub fn id(&self) -> &str {
        &self.tracer.controller
    }
}

impl<A: Algorithm> Traced for Adapter<A> {
    fn tracer(&self) -> &Tracer {
        &self.tracer
    }

    fn tracer_mut(&mut self) -> &mut Tracer {
        &mut self.tracer
    }

    fn snapshot(&self) -> Snapshot {
        let window = self.algorithm.window();
        Snapshot {
            cwnd: window.cwnd(),
            ssthresh: window.ssthresh(),
            state: window.state(),
        }
    }
}

impl<A: Algorithm> Controller for Adapter<A> {
    fn on_ack(
        &mut self,
        now: Instant,
        sent: Instant,
        bytes: u64,
        app_limited: bool,
        rtt: &RttEstimator,
    ) {
        self.tracer.acked(bytes);
        trace::log_window_change(self, Some(now), |this| {
            let ack = this
                .rtt
                .ack(now, sent, bytes, app_limited, rtt, &this.tracer);
            this.algorithm.on_ack(&ack);
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
        if let Some(batch) = batch {
            trace::log_window_change(self, Some(now), |this| this.algorithm.on_ack_batch(&batch));
        }
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
            self.algorithm.window().mss(),
            self.rtt.sample(),
        );
        trace::log_decision(self, &event, |this, _| this.algorithm.on_congestion(&event));
    }

    fn on_mtu_update(&mut self, new_mtu: u16) {
        trace::log_window_change(self, None, |this| {
            this.algorithm.on_mss_update(u64::from(new_mtu))
        });
    }

    /// quinn holds back a packet when `in_flight + packet_size >= window`, so a window of exactly
    /// N MSS would let only N - 1 packets out, and Tahoe's 1-MSS restart window none at all. One
    /// byte more makes N MSS mean N packets in flight, as cwnd does in TCP and in the papers.
    fn window(&self) -> u64 {
        self.algorithm.window().cwnd().saturating_add(1)
    }

    /// The same window quinn enforces (`cwnd + 1`, see [`Controller::window`]), so that quinn's
    /// `PathStats::cwnd` and qlog agree; the crate's `tracing` events show `cwnd` itself.
    fn metrics(&self) -> ControllerMetrics {
        let mut metrics = ControllerMetrics::default();
        metrics.congestion_window = self.window();
        metrics.ssthresh = Some(self.algorithm.window().ssthresh());
        metrics
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
        // A loss before any ACK (e.g. during the handshake) has no RTT evidence yet; the age of
        // the lost packet is the best available bound.
        rtt: rtt
            .unwrap_or_else(|| RttSample::flat(now.saturating_duration_since(sent).max(MIN_RTT))),
    }
}

const MIN_RTT: Duration = Duration::from_micros(1);
