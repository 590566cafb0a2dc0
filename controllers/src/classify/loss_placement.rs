//! Whether a path's losses follow its queue: a sign test of where each loss fell among the
//! queue readings of the recent past.
//!
//! A channel's loss falls on a packet whatever the queue it meets, so the queue a lost packet met
//! is a draw from the queue readings of any packet: above their median half the time. An AQM
//! drops only while its queue stands above its target (CoDel, RFC 8289 section 3.2; PIE, RFC
//! 8033 section 4.2, drops with a probability that grows with the queue delay), and a drop-tail
//! buffer only when full, so their losses fall above the median far more often. This is the
//! idea of the loss-delay correlation tests (the Spike scheme in Cen, Cosman and Voelker,
//! "End-to-end differentiation of congestion and wireless losses", IEEE/ACM ToN 11(5), 2003,
//! section III: a loss during an RTT spike is congestion), read over many losses instead of one:
//! a single loss's queue cannot be told from delay noise on a jittered path, but the share of
//! losses above the median can, since jitter moves the readings of lost and delivered packets
//! alike.
//!
//! On QUIC, a lost packet's queue is read from the ACK frames of the packets sent just before
//! it ([`super::PathModel::queue_before`]); the frames after it are not used, since the receiver
//! acknowledges at once while it sees a gap (RFC 9000 section 13.2.1) and those frames cover
//! fewer packets each, whose smallest queue reads higher on a jittered path. The comparison
//! readings are taken the same way, [`READINGS_PER_RTT`] times a minimum RTT. Readings taken in
//! time weigh the troughs of the flow's sawtooth as much as its peaks, where it sends fewer
//! packets, so a channel's losses fall above their median a little more than half the time; a
//! loss's queue must also stand a [`MARGIN`] above a reading to count as more, and a slow
//! start's losses are not read at all, since its queue rises from round to round whatever drops
//! the packets.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// What `discern`'s classifier reads a loss below its guard by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LossRead {
    /// The queue the lost packet met against the guard alone (the default).
    #[default]
    Guard,
    /// That, and where the recent losses fell among the queue readings: where most of them met
    /// more queue than usual
    /// ([`ShortQueue::losses_follow_queue`](super::ShortQueue::losses_follow_queue)), a loss
    /// that met more than usual is congestion below the guard too, and the noisy path's window
    /// floor passes over no loss. It calls an AQM's drops congestion behind delay noise that
    /// lifts the guard over the AQM's target, for more random losses called congestion where
    /// the flow's own window floor overflows a shallow buffer; not the default.
    Placement,
}

/// Queue readings kept for the comparison.
const SAMPLES: usize = 64;
/// The fewest readings a comparison is made with.
const MIN_SAMPLES: usize = SAMPLES / 4;
/// Readings a minimum RTT: the readings then span four round trips, over which a flow's own
/// sawtooth and an AQM's cycle come and go, whatever the packet rate (readings a fixed number of
/// frames apart span a few milliseconds at a gigabit, where the queue only trends).
const READINGS_PER_RTT: u32 = 16;
/// How far above a reading a queue must be to count as more than it: below a millisecond the
/// RTT says little (clock noise, pacing bursts of a few packets), and on a quiet path a queue a
/// few hundred microseconds long rises and falls with the flow's own bursts.
const MARGIN: Duration = Duration::from_millis(1);
/// Losses whose placement the test reads.
const PLACEMENTS: usize = 24;
/// Of those, how many must have met a queue above the readings' median for the losses to follow
/// the queue. A channel's losses do that with a chance of 3 % (a binomial tail with p = 1/2),
/// 9 % where they fall above the median 55 % of the time; losses that fall above it four times
/// in five, as CoDel's do behind delay noise, in nine windows of ten.
const ABOVE_MEDIAN: usize = 17;

/// The queue readings of the recent past, [`READINGS_PER_RTT`] a minimum RTT.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct QueueReadings {
    readings: VecDeque<Duration>,
    last_at: Option<Instant>,
}

impl QueueReadings {
    /// Whether a reading is due at an ACK frame that arrived at `now`, on a path whose minimum
    /// RTT is `min_rtt`; if so, the next is due a [`READINGS_PER_RTT`]th of it later.
    pub(super) fn due(&mut self, now: Instant, min_rtt: Duration) -> bool {
        let gap = min_rtt / READINGS_PER_RTT;
        if self.last_at.is_some_and(|at| now < at + gap) {
            return false;
        }
        self.last_at = Some(now);
        true
    }

