use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::{half_window_lost, Classification, Classifier, LossByQueue, DEFAULT_GRANULARITY};
use crate::event::{Ack, AckBatch, CongestionEvent, Verdict};

/// Acknowledged packets remembered for looking up the queue a lost packet met.
const RECENT_PACKETS: usize = 128;

/// `discern`'s classifier: a drop-tail queue drops only when it is full, and a full queue shows
/// as the largest queueing delay the path has had.
///
/// Every ACK frame's ACK-delay-corrected RTT sample, less the minimum RTT, is the queueing delay
/// `q` the frame's newest packet met. The largest `q` over the last `memory` (two halves, so it
/// forgets within `memory` to `2 * memory`), from frames a receiver sends at once, is where the
/// bottleneck queue overflows, `q_full`. The queue a lost packet met is read from the packets
/// sent just before and after it, which were acknowledged by the time quinn declares the loss:
/// the largest `q` of the two nearest on each side. A loss that met `q >= q_full - tolerance`
/// happened at a full queue: congestion. A loss below it happened with room in the queue:
/// random. `tolerance` is `max(granularity, fraction * q_full)`.
///
/// More rules make it safe where the queue alone says little:
/// - Until one loss has been called congestion, `q_full` is only the largest queue so far, and a
///   queue that is still filling has its largest delay *now*. The overflow is confirmed by `q`
///   reaching half the minimum RTT (a buffer of one BDP overflows at `q = min RTT`) or by a burst
///   of more than `max(4, cwnd / 8)` losses in one window (a shallow buffer overflowing shows
///   little delay, but loses many packets in slow start). A burst alone is not congestion: a
///   Gilbert-Elliott channel loses packets in bursts while the queue has room.
/// - Losing more than half the window (and more than 4 packets) is congestion whatever the delay.
/// - Optionally ([`QueueFull::with_loss_by_queue`]), a loss below the full level is congestion
///   when packets that met a queue above a quarter of the full level are lost at well above the
///   rate of those that met a shorter one: an AQM (CoDel) drops before the queue is full.
/// - ECN: once the path has marked CE, the bottleneck signals congestion by marking, before its
///   queue fills, and every mark reduces the window; a loss is then random (short of half the
///   window). The queue rule cannot serve there: the largest queue such a path shows is its
///   marking threshold, not its overflow. Measured on a 20 Mbit/s, 60 ms path marking at 20
///   packets with 0.5 % loss: reading losses within a round trip of a mark as congestion halved
///   the window after nearly every mark and cost a fifth of the goodput.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueFull {
    fraction: f64,
    granularity: Duration,
    memory: Duration,
    /// Largest queueing delay in the current and the previous half of `memory`.
    current: (Instant, Duration),
    previous: Duration,
    started: bool,
    congestion_seen: bool,
    /// The path has marked CE.
    marks_ce: bool,
    /// `(sent, acknowledged, ACK delay)` of the latest acknowledged packets, in the order they
    /// were acknowledged; their queueing delay is worked out only when a loss needs it.
    recent: VecDeque<(Instant, Instant, Duration)>,
    /// Loss rates of packets that met a low and a high queue, when that test is on.
    loss_by_queue: Option<LossByQueue>,
}

impl QueueFull {
    /// Default tolerance as a fraction of `q_full`.
    pub const DEFAULT_FRACTION: f64 = 0.05;
    /// Default memory of the largest queueing delay.
    pub const DEFAULT_MEMORY: Duration = Duration::from_secs(10);

    /// A classifier whose tolerance is `max(granularity, fraction * q_full)`, `q_full` being the
    /// largest queueing delay remembered over `memory`.
    pub fn new(fraction: f64, granularity: Duration, memory: Duration) -> Self {
        Self {
            fraction,
            granularity,
            memory,
            current: (far_past(), Duration::ZERO),
            previous: Duration::ZERO,
            started: false,
            congestion_seen: false,
            marks_ce: false,
            recent: VecDeque::with_capacity(RECENT_PACKETS),
            loss_by_queue: None,
        }
    }

    /// The same classifier that also calls a loss congestion when packets meeting a long queue
    /// are lost at well above the rate of those meeting a short one ([`LossByQueue`]): the drops
    /// of an AQM such as CoDel, which come before the queue is full.
    pub fn with_loss_by_queue(mut self) -> Self {
        self.loss_by_queue = Some(LossByQueue::default());
        self
    }

    /// The loss statistics by queue, when that test is on.
    pub fn loss_by_queue(&self) -> Option<&LossByQueue> {
        self.loss_by_queue.as_ref()
    }

    /// The queueing delay at which the queue has been seen full.
    pub fn full_queue_delay(&self) -> Duration {
        self.current.1.max(self.previous)
    }

