//! A loss classifier in front of any quinn controller (ARCHITECTURE.md, "Loss classification is
//! its own piece"). No paper offers this.

use std::any::Any;
use std::sync::Arc;
use std::time::Instant;

use quinn_proto::congestion::{Controller, ControllerFactory, ControllerMetrics};
use quinn_proto::RttEstimator;

use crate::adapter::congestion_event;
use crate::classify::{Classifier, Discriminator};
use crate::event::{Decision, State, Verdict};
use crate::rtt::RttTracker;
use crate::trace::{self, Snapshot, Traced, Tracer};

/// Factory for [`LossFilter`]: `classifier` judges every loss, `inner` builds the controller that
/// sees the ACKs and the losses judged as congestion. Id form `CLASSIFIER+INNER`, e.g.
/// `composite+quinn-cubic`.
pub struct LossFilterConfig<C> {
    id: Arc<str>,
    classifier: C,
    inner: Arc<dyn ControllerFactory + Send + Sync>,
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
        }
    }
}

impl<C: Classifier> ControllerFactory for LossFilterConfig<C> {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        Box::new(LossFilter {
            inner: self.inner.clone().build(now, current_mtu),
            discriminator: Discriminator::new(self.classifier.clone()),
            rtt: RttTracker::new(),
            tracer: Tracer::new(self.id.clone(), now),
            mss: u64::from(current_mtu),
        })
    }
}

/// Forwards every callback to `inner` except losses classified as random: those are
/// retransmitted by QUIC as always, but the inner controller never hears of them. Persistent
/// congestion and ECN marks always pass.
pub struct LossFilter<C> {
    inner: Box<dyn Controller>,
    discriminator: Discriminator<C>,
    rtt: RttTracker,
    tracer: Tracer,
    mss: u64,
}

/// quinn's controllers have no `Debug`; the window stands in for the inner one.
impl<C: Classifier> std::fmt::Debug for LossFilter<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LossFilter")
            .field("id", &self.id())
            .field("flow_id", &self.flow_id())
            .field("inner_window", &self.inner.window())
            .field("discriminator", &self.discriminator)
            .field("rtt", &self.rtt)
            .finish_non_exhaustive()
    }
}

impl<C: Classifier> LossFilter<C> {
    /// The controller behind the filter.
    pub fn inner(&self) -> &dyn Controller {
        self.inner.as_ref()
    }

    /// The id of the combination, e.g. `"composite+quinn-cubic"`.
    pub fn id(&self) -> &str {
        &self.tracer.controller
    }

    /// The id this filter's `tracing` events carry in their `flow` field.
    pub fn flow_id(&self) -> u64 {
        self.tracer.flow
    }
}

impl<C: Classifier> Traced for LossFilter<C> {
    fn tracer(&self) -> &Tracer {
        &self.tracer
    }

    fn tracer_mut(&mut self) -> &mut Tracer {
        &mut self.tracer
    }

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

impl<C: Classifier> Controller for LossFilter<C> {
    fn on_sent(&mut self, now: Instant, bytes: u64, last_packet_number: u64) {
        self.inner.on_sent(now, bytes, last_packet_number);
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
        trace::log_window_change(self, Some(now), |this| {
            let ack = this
                .rtt
                .ack(now, sent, bytes, app_limited, rtt, &this.tracer);
            this.discriminator.on_ack(&ack);
            this.inner.on_ack(now, sent, bytes, app_limited, rtt);
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
            self.discriminator.on_ack_batch(&batch);
        }
        trace::log_window_change(self, Some(now), |this| {
            this.inner
                .on_end_acks(now, in_flight, app_limited, largest_packet_num_acked)
        });
    }

    fn on_congestion_event(
        &mut self,
        now: Instant,
        sent: Instant,
        is_persistent_congestion: bool,
        lost_bytes: u64,
    ) {
        let mut event = congestion_event(
            now,
            sent,
            is_persistent_congestion,
            lost_bytes,
            self.mss,
            self.rtt.sample(),
        );
        event.window_packets = self.inner.window() / self.mss.max(1);
        trace::log_decision(self, &event, |this, before| {
            let (verdict, evidence) = this.discriminator.judge(&event);
            if verdict == Verdict::Congestion {
                this.inner
                    .on_congestion_event(now, sent, is_persistent_congestion, lost_bytes);
            }
            Decision {
                verdict,
                reduced: this.snapshot().cwnd < before.cwnd,
                evidence,
            }
        });
    }

    fn on_mtu_update(&mut self, new_mtu: u16) {
        self.mss = u64::from(new_mtu);
        self.inner.on_mtu_update(new_mtu);
    }

    fn window(&self) -> u64 {
        self.inner.window()
    }

    fn metrics(&self) -> ControllerMetrics {
        self.inner.metrics()
    }

    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(Self {
            inner: self.inner.clone_box(),
            discriminator: self.discriminator.clone(),
            rtt: self.rtt,
            tracer: self.tracer.clone(),
            mss: self.mss,
        })
    }

    fn initial_window(&self) -> u64 {
        self.inner.initial_window()
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}
