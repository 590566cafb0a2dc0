//! The validated, typed form of a scenario file (DESIGN 3.2). Parsing lives in `parse.rs`; every
//! runner (`sim`, `netns`) consumes only these types.

use std::path::PathBuf;
use std::time::Duration;

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
    pub links: Vec<Link>,
    pub flows: Vec<Flow>,
    /// The file this scenario was read from, if any.
    pub source: Option<PathBuf>,
}

/// A one-way bottleneck description; the reverse direction (ACKs) has the same rate, delay and
/// queue and loses packets only by `reverse_loss`.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub name: String,
    pub rate: BitRate,
    /// One-way propagation delay.
    pub delay: Duration,
    /// Drop-tail queue limit in packets.
    pub queue: usize,
    pub loss: LossModel,
    pub reverse_loss: LossModel,
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

/// One or more identical transfers from a sender to a receiver across `path`.
#[derive(Debug, Clone, PartialEq)]
pub struct Flow {
    /// Controller id (DESIGN 2.1), with parameters, e.g. `modified-sack:tolerance=0.02`.
    pub controller: String,
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
}
