//! A drawn path laid out in time and written as a scenario, the way the fixed board's classes
//! are (see `score/classes.rs`).
//!
//! The run's length is scaled by the path: `T` = [`ROUNDS`] round trips after slow start (whose
//! rounds are log2 of the BDP in packets), clamped to [`MIN_RUN_S`]..[`MAX_RUN_S`], and then cut
//! to [`PACKET_BUDGET`] packets at the bottleneck's rate (never below [`MIN_ROUNDS`] round trips
//! after slow start). The cut is what keeps the board affordable: the simulator's cost grows with
//! packets, not virtual seconds, so a gigabit path with a long RTT runs fewer seconds than a
//! slow one.
//!
//! A flow alone runs `T`. Beside a peer that sends throughout, `2 T` (two flows need longer to
//! converge than one to fill the link). A peer that arrives late starts at `T` of a `2 T` run. A
//! peer that leaves early sends its fair half of `T` at the path's capacity and leaves; the run
//! lasts `3 T`, so that the controller's queue after the peer has gone can be scored (from
//! [`SETTLE_OF_RUN`] of `T` after the peer's last byte).

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context;

use super::draw::{Capacity, Discipline, PathJitter, PeerTiming, RandomPath, DECIMATION};
use crate::scenario::read_capacity_trace;

/// After a peer's last byte, the controller gets this fraction of the run length `T` to drain
/// what the peer left in the queue before its queue is scored.
pub const SETTLE_OF_RUN: f64 = 0.5;
/// Round trips after slow start that a flow alone gets, before the packet budget.
pub const ROUNDS: f64 = 40.0;
/// Round trips after slow start that the packet budget leaves at least.
pub const MIN_ROUNDS: f64 = 20.0;
pub const MIN_RUN_S: f64 = 4.0;
pub const MAX_RUN_S: f64 = 15.0;
/// Packets at the bottleneck's rate that `T` may take.
pub const PACKET_BUDGET: f64 = 400_000.0;
/// Bytes of a full packet at the bottleneck (the IP MTU).
const PACKET_BYTES: f64 = 1500.0;
/// A drop-tail buffer holds at least this many packets, as any real device's does.
const MIN_QUEUE: u32 = 4;
/// An AQM's queue is long, as Linux's defaults are (1000 packets for CoDel and PIE, 10240 for
/// FQ-CoDel), so that the AQM, not the buffer, decides the drops: at least this many packets,
/// and [`AQM_QUEUE_BDP`] BDPs on paths where that is more.
const AQM_QUEUE: u32 = 1000;
const AQM_QUEUE_BDP: f64 = 8.0;

/// A path's figures in time and size, derived from its draw (and its trace's mean rate).
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// The bottleneck's rate, or a trace's mean over one period, in bit/s.
    pub capacity_bps: f64,
    pub bdp_packets: f64,
    pub queue_packets: u32,
    /// `T`, in seconds, to 0.1 s.
    pub run_s: f64,
    pub duration_s: f64,
    pub peer_start_s: f64,
    /// A peer that leaves early sends this much.
    pub peer_bytes: Option<u64>,
}

impl RandomPath {
    pub fn rtt_s(&self) -> f64 {
        self.rtt_us as f64 / 1e6
    }

    /// The queueing delay a flow alone may add, as on the fixed board:
    /// [`crate::score::queue_budget_s`]'s `max(10 ms, base RTT / 4)`.
    pub fn queue_budget_s(&self) -> f64 {
        (0.25 * self.rtt_s()).max(0.010)
    }

    /// The trace this path replays, in `traces`.
    pub fn trace_file(&self, traces: &Path) -> Option<std::path::PathBuf> {
        match &self.capacity {
            Capacity::Fixed { .. } => None,
            Capacity::Trace { file } => Some(traces.join(file)),
        }
    }

    /// The path's layout; an error names a trace that cannot be read.
    pub fn layout(&self, traces: &Path) -> anyhow::Result<Layout> {
        let capacity_bps = match (&self.capacity, self.trace_file(traces)) {
            (Capacity::Fixed { rate_kbit }, _) => *rate_kbit as f64 * 1000.0,
            (Capacity::Trace { .. }, Some(file)) => {
                let shown = file.display().to_string();
                read_capacity_trace(&file, &shown)
                    .map_err(|e| anyhow::anyhow!("{e}"))
                    .with_context(|| {
                        format!(
                            "random path {}: set {} to the folder of the capacity traces \
                             (default {} from the working directory)",
                            self.index,
                            crate::score::classes::TRACES_ENV,
                            crate::score::classes::TRACES_DEFAULT
                        )
                    })?
                    .mean_bps()
            }
            (Capacity::Trace { .. }, None) => unreachable!("a trace path has a trace file"),
        };
        Ok(self.layout_at(capacity_bps))
    }

