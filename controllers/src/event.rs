//! The inputs every algorithm consumes and the decision it returns.
//!
//! These are the project's own small types, not quinn's: quinn's `RttEstimator` cannot be built
//! outside quinn-proto, so algorithms that took it could not be unit-tested with synthetic
//! sequences. [`crate::Adapter`] turns quinn's callbacks into these values.

use std::time::{Duration, Instant};

/// RTT figures at the moment of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RttSample {
    /// `now - sent` of the newest packet acknowledged so far by the latest ACK. It includes the
    /// receiver's ACK delay.
    pub latest: Duration,
    /// Smoothed RTT (RFC 9002 section 5.3), as it stood before the latest ACK was folded in.
    pub smoothed: Duration,
    /// Minimum RTT seen on the path.
    pub min: Duration,
    /// How long the peer held the ACK behind `latest`, as far as it is known and credited (zero
    /// otherwise; `rtt.rs`, "What is credited").
    /// quinn 0.11 does not hand the peer's ACK delay to controllers; the crate recovers it from
    /// the way quinn's estimator moves, one frame late (see the `rtt` module), so it is zero in
    /// the current frame's sample and filled in [`AckBatch::resolved`].
    pub ack_delay: Duration,
}

impl RttSample {
    /// The figures as they stand: the `latest` sample, the `smoothed` and `min` RTT, and the
    /// `ack_delay` known to be in `latest` (zero where unknown).
    pub fn new(latest: Duration, smoothed: Duration, min: Duration, ack_delay: Duration) -> Self {
        Self {
            latest,
            smoothed,
            min,
            ack_delay,
        }
    }

    /// A path whose every sample equals `rtt`: no queueing, no jitter, no ACK delay.
    pub fn flat(rtt: Duration) -> Self {
        Self {
            latest: rtt,
            smoothed: rtt,
            min: rtt,
            ack_delay: Duration::ZERO,
        }
    }

    /// The same averages with a different latest sample.
    pub fn with_latest(self, latest: Duration) -> Self {
        Self { latest, ..self }
    }

    /// The latest sample without the peer's ACK delay, never below the minimum RTT (as RFC 9002
    /// section 5.3 adjusts its samples).
    pub fn corrected(&self) -> Duration {
        self.latest
            .saturating_sub(self.ack_delay)
            .max(self.min.min(self.latest))
    }

    /// The part of the corrected sample above the minimum RTT: time spent in queues.
    pub fn queueing(&self) -> Duration {
        self.corrected().saturating_sub(self.min)
    }

    /// A forward one-way-delay hint: half the minimum RTT plus all queueing, which a data flow
    /// builds on its forward path. QUIC has no one-way delay without extensions.
    pub fn owd_hint(&self) -> Duration {
        self.min.min(self.latest) / 2 + self.queueing()
    }
}

/// One acknowledged packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Ack {
    /// When quinn delivered the acknowledgement (the callback's `now`).
    pub now: Instant,
    /// When the acknowledged packet was sent.
    pub sent: Instant,
    /// Size of the acknowledged packet.
    pub bytes: u64,
    /// The sender had no data to send before this ACK; growth would be unfounded.
    pub app_limited: bool,
    /// RTT figures as of this acknowledgement.
    pub rtt: RttSample,
}

/// The end of one ACK frame: every packet it newly acknowledged has been passed as an [`Ack`].
/// quinn calls `on_end_acks` before it folds the frame's RTT sample into its own estimator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct AckBatch {
    /// When quinn processed the frame (the callback's `now`).
    pub now: Instant,
    /// The frame's RTT sample: `latest` is `now - sent` of the newest packet it acknowledged.
    pub rtt: RttSample,
    /// Bytes newly acknowledged by the frame.
    pub acked_bytes: u64,
    /// Ack-eliciting packets newly acknowledged by the frame.
    pub acked_packets: u64,
    /// Whether the receiver owed the frame at once: it newly acknowledges more ack-eliciting
    /// packets than the sender's Ack-Eliciting Threshold ([`crate::AckElicitingThreshold`]; two
    /// or more under RFC 9000 section 13.2.2's rule), so it was sent without ACK delay.
    pub owed_at_once: bool,
    /// Bytes still in flight after the frame.
    pub in_flight: u64,
    /// The sender had no data to send.
    pub app_limited: bool,
    /// The latest earlier frame whose ACK delay has been recovered (normally the one before),
    /// `ack_delay` filled in: the sample to read where a corrected delay is wanted on every frame.
    /// `rtt` itself counts as undelayed until the next frame reveals its delay (the `rtt` module
    /// says why that is right for the frames that reveal losses).
    pub resolved: Option<RttSample>,
}

impl Ack {
    /// Packet of `bytes` bytes sent at `sent`, acknowledged at `now`; `app_limited` when the
    /// sender had nothing to send.
    pub fn new(now: Instant, sent: Instant, bytes: u64, app_limited: bool, rtt: RttSample) -> Self {
        Self {
            now,
            sent,
            bytes,
            app_limited,
            rtt,
        }
    }
}

impl AckBatch {
    /// The end of a frame processed at `now` with sample `rtt`, that newly acknowledged
    /// `acked_packets` ack-eliciting packets of `acked_bytes` bytes in all and left `in_flight`
    /// bytes in flight; `resolved` is the latest earlier sample whose ACK delay is known. The
    /// receiver is RFC 9000's, asked for no ACK frequency ([`AckBatch::owed_at_once`]).
    pub fn new(
        now: Instant,
        rtt: RttSample,
        acked_bytes: u64,
        acked_packets: u64,
        in_flight: u64,
        app_limited: bool,
        resolved: Option<RttSample>,
    ) -> Self {
        Self {
            now,
            rtt,
            acked_bytes,
            acked_packets,
            owed_at_once: crate::AckElicitingThreshold::RFC_9000.owed_at_once(acked_packets),
            in_flight,
            app_limited,
            resolved,
        }
    }
}

