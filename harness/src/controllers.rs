//! Which congestion controller a flow's sender runs, from its id (DESIGN 2.1), through the
//! controllers crate's registry.
//!
//! quinn's own controllers emit no `discern::cwnd` events, so they are wrapped in an observer that
//! reports each congestion event in the same form, with verdict `congestion`: their decisions are
//! scored and counted like everyone else's, in both runners.

use std::any::Any;
use std::sync::Arc;
use std::time::Instant;

use quinn_proto::congestion::{Controller, ControllerFactory, ControllerMetrics};
use quinn_proto::{RttEstimator, TransportConfig};

use crate::transport::TransportError;

type Factory = Arc<dyn ControllerFactory + Send + Sync>;

/// Sets the sender's congestion controller for controller id `id` on `config`, with any
/// loss-detection setting the controller needs.
pub fn apply(id: &str, config: &mut TransportConfig) -> Result<(), TransportError> {
    let spec =
        discern::registry::parse(id).map_err(|e| TransportError::Controller(e.to_string()))?;
    spec.apply(config);
    if spec.id().starts_with("quinn-") && !spec.id().contains('+') {
        config.congestion_controller_factory(Arc::new(Observed(spec.factory())));
    }
    Ok(())
}

/// A factory whose controllers report congestion events as `discern::cwnd` loss events.
struct Observed(Factory);

impl ControllerFactory for Observed {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        Box::new(ObservedController(self.0.clone().build(now, current_mtu)))
    }
}

struct ObservedController(Box<dyn Controller>);

impl Controller for ObservedController {
    fn on_sent(&mut self, now: Instant, bytes: u64, last_packet_number: u64) {
        self.0.on_sent(now, bytes, last_packet_number)
    }

    fn on_ack(
        &mut self,
        now: Instant,
        sent: Instant,
        bytes: u64,
        app_limited: bool,
        rtt: &RttEstimator,
    ) {
        self.0.on_ack(now, sent, bytes, app_limited, rtt)
    }

    fn on_end_acks(
        &mut self,
        now: Instant,
        in_flight: u64,
        app_limited: bool,
        largest_packet_num_acked: Option<u64>,
    ) {
        self.0
            .on_end_acks(now, in_flight, app_limited, largest_packet_num_acked)
    }

    fn on_congestion_event(
        &mut self,
        now: Instant,
        sent: Instant,
        is_persistent_congestion: bool,
        lost_bytes: u64,
    ) {
        self.0
            .on_congestion_event(now, sent, is_persistent_congestion, lost_bytes);
        let m = self.0.metrics();
        let age = now.saturating_duration_since(sent).as_micros() as u64;
        tracing::debug!(
            target: "discern::cwnd",
            event = "loss",
            cwnd = m.congestion_window,
            ssthresh = m.ssthresh,
            verdict = "congestion",
            reduced = true,
            lost_bytes,
            sent_age_us = age,
            reason = "quinn controller",
        );
    }

    fn on_mtu_update(&mut self, new_mtu: u16) {
        self.0.on_mtu_update(new_mtu)
    }

    fn window(&self) -> u64 {
        self.0.window()
    }

    fn metrics(&self) -> ControllerMetrics {
        self.0.metrics()
    }

    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(ObservedController(self.0.clone_box()))
    }

    fn initial_window(&self) -> u64 {
        self.0.initial_window()
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}
