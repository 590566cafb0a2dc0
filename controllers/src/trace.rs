//! `tracing` events (DESIGN 2.4), target `discern::cwnd`, with fields a program can read:
//!
//! | field | on | meaning |
//! |---|---|---|
//! | `flow` | all | process-unique id of the controller instance (one per connection path) |
//! | `controller` | all | the controller's id, e.g. `composite`, `composite+quinn-cubic` |
//! | `event` | all | `window` (the window or state changed), `loss` (a loss decision) or `rtt` (an ACK frame's delay recovered) |
//! | `cwnd`, `ssthresh` | window, loss | bytes (`ssthresh` is `u64::MAX` before the first reduction) |
//! | `state` | window, loss | `slow-start`, `avoidance` or `recovery` |
//! | `verdict` | loss | `random` or `congestion` |
//! | `reduced` | loss | whether the window was reduced |
//! | `lost_packets`, `lost_bytes` | loss | this event's losses |
//! | `losses_in_window` | loss | packets lost so far in this event's window |
//! | `sent_age_us` | loss | `now - sent` of the largest lost packet |
//! | `rtt_us`, `srtt_us`, `min_rtt_us` | loss | the RTT evidence; `srtt_us` is the average the classifier compared against (the TCP-style one for `composite` and `modified-sack`, quinn's otherwise) |
//! | `threshold_us` | loss | the classifier's threshold, when it has one |
//! | `reason` | loss | the rule that decided |
//! | `frame_age_us` | rtt | `now` minus when the ACK frame whose delay was recovered was processed |
//! | `sent_age_us` | rtt | `now` minus when that frame's newest packet was sent |
//! | `rtt_us` | rtt | that frame's raw sample (ACK delay included) |
//! | `ack_delay_us` | rtt | the ACK delay recovered for it |
//! | `owd_hint_us` | rtt | its forward one-way-delay hint, ACK delay removed |
//!
//! Window events are `DEBUG`, loss decisions `INFO`, recovered ACK delays `TRACE` (one per ACK
//! frame, built only when a subscriber wants them).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tracing::Level;

use crate::event::{CongestionEvent, Decision, State};
use crate::rtt::Resolved;

pub const TARGET: &str = "discern::cwnd";

/// A process-unique id for a new controller instance.
pub(crate) fn next_flow_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// What the logs say about a controller at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Snapshot {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub state: State,
}

/// Names a controller instance in its events. A clone is another instance (quinn clones a
/// controller for a new path), so it gets a flow id of its own.
#[derive(Debug)]
pub(crate) struct Tracer {
    pub flow: u64,
    pub controller: Arc<str>,
}

impl Clone for Tracer {
    fn clone(&self) -> Self {
        Self::new(Arc::clone(&self.controller))
    }
}

impl Tracer {
    pub fn new(controller: Arc<str>) -> Self {
        Self {
            flow: next_flow_id(),
            controller,
        }
    }

    /// Emits a `window` event if anything the logs show changed.
    pub fn window_change(&self, before: Snapshot, after: Snapshot) {
        if before != after {
            tracing::event!(
                target: TARGET,
                Level::DEBUG,
                flow = self.flow,
                controller = &*self.controller,
                event = "window",
                cwnd = after.cwnd,
                ssthresh = after.ssthresh,
                state = after.state.as_str(),
            );
        }
    }

    pub fn decision(&self, event: &CongestionEvent, decision: &Decision, after: Snapshot) {
        let evidence = &decision.evidence;
        tracing::event!(
            target: TARGET,
            Level::INFO,
            flow = self.flow,
            controller = &*self.controller,
            event = "loss",
            cwnd = after.cwnd,
            ssthresh = after.ssthresh,
            state = after.state.as_str(),
            verdict = decision.verdict.as_str(),
            reduced = decision.reduced,
            lost_packets = event.lost_packets,
            lost_bytes = event.lost_bytes,
            losses_in_window = evidence.losses_in_window,
            sent_age_us = micros(event.now.saturating_duration_since(event.sent)),
            rtt_us = micros(evidence.rtt.latest),
            srtt_us = micros(evidence.rtt.smoothed),
            min_rtt_us = micros(evidence.rtt.min),
            threshold_us = evidence.threshold.map(micros),
            reason = evidence.reason,
        );
    }
}

/// Emits an `rtt` event for a frame whose ACK delay was recovered at `now`, if a subscriber wants
/// `TRACE` events of this target; otherwise costs one interest check.
pub(crate) fn rtt_resolved(tracer: &Tracer, now: std::time::Instant, frame: &Resolved) {
    if !tracing::enabled!(target: TARGET, Level::TRACE) {
        return;
    }
    tracing::event!(
        target: TARGET,
        Level::TRACE,
        flow = tracer.flow,
        controller = &*tracer.controller,
        event = "rtt",
        frame_age_us = micros(now.saturating_duration_since(frame.at)),
        sent_age_us = micros(now.saturating_duration_since(frame.sent)),
        rtt_us = micros(frame.rtt.latest),
        ack_delay_us = micros(frame.rtt.ack_delay),
        owd_hint_us = micros(frame.rtt.owd_hint()),
    );
}

/// A controller whose window the logs follow.
pub(crate) trait Traced {
    fn tracer(&self) -> &Tracer;
    fn snapshot(&self) -> Snapshot;
}

/// Runs `change` on `controller` and emits a `window` event if it changed what the logs show.
/// Most ACKs change nothing worth logging and most processes log nothing at this level, so the
/// snapshots are taken only when a subscriber wants window events.
pub(crate) fn log_window_change<T: Traced>(controller: &mut T, change: impl FnOnce(&mut T)) {
    let before = tracing::enabled!(target: TARGET, Level::DEBUG).then(|| controller.snapshot());
    change(controller);
    if let Some(before) = before {
        controller
            .tracer()
            .window_change(before, controller.snapshot());
    }
}

/// Runs `decide` on `controller` for `event` and emits the `loss` decision it returns, and a
/// `window` event if the window changed. `decide` gets the snapshot from before the event.
pub(crate) fn log_decision<T: Traced>(
    controller: &mut T,
    event: &CongestionEvent,
    decide: impl FnOnce(&mut T, Snapshot) -> Decision,
) {
    let before = controller.snapshot();
    let decision = decide(controller, before);
    let after = controller.snapshot();
    let tracer = controller.tracer();
    tracer.decision(event, &decision, after);
    tracer.window_change(before, after);
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}
