use std::time::{Duration, Instant};

use super::{threshold_above, Classification, Classifier, DEFAULT_GRANULARITY};
use crate::event::{Ack, CongestionEvent, Verdict};

/// Paper 000 (Mehta, Loriya, Keraliya 2024, "A Novel Approach to Enhance the Performance of TCP
/// SACK on Wireless Links"), section 3.1 and Fig. 1: RTT-deviation tolerance with delayed fast
/// recovery and the S_M_LOSS flag.
///
/// The paper's prose and flow chart disagree on a loss whose RTT deviation exceeds the
/// tolerance (the prose says "fast recovery is immediately executed", the chart still checks
/// S_M_LOSS). We follow DESIGN 2.3, which reads the chart:
/// - deviation of the latest RTT from the averaged RTT within `tolerance`: a random loss, no
///   reduction, however many packets the window lost;
/// - deviation above `tolerance`: the first lost packet of the window sets S_M_LOSS and is only
///   retransmitted (delayed fast recovery); a further loss in the same window, or an event that
///   loses several packets at once, runs the postponed fast recovery.
///
/// The "averaged RTT" is the ns-2 SACK agent's: an exponential average with gain 1/8 (RFC 6298)
/// fed **one sample per round trip**, because ns-2's TCP times one segment per RTT. That lag is
/// what makes a building queue visible as a deviation: the average trails a rising RTT by
/// several round trips. quinn's own smoothed RTT takes a sample from every ACK and follows a
/// standing queue within a fraction of an RTT, so against it a congested path's RTT deviates by
/// almost nothing and every loss would look random. Deviation is one-sided: an RTT below the
/// average is not congestion.
#[derive(Debug, Clone, PartialEq)]
pub struct RttTolerance {
    tolerance: f64,
    granularity: Duration,
    /// The per-round-trip average, once the first ACK has been seen.
    average: Option<Duration>,
    /// When the average takes its next sample: one averaged RTT after the last.
    next_sample: Option<Instant>,
}

impl RttTolerance {
    /// The paper's default tolerance in DESIGN 2.1 (it sweeps 0, 0.02, 0.05, 0.10, 0.20).
    pub const DEFAULT_TOLERANCE: f64 = 0.05;

    pub fn new(tolerance: f64, granularity: Duration) -> Self {
        Self {
            tolerance,
            granularity,
            average: None,
            next_sample: None,
        }
    }

    /// The averaged RTT deviations are measured against.
    pub fn average(&self) -> Option<Duration> {
        self.average
    }
}

impl Default for RttTolerance {
    fn default() -> Self {
        Self::new(Self::DEFAULT_TOLERANCE, DEFAULT_GRANULARITY)
    }
}

impl Classifier for RttTolerance {
    fn on_ack(&mut self, ack: &Ack) {
        if self.next_sample.is_some_and(|at| ack.now < at) {
            return;
        }
        let latest = ack.rtt.latest;
        let average = self.average.map_or(latest, |a| (a * 7 + latest) / 8);
        self.average = Some(average);
        self.next_sample = ack.now.checked_add(average);
    }

    fn classify(&mut self, event: &CongestionEvent, losses_in_window: u64) -> Classification {
        // Before any ACK there is no average of our own; quinn's smoothed RTT stands in.
        let average = self.average.unwrap_or(event.rtt.smoothed);
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
