use crate::algorithm::{LossBased, LossBasedAlgorithm, Reduction, WindowAlgorithm};
use crate::factory::controller_factory;
use crate::growth::Growth;
use crate::param::{Param, Params};
use crate::window::{Window, DEFAULT_INITIAL_WINDOW};
use crate::Adapter;

/// TCP Westwood+ (Mascolo, Casetti, Gerla, Sanadidi, Wang, "TCP Westwood: Bandwidth Estimation
/// for Enhanced Transport over Wireless Links", MobiCom 2001; Grieco and Mascolo, "Performance
/// evaluation and comparison of Westwood+, New Reno, and Vegas TCP congestion control", CCR 34(2),
/// 2004, section 2; Linux `tcp_westwood.c`), a baseline of the field.
///
/// Every loss is congestion, but the response is bandwidth-based: `cwnd = ssthresh = bandwidth
/// estimate * min RTT` ([`Reduction::Bandwidth`], [`crate::bandwidth::BandwidthEstimate`]), the
/// window that keeps the pipe full, instead of a blind halving. On a lossy link whose queue is
/// empty, that window is about what the flow had, so random losses cost little; under congestion
/// it drains the queue. Reno growth, once per window.
///
/// Mapping to QUIC: the estimate counts bytes quinn reports acknowledged per round trip (at least
/// 50 ms), the min RTT is quinn's. Persistent congestion, QUIC's timeout, restarts slow start
/// with ssthresh halved, as Westwood+'s `CA_EVENT_LOSS` keeps Reno's timeout response.
///
/// One type with Tahoe, Modified Tahoe, Reno, NewReno, SACK-FeW and Westwood+ (all
/// `Adapter<LossBasedAlgorithm>`: they differ only in the parameters of one state machine), so a
/// downcast to this alias also succeeds for the other five; [`Adapter::id`] tells them apart.
pub type Westwood = Adapter<LossBasedAlgorithm>;

/// Factory for [`Westwood`].
#[derive(Debug, Clone)]
pub struct WestwoodConfig {
    initial_window: u64,
}

impl WestwoodConfig {
    /// The pure state machine, for a path whose MSS is `mss` bytes.
    pub fn algorithm(&self, mss: u64) -> LossBasedAlgorithm {
        WindowAlgorithm::new(
            Window::new(self.initial_window, mss, 2),
            LossBased,
            Growth::Reno,
            Reduction::Bandwidth,
            true,
        )
    }
}

impl Default for WestwoodConfig {
    fn default() -> Self {
        Self {
            initial_window: DEFAULT_INITIAL_WINDOW,
        }
    }
}

impl Params for WestwoodConfig {
    const PARAMS: &'static [Param<Self>] = &[];
}

controller_factory!(
    WestwoodConfig,
    "westwood",
    "TCP Westwood+: on loss cwnd = ssthresh = bandwidth estimate x min RTT"
);
