use std::time::Duration;

use crate::adapter::Algorithm;
use crate::algorithm::{Reduction, WindowAlgorithm};
use crate::classify::{QueueFull, DEFAULT_GRANULARITY};
use crate::event::{Ack, AckBatch, CongestionEvent, Decision};
use crate::factory::controller_factory;
use crate::growth::Growth;
use crate::param::{fraction, open_fraction, positive_duration, ParamError};
use crate::short_queue::ShortQueueAlgorithm;
use crate::window::{Window, DEFAULT_INITIAL_WINDOW};
use crate::Adapter;

/// `discern`: this crate's own controller. NewReno's manners under congestion, and no cut for a
/// loss that cannot have come from a queue.
///
/// A drop-tail bottleneck drops only when its queue is full, and a full queue shows as the
/// largest queueing delay the path has had. [`QueueFull`] calls a loss congestion when the
/// packets sent around the lost one met that level (or an ECN path marked CE in the last round
/// trip, or half the window was lost), and random otherwise. A random loss keeps the window;
/// QUIC retransmits it as always. A congestion loss gets NewReno's response: `cwnd = ssthresh =
/// cwnd * beta` once per window, Reno growth (or CUBIC's, `growth = cubic`). An ECN-CE mark
/// reduces by `ecn_beta` = 0.8 instead (RFC 8511, Alternative Backoff with ECN): a marking AQM
/// keeps its queue short, and halving below it would leave the link idle. Persistent
/// congestion restarts slow start.
///
/// What decided each choice (measured with `discern score`; the figures are in docs/RESULTS.md):
/// - *Behave exactly as NewReno on every congestion verdict.* Sharing a drop-tail bottleneck
///   with NewReno, it then takes half, and never more than CUBIC takes from it.
/// - *Read the queue at the lost packet, not at the ACK that revealed the loss.* By the time
///   quinn declares a loss the queue has moved on; the packets sent next to the lost one were
///   acknowledged already and carry the queue it met. Reading the revealing ACK called many queue
///   drops random on a shared bottleneck.
/// - *Learn the full level only from ACK frames that cover two packets or more.* A receiver sends
///   those at once; a lone packet's ACK may be held up to 25 ms, which would raise the level for
///   the whole `memory` and turn real overflows into "random".
/// - *A burst of losses is congestion only at the full level.* Gilbert-Elliott channels lose
///   packets in bursts with room in the queue; counting bursts as congestion cost single runs up
///   to a quarter of their goodput on such a path.
/// - *No hold below the full level.* Stopping growth just short of the level where the queue
///   overflows spares a lone flow its sawtooth, but against NewReno the other flow's growth then
///   takes every overflow drop, and `discern` took 0.63 of the link: rejected.
///
/// Known limits: a channel loss of a packet that met the full queue (while the queue overflows)
/// is called congestion; it falls in a window already cut for the overflow, so it costs nothing,
/// but it counts against the verdict accuracy. Sharing a lossy link with NewReno, `discern` fills
/// the buffer as NewReno would on a clean link, so NewReno, already limited by the loss, keeps
/// about two thirds of what it gets against its own kind. The classifier assumes a queue that
/// overflows at one delay: behind CoDel (which drops at a few milliseconds of sojourn) or on a
/// link whose capacity swings (a full queue drains at the current rate), it reads most queue
/// drops as random and keeps the queue full (docs/RESULTS.md, the LTE and CoDel table).
///
/// Two options narrow that gap, off by default because each costs something elsewhere
/// (docs/RESULTS.md, the LTE and CoDel table, measures both):
/// - `aqm = on` ([`QueueFull::with_loss_by_queue`]): a loss below the full level is congestion
///   when packets that met a longer queue are lost at well above the rate of those that met a
///   short one. Behind CoDel it lets CoDel drop a fraction of what it drops by default; on a
///   drop-tail LTE path it calls more overflows congestion, and more channel losses too.
/// - `slow_start = delay` ([`crate::hystart::HyStart`], Linux's and RFC 9406's delay test): slow
///   start ends when the round's minimum RTT rises, not only on a congestion loss, so a flow whose
///   losses are called random does not overshoot into the AQM. On a path whose delay jitters it
///   can end slow start early, for less goodput.
///
/// Mapping to QUIC: quinn's ACK ranges reveal the losses (`on_congestion_event`), the corrected
/// RTT comes from quinn's estimator (see the crate's `rtt` module), ECN-CE arrives as a
/// congestion event with no lost bytes.
pub type Discern = Adapter<DiscernAlgorithm>;

/// `discern`'s state machine: the default keeps a short queue of its own
/// ([`ShortQueueAlgorithm`]); `queue = full` is the earlier design, NewReno that keeps its window
/// on losses below the full-queue level ([`QueueFull`]), kept to compare the two.
#[derive(Debug, Clone)]
pub enum DiscernAlgorithm {
    /// The default: a target queue when alone, NewReno's manners against a buffer-filler.
    ShortQueue(ShortQueueAlgorithm),
    /// The earlier design (`queue = full`).
    FullQueue(WindowAlgorithm<QueueFull>),
}

impl Algorithm for DiscernAlgorithm {
    fn on_ack(&mut self, ack: &Ack) {
        match self {
            Self::ShortQueue(a) => a.on_ack(ack),
            Self::FullQueue(a) => a.on_ack(ack),
        }
    }

    fn on_ack_batch(&mut self, batch: &AckBatch) {
        match self {
            Self::ShortQueue(a) => a.on_ack_batch(batch),
            Self::FullQueue(a) => a.on_ack_batch(batch),
        }
    }

