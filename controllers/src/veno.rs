use crate::algorithm::{RandomResponse, Reduction, WindowAlgorithm};
use crate::classify::Backlog;
use crate::factory::controller_factory;
use crate::growth::Growth;
use crate::param::{config, non_negative};
use crate::registry::ClassifierRow;
use crate::window::Window;
use crate::Adapter;

/// TCP Veno (Fu and Liew, "TCP Veno: TCP Enhancement for Transmission over Wireless Access
/// Networks", IEEE JSAC 21(2), 2003; Linux `tcp_veno.c`), a baseline of the field.
///
/// Section III.A: the flow's backlog `N = cwnd * (rtt - base_rtt) / rtt` ([`Backlog`]) tells a
/// random loss (`N < beta`, 3 packets) from a congestion loss. A random loss still costs a little:
/// `cwnd = ssthresh = cwnd * 4/5` (section III.B); a congestion loss halves, as Reno. In
/// avoidance the window grows by one MSS per window while `N < beta`, and one MSS every other
/// window once the flow queues that much ([`Growth::Veno`]). Both reductions happen once per
/// window, as fast recovery does.
///
/// Mapping to QUIC: RTTs are the ACK-delay-corrected samples; "per window" is QUIC's recovery
/// period (a loss of a packet sent before the last reduction does not reduce again).
pub type Veno = Adapter<WindowAlgorithm<Backlog>>;

config! {
    /// Factory for [`Veno`].
    pub struct VenoConfig {
        /// Backlog in packets below which a loss is random (default 3).
        beta: f64 = Backlog::DEFAULT_BETA,
            "backlog in packets below which a loss is random", non_negative;
    }
}

impl VenoConfig {
    /// The loss classifier alone.
    pub fn classifier(&self) -> Backlog {
        Backlog::new(self.beta)
    }

    /// The pure state machine, for a path whose MSS is `mss` bytes.
    pub fn algorithm(&self, mss: u64) -> WindowAlgorithm<Backlog> {
        WindowAlgorithm::new(
            Window::new(self.initial_window, mss, 2),
            self.classifier(),
            Growth::Veno {
                backlog_packets: self.beta,
            },
            Reduction::Multiplicative { beta: 0.5 },
            true,
        )
        .with_random_response(RandomResponse::Multiplicative { beta: 0.8 })
    }
}

controller_factory!(
    VenoConfig,
    "veno",
    "TCP Veno: a loss with backlog N < beta packets is random (x4/5), else halve"
);

impl ClassifierRow for VenoConfig {
    type Classifier = Backlog;

    fn loss_classifier(&self) -> Backlog {
        self.classifier()
    }
}
