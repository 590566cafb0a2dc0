use std::time::Duration;

use super::{threshold_above, Classification, Classifier, TcpSrtt, DEFAULT_GRANULARITY};
use crate::event::{AckBatch, CongestionEvent, Verdict};

/// Paper 000 (Mehta, Loriya, Keraliya 2024, "A Novel Approach to Enhance the Performance of TCP
/// SACK on Wireless Links"), section 3.1 and Fig. 1: RTT-deviation tolerance with delayed fast
/// recovery and the S_M_LOSS flag.
///
/// The paper's prose and flow chart disagree on a loss whose RTT deviation exceeds the
/// tolerance (the prose says "fast recovery is immediately executed", the chart still checks
/// S_M_LOSS). We follow the chart, the reading that keeps both halves of the paper's idea:
/// - deviation of the latest RTT from the averaged RTT within `tolerance`: a random loss, no
///   reduction, however many packets the window lost;
/// - deviation above `tolerance`: the first lost packet of the window sets S_M_LOSS and is only
///   retransmitted (delayed fast recovery); a further loss in the same window, or an event that
///   loses several packets at once, runs the postponed fast recovery.
///
/// The "averaged RTT" is the ns-2 SACK agent's smoothed RTT, [`TcpSrtt`]: raw samples, one per
/// round trip. Its lag is what makes a building queue visible as a deviation; against quinn's
/// per-ACK smoothed RTT a congested path's RTT deviates by almost nothing and every loss would
/// look random. Deviation is one-sided: an RTT below the average is not congestion.
#[derive(Debug, Clone, PartialEq)]
pub struct RttTolerance {
    tolerance: f64,
    granularity: Duration,
    srtt: TcpSrtt,
}

impl RttTolerance {
    /// The default tolerance, 5 % (the paper sweeps 0, 0.02, 0.05, 0.10, 0.20).
    pub const DEFAULT_TOLERANCE: f64 = 0.05;

    /// A classifier that tolerates a deviation of `tolerance` (a fraction of the averaged RTT)
    /// before it suspects congestion; deviations below `granularity` are clock noise.
    pub fn new(tolerance: f64, granularity: Duration) -> Self {
        Self {
            tolerance,
            granularity,
            srtt: TcpSrtt::default(),
        }
    }

    /// The averaged RTT deviations are measured against.
    pub fn average(&self) -> Option<Duration> {
        self.srtt.get()
    }
}

impl Default for RttTolerance {
    fn default() -> Self {
        Self::new(Self::DEFAULT_TOLERANCE, DEFAULT_GRANULARITY)
    }
}

impl Classifier for RttTolerance {
    fn on_ack_batch(&mut self, batch: &AckBatch) {
        self.srtt.on_ack_batch(batch);
    }

    fn smoothed_rtt(&self) -> Option<Duration> {
        self.srtt.get()
    }

    fn classify(&mut self, event: &CongestionEvent, losses_in_window: u64) -> Classification {
        let average = self.srtt.get_or(event.rtt.smoothed);
        let threshold = threshold_above(average, self.tolerance, self.granularity);
        let (verdict, reason) = if event.rtt.latest <= threshold {
            (Verdict::Random, "rtt deviation within tolerance")
        } else if losses_in_window <= 1 {
            (
                Verdict::Random,
                "rtt deviation above tolerance, first loss in window: fast recovery delayed (S_M_LOSS)",
            )
        } else {
            (
                Verdict::Congestion,
                "rtt deviation above tolerance and several losses in window",
            )
        };
        Classification {
            verdict,
            threshold: Some(threshold),
            reason,
        }
    }
}
