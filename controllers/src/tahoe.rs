use crate::algorithm::{LossBased, LossBasedAlgorithm, Reduction, WindowAlgorithm};
use crate::factory::controller_factory;
use crate::growth::Growth;
use crate::param::config;
use crate::window::Window;
use crate::Adapter;

/// TCP Tahoe as a QUIC controller: the baseline of paper 001 (Akhtar, Barry, Al-Raweshidy,
/// "Modified Tahoe TCP for Wireless Networks Using OPNET Simulator", section 3.3).
///
/// On a loss: `ssthresh = max(cwnd / 2, 2 MSS)`, `cwnd = 1 MSS`, slow start. No fast recovery.
///
/// Mapping to QUIC: the three duplicate ACKs are quinn's loss detection (packet threshold 3 and
/// the 9/8 RTT time threshold); fast retransmit is QUIC's own retransmission of lost frames; a
/// loss of a packet sent before the last restart belongs to the same window and is ignored, as
/// ns-2's Tahoe ignores further duplicate ACKs of a window it already retransmitted
/// ("avoid multiple fast retransmits"). Persistent congestion (QUIC's timeout) also drops to
/// 1 MSS. Cannot be carried over: a window below quinn's usual 2-MSS minimum lets quinn send a
/// single packet per RTT, and QUIC's ACK-only packets are not congestion-controlled, exactly
/// as TCP ACKs are not.
///
/// One type with Tahoe, Modified Tahoe, Reno, NewReno, SACK-FeW and Westwood+ (all
/// `Adapter<LossBasedAlgorithm>`: they differ only in the parameters of one state machine), so a
/// downcast to this alias also succeeds for the other five; [`Adapter::id`] tells them apart.
pub type Tahoe = Adapter<LossBasedAlgorithm>;

config! {
    /// Factory for [`Tahoe`].
    pub struct TahoeConfig {}
}

impl TahoeConfig {
    /// The pure state machine, for a path whose MSS is `mss` bytes.
    pub fn algorithm(&self, mss: u64) -> LossBasedAlgorithm {
        restart_algorithm(self.initial_window, mss, 0.5, 1)
    }
}

controller_factory!(
    TahoeConfig,
    "tahoe",
    "TCP Tahoe: on loss ssthresh = cwnd/2, cwnd = 1 MSS, slow start"
);

/// Tahoe's state machine, with its parameters: Modified Tahoe changes them
/// (`modified_tahoe.rs`).
pub(crate) fn restart_algorithm(
    initial_window: u64,
    mss: u64,
    ssthresh_factor: f64,
    restart_packets: u64,
) -> LossBasedAlgorithm {
    WindowAlgorithm::new(
        Window::new(initial_window, mss, restart_packets),
        LossBased,
        Growth::Reno,
        Reduction::Restart {
            ssthresh_factor,
            restart_packets,
        },
        true,
    )
}
