//! "Multiple losses in one window", the signal papers 000 and 004 read from SACK gaps.
//!
//! ARCHITECTURE.md, "Signals": an episode opens when a loss is detected; a later loss event whose
//! largest lost packet was sent at or before that moment was in flight with the first loss, so it
//! belongs to the same window. A packet sent after it starts a new episode.

use std::time::Instant;

use crate::event::CongestionEvent;

/// Counts the packets lost in one window: the loss episode a loss event belongs to, and how many
/// packets it has lost so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LossEpisode {
    opened_at: Option<Instant>,
    lost_packets: u64,
}

impl LossEpisode {
    /// Adds `event` to the current episode (or opens a new one) and returns the packets lost in
    /// the episode so far, this event included.
    pub fn record(&mut self, event: &CongestionEvent) -> u64 {
        let lost = event.lost_packets.max(1);
        match self.opened_at {
            Some(opened) if event.sent <= opened => {
                self.lost_packets = self.lost_packets.saturating_add(lost);
            }
            _ => {
                self.opened_at = Some(event.now);
                self.lost_packets = lost;
            }
        }
        self.lost_packets
    }
}
