//! The per-ACK RTT sample DESIGN 2.2 prescribes, built from quinn's callbacks.

use std::time::Instant;

use quinn_proto::RttEstimator;

use crate::event::{Ack, AckBatch, RttSample};

/// quinn calls `on_ack` once per acknowledged packet, oldest first, all with the same `now`,
/// and folds the ACK's RTT sample into its estimator only after the last of them. The sample for
/// an ACK is therefore `now - sent` of the newest packet it acknowledges, and the estimator seen
/// during those calls still holds the averages from before it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RttTracker {
    /// `(now, sent)` of the newest packet acknowledged by the current ACK.
    newest: Option<(Instant, Instant)>,
    sample: Option<RttSample>,
    /// Bytes and packets acknowledged so far by the current ACK.
    acked_bytes: u64,
    acked_packets: u64,
}

impl RttTracker {
    pub fn new() -> Self {
        Self {
            newest: None,
            sample: None,
            acked_bytes: 0,
            acked_packets: 0,
        }
    }

    /// The [`Ack`] for one `on_ack` callback, with this ACK's RTT sample.
    pub fn ack(
        &mut self,
        now: Instant,
        sent: Instant,
        bytes: u64,
        app_limited: bool,
        estimator: &RttEstimator,
    ) -> Ack {
        let rtt = self.on_ack(now, sent, estimator);
        self.acked_bytes = self.acked_bytes.saturating_add(bytes);
        self.acked_packets += 1;
        Ack {
            now,
            sent,
            bytes,
            app_limited,
            rtt,
        }
    }

    /// The [`AckBatch`] for one `on_end_acks` callback: the frame's sample once all its packets
    /// were seen. `None` if the frame acknowledged no packet this tracker saw (quinn passes only
    /// ack-eliciting packets to `on_ack`).
    pub fn end_of_ack(
        &mut self,
        now: Instant,
        in_flight: u64,
        app_limited: bool,
    ) -> Option<AckBatch> {
        let acked_bytes = std::mem::take(&mut self.acked_bytes);
        let acked_packets = std::mem::take(&mut self.acked_packets);
        if acked_packets == 0 {
            return None;
        }
        Some(AckBatch {
            now,
            rtt: self.sample?,
            acked_bytes,
            acked_packets,
            in_flight,
            app_limited,
        })
    }

    fn on_ack(&mut self, now: Instant, sent: Instant, estimator: &RttEstimator) -> RttSample {
        let newer = match self.newest {
            Some((ack_time, newest_sent)) if ack_time == now => sent >= newest_sent,
            _ => true,
        };
        let smoothed = estimator.get();
        let mut latest = self.sample.map_or(smoothed, |s| s.latest);
        if newer {
            self.newest = Some((now, sent));
            latest = now.saturating_duration_since(sent);
        }
        let sample = RttSample {
            latest,
            smoothed,
            // quinn's minimum starts at the configured initial RTT until the first sample.
            min: estimator.min().min(latest),
            ack_delay: std::time::Duration::ZERO,
        };
        self.sample = Some(sample);
        sample
    }

    /// The latest sample; before any ACK, none exists and the caller supplies a fallback.
    pub fn sample(&self) -> Option<RttSample> {
        self.sample
    }
}