/// Packets declared lost by one ACK (quinn calls the controller once per ACK that reveals
/// losses), or a persistent-congestion verdict, or an ECN congestion mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CongestionEvent {
    /// When quinn declared the losses or the mark (the callback's `now`).
    pub now: Instant,
    /// When the largest lost packet was sent.
    pub sent: Instant,
    /// Bytes lost; 0 for an ECN-CE signal, which loses nothing.
    pub lost_bytes: u64,
    /// Packets lost, `ceil(lost_bytes / MSS)`.
    pub lost_packets: u64,
    /// RFC 9002 section 7.6: every packet over a period longer than the PTO-derived threshold was
    /// lost; the QUIC counterpart of TCP's retransmission timeout.
    pub persistent: bool,
    /// RTT figures at the event.
    pub rtt: RttSample,
    /// The sender's congestion window when the event arrived, in whole MSS (0 where unknown).
    pub window_packets: u64,
    /// Whether the largest lost packet was sent while the window was in slow start (false where
    /// unknown): a window that doubles loses its excess at whatever the bottleneck is.
    pub sent_in_slow_start: bool,
}

impl CongestionEvent {
    /// The event quinn's `on_congestion_event` reports: `lost_bytes` (0 for an ECN-CE mark) in
    /// packets of `mss` bytes, the largest of them sent at `sent`, and whether quinn declared
    /// persistent congestion. The window in MSS is left unknown (0).
    pub fn new(
        now: Instant,
        sent: Instant,
        persistent: bool,
        lost_bytes: u64,
        mss: u64,
        rtt: RttSample,
    ) -> Self {
        Self {
            now,
            sent,
            lost_bytes,
            lost_packets: lost_bytes.div_ceil(mss.max(1)),
            persistent,
            rtt,
            window_packets: 0,
            sent_in_slow_start: false,
        }
    }

    /// A loss of `lost_packets` full-sized packets of `mss` bytes.
    pub fn loss(now: Instant, sent: Instant, lost_packets: u64, mss: u64, rtt: RttSample) -> Self {
        Self {
            now,
            sent,
            lost_bytes: lost_packets.saturating_mul(mss),
            lost_packets,
            persistent: false,
            rtt,
            window_packets: 0,
            sent_in_slow_start: false,
        }
    }

    /// An explicit congestion signal rather than a loss.
    pub fn is_ecn(&self) -> bool {
        self.lost_bytes == 0 && !self.persistent
    }
}

/// Where a window-based controller is in its cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum State {
    /// Exponential growth: one MSS per MSS acknowledged, until `ssthresh` or a loss.
    SlowStart,
    /// Linear growth: about one MSS per window acknowledged.
    Avoidance,
    /// After a reduction, until a packet sent after it is acknowledged.
    Recovery,
}

impl State {
    /// The name the trace events use for this state: `slow-start`, `avoidance` or `recovery`.
    pub fn as_str(self) -> &'static str {
        match self {
            State::SlowStart => "slow-start",
            State::Avoidance => "avoidance",
            State::Recovery => "recovery",
        }
    }

    /// The state [`State::as_str`] names.
    pub fn parse(text: &str) -> Option<Self> {
        [State::SlowStart, State::Avoidance, State::Recovery]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

/// What a loss was taken to mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// A channel error (bit errors, handover): retransmit, keep the window.
    Random,
    /// A queue overflowed somewhere: reduce the window.
    Congestion,
}

impl Verdict {
    /// The name the trace events use for this verdict: `random` or `congestion`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Random => "random",
            Verdict::Congestion => "congestion",
        }
    }

    /// The verdict [`Verdict::as_str`] names.
    pub fn parse(text: &str) -> Option<Self> {
        [Verdict::Random, Verdict::Congestion]
            .into_iter()
            .find(|v| v.as_str() == text)
    }
}

/// Why a verdict was reached: the figures a reader (or a scoring harness) needs to check it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Evidence {
    /// The loss event's sample; `smoothed` is the average the classifier compared against where
    /// it keeps its own ([`crate::classify::TcpSrtt`]), quinn's otherwise.
    pub rtt: RttSample,
    /// The RTT (or one-way-delay hint) at or above which the classifier suspects congestion.
    pub threshold: Option<Duration>,
    /// Packets lost so far in the window this event belongs to, this event included.
    pub losses_in_window: u64,
    /// Name of the classifier rule that decided, as in the `reason` field of the trace events.
    pub reason: &'static str,
}

/// The outcome of a [`CongestionEvent`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Decision {
    /// What the loss was taken to mean.
    pub verdict: Verdict,
    /// Whether the window was reduced. A congestion verdict inside an ongoing recovery period does
    /// not reduce it again.
    pub reduced: bool,
    /// The figures the verdict was based on.
    pub evidence: Evidence,
}

impl Evidence {
    /// The evidence for a verdict reached with `threshold` on the loss event's `rtt`, the
    /// `losses_in_window`-th packet lost in its window, by the rule named `reason`.
    pub fn new(
        rtt: RttSample,
        threshold: Option<Duration>,
        losses_in_window: u64,
        reason: &'static str,
    ) -> Self {
        Self {
            rtt,
            threshold,
            losses_in_window,
            reason,
        }
    }
}

impl Decision {
    /// A `verdict`, whether the window was `reduced`, and the `evidence` behind it.
    pub fn new(verdict: Verdict, reduced: bool, evidence: Evidence) -> Self {
        Self {
            verdict,
            reduced,
            evidence,
        }
    }
}
