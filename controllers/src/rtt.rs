//! The per-ACK RTT sample (ARCHITECTURE.md, "Signals"), built from quinn's callbacks, and the
//! peer's ACK delay recovered from the way quinn's estimator moves.
//!
//! # Recovering the ACK delay
//!
//! quinn 0.11 (`Connection::on_ack_received`) handles one ACK frame as: `on_ack` for every newly
//! acknowledged ack-eliciting packet, oldest first, then `on_end_acks`, and only then, if the
//! frame's largest acknowledged packet number is new and an ack-eliciting packet was newly
//! acknowledged, `RttEstimator::update(ack_delay, latest)` with `latest = now - sent` of the
//! largest acknowledged packet. That update (RFC 9002 section 5.3) is
//!
//! ```text
//! adjusted = latest - ack_delay   if min + ack_delay <= latest,   else latest
//! smoothed = (7 * smoothed + adjusted) / 8                         (the first sample: latest)
//! ```
//!
//! Controllers never see `ack_delay`, but they see the estimator in every `on_ack`: the smoothed
//! RTT read in the next frame's first `on_ack` (`after`) and the one read during the frame itself
//! (`before`) give `adjusted = 8 * after - 7 * before`, hence `ack_delay = latest - adjusted`
//! ([`recover_ack_delay`]; exact to a few nanoseconds of integer division). The delay of a frame
//! is therefore known one frame later. [`RttTracker`] predicts when quinn updated (a new largest
//! packet number at `on_end_acks`, at least one `on_ack` in the frame), keeps the figures of the
//! frame awaiting its delay, and resolves them at the next frame.
//!
//! # The current frame
//!
//! While a frame's own delay is unknown, its sample counts as undelayed (`ack_delay` zero), and
//! that is what [`RttSample::corrected`] and the hints built on it see during the frame and at a
//! loss it reveals. That is right where it matters: a QUIC receiver acknowledges at once a packet
//! that arrives after a gap (RFC 9000 section 13.2.1) and every second ack-eliciting packet
//! (section 13.2.2), so the frames that reveal losses, and the frames of a bulk transfer, carry
//! (almost) no delay; it is the lone packet at the end of a flight whose ACK waits for the
//! receiver's timer. Consumers that need a corrected delay on every frame read
//! [`AckBatch::resolved`]: the latest earlier frame with its delay recovered, one frame late.
//!
//! # What is credited
//!
//! A receiver holds an ACK only while it waits for a reason to send one. RFC 9000 section 13.2.2
//! has it send at once on its second ack-eliciting packet; a sender that negotiated ACK frequency
//! (draft-ietf-quic-ack-frequency section 4) has asked it to send once it holds more than the
//! Ack-Eliciting Threshold it chose ([`AckElicitingThreshold`], 1 for RFC 9000's rule). So a
//! frame that newly acknowledges more packets than the threshold was due the moment its newest
//! packet arrived: it is credited no delay, whatever it claims. Only a frame that acknowledges
//! fewer can have waited for the receiver's timer, and it can have waited no longer than the time
//! since the receiver sent its previous frame: the frame's newest packet is new, so it arrived
//! after that previous frame left (an ACK frame acknowledges everything received before it). The
//! sender sees that interval, give or take the return path's delay variation, as the time between
//! the two frames' arrivals. The delay a classifier is given ([`RttSample::ack_delay`] of
//! [`AckBatch::resolved`]) is the recovered one within those two bounds ([`credited_ack_delay`]).
//!
//! An honest receiver never reports more. A receiver that inflates its ACK Delay to make a queue
//! look like noise (an optimistic-ACK attack on the delay signal, RFC 9000 section 21.4) gains
//! nothing on the frames of a bulk transfer under RFC 9000's rule, and at most one frame
//! interval, a packet time or two on a busy path, on a timer-driven frame's. A larger threshold
//! widens that: a receiver may then hold up to the threshold's packets on every frame, and a liar
//! gains up to a frame interval, about that many packet times, on each. The threshold is the
//! sender's own request, not anything the receiver says, so a liar cannot raise it; but it is a
//! request, which quinn sends only to a peer that announced ACK frequency support (its
//! `min_ack_delay`), and which takes effect a round trip later: a sender should tell its
//! controller the threshold only where the peer takes it. A sender that asked for one but does
//! not tell its controller ([`AckElicitingThreshold`] on every config) costs an honest receiver
//! the delay of its timer-driven frames of several packets, which then reads as queue; so does a
//! receiver that decimates its ACKs unasked (s2n-quic acknowledges every tenth packet). The claim
//! itself stays in [`Resolved::claimed`], which the `rtt` trace event reports beside what was
//! credited.
//!
//! # What cannot be recovered
//!
//! The packets a frame acknowledges that a lost frame acknowledged first: the sender counts them
//! as newly acknowledged, so an honest frame its receiver's timer held can count more packets than
//! the threshold after a lost ACK, and is then credited no delay.
//!
//! A delay quinn did not subtract: when `min + ack_delay > latest`, which happens when quinn's
//! minimum RTT itself holds an ACK delay (on a slow path where every ACK waits for the
//! receiver's timer, e.g. a 1 ms `max_ack_delay` and packets more than 1 ms apart). quinn's
//! estimator then moves by the raw sample, and the recovered delay is zero. The simulator
//! measures how often this happens (`delay_signals` in `summary.json`).
use std::time::{Duration, Instant};

