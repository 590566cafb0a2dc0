//! The per-ACK RTT sample DESIGN 2.2 prescribes, built from quinn's callbacks.

use std::time::Instant;

use quinn_proto::RttEstimator;

use crate::event::{Ack, RttSample};

/// quinn calls `on_ack` once per acknowledged packet, oldest first, all with the same `now`,
/// and folds the ACK's RTT sample into its estimator only after the last of them. The sample for
/// an ACK is therefore `now - sent` of the newest packet it acknowledges, and the estimator seen
/// during those calls still holds the averages from before it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RttTracker {
    /// `(now, sent)` of the newest packet acknowledged by the current ACK.
    newest: Option<(Instant, Instant)>,
    sample: Option<RttSample>,
}

impl RttTracker {
    pub fn new() -> Self {
        Self {
            newest: None,
            sample: None,
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
        Ack {
            now,
            sent,
            bytes,
            app_limited,
            rtt: self.on_ack(now, sent, estimator),
        }
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
        };
        self.sample = Some(sample);
        sample
    }

    /// The latest sample; before any ACK, none exists and the caller supplies a fallback.
    pub fn sample(&self) -> Option<RttSample> {
        self.sample
    }
}
