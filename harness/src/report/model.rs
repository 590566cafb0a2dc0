//! Result types shared by every runner and by the output writers. `Summary` is serialised as
//! `summary.json`: it must be a pure function of scenario and seed in `sim`, so it
//! holds no wall-clock figures (those go in `RunOutput::timing`).

use serde::{Deserialize, Serialize};

/// Everything one run of one scenario produced.
#[derive(Debug, Clone)]
pub struct RunOutput {
    pub summary: Summary,
    /// One series per flow, in the order of `summary.flows`.
    pub series: Vec<FlowSeries>,
    pub timing: Timing,
}

/// `summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub scenario: String,
    pub link: LinkInfo,
    /// Virtual (sim) or wall (netns) seconds the run covered.
    pub duration_s: f64,
    pub seed: u64,
    pub flows: Vec<FlowSummary>,
    /// Per-link configured figures, and in netns the measured ones.
    pub links: Vec<LinkSummary>,
    /// Why packets were dropped, over all links: in `sim`, and in `netns` from the user-space
    /// engine's counters or `tc -s` statistics.
    pub drops: Option<Drops>,
    /// `sim` only: controller verdicts scored against the simulator's ground truth.
    pub verdict_accuracy: Option<VerdictAccuracy>,
    /// `sim` only, and only if a controller of this crate ran: its recovered ACK delays and
    /// one-way-delay hints scored against the simulator's ground truth, over all flows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_signals: Option<DelaySignals>,
    /// `sim` only: per flow whose receiver lies (`receiver_lies`), what it reported as ACK
    /// Delay against the truth. Empty (and left out) where every receiver is honest.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub receiver_lies: Vec<LiedAcks>,
}

/// What one lying receiver did to its application-space ACK frames (the simulator's ground
/// truth). Delays are the ACK Delay field's microseconds (its value shifted left by the
/// receiver's `ack_delay_exponent`), over the rewritten frames.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiedAcks {
    pub flow: usize,
    /// The lie, as the scenario wrote it.
    pub lie: String,
    /// Application-space ACK frames the receiver sent.
    pub frames: u64,
    /// Frames whose ACK Delay was rewritten (all of them, or those that showed a gap).
    pub rewritten: u64,
    /// Rewritten frames whose lie did not fit the field's encoded length, which the rewrite keeps
    /// so that packet sizes stay as they were: they carry the largest value of that length.
    pub capped: u64,
    /// With `length = "grow"`: bytes the widened fields added to the receiver's datagrams.
    pub grown_bytes: u64,
    pub true_delay_mean_us: f64,
    pub reported_delay_mean_us: f64,
    /// Reported minus true delay, mean and largest.
    pub lie_mean_us: f64,
    pub lie_max_us: u64,
    /// Receiver datagrams whose frames could not be walked to the end (a frame type the
    /// simulator does not know); their ACK frames after that point are left as they were.
    pub unparsed: u64,
}

