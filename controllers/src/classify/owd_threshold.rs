use std::time::Duration;

use super::{threshold_above, Classification, Classifier, DEFAULT_GRANULARITY};
use crate::event::{Ack, AckBatch, CongestionEvent, RttSample, Verdict};

/// Paper 002 (Pawale, Vanjale 2019, "Performance Improvement of TCP New Reno using one way delay
/// Measurement"), section IV, Fig. 3: a one-way-delay threshold `min_owd * (1 + margin)`.
///
/// The paper timestamps segments and has the receiver echo the forward one-way delay, with
/// synchronised clocks. QUIC has no one-way delay without extensions, so the hint is built from the
/// RTT (ARCHITECTURE.md, "Signals"): the base one-way delay is half the minimum RTT, and all
/// queueing seen in the RTT (`latest - min`) is charged to the forward path, which is where a data
/// flow builds its queue. `min_owd` is tracked on every ACK, as in the paper's steps 2-7; a loss
/// whose hint is below the threshold is a wireless loss and keeps the window, otherwise NewReno
/// responds.
///
/// The paper checks on the first duplicate ACK and then retransmits at once; in QUIC,
/// retransmission is always immediate on loss detection, so only the window decision is ported.
/// The hint is [`RttSample::owd_hint`], built from the sample without the peer's ACK delay: quinn
/// 0.11 does not pass that delay to controllers, the crate recovers it one frame late (see
/// [`crate::event::AckBatch::resolved`]), and the frame that reveals a loss is one a QUIC
/// receiver sends at once (RFC 9000 section 13.2.1), so its own sample carries no delay.
#[derive(Debug, Clone, PartialEq)]
pub struct OwdThreshold {
    margin: f64,
    granularity: Duration,
    min_owd: Option<Duration>,
}

impl OwdThreshold {
    /// The paper's wireless margin: "5-15 % of min_owd"; its results use 15 %.
    pub const DEFAULT_MARGIN: f64 = 0.15;

    /// A classifier whose threshold is `min_owd * (1 + margin)`, never closer to `min_owd` than
    /// `granularity` (differences below it are clock noise).
    pub fn new(margin: f64, granularity: Duration) -> Self {
        Self {
            margin,
            granularity,
            min_owd: None,
        }
    }

    /// The forward one-way-delay hint of an RTT sample, without the ACK delay known for it.
    pub fn owd_hint(rtt: &RttSample) -> Duration {
        rtt.owd_hint()
    }

    fn observe(&mut self, rtt: &RttSample) -> Duration {
        let owd = Self::owd_hint(rtt);
        let min_owd = self.min_owd.map_or(owd, |m| m.min(owd));
        self.min_owd = Some(min_owd);
        min_owd
    }
}

impl Default for OwdThreshold {
    fn default() -> Self {
        Self::new(Self::DEFAULT_MARGIN, DEFAULT_GRANULARITY)
    }
}

impl Classifier for OwdThreshold {
    fn on_ack(&mut self, ack: &Ack) {
        self.observe(&ack.rtt);
    }

    /// A delayed frame's sample, once its delay is known, may show the smallest one-way delay.
    fn on_ack_batch(&mut self, batch: &AckBatch) {
        if let Some(resolved) = &batch.resolved {
            self.observe(resolved);
        }
    }

    fn classify(&mut self, event: &CongestionEvent, _losses_in_window: u64) -> Classification {
        let min_owd = self.observe(&event.rtt);
        let threshold = threshold_above(min_owd, self.margin, self.granularity);
        let (verdict, reason) = if Self::owd_hint(&event.rtt) < threshold {
            (
                Verdict::Random,
                "one-way delay below threshold: wireless loss",
            )
        } else {
            (Verdict::Congestion, "one-way delay at or above threshold")
        };
        Classification {
            verdict,
            threshold: Some(threshold),
            reason,
        }
    }
}