    /// [`Self::layout`] at a known capacity.
    pub fn layout_at(&self, capacity_bps: f64) -> Layout {
        let rtt = self.rtt_s();
        let packets_per_s = capacity_bps / (8.0 * PACKET_BYTES);
        let bdp_packets = packets_per_s * rtt;
        let slow_start = bdp_packets.max(2.0).log2();
        let wanted = (rtt * (ROUNDS + slow_start)).clamp(MIN_RUN_S, MAX_RUN_S);
        let floor = rtt * (MIN_ROUNDS + slow_start);
        let run_s = (wanted.min(PACKET_BUDGET / packets_per_s).max(floor) * 10.0).ceil() / 10.0;
        let queue_packets = match self.queue {
            Discipline::DropTail => ((self.buffer_bdp * bdp_packets).round() as u32).max(MIN_QUEUE),
            _ => ((AQM_QUEUE_BDP * bdp_packets).ceil() as u32).max(AQM_QUEUE),
        };
        let timing = self.peer.map(|p| p.timing);
        let (duration_s, peer_start_s) = match timing {
            None => (run_s, 0.0),
            Some(PeerTiming::Whole) => (2.0 * run_s, 0.0),
            Some(PeerTiming::ArrivesLate) => (2.0 * run_s, run_s),
            Some(PeerTiming::LeavesEarly) => (3.0 * run_s, 0.0),
        };
        let peer_bytes = (timing == Some(PeerTiming::LeavesEarly))
            .then(|| (0.5 * capacity_bps / 8.0 * run_s).round().max(1.0) as u64);
        Layout {
            capacity_bps,
            bdp_packets,
            queue_packets,
            run_s,
            duration_s: (duration_s * 10.0).round() / 10.0,
            peer_start_s: (peer_start_s * 10.0).round() / 10.0,
            peer_bytes,
        }
    }

    /// The path as a scenario whose flow 0 runs `controller` (and flow 1 the peer, if any), with
    /// its trace in `traces`.
    pub fn scenario_toml(&self, layout: &Layout, controller: &str, traces: &Path) -> String {
        let mut t = String::new();
        let _ = writeln!(t, "name = \"path-{}\"", self.index);
        let _ = writeln!(t, "description = \"{}\"", self.describe(layout));
        let _ = writeln!(t, "duration = \"{}s\"", layout.duration_s);
        let _ = writeln!(t, "seed = {}", self.seed);
        let _ = writeln!(t, "\n[[link]]\nname = \"bottleneck\"");
        match &self.capacity {
            Capacity::Trace { file } => {
                let file = traces.join(file);
                let file = toml_edit::Value::from(file.to_string_lossy().as_ref());
                let _ = writeln!(t, "rate = {{ trace = {} }}", file.to_string().trim());
            }
            Capacity::Fixed { rate_kbit } => {
                let _ = writeln!(t, "rate = \"{rate_kbit}kbit\"");
            }
        }
        let _ = writeln!(t, "delay = \"{}us\"", self.rtt_us / 2);
        let queue = match self.queue {
            Discipline::DropTail => layout.queue_packets.to_string(),
            Discipline::Codel => format!("{{ limit = {}, codel = {{}} }}", layout.queue_packets),
            Discipline::Pie => format!("{{ limit = {}, pie = {{}} }}", layout.queue_packets),
            Discipline::FqCodel => {
                format!("{{ limit = {}, fq_codel = {{}} }}", layout.queue_packets)
            }
        };
        let _ = writeln!(t, "queue = {queue}");
        if let Some(loss) = crate::score::classes::loss_toml(&self.loss.model()) {
            let _ = writeln!(t, "loss = {loss}");
        }
        match self.jitter {
            PathJitter::None => {}
            PathJitter::Exponential { mean_us } => {
                let _ = writeln!(
                    t,
                    "jitter = {{ model = \"exponential\", mean = \"{mean_us}us\" }}"
                );
            }
            PathJitter::Uniform { max_us } => {
                let _ = writeln!(
                    t,
                    "jitter = {{ model = \"uniform\", max = \"{max_us}us\" }}"
                );
            }
        }
        let flow = |t: &mut String, id: &str| {
            let _ = writeln!(
                t,
                "\n[[flow]]\ncontroller = \"{id}\"\npath = [\"bottleneck\"]"
            );
            if self.decimated {
                let _ = writeln!(t, "ack_eliciting_threshold = {DECIMATION}");
            }
        };
        flow(&mut t, controller);
        if let Some(peer) = self.peer {
            flow(&mut t, peer.kind.id(controller));
            if layout.peer_start_s > 0.0 {
                let _ = writeln!(t, "start = \"{}s\"", layout.peer_start_s);
            }
            if let Some(bytes) = layout.peer_bytes {
                let _ = writeln!(t, "bytes = {bytes}");
            }
        }
        t
    }

    /// One line for the scenario's description and the printed worst paths.
    pub fn describe(&self, layout: &Layout) -> String {
        let rate = match &self.capacity {
            Capacity::Fixed { rate_kbit } => format!("{} Mbit/s", *rate_kbit as f64 / 1000.0),
            Capacity::Trace { file } => format!("trace {file}"),
        };
        let loss = match self.loss {
            super::draw::PathLoss::None => "no loss".to_string(),
            l => format!("{} {:.3} % loss", l.name(), 100.0 * l.mean_rate()),
        };
        let jitter = match self.jitter {
            PathJitter::None => String::new(),
            j => format!(", {} jitter {} ms", j.name(), j.scale_ms()),
        };
        let peer = match self.peer {
            None => "alone".to_string(),
            Some(p) => format!("against {} ({})", p.kind.name(), p.timing.name()),
        };
        format!(
            "random path {}: {rate}, {} ms RTT, {} {} packets, {loss}{jitter}{}, {peer}",
            self.index,
            self.rtt_us as f64 / 1000.0,
            self.queue.as_str(),
            layout.queue_packets,
            if self.decimated {
                ", ACK every 10th"
            } else {
                ""
            },
        )
    }
}
