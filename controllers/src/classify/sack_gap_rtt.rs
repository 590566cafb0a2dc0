use std::time::Duration;

use super::{threshold_above, Classification, Classifier, TcpSrtt, DEFAULT_GRANULARITY};
use crate::event::{AckBatch, CongestionEvent, Verdict};

/// Paper 004 (Gambhava, Bhensdadia 2019, "Composite TCP: Refining Congestion Control"),
/// section 3 and Fig. 1: a single loss in the window AND `RTT <= SRTT` is a random loss; a
/// second loss in the same window ("a gap in SACK information"), or `RTT > SRTT`, is congestion.
///
/// QUIC's ACK ranges play the SACK blocks: several packets declared lost within one window (see
/// [`crate::episode`]) is the SACK gap. SRTT is the TCP sender's, [`TcpSrtt`] (raw samples, one
/// per round trip), not quinn's ACK-delay-corrected one: against the latter, whose correction
/// quinn cannot apply to the per-ACK sample, every delayed ACK would read as `RTT > SRTT`.
/// `RTT <= SRTT` is evaluated at `granularity`, since the paper's ns-2 agent compared RTTs in
/// whole timer ticks; a comparison at nanoseconds would turn every microsecond of jitter into a
/// congestion verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct SackGapAndRtt {
    granularity: Duration,
    srtt: TcpSrtt,
}

impl SackGapAndRtt {
    /// A classifier that compares `RTT <= SRTT` at `granularity`.
    pub fn new(granularity: Duration) -> Self {
        Self {
            granularity,
            srtt: TcpSrtt::default(),
        }
    }
}

impl Default for SackGapAndRtt {
    fn default() -> Self {
        Self::new(DEFAULT_GRANULARITY)
    }
}

impl Classifier for SackGapAndRtt {
    fn on_ack_batch(&mut self, batch: &AckBatch) {
        self.srtt.on_ack_batch(batch);
    }

    fn smoothed_rtt(&self) -> Option<Duration> {
        self.srtt.get()
    }

    fn classify(&mut self, event: &CongestionEvent, losses_in_window: u64) -> Classification {
        // The RTT above which `RTT > SRTT` holds at the clock's resolution.
        let srtt = self.srtt.get_or(event.rtt.smoothed);
        let threshold = threshold_above(srtt, 0.0, self.granularity);
        let (verdict, reason) = if losses_in_window > 1 {
            (Verdict::Congestion, "several losses in one window")
        } else if event.rtt.latest > threshold {
            (Verdict::Congestion, "rtt above srtt")
        } else {
            (Verdict::Random, "single loss in window and rtt <= srtt")
        };
        Classification {
            verdict,
            threshold: Some(threshold),
            reason,
        }
    }
}