    /// Files a reading, forgetting the oldest beyond [`SAMPLES`].
    pub(super) fn file(&mut self, queue: Duration) {
        if self.readings.len() == SAMPLES {
            self.readings.pop_front();
        }
        self.readings.push_back(queue);
    }

    /// Whether `queue` is above the median of the readings (more than half of them are more
    /// than [`MARGIN`] below it), once there are enough of them to say.
    pub(super) fn above_median(&self, queue: Duration) -> Option<bool> {
        if self.readings.len() < MIN_SAMPLES {
            return None;
        }
        let below = self
            .readings
            .iter()
            .filter(|&&q| q.saturating_add(MARGIN) < queue)
            .count();
        Some(2 * below > self.readings.len())
    }
}

/// Where the last [`PLACEMENTS`] losses fell: above the queue readings' median or not.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct LossPlacement {
    above: VecDeque<bool>,
}

impl LossPlacement {
    /// Files a loss that met a queue above the median, or not.
    pub(super) fn record(&mut self, above_median: bool) {
        if self.above.len() == PLACEMENTS {
            self.above.pop_front();
        }
        self.above.push_back(above_median);
    }

    /// Whether the last [`PLACEMENTS`] losses followed the queue: [`ABOVE_MEDIAN`] or more of
    /// them met a queue above the median.
    pub(super) fn follows_queue(&self) -> bool {
        self.above.len() == PLACEMENTS && self.above.iter().filter(|&&a| a).count() >= ABOVE_MEDIAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn readings(queues: impl IntoIterator<Item = u64>) -> QueueReadings {
        let mut readings = QueueReadings::default();
        for q in queues {
            readings.file(ms(q));
        }
        readings
    }

    #[test]
    fn readings_are_taken_sixteen_times_a_round_trip_and_the_oldest_forgotten() {
        let mut r = QueueReadings::default();
        let epoch = Instant::now();
        let rtt = Duration::from_millis(32);
        // Frames a millisecond apart: a reading every other one (32 ms / 16).
        let due = (0..6).filter(|&i| r.due(epoch + ms(i), rtt)).count();
        assert_eq!(due, 3);
        let r = readings((0..SAMPLES as u64 * 2).map(|i| i % 2 + 10 * (i / SAMPLES as u64)));
        // Only the second half (10 and 11 ms) is kept: 11 ms is not above their median, 13 ms
        // is, by more than the margin.
        assert_eq!(r.above_median(ms(11)), Some(false));
        assert_eq!(r.above_median(ms(12)), Some(false));
        assert_eq!(r.above_median(ms(13)), Some(true));
    }

    #[test]
    fn no_answer_before_enough_readings() {
        assert_eq!(
            readings(0..MIN_SAMPLES as u64 - 1).above_median(ms(100)),
            None
        );
        assert_eq!(
            readings(0..MIN_SAMPLES as u64).above_median(ms(100)),
            Some(true)
        );
    }

    #[test]
    fn a_queue_within_the_margin_of_most_readings_is_not_above_them() {
        // A queue that is mostly empty: a loss at an empty queue, or a millisecond's, did not
        // meet more than usual.
        let r = readings((0..40).map(|i| if i % 4 == 0 { 3 } else { 0 }));
        assert_eq!(r.above_median(ms(0)), Some(false));
        assert_eq!(r.above_median(ms(1)), Some(false));
        assert_eq!(r.above_median(ms(2)), Some(true));
    }

    #[test]
    fn losses_follow_the_queue_only_when_most_of_a_full_window_met_more_than_usual() {
        let mut placement = LossPlacement::default();
        for _ in 0..PLACEMENTS - 1 {
            placement.record(true);
        }
        assert!(!placement.follows_queue(), "too few losses to say");
        placement.record(true);
        assert!(placement.follows_queue());
        // A channel's losses: every other one above the median.
        for i in 0..PLACEMENTS {
            placement.record(i % 2 == 0);
        }
        assert!(!placement.follows_queue());
        // Three in four above, as an AQM's behind delay noise.
        for i in 0..PLACEMENTS {
            placement.record(i % 4 != 0);
        }
        assert!(placement.follows_queue());
    }
}
