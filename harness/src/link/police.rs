//! A token-bucket policer, as ISPs rate-limit traffic (Flach et al., "An Internet-Wide Analysis
//! of Traffic Policing", SIGCOMM 2016; Linux `act_police`): a packet that finds tokens for its
//! size passes and spends them, any other is dropped; nothing waits. Tokens (bytes) refill at the
//! policed rate up to the bucket size, and the bucket starts full.

use super::{Nanos, NANOS_PER_SEC};

/// The state of one token bucket.
#[derive(Debug, Clone)]
pub struct PoliceState {
    /// Bytes per second.
    rate: f64,
    burst: f64,
    tokens: f64,
    last: Nanos,
}

impl PoliceState {
    /// A bucket of `burst` bytes refilled at `rate_bps` bits per second, full at time 0.
    pub fn new(rate_bps: u64, burst: u64) -> Self {
        Self {
            rate: rate_bps as f64 / 8.0,
            burst: burst as f64,
            tokens: burst as f64,
            last: 0,
        }
    }

    /// Whether a packet of `ip_len` bytes arriving at `now` (non-decreasing) conforms; if it
    /// does, it spends its tokens.
    pub fn admit(&mut self, now: Nanos, ip_len: u64) -> bool {
        let elapsed = now.saturating_sub(self.last) as f64 / NANOS_PER_SEC as f64;
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        self.last = self.last.max(now);
        let size = ip_len as f64;
        if self.tokens >= size {
            self.tokens -= size;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_policer_passes_the_burst_and_then_the_rate() {
        // 8 Mbit/s, a 60 kB bucket, offered 1500-byte packets at 80 Mbit/s for a second.
        let mut police = PoliceState::new(8_000_000, 60_000);
        let gap = 150_000; // ns between packets: 1500 B at 80 Mbit/s
        let mut passed = 0u64;
        let mut first_drop = None;
        for i in 0..(NANOS_PER_SEC / gap) {
            if police.admit(i * gap, 1500) {
                passed += 1500;
            } else if first_drop.is_none() {
                first_drop = Some(i);
            }
        }
        // The burst goes through at line rate first: 60 kB / 1500 B = 40 packets, plus what
        // refilled while they passed (a tenth of their size at a tenth of the line rate).
        let first = first_drop.expect("the policer drops");
        assert!((40..=46).contains(&first), "first drop at packet {first}");
        // Over the second: the burst plus the rate, within a packet.
        let expected = 60_000 + 1_000_000;
        assert!(passed.abs_diff(expected) <= 1500, "{passed} bytes passed");
    }

    #[test]
    fn traffic_under_the_rate_is_never_dropped() {
        let mut police = PoliceState::new(8_000_000, 3_000);
        // 1500 B every 2 ms: 6 Mbit/s.
        assert!((0..1000).all(|i| police.admit(i * 2_000_000, 1500)));
    }
}