use quinn_proto::RttEstimator;

use crate::event::{Ack, AckBatch, RttSample};

/// The Ack-Eliciting Threshold a sender asked its peer for (draft-ietf-quic-ack-frequency section
/// 4, the field of its ACK_FREQUENCY frame): the receiver acknowledges at once when it has received
/// more than this many ack-eliciting packets since its last ACK. A receiver asked for nothing
/// should follow RFC 9000 section 13.2.2, "at least two", which is threshold 1
/// ([`Self::RFC_9000`], the default). A controller credits no ACK Delay to a frame that
/// acknowledges more, so a receiver that decimates its ACKs unasked has its timer-held frames
/// read as queue (module documentation, "What is credited").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckElicitingThreshold(u64);

impl AckElicitingThreshold {
    /// RFC 9000's receiver: an ACK at once on the second ack-eliciting packet.
    pub const RFC_9000: Self = Self(1);

    /// The threshold as it goes on the wire (quinn's `AckFrequencyConfig::ack_eliciting_threshold`
    /// takes the same number): 0 asks for an ACK on every ack-eliciting packet.
    pub const fn new(packets: u64) -> Self {
        Self(packets)
    }

    /// Whether a frame that newly acknowledges `acked_packets` ack-eliciting packets was owed at
    /// once on its newest one.
    pub(crate) fn owed_at_once(self, acked_packets: u64) -> bool {
        acked_packets > self.0
    }
}

impl Default for AckElicitingThreshold {
    fn default() -> Self {
        Self::RFC_9000
    }
}

/// A frame quinn folded into its estimator (or the tracker expects it did), with the figures its
/// ACK delay will be recovered from.
#[derive(Debug, Clone, Copy)]
struct Awaiting {
    /// When the sender processed the frame.
    at: Instant,
    /// When the frame's newest packet was sent.
    sent: Instant,
    /// The frame's raw sample.
    latest: Duration,
    /// quinn's smoothed RTT while the frame was processed, before the frame's update.
    smoothed_before: Duration,
    /// Whether this update is the estimator's first, which sets rather than averages.
    first: bool,
    /// The interval since the frame before it that set a new largest packet number: the longest
    /// the receiver can have held this one.
    since_previous: Option<Duration>,
    /// Ack-eliciting packets the frame newly acknowledged.
    acked_packets: u64,
}

/// One frame whose ACK delay has been recovered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Resolved {
    /// When the sender processed the frame.
    pub at: Instant,
    /// When the frame's newest packet was sent.
    pub sent: Instant,
    /// The frame's sample, `ack_delay` filled in with the delay credited: the recovered one, at
    /// most the interval since the frame before (see the module documentation).
    pub rtt: RttSample,
    /// The ACK delay recovered from quinn's estimator: what the receiver reported, as far as
    /// quinn applied it.
    pub claimed: Duration,
}

