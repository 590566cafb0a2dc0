use std::time::{Duration, Instant};

use super::{Classification, Classifier, DEFAULT_GRANULARITY};
use crate::event::{AckBatch, CongestionEvent, Verdict};

/// `discern`'s classifier: a drop-tail queue drops only when it is full, and a full queue shows
/// as the largest queueing delay the path has had.
///
/// Every ACK frame's ACK-delay-corrected RTT sample, less the minimum RTT, is the queueing delay
/// `q` the frame's newest packet met. The largest `q` over the last `memory` (two halves, so it
/// forgets within `memory` to `2 * memory`) is where the bottleneck queue overflows, `q_full`. A
/// loss whose revealing ACK measured `q >= q_full - tolerance` happened at a full queue:
/// congestion. A loss below it happened with room in the queue: random. The ACK that reveals a
/// loss is sent at once (RFC 9000 section 13.2.1), so its sample carries no ACK delay, and the
/// packets behind a congestion drop meet the same full queue, so its `q` is `q_full` within a
/// few packets' serialisation. `tolerance` is `max(granularity, fraction * q_full)`.
///
/// Two more rules make it safe where the queue alone says little:
/// - Until one loss has been called congestion, `q` must also reach half the minimum RTT: a queue
///   that is still filling has its largest delay *now*, so `q_full` is not yet the overflow level
///   (a bottleneck queue of one BDP overflows at `q = min RTT`).
/// - ECN: once the path has marked CE, the bottleneck signals congestion before it drops, so a
///   loss with no mark in the last round trip is random whatever the delay.
/// - Many losses in one window (more than `max(4, cwnd / 8)` packets) is congestion whatever the
///   delay: a shallow queue that overflows in bursts shows little delay.
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
    /// When the last CE mark arrived, if the path ever marked one.
    last_mark: Option<Instant>,
}

impl QueueFull {
    /// Default tolerance as a fraction of `q_full`.
    pub const DEFAULT_FRACTION: f64 = 0.05;
    /// Default memory of the largest queueing delay.
    pub const DEFAULT_MEMORY: Duration = Duration::from_secs(10);

    pub fn new(fraction: f64, granularity: Duration, memory: Duration) -> Self {
        Self {
            fraction,
            granularity,
            memory,
            current: (far_past(), Duration::ZERO),
            previous: Duration::ZERO,
            started: false,
            congestion_seen: false,
            last_mark: None,
        }
    }

    /// The queueing delay at which the queue has been seen full.
    pub fn full_queue_delay(&self) -> Duration {
        self.current.1.max(self.previous)
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
    fn on_ack_batch(&mut self, batch: &AckBatch) {
        self.observe(batch.now, batch.rtt.queueing());
    }

    fn on_ecn_mark(&mut self, event: &CongestionEvent) {
        self.last_mark = Some(event.now);
        self.congestion_seen = true;
    }

    fn classify(&mut self, event: &CongestionEvent, losses_in_window: u64) -> Classification {
        let queueing = event.rtt.queueing();
        self.observe(event.now, queueing);
        let full = self.full_queue_delay();
        let tolerance = full.mul_f64(self.fraction).max(self.granularity);
        let mut threshold = full.saturating_sub(tolerance);
        if !self.congestion_seen {
            threshold = threshold.max(event.rtt.min / 2);
        }
        let burst = losses_in_window > (event.window_packets / 8).max(4);
        let (verdict, reason) = if let Some(mark) = self.last_mark {
            let round_trip = event.rtt.smoothed.max(event.rtt.min);
            if burst {
                (Verdict::Congestion, "many losses in one window")
            } else if event.now.saturating_duration_since(mark) > round_trip {
                (
                    Verdict::Random,
                    "ECN path with no mark in the last round trip",
                )
            } else {
                (Verdict::Congestion, "loss within a round trip of a CE mark")
            }
        } else if burst {
            (Verdict::Congestion, "many losses in one window")
        } else if queueing >= threshold {
            (
                Verdict::Congestion,
                "queueing delay at the full-queue level",
            )
        } else {
            (Verdict::Random, "queueing delay below the full-queue level")
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
