use std::sync::Arc;

use quinn_proto::TransportConfig;

use crate::algorithm::LossBasedAlgorithm;
use crate::factory::controller_factory;
use crate::param::{self, at_least, param, Param, ParamError, Params};
use crate::tahoe::restart_algorithm;
use crate::window::DEFAULT_INITIAL_WINDOW;
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
/// Otherwise as [`Tahoe`]. Cannot be carried over: OPNET's own TCP timers and window details;
/// the 9/8 RTT time threshold of QUIC loss detection still applies beside the packet threshold.
///
/// One type with Tahoe, Modified Tahoe, Reno, NewReno, SACK-FeW and Westwood+ (all
/// `Adapter<LossBasedAlgorithm>`: they differ only in the parameters of one state machine), so a
/// downcast to this alias also succeeds for the other five; [`Adapter::id`] tells them apart.
pub type ModifiedTahoe = Adapter<LossBasedAlgorithm>;

/// Factory for [`ModifiedTahoe`].
#[derive(Debug, Clone)]
pub struct ModifiedTahoeConfig {
    initial_window: u64,
    restart_window: u64,
    ssthresh_factor: f64,
    packet_threshold: u32,
}

impl Default for ModifiedTahoeConfig {
    fn default() -> Self {
        Self {
            initial_window: DEFAULT_INITIAL_WINDOW,
            restart_window: 3,
            ssthresh_factor: 0.75,
            packet_threshold: Self::DEFAULT_PACKET_THRESHOLD,
        }
    }
}

impl ModifiedTahoeConfig {
    /// Section 5.2: fast retransmit after 2 duplicate ACKs.
    pub const DEFAULT_PACKET_THRESHOLD: u32 = 2;

    /// Window after a loss, in MSS (paper: 3).
    pub fn restart_window(&mut self, packets: u64) -> Result<&mut Self, ParamError> {
        self.restart_window = at_least(
            "restart_window",
            packets,
            1,
            "a whole number of at least 1, such as 3",
        )?;
        Ok(self)
    }

    /// ssthresh as a fraction of the window at the loss (paper: 0.75).
    pub fn ssthresh_factor(&mut self, factor: f64) -> Result<&mut Self, ParamError> {
        self.ssthresh_factor = param::factor("ssthresh_factor", factor)?;
        Ok(self)
    }

    /// Duplicate-ACK threshold applied by [`Self::configure`] (paper: 2).
    pub fn packet_threshold(&mut self, packets: u32) -> Result<&mut Self, ParamError> {
        at_least(
            "packet_threshold",
            u64::from(packets),
            1,
            "a whole number of packets from 1 to 2^32 - 1, such as 2",
        )?;
        self.packet_threshold = packets;
        Ok(self)
    }

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

impl Params for ModifiedTahoeConfig {
    const PARAMS: &'static [Param<Self>] = &[
        param!(restart_window: u64, "window after a loss, in MSS"),
        param!(ssthresh_factor: f64, "ssthresh as a fraction of cwnd at the loss"),
        param!(
            packet_threshold: u32,
            "duplicate-ACK (packet) threshold of loss detection"
        ),
    ];
}

controller_factory!(
    ModifiedTahoeConfig,
    "modified-tahoe",
    "paper 001: Tahoe with dupthresh 2, restart at 3 MSS, ssthresh 3/4 cwnd",
    fn packet_threshold(&self) -> Option<u32> {
        Some(self.packet_threshold)
    }
);
