//! Westwood+'s end-to-end bandwidth estimate (Mascolo et al., "TCP Westwood: Bandwidth
//! Estimation for Enhanced Transport over Wireless Links", MobiCom 2001; the "+" per-RTT
//! sampling of Grieco and Mascolo, CCR 2004; Linux `tcp_westwood.c`).
//!
//! Bytes acknowledged are counted over one round trip (at least 50 ms, as `tcp_westwood.c`'s
//! `TCP_WESTWOOD_RTT_MIN`), the rate of that interval is one sample, and two cascaded 7/8
//! low-pass filters smooth the samples. Counting per round trip rather than per ACK keeps ACK
//! compression from inflating the estimate, which was Westwood+'s fix of the original.
//!
//! Mapping to QUIC: quinn reports every acknowledged packet exactly once (`on_ack`), so the
//! count needs none of TCP's duplicate-ACK accounting; the round trip is the ACK-delay-corrected
//! RTT sample.

use std::time::{Duration, Instant};

use crate::event::AckBatch;

/// Shortest sampling interval (`tcp_westwood.c`: `TCP_WESTWOOD_RTT_MIN`, HZ/20).
const MIN_INTERVAL: Duration = Duration::from_millis(50);

/// A smoothed delivery rate in bytes per second.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BandwidthEstimate {
    /// Start of the current sampling interval.
    interval_start: Option<Instant>,
    /// Bytes acknowledged in it.
    bytes: u64,
    /// First filter stage.
    unsmoothed: f64,
    /// Second filter stage: the estimate.
    estimate: f64,
}

impl BandwidthEstimate {
    /// Counts the bytes `batch` acknowledged and closes the interval after a round trip.
    pub fn on_ack_batch(&mut self, batch: &AckBatch) {
        let start = *self.interval_start.get_or_insert(batch.now);
        self.bytes = self.bytes.saturating_add(batch.acked_bytes);
        let elapsed = batch.now.saturating_duration_since(start);
        if elapsed < batch.rtt.corrected().max(MIN_INTERVAL) {
            return;
        }
        let sample = self.bytes as f64 / elapsed.as_secs_f64();
        if self.estimate == 0.0 {
            self.unsmoothed = sample;
            self.estimate = sample;
        } else {
            self.unsmoothed = (7.0 * self.unsmoothed + sample) / 8.0;
            self.estimate = (7.0 * self.estimate + self.unsmoothed) / 8.0;
        }
        self.interval_start = Some(batch.now);
        self.bytes = 0;
    }

    /// Bytes per second; zero before the first round trip.
    pub fn bytes_per_second(&self) -> f64 {
        self.estimate
    }

    /// The window that fills a path of this bandwidth and `rtt`: `bandwidth * rtt` bytes.
    pub fn window_for(&self, rtt: Duration) -> u64 {
        (self.estimate * rtt.as_secs_f64()) as u64
    }
}