/// Builds one RTT sample per ACK frame and recovers the frame's ACK delay one frame later (see
/// the module documentation).
#[derive(Debug, Clone, Copy)]
pub(crate) struct RttTracker {
    /// `(now, sent)` of the newest packet acknowledged by the current ACK.
    newest: Option<(Instant, Instant)>,
    sample: Option<RttSample>,
    /// Bytes and packets acknowledged so far by the current ACK.
    acked_bytes: u64,
    acked_packets: u64,
    /// quinn's smoothed RTT as read in the current frame's first `on_ack`.
    frame_smoothed: Option<Duration>,
    /// The largest packet number quinn reported at the last `on_end_acks`.
    largest_acked: Option<u64>,
    /// Whether quinn has folded a sample into its estimator yet.
    estimator_primed: bool,
    awaiting: Option<Awaiting>,
    resolved: Option<Resolved>,
    /// When the sender processed the latest frame that set a new largest packet number: the
    /// next such frame's ACK delay is credited up to the interval since.
    previous_frame_at: Option<Instant>,
    /// What the sender asked of its receiver: the frames it owes at once are credited no delay.
    threshold: AckElicitingThreshold,
}

impl RttTracker {
    /// A tracker for a sender that asked its receiver for `threshold`.
    pub fn new(threshold: AckElicitingThreshold) -> Self {
        Self {
            newest: None,
            sample: None,
            acked_bytes: 0,
            acked_packets: 0,
            frame_smoothed: None,
            largest_acked: None,
            estimator_primed: false,
            awaiting: None,
            resolved: None,
            previous_frame_at: None,
            threshold,
        }
    }

    /// The [`Ack`] for one `on_ack` callback, with this ACK's RTT sample. The first call of a
    /// frame resolves the ACK delay of the frame before and returns it too, for the caller to
    /// trace: the tracker only measures.
    pub fn ack(
        &mut self,
        now: Instant,
        sent: Instant,
        bytes: u64,
        app_limited: bool,
        estimator: &RttEstimator,
    ) -> (Ack, Option<Resolved>) {
        let mut resolved = None;
        if self.frame_smoothed.is_none() {
            self.frame_smoothed = Some(estimator.get());
            resolved = self.resolve(estimator);
        }
        let rtt = self.on_ack(now, sent, estimator);
        self.acked_bytes = self.acked_bytes.saturating_add(bytes);
        self.acked_packets += 1;
        let ack = Ack {
            now,
            sent,
            bytes,
            app_limited,
            rtt,
        };
        (ack, resolved)
    }

    /// The [`AckBatch`] for one `on_end_acks` callback: the frame's sample once all its packets
    /// were seen. `None` if the frame acknowledged no packet this tracker saw (quinn passes only
    /// ack-eliciting packets to `on_ack`). `largest_acked` is quinn's largest acknowledged packet
    /// number, from which the tracker predicts whether quinn updates its estimator next.
    pub fn end_of_ack(
        &mut self,
        now: Instant,
        in_flight: u64,
        app_limited: bool,
        largest_acked: Option<u64>,
    ) -> Option<AckBatch> {
        let acked_bytes = std::mem::take(&mut self.acked_bytes);
        let acked_packets = std::mem::take(&mut self.acked_packets);
        let frame_smoothed = self.frame_smoothed.take();
        // Packet numbers only grow within a number space; a change is a new largest (or, during
        // the handshake, another space, whose samples quinn takes with no ACK delay).
        let new_largest = largest_acked.is_some() && largest_acked != self.largest_acked;
        self.largest_acked = largest_acked.or(self.largest_acked);
        if acked_packets == 0 {
            return None;
        }
        let sample = self.sample?;
        if let (true, Some(smoothed_before), Some((at, sent))) =
            (new_largest, frame_smoothed, self.newest)
        {
            self.awaiting = Some(Awaiting {
                at,
                sent,
                latest: sample.latest,
                smoothed_before,
                first: !self.estimator_primed,
                since_previous: self
                    .previous_frame_at
                    .map(|p| at.saturating_duration_since(p)),
                acked_packets,
            });
            self.previous_frame_at = Some(at);
            self.estimator_primed = true;
        }
        Some(AckBatch {
            now,
            rtt: sample,
            acked_bytes,
            acked_packets,
            owed_at_once: self.threshold.owed_at_once(acked_packets),
            in_flight,
            app_limited,
            resolved: self.resolved.map(|r| r.rtt),
        })
    }

