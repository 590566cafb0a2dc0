use std::sync::Arc;

use quinn_proto::TransportConfig;

use crate::algorithm::LossBasedAlgorithm;
use crate::factory::controller_factory;
use crate::param::{self, at_least, config};
use crate::tahoe::restart_algorithm;
use crate::Adapter;

/// Modified Tahoe, paper 001 (Akhtar, Barry, Al-Raweshidy, "Modified Tahoe TCP for Wireless
/// Networks Using OPNET Simulator"), section 5.2: Tahoe with three changes.
///
/// 1. Fast retransmit after 2 duplicate ACKs instead of 3: in QUIC, quinn's
///    `TransportConfig::packet_threshold(2)`. Use [`ModifiedTahoeConfig::configure`] to set it
///    together with the factory; a factory alone cannot change loss detection.
/// 2. Slow start restarts from 3 MSS instead of 1 (also the window's floor, including after
///    persistent congestion, which the paper does not discuss).
/// 3. `ssthresh = 3/4 cwnd` instead of `1/2 cwnd`.
///
/// Otherwise as [`Tahoe`](crate::Tahoe). Cannot be carried over: OPNET's own TCP timers and window details;
/// the 9/8 RTT time threshold of QUIC loss detection still applies beside the packet threshold.
///
/// One type with Tahoe, Modified Tahoe, Reno, NewReno, SACK-FeW and Westwood+ (all
/// `Adapter<LossBasedAlgorithm>`: they differ only in the parameters of one state machine), so a
/// downcast to this alias also succeeds for the other five; [`Adapter::id`] tells them apart.
pub type ModifiedTahoe = Adapter<LossBasedAlgorithm>;

config! {
    /// Factory for [`ModifiedTahoe`].
    pub struct ModifiedTahoeConfig {
        /// Window after a loss, in MSS (paper: 3).
        restart_window: u64 = 3, "window after a loss, in MSS",
            |name, packets| at_least(name, packets, 1, "a whole number of at least 1, such as 3");
        /// ssthresh as a fraction of the window at the loss (paper: 0.75).
        ssthresh_factor: f64 = 0.75, "ssthresh as a fraction of cwnd at the loss", param::factor;
        /// Duplicate-ACK threshold applied by [`Self::configure`] (paper: 2).
        packet_threshold: u32 = Self::DEFAULT_PACKET_THRESHOLD,
            "duplicate-ACK (packet) threshold of loss detection",
            |name, packets: u32| {
                let expected = "a whole number of packets from 1 to 2^32 - 1, such as 2";
                at_least(name, u64::from(packets), 1, expected).map(|_| packets)
            };
    }
}

impl ModifiedTahoeConfig {
    /// Section 5.2: fast retransmit after 2 duplicate ACKs.
    pub const DEFAULT_PACKET_THRESHOLD: u32 = 2;

    /// Installs this controller and its packet threshold in `transport`: the one call a quinn
    /// user needs for Modified Tahoe.
    pub fn configure(&self, transport: &mut TransportConfig) {
        transport
            .congestion_controller_factory(Arc::new(self.clone()))
            .packet_threshold(self.packet_threshold);
    }

    /// The pure state machine, for a path whose MSS is `mss` bytes.
    pub fn algorithm(&self, mss: u64) -> LossBasedAlgorithm {
        restart_algorithm(
            self.initial_window,
            mss,
            self.ssthresh_factor,
            self.restart_window,
        )
    }
}

controller_factory!(
    ModifiedTahoeConfig,
    "modified-tahoe",
    "paper 001: Tahoe with dupthresh 2, restart at 3 MSS, ssthresh 3/4 cwnd",
    fn packet_threshold(&self) -> Option<u32> {
        Some(self.packet_threshold)
    }
);
