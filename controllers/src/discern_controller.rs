use std::time::Duration;

use crate::algorithm::{Reduction, WindowAlgorithm};
use crate::classify::{QueueFull, DEFAULT_GRANULARITY};
use crate::factory::controller_factory;
use crate::growth::Growth;
use crate::param::{fraction, open_fraction, positive_duration, ParamError};
use crate::window::{Window, DEFAULT_INITIAL_WINDOW};
use crate::Adapter;

/// `discern`: this crate's own controller. NewReno's manners under congestion, and no cut for a
/// loss that cannot have come from a queue.
///
/// A drop-tail bottleneck drops only when its queue is full, and a full queue shows as the
/// largest queueing delay the path has had. [`QueueFull`] calls a loss congestion when the
/// ACK-delay-corrected RTT of the ACK that revealed it sits at that level (or an ECN path marked
/// CE in the last round trip, or a window lost many packets), and random otherwise. A random
/// loss keeps the window; QUIC retransmits it as always. A congestion loss gets NewReno's
/// response: `cwnd = ssthresh = cwnd * beta` once per window, Reno growth. Behaving exactly as
/// NewReno whenever it calls congestion is what makes it share a bottleneck evenly with NewReno
/// and take no more than CUBIC.
///
/// Mapping to QUIC: quinn's ACK ranges reveal the losses (`on_congestion_event`), the corrected
/// RTT comes from quinn's estimator (see the crate's `rtt` module), ECN-CE arrives as a
/// congestion event with no lost bytes. Persistent congestion restarts slow start.
pub type Discern = Adapter<WindowAlgorithm<QueueFull>>;

/// Factory for [`Discern`].
#[derive(Debug, Clone)]
pub struct DiscernConfig {
    initial_window: u64,
    beta: f64,
    growth: DiscernGrowth,
    tolerance: f64,
    memory: Duration,
    granularity: Duration,
}

/// Which growth rule `discern` uses in congestion avoidance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscernGrowth {
    /// One MSS per window, as NewReno.
    Reno,
    /// CUBIC (RFC 9438) with its Reno-friendly region.
    Cubic,
}

impl DiscernConfig {
    /// Default window factor on congestion: NewReno's.
    pub const DEFAULT_BETA: f64 = 0.5;

    /// Window factor on a congestion verdict, above 0 and below 1 (default 0.5).
    pub fn beta(&mut self, beta: f64) -> Result<&mut Self, ParamError> {
        self.beta = open_fraction("beta", beta)?;
        Ok(self)
    }

    /// The growth rule in congestion avoidance (default Reno).
    pub fn growth(&mut self, growth: DiscernGrowth) -> &mut Self {
        self.growth = growth;
        self
    }

    /// How far below the full-queue delay, as a fraction of it, a loss still counts as
    /// congestion (default 0.05).
    pub fn tolerance(&mut self, tolerance: f64) -> Result<&mut Self, ParamError> {
        self.tolerance = fraction("tolerance", tolerance)?;
        Ok(self)
    }

    /// How long the full-queue delay is remembered (default 10 s).
    pub fn memory(&mut self, memory: Duration) -> Result<&mut Self, ParamError> {
        self.memory = positive_duration("memory", memory)?;
        Ok(self)
    }

    /// Queueing-delay differences below this are noise (default 1 ms).
    pub fn granularity(&mut self, granularity: Duration) -> &mut Self {
        self.granularity = granularity;
        self
    }

    /// The loss classifier alone, e.g. to put in front of another controller.
    pub fn classifier(&self) -> QueueFull {
        QueueFull::new(self.tolerance, self.granularity, self.memory)
    }

    /// The pure state machine, for a path whose MSS is `mss` bytes.
    pub fn algorithm(&self, mss: u64) -> WindowAlgorithm<QueueFull> {
        let growth = match self.growth {
            DiscernGrowth::Reno => Growth::Reno,
            DiscernGrowth::Cubic => Growth::cubic(),
        };
        WindowAlgorithm::new(
            Window::new(self.initial_window, mss, 2),
            self.classifier(),
            growth,
            Reduction::Multiplicative { beta: self.beta },
            true,
        )
    }
}

impl Default for DiscernConfig {
    fn default() -> Self {
        Self {
            initial_window: DEFAULT_INITIAL_WINDOW,
            beta: Self::DEFAULT_BETA,
            growth: DiscernGrowth::Reno,
            tolerance: QueueFull::DEFAULT_FRACTION,
            memory: QueueFull::DEFAULT_MEMORY,
            granularity: DEFAULT_GRANULARITY,
        }
    }
}

controller_factory!(DiscernConfig, "discern");