    /// Recovers the delay of the frame awaiting it from the estimator as quinn left it.
    fn resolve(&mut self, estimator: &RttEstimator) -> Option<Resolved> {
        let awaiting = self.awaiting.take()?;
        let after = estimator.get();
        // `conservative()` is `max(smoothed, latest)`: above the average it is quinn's own
        // `latest`, which may be a non-ack-eliciting packet's sample the tracker never saw.
        let conservative = estimator.conservative();
        let latest = if conservative > after {
            conservative
        } else {
            awaiting.latest
        };
        let min = estimator.min().min(latest);
        let claimed = if awaiting.first {
            // quinn's first sample sets the average to the raw sample and applies no delay.
            Some(Duration::ZERO)
        } else {
            recover_ack_delay(awaiting.smoothed_before, after, latest, min)
        };
        // A frame whose figures do not fit quinn's rule (the prediction of an update was wrong)
        // counts as undelayed, as the current frame does.
        let claimed = claimed.unwrap_or(Duration::ZERO);
        let resolved = Resolved {
            at: awaiting.at,
            sent: awaiting.sent,
            rtt: RttSample {
                latest,
                smoothed: awaiting.smoothed_before,
                min,
                ack_delay: credited_ack_delay(
                    claimed,
                    awaiting.since_previous,
                    self.threshold.owed_at_once(awaiting.acked_packets),
                ),
            },
            claimed,
        };
        self.resolved = Some(resolved);
        Some(resolved)
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
            // Not known before the next frame; see the module documentation.
            ack_delay: Duration::ZERO,
        };
        self.sample = Some(sample);
        sample
    }

    /// The latest sample; before any ACK, none exists and the caller supplies a fallback.
    pub fn sample(&self) -> Option<RttSample> {
        self.sample
    }
}

/// The part of a frame's `claimed` ACK delay a classifier may take out of its sample: none if the
/// receiver `owed_at_once` the frame (it newly acknowledged more packets than the sender's
/// [`AckElicitingThreshold`]), else at most `since_previous`, the interval since the frame before
/// it (see the module documentation). The first frame has no interval to bound it, and quinn
/// applies no delay to its sample anyway.
pub fn credited_ack_delay(
    claimed: Duration,
    since_previous: Option<Duration>,
    owed_at_once: bool,
) -> Duration {
    if owed_at_once {
        return Duration::ZERO;
    }
    since_previous.map_or(claimed, |most| claimed.min(most))
}

