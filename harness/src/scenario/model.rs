//! The validated, typed form of a scenario file (the format is in the README). Parsing lives in
//! `parse.rs`; every runner (`sim`, `netns`) consumes only these types.

use std::path::PathBuf;
use std::time::Duration;

use super::controller::FlowController;
use super::lies::ReceiverLies;
use super::receiver::Receiver;
pub use super::trace::CapacityTrace;
use crate::units::{BitRate, Bytes};

/// One experiment: links, the flows that cross them, and how long to run.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    /// How long flows without `bytes` send; also the run's time limit.
    pub duration: Duration,
    pub seed: u64,
    /// IP MTU of every link in bytes (default 1500). QUIC datagrams are at most `mtu - 28`.
    pub mtu: u16,
    /// The simulator's endpoints wake for a timer (a paced packet's release, an ACK delay, a loss
    /// timer) at the first multiple of this tick, counted from the run's start, at or after its
    /// deadline, as a tokio runtime's timer wheel does with its millisecond ticks
    /// (`timer_granularity = "1ms"`): the host timing a real-time run has, in virtual time.
    /// `None` (the default): at the deadline itself. The namespaces' runs keep their host's own
    /// timers and refuse the key.
    pub timer_granularity: Option<Duration>,
    pub links: Vec<Link>,
    pub flows: Vec<Flow>,
    /// The file this scenario was read from, if any.
    pub source: Option<PathBuf>,
}

/// A one-way bottleneck description; the reverse direction (ACKs) has the same rate (or trace),
/// delay, queue, marking, jitter and reordering, and loses packets only by `reverse_loss`.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub name: String,
    /// The serialisation rate; for a link that replays a capacity `trace`, the trace's mean
    /// capacity over one period (what BDP estimates use).
    pub rate: BitRate,
    /// One-way propagation delay.
    pub delay: Duration,
    /// Queue limit in packets waiting besides the one being sent (drop-tail beyond it).
    pub queue: usize,
    pub loss: LossModel,
    pub reverse_loss: LossModel,
    /// A recorded capacity trace that replaces the fixed `rate` (`rate = { trace = "FILE" }`).
    pub trace: Option<CapacityTrace>,
    /// Active queue management in front of the drop-tail limit
    /// (`queue = { limit = N, codel = { .. } }` or `pie = { .. }`, with `ecn = true` to mark
    /// instead of dropping ECN-capable packets).
    pub aqm: Option<Aqm>,
    /// A token-bucket policer in front of the queue (`police = { rate, burst }`).
    pub police: Option<Policer>,
    /// ECN step marking (`ecn = { threshold = N }`).
    pub ecn: Option<EcnMarking>,
    /// Per-packet extra delay that keeps packets in order.
    pub jitter: Option<Jitter>,
    /// Packets held back so that later ones overtake them.
    pub reorder: Option<Reorder>,
}

impl Link {
    /// A fixed-rate drop-tail link without loss, marking, jitter or reordering.
    pub fn new(name: &str, rate: BitRate, delay: Duration, queue: usize) -> Link {
        Link {
            name: name.into(),
            rate,
            delay,
            queue,
            loss: LossModel::None,
            reverse_loss: LossModel::None,
            trace: None,
            aqm: None,
            police: None,
            ecn: None,
            jitter: None,
            reorder: None,
        }
    }
}

/// CoDel (RFC 8289) parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoDel {
    /// Acceptable standing queue delay (RFC 8289 default 5 ms).
    pub target: Duration,
    /// Window over which the delay must stay above `target` before dropping (default 100 ms).
    pub interval: Duration,
}

/// An active queue manager and whether it marks ECN-capable packets instead of dropping them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aqm {
    pub kind: AqmKind,
    /// RFC 3168 behaviour: where the AQM would drop an ECT packet, it marks CE instead (PIE only
    /// while its drop probability is at most 10 %, RFC 8033 section 5.1).
    pub ecn: bool,
}

/// Which AQM, with its parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AqmKind {
    CoDel(CoDel),
    Pie(Pie),
    FqCoDel(FqCoDel),
}

impl AqmKind {
    /// The name summaries and the drops report use: `codel` or `pie`.
    pub fn name(&self) -> &'static str {
        match self {
            AqmKind::CoDel(_) => "codel",
            AqmKind::Pie(_) => "pie",
            AqmKind::FqCoDel(_) => "fq_codel",
        }
    }
}

/// FQ-CoDel (RFC 8290) parameters: each flow's CoDel, and the deficit round robin's quantum.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FqCoDel {
    pub codel: CoDel,
    /// Bytes of credit a flow queue gets per round (RFC default 1514, one Ethernet frame).
    pub quantum: u64,
}

/// PIE (RFC 8033) parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pie {
    /// The queueing delay PIE steers towards (`QDELAY_REF`, RFC default 15 ms).
    pub target: Duration,
    /// How often the drop probability is updated (`T_UPDATE`, RFC default 15 ms).
    pub tupdate: Duration,
}

/// A token-bucket policer: packets that find `burst` worth of tokens pass, the rest are dropped;
/// tokens refill at `rate`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Policer {
    pub rate: crate::units::BitRate,
    pub burst: crate::units::Bytes,
}

/// Step marking: an ECN-capable packet that arrives to find at least `threshold` packets waiting
/// is marked CE (as DCTCP and L4S bottlenecks do).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EcnMarking {
    pub threshold: usize,
}

