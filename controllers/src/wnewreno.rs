use std::time::Duration;

use crate::algorithm::{WNewRenoAlgorithm, WindowAlgorithm};
use crate::classify::{OwdThreshold, DEFAULT_GRANULARITY};
use crate::factory::controller_factory;
use crate::param::{config, non_negative};
use crate::registry::ClassifierRow;
use crate::Adapter;

/// WNewReno, paper 002 (Pawale, Vanjale 2019, "Performance Improvement of TCP New Reno using one
/// way delay Measurement"), section IV and Fig. 3: NewReno that keeps its window when the
/// one-way delay at a loss is below `min_owd * (1 + margin)`.
///
/// See [`OwdThreshold`] for how the one-way delay becomes a hint built from QUIC's RTT samples.
/// Above the threshold, NewReno's response: halve once per window.
///
/// Mapping to QUIC: the paper's TCP timestamp option and receiver-computed OWD (with
/// synchronised clocks) have no QUIC counterpart without extensions; the hint charges all
/// queueing to the forward path, exact when the ACK path is uncongested. The paper's early
/// retransmission on the first duplicate ACK is not a window decision and QUIC retransmits on
/// declaration anyway. Cannot be carried over: a true one-way measurement on asymmetric paths.
pub type WNewReno = Adapter<WNewRenoAlgorithm>;

config! {
    /// Factory for [`WNewReno`].
    pub struct WNewRenoConfig {
        /// Wireless margin as a fraction of the minimum one-way delay (paper: 0.05..0.15, default
        /// 0.15).
        margin: f64 = OwdThreshold::DEFAULT_MARGIN,
            "threshold above the minimum one-way delay, as a fraction of it", non_negative;
        /// One-way-delay differences below this are noise (default 1 ms).
        granularity: Duration = DEFAULT_GRANULARITY, "RTT differences below this are noise";
    }
}

impl WNewRenoConfig {
    /// The loss classifier alone, e.g. to put in front of another controller.
    pub fn classifier(&self) -> OwdThreshold {
        OwdThreshold::new(self.margin, self.granularity)
    }

    /// The pure state machine, for a path whose MSS is `mss` bytes.
    pub fn algorithm(&self, mss: u64) -> WNewRenoAlgorithm {
        WindowAlgorithm::sack(self.initial_window, mss, self.classifier())
    }
}

controller_factory!(
    WNewRenoConfig,
    "wnewreno",
    "paper 002: NewReno keeping its window below a one-way-delay threshold"
);

impl ClassifierRow for WNewRenoConfig {
    type Classifier = OwdThreshold;

    fn loss_classifier(&self) -> OwdThreshold {
        self.classifier()
    }
}