/// Per run, over every flow whose controller reports recovered ACK delays (`rtt` events): each
/// ACK frame quinn folded into its RTT estimator, matched to the receiver datagram that carried it.
/// The true ACK delay is the receiver's send time of that datagram minus the arrival at the
/// receiver of the newest packet it acknowledges; the true forward one-way delay is that
/// packet's arrival minus its send time. Errors are absolute, in microseconds; p95 figures are
/// the floor of a histogram bin (1 us wide below 1 ms, 100 us above).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct DelaySignals {
    /// Frames matched to their receiver datagram and scored.
    pub frames_checked: u64,
    /// Frames no single receiver datagram matched (not scored).
    pub frames_unmatched: u64,
    /// Fraction of checked frames whose recovered ACK delay is within 100 us of the truth.
    pub ack_delay_within_100us: f64,
    /// Checked frames the receiver held 500 us or more, and the fraction of them recovered
    /// within 100 us. The recovery misses a delay quinn did not subtract: when the minimum RTT
    /// itself holds an ACK delay (every ACK waited for the timer), `min + ack_delay > latest`.
    pub frames_delayed: u64,
    pub delayed_within_100us: f64,
    pub ack_delay_error_mean_us: f64,
    pub ack_delay_error_p95_us: u64,
    /// Mean of `hint - true forward delay` (signed): the hint's bias. The hint's base is half the
    /// minimum RTT, so where full data packets take longer to serialise than the ACKs coming
    /// back, it is low by half the difference (575 us at 10 Mbit/s with 1500-byte packets).
    pub owd_hint_bias_us: f64,
    pub owd_hint_error_mean_us: f64,
    pub owd_hint_error_p95_us: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkInfo {
    /// `sim` or `netns`.
    pub kind: String,
    /// What shaped the links, e.g. `discrete-event simulator`, `tc netem+tbf`, `tc tbf + user-space
    /// link`.
    pub engine: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlowSummary {
    /// Index of the flow after `count` expansion, in scenario order.
    pub flow: usize,
    pub controller: String,
    /// How the flow ended: the one figure that says whether it did what it was meant to.
    pub outcome: Outcome,
    /// The transfer's size, `None` for a flow that sends until the run ends.
    #[serde(default)]
    pub bytes_asked: Option<u64>,
    /// Application bytes received.
    pub bytes_delivered: u64,
    /// Of `bytes_delivered`, those checked against the bytes sent at their offset.
    pub bytes_verified: u64,
    /// Datagrams carrying this flow's data that reached the receiver.
    pub packets_delivered: u64,
    /// `bytes_delivered * 8 / (end - start)` where end is completion or the end of the run.
    pub goodput_bps: f64,
    pub start_s: f64,
    /// Seconds from the flow's start to the last byte received; `None` if unfinished or unbounded.
    pub completion_time_s: Option<f64>,
    /// Packets the sender declared lost (quinn's count).
    pub lost_packets: u64,
    /// Congestion events the sender's controller was told of (quinn's count).
    pub congestion_events: u64,
    pub verdicts: Verdicts,
    /// `sim` only: this flow's verdicts scored against the simulator's ground truth (the
    /// summary's `verdict_accuracy` is every flow's together).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict_accuracy: Option<VerdictAccuracy>,
    /// True when every received byte was checked and matched the sent byte at its offset. It
    /// says nothing of how many bytes that was (`bytes_verified`), nor whether the transfer
    /// finished (`outcome`).
    pub verified: bool,
    /// True if flow control, rather than the congestion controller, limited the sender.
    pub flow_control_limited: bool,
    /// What the queues did to this flow's data packets, where the runner sees each packet
    /// (the simulator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<FlowQueue>,
    /// Why the receiving endpoint closed the connection before the flow ended: a stock quinn
    /// receiver gives up, for one, when a stream has more than 1024 holes ("too many gaps in
    /// stream buffer"). The flow's figures stop there; it is an outcome of the path and the
    /// controller, not a failed run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver_closed: Option<String>,
    /// For a receiver that reports its own ACKs (s2n-quic, in namespaces): the ACK delay it
    /// encoded in each frame against the one the sender recovered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver_acks: Option<ReceiverAcks>,
}

/// How a flow ended. Only `completed` and `unbounded` are a flow that did what it was meant to;
/// a flow that delivered nothing is never either.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every byte of a sized transfer arrived.
    Completed,
    /// A flow without a size that delivered data until the run ended.
    Unbounded,
    /// The handshake completed, but a sized transfer did not finish before the run ended
    /// (`bytes_delivered` of `bytes_asked`), or a flow without a size delivered nothing.
    Incomplete,
    /// The handshake never completed: no byte could be sent.
    NoHandshake,
    /// The receiver closed the connection before the flow ended (`receiver_closed` says why).
    ReceiverClosed,
}

impl Outcome {
    /// Every outcome, the successes first.
    pub const ALL: [Outcome; 5] = [
        Outcome::Completed,
        Outcome::Unbounded,
        Outcome::Incomplete,
        Outcome::NoHandshake,
        Outcome::ReceiverClosed,
    ];

    /// The outcome of a flow that asked for `asked` bytes (`None`: until the run ends).
    pub fn of(
        handshake: bool,
        completed: bool,
        closed: bool,
        delivered: u64,
        asked: Option<u64>,
    ) -> Self {
        match () {
            _ if closed => Outcome::ReceiverClosed,
            _ if completed && delivered > 0 => Outcome::Completed,
            _ if !handshake => Outcome::NoHandshake,
            _ if asked.is_none() && delivered > 0 => Outcome::Unbounded,
            _ => Outcome::Incomplete,
        }
    }

    /// The flow did what it was meant to: finished its transfer, or ran until the end.
    pub fn is_success(self) -> bool {
        matches!(self, Outcome::Completed | Outcome::Unbounded)
    }

    /// A transfer that did not finish for want of a path, rather than a receiver's close:
    /// `incomplete` or `no_handshake`.
    pub fn is_unfinished(self) -> bool {
        matches!(self, Outcome::Incomplete | Outcome::NoHandshake)
    }

    /// The name `summary.json` and the tables give it.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Completed => "completed",
            Outcome::Unbounded => "unbounded",
            Outcome::Incomplete => "incomplete",
            Outcome::NoHandshake => "no_handshake",
            Outcome::ReceiverClosed => "receiver_closed",
        }
    }
}

