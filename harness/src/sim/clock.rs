//! Virtual time and the event queue.
//!
//! Time is a count of nanoseconds since the start of the run. quinn-proto wants
//! `std::time::Instant`s, so one real `Instant` captured when the run starts serves as the epoch
//! and every instant handed to quinn is `epoch + virtual offset`. Nothing ever sleeps.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

/// Virtual nanoseconds since the start of the run.
pub type VTime = u64;

pub const NANOS_PER_SEC: u64 = 1_000_000_000;

pub fn from_duration(d: Duration) -> VTime {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

pub fn secs(t: VTime) -> f64 {
    t as f64 / NANOS_PER_SEC as f64
}

/// Maps virtual time to the `Instant`s quinn-proto expects, and back.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    epoch: Instant,
}

impl Clock {
    pub fn new(epoch: Instant) -> Self {
        Self { epoch }
    }

    pub fn instant(&self, t: VTime) -> Instant {
        self.epoch + Duration::from_nanos(t)
    }

    /// The virtual time of an instant; instants before the epoch map to 0.
    pub fn vtime(&self, i: Instant) -> VTime {
        from_duration(i.saturating_duration_since(self.epoch))
    }
}

struct Entry<E> {
    at: VTime,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: `BinaryHeap` is a max-heap and the earliest entry must come out first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// Events ordered by (virtual time, insertion sequence): ties resolve in insertion order, which
/// makes the run a pure function of its inputs.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self {
            heap: BinaryHeap::new(),
            seq: 0,
        }
    }
}

impl<E> EventQueue<E> {
    pub fn push(&mut self, at: VTime, event: E) {
        self.seq += 1;
        self.heap.push(Entry {
            at,
            seq: self.seq,
            event,
        });
    }

    pub fn peek_time(&self) -> Option<VTime> {
        self.heap.peek().map(|e| e.at)
    }

    pub fn pop(&mut self) -> Option<(VTime, E)> {
        self.heap.pop().map(|e| (e.at, e.event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = EventQueue::default();
        q.push(5, "c");
        q.push(1, "a");
        q.push(5, "d");
        q.push(1, "b");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(1, "a"), (1, "b"), (5, "c"), (5, "d")]);
    }

    #[test]
    fn clock_round_trips() {
        let c = Clock::new(Instant::now());
        assert_eq!(c.vtime(c.instant(123_456_789)), 123_456_789);
    }
}
