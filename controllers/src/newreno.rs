use crate::algorithm::LossBasedAlgorithm;
use crate::factory::controller_factory;
use crate::param::config;
use crate::reno::halving_algorithm;
use crate::Adapter;

/// NewReno, which with QUIC's ACK ranges is SACK TCP's response: the "original SACK" baseline of
/// papers 000, 003 and 004, and the base of paper 002.
///
/// Halves once per recovery period: a loss of a packet sent before the last reduction belongs to
/// the window already reduced for (RFC 9002 section 7.3.2). The same behaviour as quinn's own
/// NewReno, plus this crate's `tracing` events and verdicts, so the harness scores it like the
/// others. Named for what it is in QUIC so that it does not clash with `quinn::congestion::NewReno`.
///
/// One type with Tahoe, Modified Tahoe, Reno, NewReno, SACK-FeW and Westwood+ (all
/// `Adapter<LossBasedAlgorithm>`: they differ only in the parameters of one state machine), so a
/// downcast to this alias also succeeds for the other five; [`Adapter::id`] tells them apart.
pub type SackNewReno = Adapter<LossBasedAlgorithm>;

config! {
    /// Factory for [`SackNewReno`].
    pub struct SackNewRenoConfig {}
}

impl SackNewRenoConfig {
    /// The pure state machine, for a path whose MSS is `mss` bytes.
    pub fn algorithm(&self, mss: u64) -> LossBasedAlgorithm {
        halving_algorithm(self.initial_window, mss, true)
    }
}

controller_factory!(
    SackNewRenoConfig,
    "newreno",
    "NewReno with QUIC ACK ranges, i.e. SACK TCP: halves once per window"
);
