//! PIE, "Proportional Integral Controller Enhanced" (Pan et al., RFC 8033): drop (or mark) on
//! arrival with a probability `p` that a proportional-integral controller moves every `tupdate`
//! towards keeping the queueing delay at `target`.
//!
//! The state machine is the RFC's (section 4 and the pseudocode of its appendix A, as Linux
//! `sch_pie.c` implements it): every `tupdate`,
//!
//! ```text
//! p += alpha * (qdelay - target) + beta * (qdelay - qdelay_old)     (seconds; alpha 0.125, beta 1.25)
//! ```
//!
//! with the adjustment scaled down while `p` is small (section 4.2's auto-tuning: / 2048 below
//! 0.000001 ... / 2 below 0.1), capped at +2 % a step once `p` is 10 % or more, and a decay of 2 %
//! a step while the queue stays empty. An arrival is dropped with probability `p` unless the
//! burst allowance (150 ms from an idle queue) is not used up, the delay was below half the target
//! with `p` below 20 %, or fewer than two packets wait (section 4.1, 5.2). With ECN on, an
//! ECN-capable packet is marked instead while `p` is at most 10 % (section 5.1).
//!
//! Our links know each packet's dequeue time when it arrives, so the queueing delay at an update
//! is the wait an arrival at that moment would have, read from the departure schedule. Updates
//! fall due on a fixed `tupdate` grid; the ones that fell between two arrivals are run, in order,
//! at the next arrival, with the backlog as it stood at their own time (nothing arrived in
//! between, so the schedule then was the schedule now). The random draws come from an RNG stream
//! of PIE's own per link direction.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::{Nanos, NANOS_PER_SEC};

const ALPHA: f64 = 0.125;
const BETA: f64 = 1.25;
/// RFC 8033 section 4.1: `MAX_BURST`.
const MAX_BURST: Nanos = 150_000_000;
/// Above this probability, ECN-capable packets are dropped rather than marked (section 5.1).
const MARK_ECN_THRESHOLD: f64 = 0.1;

/// The state of one PIE queue.
#[derive(Debug, Clone)]
pub struct PieState {
    target: Nanos,
    tupdate: Nanos,
    prob: f64,
    qdelay_old: Nanos,
    burst_allowance: Nanos,
    next_update: Nanos,
    rng: ChaCha8Rng,
}

/// What PIE does with an arriving packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PieVerdict {
    Enqueue,
    Mark,
    Drop,
}

impl PieState {
    pub fn new(target: Nanos, tupdate: Nanos, rng: ChaCha8Rng) -> Self {
        Self {
            target,
            tupdate: tupdate.max(1),
            prob: 0.0,
            qdelay_old: 0,
            burst_allowance: MAX_BURST,
            next_update: tupdate.max(1),
            rng,
        }
    }

    /// The drop probability now.
    #[cfg(test)]
    pub fn probability(&self) -> f64 {
        self.prob
    }

    /// Runs every update due by `now`; `backlog_until` is when the last packet in the system
    /// leaves (the queueing delay at time `t` is `backlog_until - t`).
    pub fn catch_up(&mut self, now: Nanos, backlog_until: Nanos) {
        while self.next_update <= now {
            let at = self.next_update;
            self.update(backlog_until.saturating_sub(at));
            self.next_update += self.tupdate;
        }
    }

    /// RFC 8033 section 4.2 and appendix A, `calculate_drop_prob`: one update with the current
    /// queueing delay `qdelay`.
    fn update(&mut self, qdelay: Nanos) {
        let secs = |n: Nanos| n as f64 / NANOS_PER_SEC as f64;
        let mut delta = ALPHA * (secs(qdelay) - secs(self.target))
            + BETA * (secs(qdelay) - secs(self.qdelay_old));
        delta /= auto_tune_divisor(self.prob);
        if self.prob >= 0.1 && delta > 0.02 {
            delta = 0.02;
        }
        self.prob += delta;
        if qdelay == 0 && self.qdelay_old == 0 {
            self.prob *= 0.98;
        }
        self.prob = self.prob.clamp(0.0, 1.0);
        self.burst_allowance = self.burst_allowance.saturating_sub(self.tupdate);
        if self.prob == 0.0 && qdelay < self.target / 2 && self.qdelay_old < self.target / 2 {
            self.burst_allowance = MAX_BURST;
        }
        self.qdelay_old = qdelay;
    }

