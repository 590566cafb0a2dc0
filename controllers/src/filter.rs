//! A loss classifier in front of any quinn controller (ARCHITECTURE.md, "Loss classification is
//! its own piece"). No paper offers this.

use std::sync::Arc;
use std::time::Instant;

use quinn_proto::congestion::{Controller, ControllerFactory, ControllerMetrics};
use quinn_proto::RttEstimator;

use crate::adapter::{Adapter, Body, EndOfAcks};
use crate::classify::{Classifier, Discriminator};
use crate::event::{Ack, AckBatch, CongestionEvent, Decision, State, Verdict};
use crate::trace::{self, Snapshot, Traced, Tracer};
use crate::AckElicitingThreshold;

/// Factory for [`LossFilter`]: `classifier` judges every loss, `inner` builds the controller that
/// sees the ACKs and the losses judged as congestion. Id form `CLASSIFIER+INNER`, e.g.
/// `composite+quinn-cubic`.
pub struct LossFilterConfig<C> {
    id: Arc<str>,
    classifier: C,
    inner: Arc<dyn ControllerFactory + Send + Sync>,
    ack_eliciting_threshold: AckElicitingThreshold,
}

/// quinn's factories have no `Debug`; the id names the inner one.
impl<C: Classifier> std::fmt::Debug for LossFilterConfig<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LossFilterConfig")
            .field("id", &self.id)
            .field("classifier", &self.classifier)
            .finish_non_exhaustive()
    }
}

impl<C: Classifier> LossFilterConfig<C> {
    /// `id` names the combination in `tracing` events (e.g. `"composite+quinn-cubic"`);
    /// `classifier` is the fresh state every new connection starts from.
    pub fn new(
        id: impl Into<Arc<str>>,
        classifier: C,
        inner: Arc<dyn ControllerFactory + Send + Sync>,
    ) -> Self {
        Self {
            id: id.into(),
            classifier,
            inner,
            ack_eliciting_threshold: AckElicitingThreshold::RFC_9000,
        }
    }

    /// The Ack-Eliciting Threshold the sender asked its receiver for, where it negotiated ACK
    /// frequency (default: RFC 9000's receiver, asked nothing): the frames the receiver owed at
    /// once are credited no ACK Delay. This sets the filter's own tracker; a controller of this
    /// crate inside it keeps its own, set on its config
    /// ([`crate::registry::ControllerSpec::with_ack_eliciting_threshold`] sets both).
    pub fn ack_eliciting_threshold(&mut self, threshold: AckElicitingThreshold) -> &mut Self {
        self.ack_eliciting_threshold = threshold;
        self
    }
}

impl<C: Classifier> ControllerFactory for LossFilterConfig<C> {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        let inner = self.inner.clone().build(now, current_mtu);
        // quinn's controllers report their configured initial window, which never changes.
        let initial_window = inner.initial_window();
        let filter = LossFilterBody {
            inner,
            discriminator: Discriminator::new(self.classifier.clone()),
            mss: u64::from(current_mtu),
        };
        Box::new(
            Adapter::with_body(self.id.clone(), filter, initial_window, now)
                .with_ack_eliciting_threshold(self.ack_eliciting_threshold),
        )
    }
}

/// Forwards every callback to `inner` except losses classified as random: those are
/// retransmitted by QUIC as always, but the inner controller never hears of them. Persistent
/// congestion and ECN marks always pass. The shared [`Adapter`] keeps the RTT tracker and the
/// tracer, as for every controller of this crate.
pub type LossFilter<C> = Adapter<LossFilterBody<C>>;

/// The body of a [`LossFilter`]: the classifier and the quinn controller it guards.
pub struct LossFilterBody<C> {
    inner: Box<dyn Controller>,
    discriminator: Discriminator<C>,
    mss: u64,
}

/// quinn's controllers have no `Debug`; the window stands in for the inner one.
impl<C: Classifier> std::fmt::Debug for LossFilterBody<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LossFilterBody")
            .field("inner_window", &self.inner.window())
            .field("discriminator", &self.discriminator)
            .finish_non_exhaustive()
    }
}

impl<C: Classifier> Clone for LossFilterBody<C> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone_box(),
            discriminator: self.discriminator.clone(),
            mss: self.mss,
        }
    }
}

impl<C: Classifier> Adapter<LossFilterBody<C>> {
    /// The controller behind the filter.
    pub fn inner(&self) -> &dyn Controller {
        self.body().inner.as_ref()
    }
}

impl<C: Classifier> Traced for LossFilterBody<C> {
    fn snapshot(&self) -> Snapshot {
        let metrics = self.inner.metrics();
        let ssthresh = metrics.ssthresh.unwrap_or(u64::MAX);
        Snapshot {
            cwnd: metrics.congestion_window,
            ssthresh,
            // The inner controller's phases are its own; slow start vs avoidance is what ssthresh
            // shows when it reports one.
            state: if metrics.congestion_window < ssthresh {
                State::SlowStart
            } else {
                State::Avoidance
            },
        }
    }
}

impl<C: Classifier> Body for LossFilterBody<C> {
    fn on_sent(&mut self, now: Instant, bytes: u64, last_packet_number: u64) {
        self.inner.on_sent(now, bytes, last_packet_number);
    }

    fn on_ack(&mut self, ack: &Ack, estimator: &RttEstimator) {
        self.discriminator.on_ack(ack);
        self.inner
            .on_ack(ack.now, ack.sent, ack.bytes, ack.app_limited, estimator);
    }

    fn on_end_acks(&mut self, tracer: &mut Tracer, batch: Option<&AckBatch>, end: EndOfAcks) {
        if let Some(batch) = batch {
            self.discriminator.on_ack_batch(batch);
        }
        trace::log_window_change(tracer, self, Some(end.now), |this| {
            this.inner.on_end_acks(
                end.now,
                end.in_flight,
                end.app_limited,
                end.largest_packet_num_acked,
            )
        });
    }

    fn on_congestion(&mut self, event: &CongestionEvent, before: Snapshot) -> Decision {
        let event = CongestionEvent {
            window_packets: self.inner.window() / self.mss.max(1),
            ..*event
        };
        let (verdict, evidence) = self.discriminator.judge(&event);
        if verdict == Verdict::Congestion {
            self.inner.on_congestion_event(
                event.now,
                event.sent,
                event.persistent,
                event.lost_bytes,
            );
        }
        Decision {
            verdict,
            reduced: self.snapshot().cwnd < before.cwnd,
            evidence,
        }
    }

    fn mss(&self) -> u64 {
        self.mss
    }

    fn on_mtu_update(&mut self, _tracer: &mut Tracer, new_mtu: u16) {
        self.mss = u64::from(new_mtu);
        self.inner.on_mtu_update(new_mtu);
    }

    fn window(&self) -> u64 {
        self.inner.window()
    }

    fn metrics(&self) -> ControllerMetrics {
        self.inner.metrics()
    }
}
