//! Loss classification, separate from the window response (ARCHITECTURE.md, "Loss
//! classification is its own piece").
//!
//! A [`Classifier`] looks at ACKs and at each loss and says `random` or `congestion`, with its
//! evidence. [`Discriminator`] adds what every classifier shares: the count of losses in the
//! current window, and the events that are congestion whatever a classifier thinks (persistent
//! congestion, ECN). The same discriminator sits inside the papers' controllers
//! ([`crate::WindowAlgorithm`]) and in front of any quinn controller
//! ([`crate::LossFilter`]).

mod backlog;
mod cen;
mod loss_by_queue;
mod loss_placement;
mod owd_threshold;
mod queue_full;
mod rtt_tolerance;
mod sack_gap_rtt;
mod short_queue;
mod tcp_srtt;

use std::fmt::Debug;
use std::time::Duration;

pub use backlog::Backlog;
pub use cen::{Spike, Trend, ZigZag};
pub use loss_by_queue::LossByQueue;
pub use loss_placement::LossRead;
pub use owd_threshold::OwdThreshold;
pub use queue_full::QueueFull;
pub use rtt_tolerance::RttTolerance;
pub use sack_gap_rtt::SackGapAndRtt;
pub(crate) use short_queue::RATE_BETA;
pub use short_queue::{LossCause, NoiseRead, PathModel, ShortQueue};
pub use tcp_srtt::TcpSrtt;

use crate::episode::LossEpisode;
use crate::event::{Ack, AckBatch, CongestionEvent, Evidence, RttSample, Verdict};

/// RTT differences below this are clock noise, not queueing (RFC 9002's `kGranularity`). The
/// papers' ns-2 runs compared RTTs in whole timer ticks, which hid the same noise.
pub const DEFAULT_GRANULARITY: Duration = Duration::from_millis(1);

/// A classifier's answer for one loss event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Classification {
    /// Whether the loss looks random or like congestion.
    pub verdict: Verdict,
    /// The RTT (or one-way-delay hint) at or above which the classifier suspects congestion, where
    /// it has one.
    pub threshold: Option<Duration>,
    /// Name of the rule that decided, as in the `reason` field of the trace events.
    pub reason: &'static str,
}

impl Classification {
    /// A `verdict` reached with `threshold` (where the classifier has one) by the rule named
    /// `reason`.
    pub fn new(verdict: Verdict, threshold: Option<Duration>, reason: &'static str) -> Self {
        Self {
            verdict,
            threshold,
            reason,
        }
    }
}

/// Tells a random loss from a congestion loss.
pub trait Classifier: Clone + Debug + Send + Sync + 'static {
    /// Sees every acknowledged packet.
    fn on_ack(&mut self, _ack: &Ack) {}

    /// Sees the end of every ACK frame with its one RTT sample, to keep averages or minima.
    fn on_ack_batch(&mut self, _batch: &AckBatch) {}

    /// Hears of an ECN congestion mark, which is congestion whatever the classifier thinks.
    fn on_ecn_mark(&mut self, _event: &CongestionEvent) {}

    /// The smoothed RTT this classifier compares against, when it keeps its own (the papers'
    /// TCP SRTT, [`TcpSrtt`]); the loss event's `srtt_us` logs it instead of quinn's.
    fn smoothed_rtt(&self) -> Option<Duration> {
        None
    }

    /// Classifies a loss event. `losses_in_window` counts the packets lost in the current window,
    /// this event included (see [`crate::episode`]).
    fn classify(&mut self, event: &CongestionEvent, losses_in_window: u64) -> Classification;
}

/// A classifier plus the shared bookkeeping of loss episodes.
#[derive(Debug, Clone)]
pub struct Discriminator<C> {
    classifier: C,
    episode: LossEpisode,
}

impl<C: Classifier> Discriminator<C> {
    /// A discriminator that asks `classifier` and counts losses per window itself.
    pub fn new(classifier: C) -> Self {
        Self {
            classifier,
            episode: LossEpisode::default(),
        }
    }

    /// The classifier, for reading its state.
    pub fn classifier(&self) -> &C {
        &self.classifier
    }

    /// The classifier, for telling it what the algorithm did.
    pub fn classifier_mut(&mut self) -> &mut C {
        &mut self.classifier
    }

    /// Passes an acknowledged packet to the classifier.
    pub fn on_ack(&mut self, ack: &Ack) {
        self.classifier.on_ack(ack);
    }