    /// The queueing delay met by the packets sent nearest to `sent`: the largest of the two
    /// nearest before and the two nearest after.
    fn queue_met_at(&self, sent: Instant, min_rtt: Duration) -> Option<Duration> {
        let mut before: [Option<(Instant, Duration)>; 2] = [None; 2];
        let mut after: [Option<(Instant, Duration)>; 2] = [None; 2];
        for &(at, acked, ack_delay) in &self.recent {
            let q = acked
                .saturating_duration_since(at)
                .saturating_sub(ack_delay)
                .saturating_sub(min_rtt);
            let slots = if at <= sent { &mut before } else { &mut after };
            let closer = |slot: &Option<(Instant, Duration)>| {
                slot.is_none_or(|(other, _)| {
                    at.max(sent) - at.min(sent) < other.max(sent) - other.min(sent)
                })
            };
            if closer(&slots[0]) {
                slots[1] = slots[0];
                slots[0] = Some((at, q));
            } else if closer(&slots[1]) {
                slots[1] = Some((at, q));
            }
        }
        before.iter().chain(&after).flatten().map(|&(_, q)| q).max()
    }

    /// The queueing delay that splits the loss statistics' bands: a quarter of the full level.
    fn band_boundary(&self) -> Duration {
        (self.full_queue_delay() / 4).max(2 * self.granularity)
    }

    fn observe(&mut self, now: Instant, queueing: Duration) {
        if !self.started {
            self.current = (now, Duration::ZERO);
            self.started = true;
        }
        if now.saturating_duration_since(self.current.0) >= self.memory / 2 {
            self.previous = self.current.1;
            self.current = (now, Duration::ZERO);
        }
        self.current.1 = self.current.1.max(queueing);
    }
}

impl Default for QueueFull {
    fn default() -> Self {
        Self::new(
            Self::DEFAULT_FRACTION,
            DEFAULT_GRANULARITY,
            Self::DEFAULT_MEMORY,
        )
    }
}

impl Classifier for QueueFull {
    fn on_ack(&mut self, ack: &Ack) {
        if self.recent.len() == RECENT_PACKETS {
            self.recent.pop_front();
        }
        self.recent
            .push_back((ack.sent, ack.now, ack.rtt.ack_delay));
    }

    fn on_ack_batch(&mut self, batch: &AckBatch) {
        // The full-queue level is a maximum, and one delayed ACK would inflate it for `memory`:
        // only frames the receiver owed at once measure it.
        if batch.owed_at_once {
            let queueing = batch.rtt.queueing();
            self.observe(batch.now, queueing);
            let boundary = self.band_boundary();
            if let Some(stats) = &mut self.loss_by_queue {
                stats.count(queueing, boundary, batch.acked_packets, 0);
            }
        }
    }

    fn on_ecn_mark(&mut self, _event: &CongestionEvent) {
        self.marks_ce = true;
        self.congestion_seen = true;
    }

    fn classify(&mut self, event: &CongestionEvent, losses_in_window: u64) -> Classification {
        let queueing = self
            .queue_met_at(event.sent, event.rtt.min)
            .unwrap_or_else(|| event.rtt.queueing());
        let full = self.full_queue_delay();
        let tolerance = full.mul_f64(self.fraction).max(self.granularity);
        let threshold = full.saturating_sub(tolerance);
        let at_full = queueing >= threshold;
        // Before the first overflow the full level is only the largest queue so far; a buffer
        // of one BDP overflows at `q = min RTT`, so half of it (or a burst of losses, which a
        // shallow buffer shows instead of delay) confirms it.
        let confirmed = self.congestion_seen
            || queueing >= event.rtt.min / 2
            || losses_in_window > (event.window_packets / 8).max(4);
        let (verdict, reason) = if half_window_lost(event, losses_in_window) {
            (Verdict::Congestion, "half the window lost")
        } else if self.marks_ce {
            (Verdict::Random, "ECN path: congestion shows as CE marks")
        } else if at_full && confirmed {
            (
                Verdict::Congestion,
                "queueing delay at the full-queue level",
            )
        } else {
            // Losses the full-queue rule explains are left out: they would make every drop-tail
            // path look queue-driven. A loss event counts once: a burst of channel losses is one
            // event, not evidence of a lossier band.
            let boundary = self.band_boundary();
            let queue_driven = self.loss_by_queue.as_mut().is_some_and(|stats| {
                stats.count(queueing, boundary, event.lost_packets, 1);
                queueing >= boundary && stats.queue_driven()
            });
            if queue_driven {
                (Verdict::Congestion, "losses rise with the queue")
            } else {
                (Verdict::Random, "queueing delay below the full-queue level")
            }
        };
        if verdict == Verdict::Congestion {
            self.congestion_seen = true;
        }
        Classification {
            verdict,
            threshold: Some(event.rtt.min + threshold),
            reason,
        }
    }
}

/// An instant long before any real one, for "never".
fn far_past() -> Instant {
    let now = Instant::now();
    now.checked_sub(Duration::from_secs(1 << 20)).unwrap_or(now)
}
