//! One direction of a link: a drop-tail FIFO queue in front of a serialiser of fixed rate,
//! followed by a propagation delay and the direction's channel loss.
//!
//! Because the queue is FIFO and the serialiser's rate is fixed, a packet's departure time is known
//! the moment it is enqueued, so a hop costs one event (the arrival at the next hop). The queue
//! holds `queue` packets waiting *besides* the one being serialised; a packet that finds it full
//! is dropped at enqueue (`queue` cause). Channel loss is decided as the packet leaves the link,
//! after serialisation (so a corrupted packet has still used its share of the link), in the order
//! packets leave (`channel` cause).

use std::collections::VecDeque;

use super::clock::{from_duration, VTime, NANOS_PER_SEC};
use super::loss::LossState;
use crate::scenario::Link;

pub use crate::transport::IP_UDP_OVERHEAD;

/// What became of a packet offered to a link direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It reaches the far end of the link at this virtual time.
    Arrives(VTime),
    /// The drop-tail queue was full.
    QueueDrop,
    /// The channel lost it as it left the link at this time.
    ChannelDrop(VTime),
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DirStats {
    pub offered: u64,
    pub departed_packets: u64,
    pub departed_bytes: u64,
    pub queue_drops: u64,
    pub channel_drops: u64,
}

pub struct LinkDir {
    rate_bps: u64,
    delay: VTime,
    queue: usize,
    /// Departure times of the packets in the system (waiting or being serialised), oldest first.
    departures: VecDeque<VTime>,
    busy_until: VTime,
    loss: LossState,
    pub stats: DirStats,
}

impl LinkDir {
    pub fn new(link: &Link, loss: LossState) -> Self {
        Self {
            rate_bps: link.rate.0,
            delay: from_duration(link.delay),
            queue: link.queue,
            departures: VecDeque::with_capacity(link.queue + 1),
            busy_until: 0,
            loss,
            stats: DirStats::default(),
        }
    }

    /// Serialisation time of a datagram of `len` bytes (IP/UDP headers added).
    pub fn serialisation(&self, len: usize) -> VTime {
        if self.rate_bps == 0 {
            return 0;
        }
        let bits = (len as u64 + IP_UDP_OVERHEAD) * 8;
        // Round up so that a link never runs faster than its rate.
        (bits as u128 * NANOS_PER_SEC as u128).div_ceil(self.rate_bps as u128) as VTime
    }

    /// Offers a datagram of `len` bytes arriving at the link at `now` (non-decreasing across calls).
    pub fn offer(&mut self, now: VTime, len: usize) -> Outcome {
        self.stats.offered += 1;
        while self.departures.front().is_some_and(|&d| d <= now) {
            self.departures.pop_front();
        }
        // The oldest packet still in the system is being serialised; the rest wait.
        let waiting = self.departures.len().saturating_sub(1);
        if !self.departures.is_empty() && waiting >= self.queue {
            self.stats.queue_drops += 1;
            return Outcome::QueueDrop;
        }
        let start = self.busy_until.max(now);
        let depart = start + self.serialisation(len);
        self.busy_until = depart;
        self.departures.push_back(depart);
        self.stats.departed_packets += 1;
        self.stats.departed_bytes += len as u64 + IP_UDP_OVERHEAD;
        if self.loss.lose(depart) {
            self.stats.channel_drops += 1;
            Outcome::ChannelDrop(depart)
        } else {
            Outcome::Arrives(depart + self.delay)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::LossModel;
    use crate::sim::loss::{link_rng, Direction};
    use crate::units::BitRate;
    use std::time::Duration;

    fn link(rate: u64, delay_ms: u64, queue: usize) -> LinkDir {
        let l = Link {
            name: "l".into(),
            rate: BitRate(rate),
            delay: Duration::from_millis(delay_ms),
            queue,
            loss: LossModel::None,
            reverse_loss: LossModel::None,
        };
        LinkDir::new(
            &l,
            LossState::new(&LossModel::None, link_rng(0, 0, Direction::Forward)),
        )
    }

    #[test]
    fn serialises_then_delays() {
        // 1472 + 28 = 1500 bytes = 12000 bits at 12 Mbit/s = 1 ms.
        let mut l = link(12_000_000, 10, 10);
        assert_eq!(l.offer(0, 1472), Outcome::Arrives(11_000_000));
        // Back to back: waits for the first.
        assert_eq!(l.offer(0, 1472), Outcome::Arrives(12_000_000));
        // After the link drained: no wait.
        assert_eq!(l.offer(50_000_000, 1472), Outcome::Arrives(61_000_000));
    }

    #[test]
    fn drop_tail_counts_waiting_packets() {
        let mut l = link(12_000_000, 0, 2);
        // One in service, two waiting, the fourth is dropped.
        for _ in 0..3 {
            assert!(matches!(l.offer(0, 1472), Outcome::Arrives(_)));
        }
        assert_eq!(l.offer(0, 1472), Outcome::QueueDrop);
        // After the first left, there is room for one more.
        assert!(matches!(l.offer(1_000_000, 1472), Outcome::Arrives(_)));
        assert_eq!(l.offer(1_000_000, 1472), Outcome::QueueDrop);
        assert_eq!(l.stats.queue_drops, 2);
    }
}
