//! Recorded capacity traces (`scenario/trace.rs` reads them) as a link serves them: the
//! `netem-trace` crate's mahimahi loader turns the timestamps into a schedule of delivery
//! opportunities, following mahimahi's timing exactly (same-millisecond lines merge into one
//! larger opportunity, leading zeros of the next period go out with the last line of the
//! previous one).

use netem_trace::{load_mahimahi_heavy_pdo_trace, HeavyPdoTrace};

use super::Nanos;
use crate::scenario::CapacityTrace;

/// One period of a trace as delivery opportunities: when each may send, and how many bytes.
#[derive(Debug)]
pub struct Schedule {
    /// Offsets from the start of the period, non-decreasing; the last one is the period.
    at: Vec<Nanos>,
    bytes: Vec<u64>,
    period: Nanos,
}

impl Schedule {
    pub fn new(trace: &CapacityTrace) -> Result<Self, String> {
        let mut pdo = load_mahimahi_heavy_pdo_trace(
            trace.millis.to_vec(),
            Some(1),
            CapacityTrace::OPPORTUNITY_BYTES,
        )
        .map_err(|e| format!("trace file \"{}\": {e}", trace.file))?
        .build();
        let (mut at, mut bytes, mut t) = (Vec::new(), Vec::new(), 0);
        while let Some((gap, b)) = pdo.next_heavy_pdo() {
            t += gap.as_nanos() as Nanos;
            at.push(t);
            bytes.push(b);
        }
        match at.last() {
            Some(&period) if period > 0 => Ok(Self { at, bytes, period }),
            _ => Err(format!("trace file \"{}\" lasts 0 ms", trace.file)),
        }
    }

    /// When opportunity `k` (counted from the start of the run, over repeated periods) comes.
    pub fn time(&self, k: u64) -> Nanos {
        let n = self.at.len() as u64;
        (k / n) * self.period + self.at[(k % n) as usize]
    }

    pub fn bytes(&self, k: u64) -> u64 {
        self.bytes[(k % self.at.len() as u64) as usize]
    }

    /// The first opportunity at or after `t`.
    pub fn first_at_or_after(&self, t: Nanos) -> u64 {
        let n = self.at.len() as u64;
        let (cycle, within) = (t / self.period, t % self.period);
        // `within < period == at.last()`, so some opportunity of this period qualifies.
        let i = self.at.partition_point(|&a| a < within) as u64;
        cycle * n + i
    }

    /// Bytes the trace can deliver in `[0, end]`.
    pub fn capacity_bytes(&self, end: Nanos) -> u64 {
        let per_period: u64 = self.bytes.iter().sum();
        let (cycles, within) = (end / self.period, end % self.period);
        let i = self.at.partition_point(|&a| a <= within);
        cycles * per_period + self.bytes[..i].iter().sum::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn schedule_repeats_and_merges_same_millisecond_lines() {
        let t = CapacityTrace {
            file: "a.down".into(),
            millis: Arc::new(vec![1, 1, 5, 6]),
        };
        let s = Schedule::new(&t).unwrap();
        const MS: Nanos = 1_000_000;
        // Lines 1, 1 -> one opportunity of 3000 bytes at 1 ms; then 5 ms; 6 ms; period 6 ms.
        assert_eq!((s.time(0), s.bytes(0)), (MS, 3000));
        assert_eq!((s.time(1), s.time(2)), (5 * MS, 6 * MS));
        assert_eq!((s.time(3), s.bytes(3)), (7 * MS, 3000));
        assert_eq!(s.first_at_or_after(2 * MS), 1);
        assert_eq!(s.first_at_or_after(6 * MS + 1), 3);
        assert_eq!(s.capacity_bytes(6 * MS), 6000);
        assert_eq!(s.capacity_bytes(7 * MS), 9000);
        assert!((t.mean_bps() - 4.0 * 1500.0 * 8.0 / 0.006).abs() < 1e-6);
    }

    /// The scenario's reader rejects what the loader would (timestamps that decrease, a trace
    /// that lasts 0 ms), so every trace a scenario holds has a schedule.
    #[test]
    fn the_loader_accepts_what_the_reader_accepts() {
        for millis in [vec![0, 5], vec![5, 5], vec![1, 2, 2, 9], vec![3]] {
            let t = CapacityTrace {
                file: "t".into(),
                millis: Arc::new(millis),
            };
            assert!(Schedule::new(&t).is_ok(), "{t:?}");
        }
    }
}
