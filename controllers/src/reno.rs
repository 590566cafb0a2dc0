use crate::algorithm::{LossBased, LossBasedAlgorithm, Reduction, WindowAlgorithm};
use crate::factory::controller_factory;
use crate::growth::Growth;
use crate::param::config;
use crate::window::Window;
use crate::Adapter;

/// Fast recovery's window factor (RFC 5681).
const HALF: f64 = 0.5;

/// TCP Reno as a QUIC controller, the baseline of papers 001 (section 3.2) and 002: every loss
/// event halves the window, with no de-duplication within a window.
///
/// Mapping to QUIC: quinn reports losses once per ACK that reveals them; each such report is one
/// Reno fast retransmit/fast recovery, so several losses in one window halve the window several
/// times, as paper 001 describes ("the cwnd closes to half of its previous size for each segment
/// drop"). Cannot be carried over: Reno's window inflation during fast recovery and the
/// retransmission timeout it often needs after several losses (QUIC retransmits every lost frame
/// at once); persistent congestion is the timeout counterpart.
///
/// One type with Tahoe, Modified Tahoe, Reno, NewReno, SACK-FeW and Westwood+ (all
/// `Adapter<LossBasedAlgorithm>`: they differ only in the parameters of one state machine), so a
/// downcast to this alias also succeeds for the other five; [`Adapter::id`] tells them apart.
pub type Reno = Adapter<LossBasedAlgorithm>;

config! {
    /// Factory for [`Reno`].
    pub struct RenoConfig {}
}

impl RenoConfig {
    /// The pure state machine, for a path whose MSS is `mss` bytes.
    pub fn algorithm(&self, mss: u64) -> LossBasedAlgorithm {
        halving_algorithm(self.initial_window, mss, false)
    }
}

controller_factory!(
    RenoConfig,
    "reno",
    "TCP Reno: halves on every loss event, several times in one window"
);

/// The halving state machine of Reno and, once per window, NewReno (`newreno.rs`).
pub(crate) fn halving_algorithm(initial_window: u64, mss: u64, once_per_window: bool) -> LossBasedAlgorithm {
    WindowAlgorithm::new(
        Window::new(initial_window, mss, 2),
        LossBased,
        Growth::Reno,
        Reduction::Multiplicative { beta: HALF },
        once_per_window,
    )
}