/// The distribution of a link's per-packet extra delay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Jitter {
    /// Uniform in `[0, max]`.
    Uniform { max: Duration },
    /// Exponential with this mean (link-layer retries: mostly short, occasionally long).
    Exponential { mean: Duration },
}

/// Reordering: each packet, with `probability`, is held an extra `displacement`, so packets sent
/// up to that much later overtake it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reorder {
    pub probability: f64,
    pub displacement: Duration,
}

/// How a link's channel drops packets, independent of queue overflow.
#[derive(Debug, Clone, PartialEq)]
pub enum LossModel {
    None,
    /// Each packet lost independently with probability `rate`.
    Bernoulli {
        rate: f64,
    },
    /// Two-state Markov channel. `p`: P(good -> bad) per packet, `r`: P(bad -> good) per packet,
    /// `h`: P(delivery | bad), `k`: P(delivery | good). Defaults h = 0, k = 1 (the Gilbert model).
    GilbertElliott {
        p: f64,
        r: f64,
        h: f64,
        k: f64,
    },
    /// Handover-style outages: starting at `start`, every `every`, the next `drops` packets that
    /// cross the link are lost; `count` bursts in all (`None` = no limit).
    Burst {
        every: Duration,
        drops: u32,
        start: Duration,
        count: Option<u32>,
    },
}

impl LossModel {
    /// The Gilbert model: every packet of the bad state lost, none of the good (`h = 0`,
    /// `k = 1`, the defaults of a scenario file). A `const fn` so that constant tables (the
    /// scoreboard's classes) can hold one.
    pub const fn gilbert(p: f64, r: f64) -> LossModel {
        LossModel::GilbertElliott {
            p,
            r,
            h: 0.0,
            k: 1.0,
        }
    }

    /// The long-run fraction of packets the channel drops; `None` for bursts, whose outages are
    /// timed, so that the share they take depends on the packet rate.
    pub fn mean_rate(&self) -> Option<f64> {
        match *self {
            LossModel::None => Some(0.0),
            LossModel::Bernoulli { rate } => Some(rate),
            // The stationary chance of the bad state is p / (p + r), of the good r / (p + r).
            LossModel::GilbertElliott { p, r, h, k } => {
                Some((p * (1.0 - h) + r * (1.0 - k)) / (p + r))
            }
            LossModel::Burst { .. } => None,
        }
    }
}

/// One or more identical transfers from a sender to a receiver across `path`.
#[derive(Debug, Clone, PartialEq)]
pub struct Flow {
    /// The controller, resolved from its id (see `discern list`) when the scenario loaded, e.g.
    /// `modified-sack:tolerance=0.02`.
    pub controller: FlowController,
    /// Indices into `Scenario::links`, sender to receiver.
    pub path: Vec<usize>,
    pub start: Duration,
    /// A finite transfer; `None` sends until the scenario's `duration` ends.
    pub bytes: Option<Bytes>,
    /// Number of identical flows this entry stands for (>= 1).
    pub count: u32,
    /// The receiver's flow-control window (QUIC's counterpart of TCP's advertised window, ns-2's
    /// `window_`): the stream and connection receive windows are this many bytes, so at most this
    /// much data is in flight beyond what the receiving application has read (with a prompt
    /// reader, at most this many bytes in flight). `None`: windows many path BDPs deep, so only
    /// the congestion controller limits the flow. When the cap binds, the sender runs into it
    /// and sends DATA_BLOCKED frames, so the run's `flow_control_limited` reports true.
    pub receive_window: Option<Bytes>,
    /// The largest delay the sender asks its peer to hold an ACK for (QUIC ACK frequency
    /// extension, with an ACK every other ack-eliciting packet). `None` sends no such request, so
    /// the peer acknowledges as quinn does by default: every other packet, or after up to its own
    /// `max_ack_delay` of 25 ms. The papers' scenarios set 1 ms, as their ns-2 receivers
    /// acknowledged without delay.
    pub max_ack_delay: Option<Duration>,
    /// Ask the receiver (QUIC ACK frequency extension) to acknowledge every this many
    /// ack-eliciting packets, as receivers that decimate ACKs do (s2n-quic: 10, Chromium: about
    /// 10). The ACK_FREQUENCY frame's Ack-Eliciting Threshold is this minus one: a receiver
    /// acknowledges once the count *exceeds* the threshold, and quinn's default of 1 means every
    /// second packet. `None`: the receiver's own policy (quinn: every second packet).
    pub ack_every: Option<u32>,
    /// The stack of the receiving endpoint (`receiver = "s2n-quic"`); quinn by default. The
    /// sender is quinn with the flow's controller whichever it is.
    pub receiver: Receiver,
    /// The CLI's `--controller` sets this flow's controller (`under_test = true`). When no flow
    /// is marked, flow 0 alone is under test: cross traffic keeps its own controller.
    pub under_test: bool,
    /// A receiver that lies about its ACK Delay (`receiver_lies = { .. }`), in the simulator
    /// only; `None`: it reports the truth.
    pub receiver_lies: Option<ReceiverLies>,
}

impl Flow {
    /// The Ack-Eliciting Threshold of the sender's ACK_FREQUENCY request as it goes on the wire
    /// (draft-ietf-quic-ack-frequency section 4), if the flow makes one with `ack_every` (the
    /// scenario key `ack_eliciting_threshold = N`, which means an ACK every N packets): the
    /// receiver acknowledges once it holds *more* than the threshold, so the threshold is one
    /// less than `ack_every`.
    pub fn ack_eliciting_threshold_on_wire(&self) -> Option<u32> {
        self.ack_every.map(|every| every.saturating_sub(1))
    }
}
