//! The QUIC transport configuration of a flow, one place for both runners: the simulator and the
//! netns runner give quinn exactly the same parameters, so the two differ only in their links.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use quinn_discern::AckElicitingThreshold;
use quinn_proto::{
    AckFrequencyConfig, IdleTimeout, QlogConfig, QlogStream, TransportConfig, VarInt,
};

use crate::scenario::{Flow, FlowController, Receiver, Scenario};

pub use crate::link::IP_UDP_OVERHEAD;

/// Flow-control windows never go below this.
const MIN_WINDOW: u64 = 16 * 1024 * 1024;

/// Why a flow's transport could not be configured.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("{0} is the kernel's TCP, not a QUIC controller: it runs only with --link netns")]
    KernelTcp(String),
    #[error("{0} runs on noq's endpoints, which quinn's transport configuration does not set up")]
    Noq(&'static str),
    #[error("flow window of {0} bytes is beyond QUIC's varint range")]
    Window(u64),
    #[error("qlog: {path}: {reason}")]
    Qlog { path: PathBuf, reason: String },
}

/// Where a run writes its qlog traces (`--qlog`): one JSON-SEQ file per endpoint of every flow,
/// `flow-<N>-sender.sqlog` and `flow-<N>-receiver.sqlog`, in `dir`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Qlog {
    pub dir: PathBuf,
}

impl Qlog {
    /// The traces of the run whose outputs go to `run_dir`: its `qlog/` folder.
    pub fn in_run(run_dir: &Path) -> Self {
        Self {
            dir: run_dir.join(crate::output::QLOG_DIR),
        }
    }

    /// The trace of flow `flow`'s `role` (`sender` or `receiver`).
    pub fn file(&self, flow: usize, role: &str) -> PathBuf {
        self.dir.join(crate::output::qlog_file_name(flow, role))
    }
}

/// One flow's qlog traces: where they go, which flow (its index in the run) and the instant
/// their times count from. The simulator gives its clock's epoch, so the traces are in virtual
/// time; namespaces give a real instant.
#[derive(Debug, Clone, Copy)]
pub struct FlowQlog<'a> {
    pub qlog: &'a Qlog,
    pub flow: usize,
    pub start: Instant,
}

/// The sender's and the receiver's transport configuration of one flow.
#[derive(Clone)]
pub struct FlowTransport {
    pub sender: Arc<TransportConfig>,
    pub receiver: Arc<TransportConfig>,
    /// The receiver's stream and connection receive windows, in bytes, for a receiver that is
    /// not quinn to advertise the same.
    pub receive_window: u64,
    /// Both sides' idle timeout.
    pub idle_timeout: Duration,
}

impl FlowTransport {
    /// Builds both sides of `flow` in `scenario`.
    ///
    /// Without a `receive_window`, flow control must never be what limits a flow: the sender
    /// buffers up to four times the path's bandwidth-delay product plus its queues, and the
    /// receive windows are twice that, so quinn never sends DATA_BLOCKED (which is what
    /// `flow_control_limited` reports). A `receive_window` is the receiver's cap, as TCP's
    /// advertised window. The idle timeout outlives the run, so a stalled flow shows up as low
    /// goodput rather than a closed connection.
    pub fn new(scenario: &Scenario, flow: &Flow) -> Result<Self, TransportError> {
        Self::with_qlog(scenario, flow, None)
    }

    /// [`FlowTransport::new`], each side writing a qlog trace when `qlog` is given. A trace is
    /// one connection's, so a flow that writes them cannot share its configuration with another.
    pub fn with_qlog(
        scenario: &Scenario,
        flow: &Flow,
        qlog: Option<FlowQlog<'_>>,
    ) -> Result<Self, TransportError> {
        let windows = Windows::new(scenario, flow);
        let mut sender = base(scenario)?;
        let mut receiver = base(scenario)?;
        receiver.stream_receive_window(varint(windows.receive)?);
        receiver.receive_window(varint(windows.receive)?);
        sender.stream_receive_window(varint(windows.sender_receive)?);
        sender.receive_window(varint(windows.sender_receive)?);
        sender.send_window(windows.send);
        receiver.send_window(windows.send);
        match &flow.controller {
            FlowController::Quic(spec) => {
                let mut spec = spec.clone();
                if let Some(threshold) = flow.ack_eliciting_threshold_on_wire() {
                    spec = spec
                        .with_ack_eliciting_threshold(AckElicitingThreshold::new(threshold.into()));
                }
                spec.apply_observed(&mut sender)
            }
            FlowController::KernelTcp(tcp) => {
                return Err(TransportError::KernelTcp(tcp.id().to_owned()))
            }
            FlowController::Noq(peer) => return Err(TransportError::Noq(peer.id())),
        }
        if flow.max_ack_delay.is_some() || flow.ack_every.is_some() {
            sender.ack_frequency_config(Some(ack_frequency(flow)));
        }
        if let Some(q) = qlog {
            let title = format!("{} flow {}", scenario.name, q.flow);
            sender.qlog_stream(Some(qlog_stream(&q, "sender", &title, flow)?));
            // Another stack writes no quinn trace; an empty file would say it did.
            if flow.receiver == Receiver::Quinn {
                receiver.qlog_stream(Some(qlog_stream(&q, "receiver", &title, flow)?));
            }
        }
        Ok(Self {
            sender: Arc::new(sender),
            receiver: Arc::new(receiver),
            receive_window: windows.receive,
            idle_timeout: idle_timeout(scenario),
        })
    }
}

