use super::{Classification, Classifier};
use crate::event::{CongestionEvent, Verdict};

/// TCP Veno's loss classifier (Fu and Liew, "TCP Veno: TCP Enhancement for Transmission over
/// Wireless Access Networks", IEEE JSAC 21(2), 2003, section III.A; Linux `tcp_veno.c`): the
/// flow's own backlog in the bottleneck queue is `N = cwnd * (rtt - base_rtt) / rtt` packets
/// (Vegas' `Diff * base_rtt`). A loss while `N < beta` packets found the queue nearly empty, so
/// it is taken as random; with `N >= beta` the flow is queueing, and the loss is congestion.
///
/// Mapping to QUIC: `rtt` is the ACK-delay-corrected sample of the ACK that revealed the loss,
/// `base_rtt` the minimum RTT, `cwnd` the window in MSS when quinn reported the loss. Veno's
/// per-RTT minimum for `rtt` is the latest corrected sample here: the ACK that reveals a loss is
/// sent without delay (RFC 9000 section 13.2.1).
#[derive(Debug, Clone, PartialEq)]
pub struct Backlog {
    beta: f64,
}

impl Backlog {
    /// Veno's `beta`: 3 packets.
    pub const DEFAULT_BETA: f64 = 3.0;

    /// A classifier that calls a loss random while the backlog is below `beta` packets.
    pub fn new(beta: f64) -> Self {
        Self { beta }
    }

    /// The backlog in packets that `event` reveals.
    pub fn backlog(event: &CongestionEvent) -> f64 {
        let rtt = event.rtt.corrected().as_secs_f64();
        if rtt <= 0.0 {
            return 0.0;
        }
        event.window_packets as f64 * event.rtt.queueing().as_secs_f64() / rtt
    }
}

impl Default for Backlog {
    fn default() -> Self {
        Self::new(Self::DEFAULT_BETA)
    }
}

impl Classifier for Backlog {
    fn classify(&mut self, event: &CongestionEvent, _losses_in_window: u64) -> Classification {
        let (verdict, reason) = if Self::backlog(event) < self.beta {
            (Verdict::Random, "backlog below beta packets: random loss")
        } else {
            (Verdict::Congestion, "backlog at or above beta packets")
        };
        Classification {
            verdict,
            threshold: None,
            reason,
        }
    }
}