/// The ACK delay quinn subtracted from one frame's sample `latest`, from its smoothed RTT
/// `before` and `after` that frame's update and its minimum RTT `min` after it:
/// `latest - (8 * after - 7 * before)`. `None` if the figures cannot come from quinn's update
/// rule (the subtracted delay is at most `latest - min`, and the smoothed RTT moved at all only
/// if an update happened); a few nanoseconds of integer-division rounding are absorbed.
pub fn recover_ack_delay(
    before: Duration,
    after: Duration,
    latest: Duration,
    min: Duration,
) -> Option<Duration> {
    // `(7 * before + adjusted) / 8` truncates to whole nanoseconds: `8 * after` is up to 7 ns
    // below `7 * before + adjusted`.
    const ROUNDING_NS: i128 = 8;
    let adjusted = 8 * after.as_nanos() as i128 - 7 * before.as_nanos() as i128;
    let latest_ns = latest.as_nanos() as i128;
    let delay = latest_ns - adjusted;
    let most = latest_ns - min.as_nanos() as i128;
    if delay < -ROUNDING_NS || delay > most.max(0) + ROUNDING_NS {
        return None;
    }
    // Rounding never makes the recovered delay larger than it was, only up to 7 ns smaller.
    let delay = delay.clamp(0, most.max(0)) as u64;
    Some(Duration::from_nanos(delay))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    /// quinn's `RttEstimator::update` for a non-first sample, as quinn-proto 0.11.19 has it.
    fn quinn_update(
        smoothed: Duration,
        min: Duration,
        latest: Duration,
        ack_delay: Duration,
    ) -> (Duration, Duration) {
        let min = min.min(latest);
        let adjusted = if min + ack_delay <= latest {
            latest - ack_delay
        } else {
            latest
        };
        ((7 * smoothed + adjusted) / 8, min)
    }

    #[test]
    fn recovers_the_delay_quinn_subtracted() {
        let cases = [
            // (smoothed before, min, latest, ack delay)
            (60 * MS, 60 * MS, 85 * MS, 25 * MS),
            (
                61 * MS + Duration::from_nanos(333),
                60 * MS,
                63 * MS,
                Duration::from_micros(2_417),
            ),
            (80 * MS, 40 * MS, 41 * MS, Duration::ZERO),
            (
                Duration::from_nanos(40_000_007),
                40 * MS,
                90 * MS,
                Duration::from_micros(49_992),
            ),
        ];
        for (before, min, latest, delay) in cases {
            let (after, min) = quinn_update(before, min, latest, delay);
            let got = recover_ack_delay(before, after, latest, min).unwrap();
            let error = got.abs_diff(delay);
            assert!(error <= Duration::from_nanos(8), "{delay:?}: got {got:?}");
        }
    }

    #[test]
    fn no_more_delay_is_credited_than_the_interval_since_the_frame_before() {
        // A receiver that claims to have held a timer-driven frame for 20 ms, 2 ms after its
        // previous frame, is credited 2 ms; an honest one's 20 ms after a 30 ms pause, all of it.
        assert_eq!(credited_ack_delay(20 * MS, Some(2 * MS), false), 2 * MS);
        assert_eq!(credited_ack_delay(20 * MS, Some(30 * MS), false), 20 * MS);
        assert_eq!(credited_ack_delay(20 * MS, None, false), 20 * MS);
    }

    #[test]
    fn a_frame_the_receiver_owed_at_once_is_credited_no_delay() {
        // Owed at once, a frame is credited nothing, whatever it claims and however long ago the
        // frame before it came.
        assert_eq!(
            credited_ack_delay(20 * MS, Some(30 * MS), true),
            Duration::ZERO
        );
        assert_eq!(credited_ack_delay(5 * MS, None, true), Duration::ZERO);
    }

    #[test]
    fn the_sender_s_ack_eliciting_threshold_decides_which_frames_were_owed_at_once() {
        // RFC 9000: the second packet obliges an ACK.
        let rfc = AckElicitingThreshold::default();
        assert!(!rfc.owed_at_once(1) && rfc.owed_at_once(2));
        // A sender that asked for an ACK every tenth packet: nine may have waited for the timer.
        let tenth = AckElicitingThreshold::new(9);
        assert!(!tenth.owed_at_once(9) && tenth.owed_at_once(10));
        // Threshold 0: every ack-eliciting packet is acknowledged at once.
        assert!(AckElicitingThreshold::new(0).owed_at_once(1));
    }

    #[test]
    fn a_delay_quinn_did_not_apply_reads_as_zero() {
        // min + delay > latest: quinn takes the raw sample, and so does the recovery.
        let (before, min, latest) = (60 * MS, 60 * MS, 62 * MS);
        let (after, min) = quinn_update(before, min, latest, 5 * MS);
        assert_eq!(
            recover_ack_delay(before, after, latest, min),
            Some(Duration::ZERO)
        );
    }

    #[test]
    fn figures_no_update_could_give_are_rejected() {
        // The average fell by more than a sample at the minimum could pull it.
        assert_eq!(recover_ack_delay(80 * MS, 70 * MS, 62 * MS, 60 * MS), None);
        // The average rose by more than the raw sample could push it.
        assert_eq!(recover_ack_delay(60 * MS, 70 * MS, 62 * MS, 60 * MS), None);
    }
}