/// A flow's flow-control windows, in bytes, the same for either stack.
///
/// Without a `receive_window`, flow control must never be what limits a flow: the sender
/// buffers up to four times the path's bandwidth-delay product plus its queues, and the receive
/// windows are twice that. A `receive_window` is the receiver's cap, as TCP's advertised window.
#[derive(Debug, Clone, Copy)]
pub struct Windows {
    /// The receiver's stream and connection receive windows.
    pub receive: u64,
    /// The sender's own receive windows (its peer sends nothing on the stream).
    pub sender_receive: u64,
    /// Both sides' send windows.
    pub send: u64,
}

impl Windows {
    pub fn new(scenario: &Scenario, flow: &Flow) -> Self {
        let window = (4 * pipe_bytes(scenario, &flow.path)).max(MIN_WINDOW);
        let cap = flow.receive_window.map(|b| b.0);
        Self {
            receive: cap.unwrap_or(2 * window),
            sender_receive: 2 * window,
            send: window.max(cap.unwrap_or(0)),
        }
    }
}

/// The qlog stream of `role`'s side of flow `q.flow`, in a new file (its folder created).
fn qlog_stream(
    q: &FlowQlog<'_>,
    role: &str,
    title: &str,
    flow: &Flow,
) -> Result<QlogStream, TransportError> {
    let path = q.qlog.file(q.flow, role);
    let failed = |reason: String| TransportError::Qlog {
        path: path.clone(),
        reason,
    };
    std::fs::create_dir_all(&q.qlog.dir).map_err(|e| failed(e.to_string()))?;
    let file = File::create(&path).map_err(|e| failed(e.to_string()))?;
    let mut config = QlogConfig::default();
    config
        // Buffered: quinn writes one record per packet sent, received or lost. The buffer is
        // flushed when the connection and its configuration are dropped, at the run's end.
        .writer(Box::new(BufWriter::new(file)))
        .title(Some(format!("{title} {role}")))
        // Only the sender runs the flow's controller; the receiver has quinn's default.
        .description(Some(format!("{role} of a {} flow", flow.controller.id())))
        .start_time(q.start);
    config
        .into_stream()
        .ok_or_else(|| failed("quinn could not start the trace".into()))
}

/// What both sides share: the scenario's MTU, no MTU discovery, no keep-alives, an idle timeout
/// longer than the run (and at least 60 s).
///
/// ECN needs no setting: quinn-proto 0.11 marks every packet ECT(0), reports the ECN counts it
/// receives in its ACK frames and validates the path's marking (RFC 9000 section 13.4); a CE
/// count that grows reaches the controller as `on_congestion_event` with `lost_bytes == 0`. In
/// namespaces quinn-udp sets and reads the IP header's ECN field on the real sockets.
fn base(scenario: &Scenario) -> Result<TransportConfig, TransportError> {
    let mut tc = TransportConfig::default();
    tc.initial_mtu(scenario.mtu.saturating_sub(IP_UDP_OVERHEAD as u16));
    tc.mtu_discovery_config(None);
    let idle_ms = idle_timeout(scenario).as_millis() as u64;
    tc.max_idle_timeout(Some(IdleTimeout::from(varint(idle_ms)?)));
    tc.keep_alive_interval(None);
    Ok(tc)
}

/// Twice the run's duration, and at least 60 s: a stalled flow shows up as low goodput, never
/// as a closed connection.
pub fn idle_timeout(scenario: &Scenario) -> Duration {
    let ms = (2 * scenario.duration.as_millis()).clamp(60_000, 1 << 40) as u64;
    Duration::from_millis(ms)
}

/// The sender asks its peer (ACK frequency extension) to acknowledge every `ack_every`
/// ack-eliciting packets (default: every other one) and to hold an ACK at most `max_ack_delay`
/// (default: the peer's own, 25 ms for quinn). Without the request, a quinn peer acknowledges
/// every other packet but may hold an ACK for up to its own `max_ack_delay`.
fn ack_frequency(flow: &Flow) -> AckFrequencyConfig {
    let mut ack = AckFrequencyConfig::default();
    ack.max_ack_delay(flow.max_ack_delay);
    if let Some(threshold) = flow.ack_eliciting_threshold_on_wire() {
        ack.ack_eliciting_threshold(VarInt::from_u32(threshold));
    }
    ack
}

/// Bytes the path holds: its bandwidth-delay product (bottleneck rate, round-trip propagation
/// delay) plus every queue along it.
pub fn pipe_bytes(scenario: &Scenario, path: &[usize]) -> u64 {
    let links = path.iter().map(|&l| &scenario.links[l]);
    let rate = links.clone().map(|l| l.rate.0).min().unwrap_or(0);
    let delay: Duration = links.clone().map(|l| l.delay).sum();
    let queues: u64 = links.map(|l| l.queue as u64).sum();
    (rate as f64 / 8.0 * 2.0 * delay.as_secs_f64()) as u64 + queues * u64::from(scenario.mtu)
}

pub(crate) fn varint(v: u64) -> Result<VarInt, TransportError> {
    VarInt::from_u64(v).map_err(|_| TransportError::Window(v))
}
