use crate::algorithm::{LossBased, LossBasedAlgorithm, Reduction, WindowAlgorithm};
use crate::factory::controller_factory;
use crate::growth::Growth;
use crate::param::{config, fraction};
use crate::window::Window;
use crate::Adapter;

/// SACK-FeW, paper 003 (Kaur, "Performance Analysis of Selective Acknowledgement with Fractional
/// Window Increment (SACK-FeW)"), section 2: SACK TCP whose window grows by a fraction `alpha`
/// of a packet per window, in slow start and avoidance alike.
///
/// Section 2.2's algorithm: on SACKs that report a loss, retransmit (step 3) and set
/// `cwnd = min(cwnd, ssthresh)` (step 4); on every ACK, `cwnd += alpha / cwnd` in packets
/// (step 5), i.e. in bytes `cwnd += alpha * MSS * acked / cwnd` per acknowledged byte count.
/// There is no exponential phase. We read step 4 as SACK TCP's exit from fast recovery (the
/// window deflates to ssthresh), which our reduction already does (`cwnd = ssthresh = cwnd / 2`).
/// Capping the window at ssthresh on every ACK instead would leave it unable ever to grow past
/// the first reduction: every loss would ratchet it down to the 2-MSS floor and `alpha` would
/// not matter, contradicting the paper's Table 2 (SACK-FeW within 1 % of SACK at 10 nodes).
/// With the paper's `alpha = 0.01` the window grows by about one MSS per 100 RTTs: the scheme
/// is made for 802.11 multihop paths whose best window is a few packets. Losses get SACK's
/// (NewReno's) response: halve once per window.
///
/// Mapping to QUIC: SACK is QUIC's ACK ranges; the increment counts acknowledged bytes, so it
/// does not depend on how often the peer acknowledges. Cannot be carried over: the paper's gains
/// come from fewer 802.11 MAC contentions and route breaks, which a wired or simulated link does
/// not have; `alpha` stays a rate limit on window growth.
///
/// One type with Tahoe, Modified Tahoe, Reno, NewReno, SACK-FeW and Westwood+ (all
/// `Adapter<LossBasedAlgorithm>`: they differ only in the parameters of one state machine), so a
/// downcast to this alias also succeeds for the other five; [`Adapter::id`] tells them apart.
pub type SackFew = Adapter<LossBasedAlgorithm>;

config! {
    /// Factory for [`SackFew`].
    pub struct SackFewConfig {
        /// Fraction of an MSS the window grows by per window acknowledged (paper: 0 <= alpha <= 1).
        alpha: f64 = Self::DEFAULT_ALPHA,
            "window growth per window acknowledged, in MSS (0 to 1)", fraction;
    }
}

impl SackFewConfig {
    /// Section 2.2 step 1.
    pub const DEFAULT_ALPHA: f64 = 0.01;

    /// The pure state machine, for a path whose MSS is `mss` bytes.
    pub fn algorithm(&self, mss: u64) -> LossBasedAlgorithm {
        WindowAlgorithm::new(
            Window::new(self.initial_window, mss, 2),
            LossBased,
            Growth::fractional(self.alpha),
            Reduction::Multiplicative { beta: 0.5 },
            true,
        )
    }
}

controller_factory!(
    SackFewConfig,
    "sack-few",
    "paper 003: SACK with a fractional window increment of alpha MSS per window"
);
