//! CoDel, "Controlled Delay Active Queue Management" (Nichols, Jacobson, McGregor, Iyengar,
//! RFC 8289): drop at dequeue when the sojourn time of packets has stayed above `target` for at
//! least `interval`, then drop again at intervals shrinking as `interval / sqrt(count)` until the
//! sojourn time falls below `target`.
//!
//! The state machine is the RFC's pseudocode (section 5: `dodequeue`, `dequeue`,
//! `control_law`), fed one packet at a time in dequeue order with the time it reaches the head
//! of the queue and its sojourn time. Our links are FIFO with a service schedule that depends
//! only on the packets ahead, so both are known when a packet arrives, and the decision is taken
//! then; a dropped packet takes no service, so the packets behind it move up, as at a real
//! dequeue. One departure from the RFC: its `dodequeue` also declines to drop when at most one
//! MTU is left behind the packet (section 5.4, so the link never idles because of a drop). The
//! packets behind have not arrived when we decide, so that guard is not applied; with a queue
//! building up (sojourn above target for a whole interval) it rarely binds.
//!
//! QUIC sees CoDel drops as ordinary losses; the simulator's ground truth counts them as queue
//! drops (they are congestion).

use super::Nanos;

/// The state of one CoDel queue.
#[derive(Debug, Clone)]
pub struct CoDelState {
    target: Nanos,
    interval: Nanos,
    /// When the sojourn time will have been above target for a whole interval (0: it is below).
    first_above_time: Nanos,
    /// In the dropping state: when to drop next.
    drop_next: Nanos,
    /// Drops since entering the dropping state.
    count: u32,
    /// `count` when the dropping state was last left.
    lastcount: u32,
    dropping: bool,
}

impl CoDelState {
    pub fn new(target: Nanos, interval: Nanos) -> Self {
        Self {
            target,
            interval,
            first_above_time: 0,
            drop_next: 0,
            count: 0,
            lastcount: 0,
            dropping: false,
        }
    }

    /// RFC 8289 section 5.5, `control_law`: the next drop time after `t`.
    fn control_law(&self, t: Nanos, count: u32) -> Nanos {
        t + (self.interval as f64 / f64::from(count.max(1)).sqrt()) as Nanos
    }

    /// RFC 8289 section 5.4, `dodequeue`: whether it is OK to drop the packet now at the head.
    fn ok_to_drop(&mut self, now: Nanos, sojourn: Nanos) -> bool {
        if sojourn < self.target {
            self.first_above_time = 0;
            return false;
        }
        if self.first_above_time == 0 {
            self.first_above_time = now + self.interval;
            false
        } else {
            now >= self.first_above_time
        }
    }

    /// The packet at the head of the queue at `now`, having waited `sojourn`: true if CoDel
    /// drops it (RFC 8289 section 5.6, `dequeue`, one packet per call).
    pub fn drop_at_dequeue(&mut self, now: Nanos, sojourn: Nanos) -> bool {
        let ok = self.ok_to_drop(now, sojourn);
        if self.dropping {
            if !ok {
                self.dropping = false;
                return false;
            }
            if now >= self.drop_next {
                self.count += 1;
                self.drop_next = self.control_law(self.drop_next, self.count);
                return true;
            }
            return false;
        }
        if ok {
            self.dropping = true;
            // Go back to the drop rate that controlled the queue last time, if that was recent.
            let delta = self.count.saturating_sub(self.lastcount);
            self.count = if delta > 1 && now.saturating_sub(self.drop_next) < 16 * self.interval {
                delta
            } else {
                1
            };
            self.drop_next = self.control_law(now, self.count);
            self.lastcount = self.count;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = 1_000_000;

    #[test]
    fn short_queues_are_never_dropped() {
        let mut c = CoDelState::new(5 * MS, 100 * MS);
        for i in 0..10_000 {
            assert!(!c.drop_at_dequeue(i * MS, 4 * MS));
        }
    }

    #[test]
    fn a_standing_queue_is_dropped_after_one_interval_then_faster() {
        let mut c = CoDelState::new(5 * MS, 100 * MS);
        // One packet per millisecond, each having waited 20 ms.
        let drops: Vec<Nanos> = (0..1000)
            .map(|i| i * MS)
            .filter(|&t| c.drop_at_dequeue(t, 20 * MS))
            .collect();
        // First drop once the delay has been above target for an interval.
        assert_eq!(drops[0], 100 * MS);
        // Then at interval / sqrt(count): 100 ms after, then ~70.7 ms, ~57.7 ms, ...
        assert_eq!(drops[1], 200 * MS);
        assert_eq!(drops[2], 271 * MS);
        let gaps: Vec<Nanos> = drops.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.windows(2).all(|g| g[1] <= g[0] + MS), "{gaps:?}");
        // Once the delay falls below target, dropping stops.
        assert!(!c.drop_at_dequeue(1000 * MS, MS));
        assert!(!c.drop_at_dequeue(1500 * MS, 20 * MS));
    }
}