    fn on_congestion(&mut self, event: &CongestionEvent) -> Decision {
        match self {
            Self::ShortQueue(a) => a.on_congestion(event),
            Self::FullQueue(a) => a.on_congestion(event),
        }
    }

    fn window(&self) -> &Window {
        match self {
            Self::ShortQueue(a) => a.window(),
            Self::FullQueue(a) => a.window(),
        }
    }

    fn window_mut(&mut self) -> &mut Window {
        match self {
            Self::ShortQueue(a) => a.window_mut(),
            Self::FullQueue(a) => a.window_mut(),
        }
    }
}

/// Which queue `discern` aims for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueAim {
    /// A couple of packets of its own, NewReno's manners against a buffer-filler (the default).
    Short,
    /// Fill the buffer as NewReno; losses below the full level are random (the earlier design).
    Full,
}

/// Factory for [`Discern`].
#[derive(Debug, Clone)]
pub struct DiscernConfig {
    initial_window: u64,
    beta: f64,
    ecn_beta: f64,
    growth: DiscernGrowth,
    tolerance: f64,
    memory: Duration,
    granularity: Duration,
    slow_start: SlowStartExit,
    aqm: bool,
    queue: QueueAim,
}

/// What ends `discern`'s first slow start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlowStartExit {
    /// A loss called congestion, as NewReno (the default).
    Loss,
    /// That, or a rise of the round's minimum RTT ([`HyStart`](crate::hystart::HyStart)):
    /// less overshoot where losses do not stop slow start, e.g. behind CoDel, for less goodput on
    /// paths whose delay jitters (LTE).
    Delay,
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

    /// Window factor on an ECN-CE mark (RFC 8511's Alternative Backoff with ECN).
    pub const DEFAULT_ECN_BETA: f64 = 0.8;

    /// Window factor on an ECN-CE mark, above 0 and below 1 (default 0.8, RFC 8511).
    pub fn ecn_beta(&mut self, beta: f64) -> Result<&mut Self, ParamError> {
        self.ecn_beta = open_fraction("ecn_beta", beta)?;
        Ok(self)
    }

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
        let classifier = QueueFull::new(self.tolerance, self.granularity, self.memory);
        if self.aqm {
            classifier.with_loss_by_queue()
        } else {
            classifier
        }
    }

    /// What ends the first slow start (default [`SlowStartExit::Loss`]).
    pub fn slow_start(&mut self, exit: SlowStartExit) -> &mut Self {
        self.slow_start = exit;
        self
    }

    /// Whether losses that rise with the queue are congestion before it is full
    /// ([`QueueFull::with_loss_by_queue`]; default off): for paths behind an AQM such as CoDel.
    pub fn aqm(&mut self, on: bool) -> &mut Self {
        self.aqm = on;
        self
    }

    /// Which queue to aim for (default [`QueueAim::Short`]). The growth rule, `tolerance`,
    /// `memory`, `slow_start` and `aqm` shape the [`QueueAim::Full`] design only.
    pub fn queue(&mut self, aim: QueueAim) -> &mut Self {
        self.queue = aim;
        self
    }

    /// Which queue it aims for.
    pub fn queue_aim(&self) -> QueueAim {
        self.queue
    }

    /// The first of the earlier design's knobs (`growth`, `tolerance`, `memory`, `slow_start`,
    /// `aqm`) set away from its default: with [`QueueAim::Short`] it would do nothing.
    pub fn full_queue_knob_changed(&self) -> Option<&'static str> {
        let default = Self::default();
        [
            ("growth", self.growth != default.growth),
            ("tolerance", self.tolerance != default.tolerance),
            ("memory", self.memory != default.memory),
            ("slow_start", self.slow_start != default.slow_start),
            ("aqm", self.aqm != default.aqm),
        ]
        .into_iter()
        .find_map(|(name, changed)| changed.then_some(name))
    }

    /// The pure state machine, for a path whose MSS is `mss` bytes.
    pub fn algorithm(&self, mss: u64) -> DiscernAlgorithm {
        match self.queue {
            QueueAim::Short => DiscernAlgorithm::ShortQueue(ShortQueueAlgorithm::new(
                Window::new(self.initial_window, mss, 2),
                self.beta,
                self.ecn_beta,
            )),
            QueueAim::Full => DiscernAlgorithm::FullQueue(self.full_queue_algorithm(mss)),
        }
    }

    /// The earlier design's state machine ([`QueueAim::Full`]).
    pub fn full_queue_algorithm(&self, mss: u64) -> WindowAlgorithm<QueueFull> {
        let growth = match self.growth {
            DiscernGrowth::Reno => Growth::Reno,
            DiscernGrowth::Cubic => Growth::cubic(),
        };
        let algorithm = WindowAlgorithm::new(
            Window::new(self.initial_window, mss, 2),
            self.classifier(),
            growth,
            Reduction::Multiplicative { beta: self.beta },
            true,
        )
        .with_ecn_backoff(self.ecn_beta);
        match self.slow_start {
            SlowStartExit::Loss => algorithm,
            SlowStartExit::Delay => algorithm.with_hystart(),
        }
    }
}

impl Default for DiscernConfig {
    fn default() -> Self {
        Self {
            initial_window: DEFAULT_INITIAL_WINDOW,
            beta: Self::DEFAULT_BETA,
            ecn_beta: Self::DEFAULT_ECN_BETA,
            growth: DiscernGrowth::Reno,
            tolerance: QueueFull::DEFAULT_FRACTION,
            memory: QueueFull::DEFAULT_MEMORY,
            granularity: DEFAULT_GRANULARITY,
            slow_start: SlowStartExit::Loss,
            aqm: false,
            queue: QueueAim::Short,
        }
    }
}

controller_factory!(DiscernConfig, "discern");
