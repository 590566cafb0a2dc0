use std::time::{Duration, Instant};

use crate::event::AckBatch;

/// The smoothed RTT the papers' TCP senders kept: RFC 6298's average with gain 1/8, of raw RTT
/// samples, taking one sample per round trip as ns-2's TCP agent (which times one segment per
/// RTT) does.
///
/// quinn's own smoothed RTT differs in two ways that matter for a loss classifier. It subtracts
/// the peer's reported ACK delay, which quinn 0.11 does not pass to controllers, so a raw
/// per-ACK sample compared with it reads every delayed ACK as queueing. And it moves with every
/// ACK, following a standing queue within a fraction of an RTT, so a building queue hardly
/// deviates from it. Both sides of the comparison here are raw samples, and the average lags a
/// rising RTT by several round trips, as the papers' did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TcpSrtt {
    average: Option<Duration>,
    next_sample: Option<Instant>,
}

impl TcpSrtt {
    /// Takes the ACK frame's RTT sample (of the newest packet it acknowledged) if a round trip
    /// has passed since the last one.
    pub fn on_ack_batch(&mut self, batch: &AckBatch) {
        if self.next_sample.is_some_and(|at| batch.now < at) {
            return;
        }
        let latest = batch.rtt.latest;
        let average = self.average.map_or(latest, |a| (a * 7 + latest) / 8);
        self.average = Some(average);
        self.next_sample = batch.now.checked_add(average);
    }

    /// The average, or `fallback` (quinn's smoothed RTT) before the first ACK.
    pub fn get_or(&self, fallback: Duration) -> Duration {
        self.average.unwrap_or(fallback)
    }

    pub fn get(&self) -> Option<Duration> {
        self.average
    }
}
