use std::time::Duration;

use crate::algorithm::{ModifiedSackAlgorithm, WindowAlgorithm};
use crate::classify::{RttTolerance, DEFAULT_GRANULARITY};
use crate::factory::controller_factory;
use crate::param::{config, non_negative};
use crate::registry::ClassifierRow;
use crate::Adapter;

/// Modified SACK, paper 000 (Mehta, Loriya, Keraliya 2024, "A Novel Approach to Enhance the
/// Performance of TCP SACK on Wireless Links"), section 3.1 and Fig. 1: SACK TCP with an
/// RTT-deviation tolerance and delayed fast recovery (the S_M_LOSS flag).
///
/// The classification (see [`RttTolerance`] for the reading of the paper's prose vs its chart):
/// within `tolerance` of the averaged RTT every loss is random; above it, the first loss of a
/// window is only retransmitted and a further loss in that window runs the postponed fast
/// recovery. A congestion verdict halves the window once per window, as SACK TCP does.
///
/// Mapping to QUIC: duplicate ACKs are quinn's loss detection; SACK information is the ACK ranges,
/// from which "several losses in one window" is counted (ARCHITECTURE.md, "Signals"); the RTT is
/// the per-ACK sample against the TCP sender's average of one sample per round trip
/// ([`crate::classify::TcpSrtt`]), not quinn's smoothed RTT. Cannot be carried over: the paper
/// checks the RTT at the first duplicate ACK, before three have arrived; quinn tells a controller
/// of a loss only once it is declared, so the check happens at the declaration.
pub type ModifiedSack = Adapter<ModifiedSackAlgorithm>;

config! {
    /// Factory for [`ModifiedSack`].
    pub struct ModifiedSackConfig {
        /// Largest relative RTT deviation still read as random loss (paper sweeps 0, 0.02, 0.05,
        /// 0.10, 0.20; default 0.05).
        tolerance: f64 = RttTolerance::DEFAULT_TOLERANCE,
            "largest relative RTT deviation read as random loss", non_negative;
        /// RTT differences below this are noise (default 1 ms).
        granularity: Duration = DEFAULT_GRANULARITY, "RTT differences below this are noise";
    }
}

impl ModifiedSackConfig {
    /// The loss classifier alone, e.g. to put in front of another controller.
    pub fn classifier(&self) -> RttTolerance {
        RttTolerance::new(self.tolerance, self.granularity)
    }

    /// The pure state machine, for a path whose MSS is `mss` bytes.
    pub fn algorithm(&self, mss: u64) -> ModifiedSackAlgorithm {
        WindowAlgorithm::sack(self.initial_window, mss, self.classifier())
    }
}

controller_factory!(
    ModifiedSackConfig,
    "modified-sack",
    "paper 000: RTT-deviation tolerance and delayed fast recovery (S_M_LOSS)"
);

impl ClassifierRow for ModifiedSackConfig {
    type Classifier = RttTolerance;

    fn loss_classifier(&self) -> RttTolerance {
        self.classifier()
    }
}
