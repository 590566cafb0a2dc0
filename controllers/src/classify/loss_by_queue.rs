use std::time::Duration;

/// Packets counted before the counts are halved: the statistics follow the last few thousand
/// packets, long enough to see a 0.1 % channel loss rate, short enough to follow a path change.
const MEMORY_PACKETS: f64 = 4096.0;

/// Losses above the expected count a band must show before it is called queue-driven.
const MIN_EXCESS_LOSSES: f64 = 4.0;

/// Whether losses follow the queue: the loss rate of packets that met a high queue against the
/// rate of packets that met a low one.
///
/// A channel (bit errors, fading) drops packets whatever the queue; a queue drops them only when
/// it is long: an AQM such as CoDel (RFC 8289) once the sojourn time has stayed above its target,
/// a drop-tail queue when it overflows. `QueueFull` reads the second from the delay at which the
/// queue overflows; this reads the first, which leaves no full level to compare against, from
/// the statistics: packets meeting a queue above `boundary` are lost at more than twice the rate
/// (and by four losses or more) of those meeting a queue below it.
///
/// The low band's rate starts from a Laplace estimate, `(losses + 1) / (packets + 2)`, so that a
/// band with few packets seen (a flow that keeps its queue high) reads as lossy and the test stays
/// quiet: it errs towards calling losses random, which is `discern`'s default.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LossByQueue {
    low: Band,
    high: Band,
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Band {
    packets: f64,
    losses: f64,
}

impl LossByQueue {
    /// `packets` packets met a queue of `queueing`, against the band `boundary`; `lost` of them
    /// were lost.
    pub fn count(&mut self, queueing: Duration, boundary: Duration, packets: u64, lost: u64) {
        let band = if queueing >= boundary {
            &mut self.high
        } else {
            &mut self.low
        };
        band.packets += packets as f64;
        band.losses += lost as f64;
        // Each band forgets at its own pace: a flow that keeps its queue high for a while must
        // not forget the channel's rate that the low band measured.
        if band.packets > MEMORY_PACKETS {
            band.packets /= 2.0;
            band.losses /= 2.0;
        }
    }

    /// Whether the packets that met the high queue are lost well above the low band's rate.
    pub fn queue_driven(&self) -> bool {
        let low_rate = (self.low.losses + 1.0) / (self.low.packets + 2.0);
        let expected = self.high.packets * low_rate;
        self.high.losses > 2.0 * expected + MIN_EXCESS_LOSSES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    /// `n` packets in each band, in frames of 2, losing one in `low_every` / `high_every`.
    fn run(n: u64, low_every: u64, high_every: u64) -> LossByQueue {
        let mut stats = LossByQueue::default();
        for i in 0..n {
            let lost = |every: u64| u64::from(every > 0 && i % every == 0);
            stats.count(2 * MS, 10 * MS, 1, lost(low_every));
            stats.count(30 * MS, 10 * MS, 1, lost(high_every));
        }
        stats
    }

    #[test]
    fn losses_at_any_queue_are_not_queue_driven() {
        assert!(!run(3000, 100, 100).queue_driven());
        assert!(!run(3000, 30, 30).queue_driven());
        assert!(!run(3000, 1000, 1000).queue_driven());
    }

    #[test]
    fn losses_only_at_a_high_queue_are_queue_driven() {
        assert!(run(3000, 1000, 20).queue_driven());
        assert!(run(3000, 0, 50).queue_driven());
    }

    #[test]
    fn a_high_band_alone_says_nothing() {
        // A flow that never met a low queue has no channel rate to compare against.
        let mut stats = LossByQueue::default();
        for i in 0..3000 {
            stats.count(30 * MS, 10 * MS, 1, u64::from(i % 50 == 0));
        }
        assert!(!stats.queue_driven());
    }
}
