use std::time::Duration;

use crate::algorithm::{CompositeAlgorithm, WindowAlgorithm};
use crate::classify::{SackGapAndRtt, DEFAULT_GRANULARITY};
use crate::factory::controller_factory;
use crate::param::config;
use crate::registry::ClassifierRow;
use crate::Adapter;

/// Composite TCP (CTCP), paper 004 (Gambhava, Bhensdadia 2019, "Composite TCP: Refining
/// Congestion Control"), section 3 and Fig. 1: SACK TCP that skips fast recovery for a single
/// loss in the window when `RTT <= SRTT`.
///
/// A second loss in the same window (a gap in SACK information) or `RTT > SRTT` runs SACK's fast
/// recovery (halve once per window); persistent congestion, QUIC's timeout, restarts slow start
/// from the minimum window. See [`SackGapAndRtt`] for the comparison at clock granularity.
///
/// Mapping to QUIC: SACK blocks are ACK ranges; "multiple losses in one window" follows
/// ARCHITECTURE.md, "Signals"; RTT is the per-ACK sample, SRTT the TCP sender's average of one
/// sample per round trip ([`crate::classify::TcpSrtt`]), not quinn's smoothed RTT. Cannot be
/// carried over: the paper's check at the third duplicate ACK happens here when quinn declares the
/// loss (packet or time threshold), which is the same moment in the common case.
pub type Composite = Adapter<CompositeAlgorithm>;

config! {
    /// Factory for [`Composite`].
    pub struct CompositeConfig {
        /// RTT differences below this are noise when comparing RTT with SRTT (default 1 ms).
        granularity: Duration = DEFAULT_GRANULARITY, "RTT differences below this are noise";
    }
}

impl CompositeConfig {
    /// The loss classifier alone, e.g. to put in front of another controller.
    pub fn classifier(&self) -> SackGapAndRtt {
        SackGapAndRtt::new(self.granularity)
    }

    /// The pure state machine, for a path whose MSS is `mss` bytes.
    pub fn algorithm(&self, mss: u64) -> CompositeAlgorithm {
        WindowAlgorithm::sack(self.initial_window, mss, self.classifier())
    }
}

controller_factory!(
    CompositeConfig,
    "composite",
    "paper 004: a single loss in the window with RTT <= SRTT is random"
);

impl ClassifierRow for CompositeConfig {
    type Classifier = SackGapAndRtt;

    fn loss_classifier(&self) -> SackGapAndRtt {
        self.classifier()
    }
}
