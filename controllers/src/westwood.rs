use crate::algorithm::{LossBased, LossBasedAlgorithm, Reduction, WindowAlgorithm};
use crate::factory::controller_factory;
use crate::growth::Growth;
use crate::param::config;
use crate::window::Window;
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

config! {
    /// Factory for [`Westwood`].
    pub struct WestwoodConfig {}
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

controller_factory!(
    WestwoodConfig,
    "westwood",
    "TCP Westwood+: on loss cwnd = ssthresh = bandwidth estimate x min RTT"
);