    /// Passes the end of an ACK frame to the classifier.
    pub fn on_ack_batch(&mut self, batch: &AckBatch) {
        self.classifier.on_ack_batch(batch);
    }

    /// The verdict on `event` and the evidence for it.
    pub fn judge(&mut self, event: &CongestionEvent) -> (Verdict, Evidence) {
        let losses_in_window = self.episode.record(event);
        let classification = if event.persistent {
            // A whole PTO-derived period lost is a timeout; no paper reads it as random.
            Classification {
                verdict: Verdict::Congestion,
                threshold: None,
                reason: "persistent congestion",
            }
        } else if event.is_ecn() {
            self.classifier.on_ecn_mark(event);
            Classification {
                verdict: Verdict::Congestion,
                threshold: None,
                reason: "ECN congestion mark",
            }
        } else {
            overrule_beyond_a_channel(
                self.classifier.classify(event, losses_in_window),
                event,
                losses_in_window,
            )
        };
        let mut rtt = event.rtt;
        if let Some(smoothed) = self.classifier.smoothed_rtt() {
            rtt.smoothed = smoothed;
        }
        let evidence = Evidence {
            rtt,
            threshold: classification.threshold,
            losses_in_window,
            reason: classification.reason,
        };
        (classification.verdict, evidence)
    }
}

/// More losses in one window than any random channel explains are congestion, whatever the
/// classifier read: more than half the window (and more than four packets), or more than
/// [`RECEIVER_GAP_BUDGET`] packets. No channel the papers model loses that much; a policer does
/// (no queue, so no delay rise to read), and so does a window that keeps growing past the
/// bottleneck because each of its drops looked random. The classifier still sees the event
/// first, to keep its own state.
fn overrule_beyond_a_channel(
    classification: Classification,
    event: &CongestionEvent,
    losses_in_window: u64,
) -> Classification {
    let reason = if half_window_lost(event, losses_in_window) {
        "half the window lost"
    } else if losses_in_window > RECEIVER_GAP_BUDGET {
        "more losses in one window than a receiver holds gaps for"
    } else {
        return classification;
    };
    match classification.verdict {
        Verdict::Random => Classification {
            verdict: Verdict::Congestion,
            threshold: classification.threshold,
            reason,
        },
        Verdict::Congestion => classification,
    }
}

/// Whether a window lost more than any random channel explains: the losses
/// [`overrule_beyond_a_channel`] calls congestion whatever the classifier read.
pub(crate) fn beyond_a_channel(event: &CongestionEvent, losses_in_window: u64) -> bool {
    half_window_lost(event, losses_in_window) || losses_in_window > RECEIVER_GAP_BUDGET
}

/// Whether more than half the window was lost in one window, and more than four packets (a
/// small window loses half of itself to a burst of a lossy channel's): no random channel does
/// that.
pub(crate) fn half_window_lost(event: &CongestionEvent, losses_in_window: u64) -> bool {
    lost_share_of_window(event, losses_in_window, 2)
}

/// Whether more than one `nth` of the window was lost in one window, and more than four packets
/// (a small window loses that many to a lossy channel's burst).
pub(crate) fn lost_share_of_window(
    event: &CongestionEvent,
    losses_in_window: u64,
    nth: u64,
) -> bool {
    losses_in_window > (event.window_packets / nth).max(4)
}

/// Losses in one window past which a sender must slow down for its receiver's sake, a quarter
/// of quinn's limit: a quinn receiver holds at most 1024 separate spans of a stream and closes
/// the connection on one more (quinn-proto `assembler.rs`, `MAX_CHUNKS`), and every lost packet
/// is a span until its retransmission arrives, about a round later, while the next round's
/// losses are already on their way.
pub const RECEIVER_GAP_BUDGET: u64 = 256;

/// `base + max(base * fraction, granularity)`: the RTT at which a relative deviation of
/// `fraction` is exceeded, never closer to `base` than the clock can resolve.
fn threshold_above(base: Duration, fraction: f64, granularity: Duration) -> Duration {
    let relative = Duration::try_from_secs_f64(base.as_secs_f64() * fraction.max(0.0))
        .unwrap_or(Duration::MAX);
    base.saturating_add(relative.max(granularity))
}

/// Baseline evidence for algorithms that read every loss as congestion.
pub(crate) fn loss_based_evidence(rtt: RttSample, losses_in_window: u64) -> Evidence {
    Evidence {
        rtt,
        threshold: None,
        losses_in_window,
        reason: "loss-based: every loss is congestion",
    }
}