/// A foreign receiver's own report of its ACK frames, and the sender's recovered ACK delay
/// scored against it, frame by frame: `delay_signals` for one flow on real clocks, where the
/// truth is what the receiver says it encoded rather than a simulator's record. Errors are
/// absolute, in microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ReceiverAcks {
    /// Packets the receiver took in (every packet number space).
    pub packets_received: u64,
    /// ACK frames of the application packet number space the receiver sent.
    pub frames_sent: u64,
    /// The mean ACK delay the receiver encoded in those frames, in microseconds.
    pub encoded_delay_mean_us: f64,
    /// Recovered frames matched to one of the receiver's frames, and scored.
    pub frames_checked: u64,
    /// Recovered frames no receiver frame matched (not scored).
    pub frames_unmatched: u64,
    /// Fraction of checked frames whose recovered ACK delay is within 1 ms of the encoded one.
    pub ack_delay_within_1ms: f64,
    pub ack_delay_error_mean_us: f64,
    pub ack_delay_error_p95_us: u64,
}

/// The queues' treatment of one flow's data packets: what a fair-queueing bottleneck is judged
/// on, flow by flow (RFC 8290 section 1: a flow's queue is its own).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FlowQueue {
    /// Data packets dropped by a queue, an AQM or a policer on the way.
    pub drops: u64,
    /// The time the data packets that arrived waited in queues, summed over the links they
    /// crossed.
    pub delay: Option<QueueDelay>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdicts {
    pub random: u64,
    pub congestion: u64,
    /// Of the congestion verdicts, those that answered an ECN congestion mark rather than a loss.
    #[serde(default)]
    pub ecn_marks: u64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Drops {
    /// Drop-tail queue overflow.
    pub queue: u64,
    /// The link's loss model (bit errors, handover, ...).
    pub channel: u64,
}

/// Each loss decision of a controller, scored by the cause of the drop of the largest lost packet
/// it was told of. Decisions whose packet was not dropped at all (a spurious loss declaration)
/// are counted in `spurious`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerdictAccuracy {
    pub random_as_random: u64,
    pub random_as_congestion: u64,
    pub congestion_as_congestion: u64,
    pub congestion_as_random: u64,
    pub spurious: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkSummary {
    pub name: String,
    pub rate_bps: u64,
    pub delay_s: f64,
    pub queue_packets: usize,
    /// Human-readable loss model, e.g. `bernoulli 0.01`.
    pub loss: String,
    /// What did the shaping: for sim `simulator`; for netns e.g. `netem`, `tbf`, `user-space`.
    pub engine: String,
    /// Observed during the run, when the runner can measure it.
    pub measured: Option<MeasuredLink>,
    /// Queue discipline, e.g. `drop-tail` or `codel target=5ms interval=100ms`.
    #[serde(default)]
    pub queue: String,
    /// Sojourn time in the forward queue of the packets that left it (sim, user-space engine).
    #[serde(default)]
    pub queue_delay: Option<QueueDelay>,
    /// Why `queue_delay` is null where the engine cannot measure it (the tc engine: the kernel
    /// keeps no sojourn times), so that a missing figure is never read as zero delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_delay_unavailable: Option<String>,
    /// Packets marked CE, both directions (links with `ecn`).
    #[serde(default)]
    pub ce_marks: u64,
    /// Packets the reordering model held back, both directions.
    #[serde(default)]
    pub reordered: u64,
    /// For a link that replays a capacity trace: the trace over the run.
    #[serde(default)]
    pub trace: Option<TraceUse>,
    /// The forward direction's queue drops by who dropped (engines that run the link model).
    #[serde(default)]
    pub queue_drops: Option<QueueDrops>,
}

/// A link direction's queue drops by who dropped them: the drop-tail limit, the AQM, the
/// policer. All of them are congestion, and count as `queue` in the run's drops.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueDrops {
    pub total: u64,
    pub drop_tail: u64,
    pub codel: u64,
    pub pie: u64,
    pub fq_codel: u64,
    pub police: u64,
}

/// Sojourn time in a queue: arrival to dequeue, over the packets that left it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct QueueDelay {
    pub mean_s: f64,
    pub p95_s: f64,
}

/// A capacity trace over one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceUse {
    /// The trace file as the scenario names it.
    pub file: String,
    /// What the trace could deliver from the start to the end of the run, in bit/s (IP bytes).
    pub mean_capacity_bps: f64,
    /// Application bytes delivered by the flows that cross the link, over the run, as a fraction
    /// of the trace's capacity over the run.
    pub goodput_fraction: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeasuredLink {
    pub rate_bps: f64,
    pub base_rtt_s: f64,
    pub loss_rate: f64,
}

/// Time series of one flow, sampled on every window change and at least every `sample interval`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlowSeries {
    pub flow: usize,
    pub controller: String,
    pub samples: Vec<Sample>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Seconds since the start of the run.
    pub t_s: f64,
    pub cwnd_bytes: u64,
    pub ssthresh_bytes: Option<u64>,
    pub rtt_s: f64,
    /// Cumulative application bytes received by then.
    pub delivered_bytes: u64,
}

/// Wall-clock figures; not part of `summary.json` because they differ between identical runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    pub wall_s: f64,
    /// Wall seconds spent inside quinn-proto calls (sim only).
    pub quinn_s: f64,
}