    /// A packet arrives to find `waiting` packets queued; `ect`: it is ECN-capable and the queue
    /// marks (`ecn = true`).
    pub fn on_arrival(&mut self, waiting: usize, ect: bool) -> PieVerdict {
        let exempt = self.burst_allowance > 0
            || (self.qdelay_old < self.target / 2 && self.prob < 0.2)
            || waiting < 2;
        if exempt || self.rng.gen::<f64>() >= self.prob {
            return PieVerdict::Enqueue;
        }
        if ect && self.prob <= MARK_ECN_THRESHOLD {
            PieVerdict::Mark
        } else {
            PieVerdict::Drop
        }
    }
}

/// RFC 8033 section 4.2: how much a small probability's adjustment is scaled down, so that `p`
/// grows gently from zero and settles where few drops control the queue.
fn auto_tune_divisor(prob: f64) -> f64 {
    match prob {
        p if p < 0.000_001 => 2048.0,
        p if p < 0.000_01 => 512.0,
        p if p < 0.000_1 => 128.0,
        p if p < 0.001 => 32.0,
        p if p < 0.01 => 8.0,
        p if p < 0.1 => 2.0,
        _ => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    const MS: Nanos = 1_000_000;

    fn pie() -> PieState {
        PieState::new(15 * MS, 15 * MS, ChaCha8Rng::seed_from_u64(1))
    }

    /// Holds a queue of `qdelay` for `duration` and returns the probability reached.
    fn hold(state: &mut PieState, from: Nanos, duration: Nanos, qdelay: Nanos) -> f64 {
        let mut t = from;
        while t < from + duration {
            t += MS;
            state.catch_up(t, t + qdelay);
        }
        state.probability()
    }

    #[test]
    fn the_drop_probability_rises_with_the_queueing_delay() {
        let reached = |qdelay| hold(&mut pie(), 0, 2 * NANOS_PER_SEC, qdelay);
        let (at_10, at_30, at_60) = (reached(10 * MS), reached(30 * MS), reached(60 * MS));
        assert_eq!(at_10, 0.0, "below target p stays 0");
        assert!(at_30 > 0.0, "{at_30}");
        assert!(at_60 > at_30, "{at_60} vs {at_30}");
    }

    #[test]
    fn below_target_the_probability_falls_back() {
        let mut state = pie();
        let high = hold(&mut state, 0, 3 * NANOS_PER_SEC, 60 * MS);
        let after = hold(&mut state, 3 * NANOS_PER_SEC, 3 * NANOS_PER_SEC, 0);
        assert!(after < high / 2.0, "{after} vs {high}");
    }

    #[test]
    fn small_probabilities_move_slowly() {
        // Auto-tuning: the first step from 0 is the raw adjustment / 2048.
        let mut state = pie();
        state.catch_up(15 * MS, 15 * MS + 30 * MS);
        let raw = ALPHA * 0.015 + BETA * 0.030;
        assert!((state.probability() - raw / 2048.0).abs() < 1e-12);
    }

    #[test]
    fn the_burst_allowance_lets_the_first_150ms_through() {
        let mut state = pie();
        state.prob = 0.5;
        state.qdelay_old = 60 * MS;
        // Fresh from an idle queue: nothing dropped until the allowance is spent.
        assert!((0..100).all(|_| state.on_arrival(10, false) == PieVerdict::Enqueue));
        hold(&mut state, 0, 200 * MS, 60 * MS);
        let drops = (0..1000)
            .filter(|_| state.on_arrival(10, false) == PieVerdict::Drop)
            .count();
        assert!(drops > 100, "{drops} of 1000 dropped at p = {}", state.prob);
    }

    #[test]
    fn ecn_capable_packets_are_marked_while_p_is_low_and_dropped_above_ten_percent() {
        let mut state = pie();
        state.burst_allowance = 0;
        state.qdelay_old = 60 * MS;
        state.prob = 0.08;
        let verdicts: Vec<_> = (0..2000).map(|_| state.on_arrival(10, true)).collect();
        assert!(verdicts.contains(&PieVerdict::Mark));
        assert!(!verdicts.contains(&PieVerdict::Drop));
        state.prob = 0.3;
        let verdicts: Vec<_> = (0..2000).map(|_| state.on_arrival(10, true)).collect();
        assert!(verdicts.contains(&PieVerdict::Drop));
        assert!(!verdicts.contains(&PieVerdict::Mark));
    }

    #[test]
    fn fewer_than_two_waiting_packets_are_never_dropped() {
        let mut state = pie();
        state.burst_allowance = 0;
        state.qdelay_old = 60 * MS;
        state.prob = 1.0;
        assert!((0..100).all(|_| state.on_arrival(1, false) == PieVerdict::Enqueue));
    }
}
