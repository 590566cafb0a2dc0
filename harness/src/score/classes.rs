//! The scoreboard's matrix of path classes: one row per class in [`CLASSES`], so a new class is
//! one more row, with any further link keys (ECN marking, jitter, a policer) in `link_extra`,
//! queue disciplines in [`Queue::Managed`] and flow keys (ACK frequency) in `flow_extra`.
//!
//! The classes are the controller benchmark's paths, and the behaviour tests run them too. The
//! durations are short, so that ten seeds of every default
//! controller finish in minutes on two cores: 10 s for one flow on a random-loss path (about 25
//! to 250 round trips after slow start), 20 s for flows that share a bottleneck (long enough for
//! NewReno pairs to converge from their slow-start overshoot on a 40 ms path).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::scenario::LossModel;
use crate::units::format_duration;

/// The environment variable naming the folder that holds the capacity traces of the LTE classes.
pub const TRACES_ENV: &str = "DISCERN_TRACES";
/// Where the traces are when [`TRACES_ENV`] is not set, relative to the working directory: the
/// shared folder beside the repository (the project does not carry copies of them).
pub const TRACES_DEFAULT: &str = "../shared/traces";

/// The folder of capacity traces: `$DISCERN_TRACES`, else [`TRACES_DEFAULT`], made absolute
/// against the working directory so that the scenario text names the file wherever it is parsed.
pub fn traces_dir() -> PathBuf {
    let dir = std::env::var_os(TRACES_ENV)
        .filter(|d| !d.is_empty())
        .map_or_else(|| PathBuf::from(TRACES_DEFAULT), PathBuf::from);
    std::path::absolute(&dir).unwrap_or(dir)
}

/// The bottleneck's `loss` value in a scenario file, `None` for no loss. The Gilbert model's
/// default `h` and `k` are left out, so that a class's text stays as it was written.
pub(crate) fn loss_toml(loss: &LossModel) -> Option<String> {
    match *loss {
        LossModel::None => None,
        LossModel::Bernoulli { rate } => {
            Some(format!("{{ model = \"bernoulli\", rate = {rate} }}"))
        }
        LossModel::GilbertElliott { p, r, .. } if *loss == LossModel::gilbert(p, r) => Some(
            format!("{{ model = \"gilbert-elliott\", p = {p}, r = {r} }}"),
        ),
        LossModel::GilbertElliott { p, r, h, k } => Some(format!(
            "{{ model = \"gilbert-elliott\", p = {p}, r = {r}, h = {h}, k = {k} }}"
        )),
        LossModel::Burst {
            every,
            drops,
            start,
            count,
        } => {
            let count = count.map(|c| format!(", count = {c}")).unwrap_or_default();
            Some(format!(
                "{{ model = \"burst\", every = \"{}\", drops = {drops}, start = \"{}\"{count} }}",
                format_duration(every),
                format_duration(start)
            ))
        }
    }
}

/// The bottleneck's queue.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Queue {
    /// A drop-tail queue of `packets`.
    DropTail { packets: u32 },
    /// An active queue manager on a queue of `limit` packets; `discipline` is its key in the
    /// link's `queue` table, e.g. `codel = {}`.
    Managed {
        limit: u32,
        discipline: &'static str,
    },
}

impl Queue {
    /// The queue's capacity in packets.
    pub fn packets(self) -> u32 {
        match self {
            Queue::DropTail { packets } => packets,
            Queue::Managed { limit, .. } => limit,
        }
    }

    fn toml(self) -> String {
        match self {
            Queue::DropTail { packets } => packets.to_string(),
            Queue::Managed { limit, discipline } => {
                format!("{{ limit = {limit}, {discipline} }}")
            }
        }
    }
}

/// CoDel with RFC 8289's defaults (100 ms interval, 5 ms target: sections 4.2, 4.3) on a queue long
/// enough never to overflow at the classes' rates, so that CoDel makes every queue drop.
const CODEL: Queue = Queue::Managed {
    limit: 1000,
    discipline: "codel = {}",
};
const CODEL_ECN: Queue = Queue::Managed {
    limit: 1000,
    discipline: "codel = {}, ecn = true",
};
const FQ_CODEL: Queue = Queue::Managed {
    limit: 1000,
    discipline: "fq_codel = {}",
};
const PIE: Queue = Queue::Managed {
    limit: 1000,
    discipline: "pie = {}",
};
/// An ISP's policer: 8 Mbit/s with a 60 kB bucket, on a 50 Mbit/s link.
const POLICER: &str = "police = { rate = \"8Mbit\", burst = \"60KB\" }";
/// A receiver that acknowledges every tenth packet, as s2n-quic and Chromium do.
const DECIMATED: &str = "ack_eliciting_threshold = 10";
/// A flow that sends 2 MB and ends: a page or an API response rather than a bulk download.
const TRANSFER_2MB: &str = "bytes = \"2MB\"";

/// Who shares the bottleneck with the controller under test, and so what the class measures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Flows {
    /// One flow alone: efficiency against the same path without loss.
    Alone,
    /// One flow of the controller and one of `peer`: its share and the harm to the peer.
    Against { peer: &'static str },
    /// `n` flows of the controller: Jain's fairness index among them.
    Among { n: u32 },
    /// One flow of the controller, and one of `peer` that arrives `arrives_s` into the run and
    /// leaves once it has sent `bytes`: the controller's share while the peer is there, and the
    /// queue it keeps once the peer has gone. A flow that stood its ground against a
    /// buffer-filler must give the buffer back when the buffer-filler leaves.
    Visited {
        peer: &'static str,
        arrives_s: u32,
        bytes: &'static str,
    },
}

/// Where a peer visits ([`Flows::Visited`]), the controller gets this long after the peer's last
/// byte before its queue is scored: the queue the peer left drains within a few round trips,
/// and 5 s is over a hundred round trips on the classes' paths, time enough for a controller
/// to find the short queue it keeps alone.
pub const AFTER_VISIT_SETTLE_S: f64 = 5.0;

/// Which of the printed scoreboard's tables shows the class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Random loss on the bottleneck, one flow alone.
    RandomLoss,
    /// Flows sharing a drop-tail bottleneck (fixed rate or a capacity trace).
    Sharing,
    /// An active queue manager, a policer, or a buffer far from one BDP.
    Queue,
    /// The controller's receiver lies about its ACK Delay (`receiver_lies`).
    Lying,
}

impl Family {
    pub const ALL: [Family; 4] = [
        Family::RandomLoss,
        Family::Sharing,
        Family::Queue,
        Family::Lying,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Family::RandomLoss => "random loss",
            Family::Sharing => "sharing a bottleneck",
            Family::Queue => "AQM and queue size",
            Family::Lying => "a receiver that lies",
        }
    }
}

/// One row of the matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct PathClass {
    /// Short id: the CSV's `class` column and the heatmap's column label.
    pub id: &'static str,
    /// A few words for the printed table's column headers.
    pub label: &'static str,
    pub description: &'static str,
    /// The bottleneck's rate; for a class that replays a capacity `trace`, the trace's mean (it
    /// sizes the queue budget and the description, the link follows the trace).
    pub rate_mbit: f64,
    /// One-way propagation delay of the bottleneck (the RTT is twice this plus serialisation).
    pub delay_ms: u32,
    pub queue: Queue,
    pub loss: LossModel,
    pub flows: Flows,
    pub duration_s: u32,
    /// Further keys of the bottleneck's `[[link]]` table (e.g. `ecn = { threshold = 20 }`), one
    /// per line.
    pub link_extra: &'static str,
    /// A mahimahi capacity trace the bottleneck replays in place of a fixed rate: a file name in
    /// [`traces_dir`].
    pub trace: Option<&'static str>,
    /// Further keys of every `[[flow]]` table of the class (e.g. `ack_eliciting_threshold = 10`),
    /// one per line.
    pub flow_extra: &'static str,
    /// The bottleneck polices (its `link_extra` holds the policer): alone on it, the
    /// controller's queue drops are compared with `newreno`'s, as on an AQM.
    pub policed: bool,
    pub family: Family,
    /// Counted in the pooled random-loss figures (`random-loss (mean)`): the six classes the
    /// scoreboard began with, so that the pooled figures stay comparable as classes are added.
    pub pooled: bool,
    /// The controller's receiver lies about its ACK Delay (flow 0 only: the peer's is honest).
    pub lie: Option<Lie>,
}

/// A receiver that lies to the controller under test, and the class that is the same path with
/// an honest receiver: its run of the same controller on the same seed is the reference of the
/// lying class's figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lie {
    /// The flow key's value, e.g. `{ ack_delay = "queue", when = "on_gap" }`.
    pub receiver_lies: &'static str,
    /// The honest class's id.
    pub honest: &'static str,
}

impl PathClass {
    /// A random-loss class: one flow alone, efficiency measured.
    pub fn is_random_loss(&self) -> bool {
        self.flows == Flows::Alone && self.loss != LossModel::None
    }

    /// A class with no random loss: every loss is the queue's.
    pub fn is_congestion_only(&self) -> bool {
        self.loss == LossModel::None
    }

    /// An active queue manager or a policer decides the bottleneck's drops, rather than a full
    /// buffer.
    pub fn is_managed(&self) -> bool {
        self.policed || matches!(self.queue, Queue::Managed { .. })
    }

    /// The flows send a fixed transfer (a `bytes` key among the flow keys) and are scored by
    /// when it completes.
    pub fn is_transfer(&self) -> bool {
        self.flow_extra
            .lines()
            .any(|l| l.trim_start().starts_with("bytes"))
    }

    /// Fair queueing at the bottleneck (FQ-CoDel): each flow has a queue of its own, so a
    /// flow's drops and delay are judged beside the other flow's, not the link's.
    pub fn is_fair_queued(&self) -> bool {
        self.queue == FQ_CODEL
    }

    /// The base round-trip time: twice the one-way delay.
    pub fn base_rtt_s(&self) -> f64 {
        2.0 * f64::from(self.delay_ms) / 1000.0
    }

    /// The class's trace file in `dir`, if it replays one.
    pub fn trace_path(&self, dir: &Path) -> Option<PathBuf> {
        self.trace.map(|t| dir.join(t))
    }

    /// The class as a scenario whose flow 0 runs `controller`; `lossless` drops the random loss
    /// (the efficiency reference). Seeds come from `seed`; a capacity trace is read from
    /// [`traces_dir`].
    pub fn scenario_toml(&self, controller: &str, seed: u64, lossless: bool) -> String {
        self.scenario_toml_in(controller, seed, lossless, &traces_dir())
    }

    /// [`Self::scenario_toml`] with the capacity traces in `traces`.
    pub fn scenario_toml_in(
        &self,
        controller: &str,
        seed: u64,
        lossless: bool,
        traces: &Path,
    ) -> String {
        let mut t = String::new();
        let _ = writeln!(t, "name = \"{}\"", self.id);
        let _ = writeln!(t, "description = \"{}\"", self.description);
        let _ = writeln!(t, "duration = \"{}s\"", self.duration_s);
        let _ = writeln!(t, "seed = {seed}");
        let _ = writeln!(t, "\n[[link]]\nname = \"bottleneck\"");
        match self.trace_path(traces) {
            Some(file) => {
                let file = toml_edit::Value::from(file.to_string_lossy().as_ref());
                let _ = writeln!(t, "rate = {{ trace = {} }}", file.to_string().trim());
            }
            None => {
                let _ = writeln!(t, "rate = \"{}Mbit\"", self.rate_mbit);
            }
        }
        let _ = writeln!(t, "delay = \"{}ms\"", self.delay_ms);
        let _ = writeln!(t, "queue = {}", self.queue.toml());
        if let Some(loss) = loss_toml(&self.loss).filter(|_| !lossless) {
            let _ = writeln!(t, "loss = {loss}");
        }
        write_lines(&mut t, self.link_extra);
        let flow = |t: &mut String, id: &str, count: u32, lie: Option<Lie>| {
            let _ = writeln!(
                t,
                "\n[[flow]]\ncontroller = \"{id}\"\npath = [\"bottleneck\"]\ncount = {count}"
            );
            write_lines(t, self.flow_extra);
            if let Some(lie) = lie {
                let _ = writeln!(t, "receiver_lies = {}", lie.receiver_lies);
            }
        };
        match self.flows {
            Flows::Alone => flow(&mut t, controller, 1, self.lie),
            Flows::Against { peer } => {
                flow(&mut t, controller, 1, self.lie);
                flow(&mut t, peer, 1, None);
            }
            Flows::Among { n } => flow(&mut t, controller, n, self.lie),
            Flows::Visited {
                peer,
                arrives_s,
                bytes,
            } => {
                flow(&mut t, controller, 1, self.lie);
                flow(&mut t, peer, 1, None);
                let _ = writeln!(t, "start = \"{arrives_s}s\"\nbytes = \"{bytes}\"");
            }
        }
        t
    }
}

/// Appends the non-empty lines of `keys`, trimmed.
fn write_lines(t: &mut String, keys: &str) {
    for line in keys.lines().filter(|l| !l.trim().is_empty()) {
        let _ = writeln!(t, "{}", line.trim());
    }
}

const NO_EXTRA: &str = "";

/// The matrix. Bottlenecks are drop-tail queues of about one bandwidth-delay product (BDP = rate x
/// RTT / 1500 bytes) unless the class is about the queue: CoDel's long queue, 0.2 and 5 BDP.
const RANDOM_20M_60MS: PathClass = PathClass {
    id: "random-20M-60ms-0.5%",
    label: "20M 60ms 0.5%",
    description: "one flow, 20 Mbit/s, 60 ms RTT, 0.5 % Bernoulli loss, queue 150 (1.5 BDP)",
    rate_mbit: 20.0,
    delay_ms: 30,
    queue: Queue::DropTail { packets: 150 },
    loss: LossModel::Bernoulli { rate: 0.005 },
    flows: Flows::Alone,
    duration_s: 10,
    link_extra: NO_EXTRA,
    trace: None,
    flow_extra: NO_EXTRA,
    policed: false,
    family: Family::RandomLoss,
    pooled: true,
    lie: None,
};

const CONGESTION_VS_NEWRENO: PathClass = PathClass {
    id: "congestion-vs-newreno",
    label: "vs newreno",
    description: "against one newreno flow, 10 Mbit/s, 40 ms RTT, 1 BDP drop-tail queue, \
                  no random loss",
    rate_mbit: 10.0,
    delay_ms: 20,
    queue: Queue::DropTail { packets: 34 },
    loss: LossModel::None,
    flows: Flows::Against { peer: "newreno" },
    duration_s: 20,
    link_extra: NO_EXTRA,
    trace: None,
    flow_extra: NO_EXTRA,
    policed: false,
    family: Family::Sharing,
    pooled: false,
    lie: None,
};

const CONGESTION_VS_CUBIC: PathClass = PathClass {
    id: "congestion-vs-cubic",
    label: "vs cubic",
    description: "against one quinn-cubic flow, 10 Mbit/s, 40 ms RTT, 1 BDP drop-tail \
                  queue, no random loss",
    rate_mbit: 10.0,
    delay_ms: 20,
    queue: Queue::DropTail { packets: 34 },
    loss: LossModel::None,
    flows: Flows::Against {
        peer: "quinn-cubic",
    },
    duration_s: 20,
    link_extra: NO_EXTRA,
    trace: None,
    flow_extra: NO_EXTRA,
    policed: false,
    family: Family::Sharing,
    pooled: false,
    lie: None,
};

const CODEL_VS_NEWRENO: PathClass = PathClass {
    id: "codel-vs-newreno",
    label: "CoDel vs newreno",
    description: "against one newreno flow, 20 Mbit/s, 40 ms RTT, CoDel (RFC 8289 \
                  defaults: 5 ms target, 100 ms interval) on a 1000-packet queue, no random \
                  loss",
    rate_mbit: 20.0,
    delay_ms: 20,
    queue: CODEL,
    loss: LossModel::None,
    flows: Flows::Against { peer: "newreno" },
    duration_s: 20,
    link_extra: NO_EXTRA,
    trace: None,
    flow_extra: NO_EXTRA,
    policed: false,
    family: Family::Queue,
    pooled: false,
    lie: None,
};

const CODEL_VS_CUBIC: PathClass = PathClass {
    id: "codel-vs-cubic",
    label: "CoDel vs cubic",
    description: "against one quinn-cubic flow, 20 Mbit/s, 40 ms RTT, CoDel (RFC 8289 \
                  defaults) on a 1000-packet queue, no random loss",
    rate_mbit: 20.0,
    delay_ms: 20,
    queue: CODEL,
    loss: LossModel::None,
    flows: Flows::Against {
        peer: "quinn-cubic",
    },
    duration_s: 20,
    link_extra: NO_EXTRA,
    trace: None,
    flow_extra: NO_EXTRA,
    policed: false,
    family: Family::Queue,
    pooled: false,
    lie: None,
};

const CODEL_ALONE: PathClass = PathClass {
    id: "codel-20M-40ms-0.5%",
    label: "CoDel 20M 40ms 0.5%",
    description: "one flow, 20 Mbit/s, 40 ms RTT, 0.5 % Bernoulli loss, CoDel (RFC 8289 \
                  defaults) on a 1000-packet queue",
    rate_mbit: 20.0,
    delay_ms: 20,
    queue: CODEL,
    loss: LossModel::Bernoulli { rate: 0.005 },
    flows: Flows::Alone,
    duration_s: 10,
    link_extra: NO_EXTRA,
    trace: None,
    flow_extra: NO_EXTRA,
    policed: false,
    family: Family::Queue,
    pooled: false,
    lie: None,
};

const POLICE_ALONE: PathClass = PathClass {
    id: "police-8M-alone",
    label: "policer 8M",
    description: "one flow, 50 Mbit/s, 40 ms RTT, 170-packet drop-tail queue, behind a \
                  token-bucket policer of 8 Mbit/s with a 60 kB bucket, no random loss",
    rate_mbit: 50.0,
    delay_ms: 20,
    queue: Queue::DropTail { packets: 170 },
    loss: LossModel::None,
    flows: Flows::Alone,
    duration_s: 10,
    link_extra: POLICER,
    trace: None,
    flow_extra: NO_EXTRA,
    policed: true,
    family: Family::Queue,
    pooled: false,
    lie: None,
};

/// A class of [`Family::Lying`]: `$honest`'s path and peer (from `$base`, on `$queue`), flow 0's
/// receiver lying as `$lie` says. The lies are written at the length they need (`length =
/// "grow"`): quinn acknowledges at once with a one-byte ACK Delay field, which holds 504 us, so a
/// lie kept to that length would hardly be told.
macro_rules! lying {
    ($id:literal, $label:literal, $honest:literal, $base:expr, $queue:expr, $peer:literal,
     $lie:literal, $what:literal) => {
        PathClass {
            id: $id,
            label: $label,
            description: concat!(
                "as ",
                $honest,
                ", the controller's receiver reporting ",
                $what
            ),
            queue: $queue,
            flows: Flows::Against { peer: $peer },
            family: Family::Lying,
            lie: Some(Lie {
                receiver_lies: $lie,
                honest: $honest,
            }),
            ..$base
        }
    };
}

pub const CLASSES: &[PathClass] = &[
    PathClass {
        id: "random-10M-40ms-1%",
        label: "10M 40ms 1%",
        description: "one flow, 10 Mbit/s, 40 ms RTT, 1 % Bernoulli loss, queue 40 (1.2 BDP)",
        rate_mbit: 10.0,
        delay_ms: 20,
        queue: Queue::DropTail { packets: 40 },
        loss: LossModel::Bernoulli { rate: 0.01 },
        flows: Flows::Alone,
        duration_s: 10,
        link_extra: NO_EXTRA,
        trace: None,
        flow_extra: NO_EXTRA,
        policed: false,
        family: Family::RandomLoss,
        pooled: true,
        lie: None,
    },
    RANDOM_20M_60MS,
    PathClass {
        id: "random-100M-20ms-0.1%",
        label: "100M 20ms 0.1%",
        description: "one flow, 100 Mbit/s, 20 ms RTT, 0.1 % Bernoulli loss, queue 170 (1 BDP)",
        rate_mbit: 100.0,
        delay_ms: 10,
        queue: Queue::DropTail { packets: 170 },
        loss: LossModel::Bernoulli { rate: 0.001 },
        flows: Flows::Alone,
        duration_s: 10,
        link_extra: NO_EXTRA,
        trace: None,
        flow_extra: NO_EXTRA,
        policed: false,
        family: Family::RandomLoss,
        pooled: true,
        lie: None,
    },
    PathClass {
        id: "random-2M-200ms-3%",
        label: "2M 200ms 3%",
        description: "one flow, 2 Mbit/s, 200 ms RTT, 3 % Bernoulli loss, queue 40 (1.2 BDP)",
        rate_mbit: 2.0,
        delay_ms: 100,
        queue: Queue::DropTail { packets: 40 },
        loss: LossModel::Bernoulli { rate: 0.03 },
        flows: Flows::Alone,
        duration_s: 10,
        link_extra: NO_EXTRA,
        trace: None,
        flow_extra: NO_EXTRA,
        policed: false,
        family: Family::RandomLoss,
        pooled: true,
        lie: None,
    },
    PathClass {
        id: "random-ge-20M-60ms-1%",
        label: "GE 20M 60ms 1%",
        description: "one flow, 20 Mbit/s, 60 ms RTT, Gilbert-Elliott loss, 1 % mean in bursts \
                      of 4, queue 150 (1.5 BDP)",
        rate_mbit: 20.0,
        delay_ms: 30,
        queue: Queue::DropTail { packets: 150 },
        loss: LossModel::gilbert(0.002525, 0.25),
        flows: Flows::Alone,
        duration_s: 10,
        link_extra: NO_EXTRA,
        trace: None,
        flow_extra: NO_EXTRA,
        policed: false,
        family: Family::RandomLoss,
        pooled: true,
        lie: None,
    },
    PathClass {
        id: "ecn-20M-60ms-0.5%",
        label: "ECN 20M 60ms 0.5%",
        description: "one flow, 20 Mbit/s, 60 ms RTT, 0.5 % Bernoulli loss, ECN step marking at \
                      20 packets, queue 150 (1.5 BDP)",
        rate_mbit: 20.0,
        delay_ms: 30,
        queue: Queue::DropTail { packets: 150 },
        loss: LossModel::Bernoulli { rate: 0.005 },
        flows: Flows::Alone,
        duration_s: 10,
        link_extra: "ecn = { threshold = 20 }",
        trace: None,
        flow_extra: NO_EXTRA,
        policed: false,
        family: Family::RandomLoss,
        pooled: true,
        lie: None,
    },
    CONGESTION_VS_NEWRENO,
    CONGESTION_VS_CUBIC,
    PathClass {
        id: "congestion-four",
        label: "four flows",
        description: "four flows of the controller, 10 Mbit/s, 40 ms RTT, 1 BDP drop-tail \
                      queue, no random loss",
        rate_mbit: 10.0,
        delay_ms: 20,
        queue: Queue::DropTail { packets: 34 },
        loss: LossModel::None,
        flows: Flows::Among { n: 4 },
        duration_s: 20,
        link_extra: NO_EXTRA,
        trace: None,
        flow_extra: NO_EXTRA,
        policed: false,
        family: Family::Sharing,
        pooled: false,
        lie: None,
    },
    PathClass {
        id: "mixed-vs-newreno",
        label: "mixed vs newreno",
        description: "against one newreno flow, 10 Mbit/s, 40 ms RTT, 1 BDP drop-tail queue, \
                      0.5 % Bernoulli loss",
        rate_mbit: 10.0,
        delay_ms: 20,
        queue: Queue::DropTail { packets: 34 },
        loss: LossModel::Bernoulli { rate: 0.005 },
        flows: Flows::Against { peer: "newreno" },
        duration_s: 20,
        link_extra: NO_EXTRA,
        trace: None,
        flow_extra: NO_EXTRA,
        policed: false,
        family: Family::Sharing,
        pooled: false,
        lie: None,
    },
    PathClass {
        id: "lte-tmobile-vs-cubic",
        label: "LTE T-Mobile vs cubic",
        description: "against one quinn-cubic flow, recorded T-Mobile LTE downlink (mahimahi \
                      trace, 16.7 Mbit/s mean), 40 ms RTT, 150-packet drop-tail queue as in \
                      scenarios/lte-tmobile.toml, no random loss",
        rate_mbit: 16.7,
        delay_ms: 20,
        queue: Queue::DropTail { packets: 150 },
        loss: LossModel::None,
        flows: Flows::Against {
            peer: "quinn-cubic",
        },
        duration_s: 20,
        link_extra: NO_EXTRA,
        trace: Some("TMobile-LTE-short.down"),
        flow_extra: NO_EXTRA,
        policed: false,
        family: Family::Sharing,
        pooled: false,
        lie: None,
    },
    PathClass {
        id: "lte-att-vs-cubic",
        label: "LTE AT&T vs cubic",
        description: "against one quinn-cubic flow, recorded AT&T LTE downlink while driving \
                      (mahimahi trace, 4.6 Mbit/s mean), 40 ms RTT, 150-packet drop-tail queue \
                      as in scenarios/lte-att.toml, no random loss",
        rate_mbit: 4.6,
        delay_ms: 20,
        queue: Queue::DropTail { packets: 150 },
        loss: LossModel::None,
        flows: Flows::Against {
            peer: "quinn-cubic",
        },
        duration_s: 20,
        link_extra: NO_EXTRA,
        trace: Some("ATT-LTE-driving-2016.down"),
        flow_extra: NO_EXTRA,
        policed: false,
        family: Family::Sharing,
        pooled: false,
        lie: None,
    },
    PathClass {
        id: "jitter-30M-30ms-1%",
        label: "jitter 30M 30ms 1%",
        description: "one flow, 30 Mbit/s, 30 ms RTT, exponential per-packet jitter of 3 ms \
                      mean, 1 % Bernoulli loss, queue 75 (1 BDP)",
        rate_mbit: 30.0,
        delay_ms: 15,
        queue: Queue::DropTail { packets: 75 },
        loss: LossModel::Bernoulli { rate: 0.01 },
        flows: Flows::Alone,
        duration_s: 10,
        link_extra: "jitter = { model = \"exponential\", mean = \"3ms\" }",
        trace: None,
        flow_extra: NO_EXTRA,
        policed: false,
        family: Family::RandomLoss,
        pooled: false,
        lie: None,
    },
    PathClass {
        id: "shallow-20M-40ms-1%",
        label: "0.2 BDP 20M 40ms 1%",
        description: "one flow, 20 Mbit/s, 40 ms RTT, 1 % Bernoulli loss, queue 13 (0.2 BDP)",
        rate_mbit: 20.0,
        delay_ms: 20,
        queue: Queue::DropTail { packets: 13 },
        loss: LossModel::Bernoulli { rate: 0.01 },
        flows: Flows::Alone,
        duration_s: 10,
        link_extra: NO_EXTRA,
        trace: None,
        flow_extra: NO_EXTRA,
        policed: false,
        family: Family::RandomLoss,
        pooled: false,
        lie: None,
    },
    CODEL_VS_NEWRENO,
    CODEL_VS_CUBIC,
    CODEL_ALONE,
    PathClass {
        id: "deep-5bdp-vs-cubic",
        label: "5 BDP vs cubic",
        description: "against one quinn-cubic flow, 10 Mbit/s, 40 ms RTT, 167-packet (5 BDP) \
                      drop-tail queue, no random loss",
        rate_mbit: 10.0,
        delay_ms: 20,
        queue: Queue::DropTail { packets: 167 },
        loss: LossModel::None,
        flows: Flows::Against {
            peer: "quinn-cubic",
        },
        duration_s: 20,
        link_extra: NO_EXTRA,
        trace: None,
        flow_extra: NO_EXTRA,
        policed: false,
        family: Family::Queue,
        pooled: false,
        lie: None,
    },
    PathClass {
        id: "pie-vs-newreno",
        label: "PIE vs newreno",
        description: "against one newreno flow, 20 Mbit/s, 40 ms RTT, PIE (RFC 8033 defaults: \
                      15 ms target, 15 ms update) on a 1000-packet queue, no random loss",
        queue: PIE,
        ..CODEL_VS_NEWRENO
    },
    PathClass {
        id: "pie-vs-cubic",
        label: "PIE vs cubic",
        description: "against one quinn-cubic flow, 20 Mbit/s, 40 ms RTT, PIE (RFC 8033 \
                      defaults) on a 1000-packet queue, no random loss",
        queue: PIE,
        ..CODEL_VS_CUBIC
    },
    PathClass {
        id: "fq-codel-vs-newreno",
        label: "FQ-CoDel vs newreno",
        description: "against one newreno flow, 20 Mbit/s, 40 ms RTT, FQ-CoDel (RFC 8290 \
                      defaults: 5 ms target, 100 ms interval, 1514-byte quantum) on a \
                      1000-packet queue, no random loss",
        queue: FQ_CODEL,
        ..CODEL_VS_NEWRENO
    },
    PathClass {
        id: "fq-codel-vs-cubic",
        label: "FQ-CoDel vs cubic",
        description: "against one quinn-cubic flow, 20 Mbit/s, 40 ms RTT, FQ-CoDel (RFC 8290 \
                      defaults) on a 1000-packet queue, no random loss",
        queue: FQ_CODEL,
        ..CODEL_VS_CUBIC
    },
    PathClass {
        id: "codel-ecn-20M-40ms-0.5%",
        label: "CoDel ECN 20M 40ms 0.5%",
        description: "one flow, 20 Mbit/s, 40 ms RTT, 0.5 % Bernoulli loss, CoDel (RFC 8289 \
                      defaults) marking ECN-capable packets on a 1000-packet queue",
        queue: CODEL_ECN,
        ..CODEL_ALONE
    },
    POLICE_ALONE,
    PathClass {
        id: "police-8M-vs-newreno",
        label: "policer vs newreno",
        description: "against one newreno flow, 50 Mbit/s, 40 ms RTT, 170-packet drop-tail \
                      queue, behind a token-bucket policer of 8 Mbit/s with a 60 kB bucket",
        flows: Flows::Against { peer: "newreno" },
        duration_s: 20,
        ..POLICE_ALONE
    },
    PathClass {
        id: "decimated-20M-60ms-0.5%",
        label: "ACK/10 20M 60ms 0.5%",
        description: "one flow, 20 Mbit/s, 60 ms RTT, 0.5 % Bernoulli loss, queue 150 (1.5 \
                      BDP), the receiver acknowledging every 10th packet (ACK_FREQUENCY)",
        flow_extra: DECIMATED,
        pooled: false,
        lie: None,
        ..RANDOM_20M_60MS
    },
    PathClass {
        id: "decimated-vs-newreno",
        label: "ACK/10 vs newreno",
        description: "against one newreno flow, 10 Mbit/s, 40 ms RTT, 1 BDP drop-tail queue, no \
                      random loss, every receiver acknowledging every 10th packet (ACK_FREQUENCY)",
        flow_extra: DECIMATED,
        ..CONGESTION_VS_NEWRENO
    },
    GIGABIT_RARE_LOSS,
    PathClass {
        id: "random-1G-40ms-0.1%",
        label: "1G 40ms 0.1%",
        description: "one flow, 1 Gbit/s, 40 ms RTT, 0.1 % Bernoulli loss, queue 3400 (1 BDP)",
        loss: LossModel::Bernoulli { rate: 0.001 },
        ..GIGABIT_RARE_LOSS
    },
    PathClass {
        id: "gigabit-vs-cubic",
        label: "1G vs cubic",
        description: "against one quinn-cubic flow, 1 Gbit/s, 40 ms RTT, 1 BDP drop-tail queue, \
                      no random loss",
        loss: LossModel::None,
        flows: Flows::Against {
            peer: "quinn-cubic",
        },
        family: Family::Sharing,
        ..GIGABIT_RARE_LOSS
    },
    PathClass {
        id: "congestion-60M-70ms-vs-cubic",
        label: "60M 2 BDP vs cubic",
        description: "against one quinn-cubic flow, 60 Mbit/s, 70 ms RTT, 700-packet (2 BDP) \
                      drop-tail queue, no random loss",
        rate_mbit: 60.0,
        delay_ms: 35,
        queue: Queue::DropTail { packets: 700 },
        ..CONGESTION_VS_CUBIC
    },
    PathClass {
        id: "umts-tmobile-vs-cubic",
        label: "UMTS T-Mobile vs cubic",
        description: "against one quinn-cubic flow, recorded T-Mobile UMTS downlink while \
                      driving (mahimahi trace, 2.0 Mbit/s mean), 40 ms RTT, 300-packet drop-tail \
                      queue, no random loss",
        rate_mbit: 2.0,
        queue: Queue::DropTail { packets: 300 },
        trace: Some("TMobile-UMTS-driving.down"),
        ..CONGESTION_VS_CUBIC
    },
    PathClass {
        id: "deep-5bdp-vs-bbr",
        label: "5 BDP vs bbr",
        description: "against one quinn-bbr flow, 10 Mbit/s, 40 ms RTT, 167-packet (5 BDP) \
                      drop-tail queue, no random loss",
        queue: Queue::DropTail { packets: 167 },
        flows: Flows::Against { peer: "quinn-bbr" },
        family: Family::Queue,
        ..CONGESTION_VS_CUBIC
    },
    PathClass {
        id: "lte-tmobile-vs-bbr",
        label: "LTE T-Mobile vs bbr",
        description: "against one quinn-bbr flow, recorded T-Mobile LTE downlink (mahimahi \
                      trace, 16.7 Mbit/s mean), 40 ms RTT, 150-packet drop-tail queue, no random \
                      loss",
        rate_mbit: 16.7,
        queue: Queue::DropTail { packets: 150 },
        flows: Flows::Against { peer: "quinn-bbr" },
        trace: Some("TMobile-LTE-short.down"),
        ..CONGESTION_VS_CUBIC
    },
    PathClass {
        id: "jitter-80M-50ms-0.5%",
        label: "jitter 80M 50ms 0.5%",
        description: "one flow, 80 Mbit/s, 50 ms RTT, exponential per-packet jitter of 5 ms \
                      mean, 0.5 % Bernoulli loss, queue 334 (1 BDP)",
        rate_mbit: 80.0,
        delay_ms: 25,
        queue: Queue::DropTail { packets: 334 },
        loss: LossModel::Bernoulli { rate: 0.005 },
        flows: Flows::Alone,
        duration_s: 10,
        link_extra: "jitter = { model = \"exponential\", mean = \"5ms\" }",
        trace: None,
        flow_extra: NO_EXTRA,
        policed: false,
        family: Family::RandomLoss,
        pooled: false,
        lie: None,
    },
    PathClass {
        id: "codel-jitter-vs-newreno",
        label: "CoDel + jitter vs newreno",
        description: "against one newreno flow, 20 Mbit/s, 40 ms RTT, CoDel (RFC 8289 \
                      defaults) on a 1000-packet queue, exponential per-packet jitter of 2 ms \
                      mean, no random loss: an AQM's drops behind delay noise, every one of them \
                      congestion",
        link_extra: "jitter = { model = \"exponential\", mean = \"2ms\" }",
        ..CODEL_VS_NEWRENO
    },
    PathClass {
        id: "codel-start-vs-newreno",
        label: "CoDel 8 s vs newreno",
        description: "an 8 s run against one newreno flow, 10 Mbit/s, 40 ms RTT, CoDel (RFC \
                      8289 defaults) on a 1000-packet queue, no random loss: start-up behind an \
                      AQM, whose every drop is congestion",
        rate_mbit: 10.0,
        duration_s: 8,
        ..CODEL_VS_NEWRENO
    },
    PathClass {
        id: "pie-start-vs-newreno",
        label: "PIE 8 s vs newreno",
        description: "an 8 s run against one newreno flow, 10 Mbit/s, 40 ms RTT, PIE (RFC 8033 \
                      defaults) on a 1000-packet queue, no random loss: start-up behind an AQM, \
                      whose every drop is congestion",
        rate_mbit: 10.0,
        duration_s: 8,
        queue: PIE,
        ..CODEL_VS_NEWRENO
    },
    CODEL_TRANSFER,
    PathClass {
        id: "pie-2MB",
        label: "PIE 2 MB",
        description: "one 2 MB transfer alone, 10 Mbit/s, 40 ms RTT, PIE (RFC 8033 defaults) on \
                      a 1000-packet queue, no random loss, within 8 s",
        queue: PIE,
        ..CODEL_TRANSFER
    },
    PathClass {
        id: "visit-5bdp-vs-cubic",
        label: "cubic visits 5 BDP",
        description: "a quinn-cubic flow arrives at 5 s and leaves once it has sent 12.5 MB, \
                      20 Mbit/s, 40 ms RTT, 333-packet (5 BDP) drop-tail queue, no random loss: \
                      the queue the controller keeps once the peer has gone",
        queue: Queue::DropTail { packets: 333 },
        flows: Flows::Visited {
            peer: "quinn-cubic",
            arrives_s: 5,
            bytes: "12.5MB",
        },
        duration_s: 40,
        ..CODEL_VS_NEWRENO
    },
    lying!(
        "lie-queue-always-droptail-vs-newreno",
        "queue always DT vs newreno",
        "congestion-vs-newreno",
        CONGESTION_VS_NEWRENO,
        Queue::DropTail { packets: 34 },
        "newreno",
        "{ ack_delay = \"queue\", when = \"always\", length = \"grow\" }",
        "its true ACK Delay plus the queueing its newest packet met (up to 25 ms) in every ACK frame"
    ),
    lying!(
        "lie-queue-gap-droptail-vs-newreno",
        "queue gap DT vs newreno",
        "congestion-vs-newreno",
        CONGESTION_VS_NEWRENO,
        Queue::DropTail { packets: 34 },
        "newreno",
        "{ ack_delay = \"queue\", when = \"on_gap\", length = \"grow\" }",
        "its true ACK Delay plus the queueing its newest packet met (up to 25 ms) in frames that show a gap"
    ),
    lying!(
        "lie-25ms-always-droptail-vs-newreno",
        "25ms always DT vs newreno",
        "congestion-vs-newreno",
        CONGESTION_VS_NEWRENO,
        Queue::DropTail { packets: 34 },
        "newreno",
        "{ ack_delay = \"25ms\", when = \"always\", length = \"grow\" }",
        "25 ms in every ACK frame"
    ),
    lying!(
        "lie-25ms-gap-droptail-vs-newreno",
        "25ms gap DT vs newreno",
        "congestion-vs-newreno",
        CONGESTION_VS_NEWRENO,
        Queue::DropTail { packets: 34 },
        "newreno",
        "{ ack_delay = \"25ms\", when = \"on_gap\", length = \"grow\" }",
        "25 ms in frames that show a gap"
    ),
    lying!(
        "lie-queue-always-codel-vs-newreno",
        "queue always CoDel vs newreno",
        "codel-vs-newreno",
        CODEL_VS_NEWRENO,
        CODEL,
        "newreno",
        "{ ack_delay = \"queue\", when = \"always\", length = \"grow\" }",
        "its true ACK Delay plus the queueing its newest packet met (up to 25 ms) in every ACK frame"
    ),
    lying!(
        "lie-queue-gap-codel-vs-newreno",
        "queue gap CoDel vs newreno",
        "codel-vs-newreno",
        CODEL_VS_NEWRENO,
        CODEL,
        "newreno",
        "{ ack_delay = \"queue\", when = \"on_gap\", length = \"grow\" }",
        "its true ACK Delay plus the queueing its newest packet met (up to 25 ms) in frames that show a gap"
    ),
    lying!(
        "lie-25ms-always-codel-vs-newreno",
        "25ms always CoDel vs newreno",
        "codel-vs-newreno",
        CODEL_VS_NEWRENO,
        CODEL,
        "newreno",
        "{ ack_delay = \"25ms\", when = \"always\", length = \"grow\" }",
        "25 ms in every ACK frame"
    ),
    lying!(
        "lie-25ms-gap-codel-vs-newreno",
        "25ms gap CoDel vs newreno",
        "codel-vs-newreno",
        CODEL_VS_NEWRENO,
        CODEL,
        "newreno",
        "{ ack_delay = \"25ms\", when = \"on_gap\", length = \"grow\" }",
        "25 ms in frames that show a gap"
    ),
    lying!(
        "lie-queue-always-pie-vs-newreno",
        "queue always PIE vs newreno",
        "pie-vs-newreno",
        CODEL_VS_NEWRENO,
        PIE,
        "newreno",
        "{ ack_delay = \"queue\", when = \"always\", length = \"grow\" }",
        "its true ACK Delay plus the queueing its newest packet met (up to 25 ms) in every ACK frame"
    ),
    lying!(
        "lie-queue-gap-pie-vs-newreno",
        "queue gap PIE vs newreno",
        "pie-vs-newreno",
        CODEL_VS_NEWRENO,
        PIE,
        "newreno",
        "{ ack_delay = \"queue\", when = \"on_gap\", length = \"grow\" }",
        "its true ACK Delay plus the queueing its newest packet met (up to 25 ms) in frames that show a gap"
    ),
    lying!(
        "lie-25ms-always-pie-vs-newreno",
        "25ms always PIE vs newreno",
        "pie-vs-newreno",
        CODEL_VS_NEWRENO,
        PIE,
        "newreno",
        "{ ack_delay = \"25ms\", when = \"always\", length = \"grow\" }",
        "25 ms in every ACK frame"
    ),
    lying!(
        "lie-25ms-gap-pie-vs-newreno",
        "25ms gap PIE vs newreno",
        "pie-vs-newreno",
        CODEL_VS_NEWRENO,
        PIE,
        "newreno",
        "{ ack_delay = \"25ms\", when = \"on_gap\", length = \"grow\" }",
        "25 ms in frames that show a gap"
    ),
    lying!(
        "lie-queue-always-droptail-vs-cubic",
        "queue always DT vs cubic",
        "congestion-vs-cubic",
        CONGESTION_VS_NEWRENO,
        Queue::DropTail { packets: 34 },
        "quinn-cubic",
        "{ ack_delay = \"queue\", when = \"always\", length = \"grow\" }",
        "its true ACK Delay plus the queueing its newest packet met (up to 25 ms) in every ACK frame"
    ),
    lying!(
        "lie-queue-gap-droptail-vs-cubic",
        "queue gap DT vs cubic",
        "congestion-vs-cubic",
        CONGESTION_VS_NEWRENO,
        Queue::DropTail { packets: 34 },
        "quinn-cubic",
        "{ ack_delay = \"queue\", when = \"on_gap\", length = \"grow\" }",
        "its true ACK Delay plus the queueing its newest packet met (up to 25 ms) in frames that show a gap"
    ),
    lying!(
        "lie-25ms-always-droptail-vs-cubic",
        "25ms always DT vs cubic",
        "congestion-vs-cubic",
        CONGESTION_VS_NEWRENO,
        Queue::DropTail { packets: 34 },
        "quinn-cubic",
        "{ ack_delay = \"25ms\", when = \"always\", length = \"grow\" }",
        "25 ms in every ACK frame"
    ),
    lying!(
        "lie-25ms-gap-droptail-vs-cubic",
        "25ms gap DT vs cubic",
        "congestion-vs-cubic",
        CONGESTION_VS_NEWRENO,
        Queue::DropTail { packets: 34 },
        "quinn-cubic",
        "{ ack_delay = \"25ms\", when = \"on_gap\", length = \"grow\" }",
        "25 ms in frames that show a gap"
    ),
    lying!(
        "lie-queue-always-codel-vs-cubic",
        "queue always CoDel vs cubic",
        "codel-vs-cubic",
        CODEL_VS_NEWRENO,
        CODEL,
        "quinn-cubic",
        "{ ack_delay = \"queue\", when = \"always\", length = \"grow\" }",
        "its true ACK Delay plus the queueing its newest packet met (up to 25 ms) in every ACK frame"
    ),
    lying!(
        "lie-queue-gap-codel-vs-cubic",
        "queue gap CoDel vs cubic",
        "codel-vs-cubic",
        CODEL_VS_NEWRENO,
        CODEL,
        "quinn-cubic",
        "{ ack_delay = \"queue\", when = \"on_gap\", length = \"grow\" }",
        "its true ACK Delay plus the queueing its newest packet met (up to 25 ms) in frames that show a gap"
    ),
    lying!(
        "lie-25ms-always-codel-vs-cubic",
        "25ms always CoDel vs cubic",
        "codel-vs-cubic",
        CODEL_VS_NEWRENO,
        CODEL,
        "quinn-cubic",
        "{ ack_delay = \"25ms\", when = \"always\", length = \"grow\" }",
        "25 ms in every ACK frame"
    ),
    lying!(
        "lie-25ms-gap-codel-vs-cubic",
        "25ms gap CoDel vs cubic",
        "codel-vs-cubic",
        CODEL_VS_NEWRENO,
        CODEL,
        "quinn-cubic",
        "{ ack_delay = \"25ms\", when = \"on_gap\", length = \"grow\" }",
        "25 ms in frames that show a gap"
    ),
    lying!(
        "lie-queue-always-pie-vs-cubic",
        "queue always PIE vs cubic",
        "pie-vs-cubic",
        CODEL_VS_NEWRENO,
        PIE,
        "quinn-cubic",
        "{ ack_delay = \"queue\", when = \"always\", length = \"grow\" }",
        "its true ACK Delay plus the queueing its newest packet met (up to 25 ms) in every ACK frame"
    ),
    lying!(
        "lie-queue-gap-pie-vs-cubic",
        "queue gap PIE vs cubic",
        "pie-vs-cubic",
        CODEL_VS_NEWRENO,
        PIE,
        "quinn-cubic",
        "{ ack_delay = \"queue\", when = \"on_gap\", length = \"grow\" }",
        "its true ACK Delay plus the queueing its newest packet met (up to 25 ms) in frames that show a gap"
    ),
    lying!(
        "lie-25ms-always-pie-vs-cubic",
        "25ms always PIE vs cubic",
        "pie-vs-cubic",
        CODEL_VS_NEWRENO,
        PIE,
        "quinn-cubic",
        "{ ack_delay = \"25ms\", when = \"always\", length = \"grow\" }",
        "25 ms in every ACK frame"
    ),
    lying!(
        "lie-25ms-gap-pie-vs-cubic",
        "25ms gap PIE vs cubic",
        "pie-vs-cubic",
        CODEL_VS_NEWRENO,
        PIE,
        "quinn-cubic",
        "{ ack_delay = \"25ms\", when = \"on_gap\", length = \"grow\" }",
        "25 ms in frames that show a gap"
    ),
];

/// A short transfer behind an AQM: what start-up alone costs, in completion time and in AQM
/// drops read as random.
const CODEL_TRANSFER: PathClass = PathClass {
    id: "codel-2MB",
    label: "CoDel 2 MB",
    description: "one 2 MB transfer alone, 10 Mbit/s, 40 ms RTT, CoDel (RFC 8289 defaults) on a \
                  1000-packet queue, no random loss, within 8 s",
    rate_mbit: 10.0,
    delay_ms: 20,
    queue: CODEL,
    loss: LossModel::None,
    flows: Flows::Alone,
    duration_s: 8,
    link_extra: NO_EXTRA,
    trace: None,
    flow_extra: TRANSFER_2MB,
    policed: false,
    family: Family::Queue,
    pooled: false,
    lie: None,
};

/// Fibre, 5G and inter-region paths: 1 Gbit/s with a little random loss, where a loss-tolerant
/// controller pays most and where a stock quinn receiver meets its limit of 1024 holes per
/// stream. Three seconds reach steady state: slow start fills the 3,334-packet pipe in about
/// nine round trips (0.4 s).
const GIGABIT_RARE_LOSS: PathClass = PathClass {
    id: "random-1G-40ms-0.01%",
    label: "1G 40ms 0.01%",
    description: "one flow, 1 Gbit/s, 40 ms RTT, 0.01 % Bernoulli loss, queue 3400 (1 BDP)",
    rate_mbit: 1000.0,
    delay_ms: 20,
    queue: Queue::DropTail { packets: 3400 },
    loss: LossModel::Bernoulli { rate: 0.0001 },
    flows: Flows::Alone,
    duration_s: 3,
    link_extra: NO_EXTRA,
    trace: None,
    flow_extra: NO_EXTRA,
    policed: false,
    family: Family::RandomLoss,
    pooled: false,
    lie: None,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    /// The shared traces beside the repository, as the LTE scenarios name them.
    fn traces() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/traces")
    }

    #[test]
    fn every_class_is_a_valid_scenario_with_and_without_loss() {
        for c in CLASSES {
            if c.trace_path(&traces()).is_some_and(|f| !f.exists()) {
                // CI keeps the traces beside the repository: a skip there would hide a lost test.
                assert!(
                    std::env::var("CI").as_deref() != Ok("true"),
                    "CI=true, yet {}'s trace is absent from {}",
                    c.id,
                    traces().display()
                );
                eprintln!(
                    "SKIPPED {}: its trace is absent from {}",
                    c.id,
                    traces().display()
                );
                continue;
            }
            for lossless in [false, true] {
                let text = c.scenario_toml_in("newreno", 3, lossless, &traces());
                let s = Scenario::from_toml(&text, c.id, &[])
                    .unwrap_or_else(|e| panic!("{}: {e}\n{text}", c.id));
                assert_eq!(s.seed, 3);
                assert_eq!(s.flows[0].controller, "newreno");
                assert_eq!(
                    text.contains("loss ="),
                    !lossless && c.loss != LossModel::None
                );
                assert_eq!(s.links[0].trace.is_some(), c.trace.is_some(), "{}", c.id);
                let aqm = matches!(c.queue, Queue::Managed { .. });
                assert_eq!(s.links[0].aqm.is_some(), aqm, "{}", c.id);
                assert_eq!(s.links[0].police.is_some(), c.policed, "{}", c.id);
            }
        }
    }

    #[test]
    fn flow_keys_go_to_every_flow_and_queue_keys_to_the_queue() {
        let class = PathClass {
            flow_extra: "ack_eliciting_threshold = 10",
            ..CLASSES[6].clone()
        };
        let text = class.scenario_toml_in("newreno", 1, false, Path::new("T"));
        assert_eq!(
            text.matches("ack_eliciting_threshold = 10").count(),
            2,
            "{text}"
        );
        let codel = CLASSES.iter().find(|c| c.is_managed()).unwrap();
        let text = codel.scenario_toml_in("newreno", 1, false, Path::new("T"));
        assert!(
            text.contains("queue = { limit = 1000, codel = {} }"),
            "{text}"
        );
    }

    #[test]
    fn every_loss_model_reads_back_as_written() {
        use std::time::Duration;
        let models = [
            LossModel::None,
            LossModel::Bernoulli { rate: 0.005 },
            LossModel::gilbert(0.002525, 0.25),
            LossModel::GilbertElliott {
                p: 0.01,
                r: 0.3,
                h: 0.1,
                k: 0.99,
            },
            LossModel::Burst {
                every: Duration::from_millis(500),
                drops: 4,
                start: Duration::from_millis(1500),
                count: Some(3),
            },
            LossModel::Burst {
                every: Duration::from_secs(2),
                drops: 1,
                start: Duration::ZERO,
                count: None,
            },
        ];
        for loss in models {
            let class = PathClass {
                loss: loss.clone(),
                ..CLASSES[0].clone()
            };
            let text = class.scenario_toml_in("newreno", 1, false, Path::new("T"));
            let s = Scenario::from_toml(&text, class.id, &[]).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(s.links[0].loss, loss, "{text}");
        }
        let ge = "loss = { model = \"gilbert-elliott\", p = 0.002525, r = 0.25 }\n";
        let class = CLASSES
            .iter()
            .find(|c| c.id.starts_with("random-ge"))
            .unwrap();
        assert!(class.scenario_toml("x", 1, false).contains(ge));
    }

    #[test]
    fn a_lying_class_is_its_honest_twin_with_flow_0_s_receiver_lying() {
        let lying: Vec<&PathClass> = CLASSES.iter().filter(|c| c.lie.is_some()).collect();
        assert_eq!(lying.len(), 24);
        for c in lying {
            let lie = c.lie.unwrap();
            let twin = CLASSES
                .iter()
                .find(|t| t.id == lie.honest)
                .expect(lie.honest);
            assert_eq!(twin.lie, None, "{}", c.id);
            assert_eq!(c.family, Family::Lying, "{}", c.id);
            let (a, b) = (
                c.scenario_toml_in("discern", 4, false, Path::new("T")),
                twin.scenario_toml_in("discern", 4, false, Path::new("T")),
            );
            let (s, t) = (
                Scenario::from_toml(&a, c.id, &[]).unwrap_or_else(|e| panic!("{e}\n{a}")),
                Scenario::from_toml(&b, twin.id, &[]).unwrap(),
            );
            assert!(s.flows[0].receiver_lies.is_some(), "{a}");
            assert_eq!(s.flows[1].receiver_lies, None, "{a}");
            // Everything else is the twin's: links, duration, flows.
            assert_eq!((&s.links, s.duration), (&t.links, t.duration), "{}", c.id);
            let honest = |f: &crate::scenario::Flow| crate::scenario::Flow {
                receiver_lies: None,
                ..f.clone()
            };
            let flows: Vec<_> = s.flows.iter().map(honest).collect();
            assert_eq!(flows, t.flows, "{}", c.id);
        }
    }

    #[test]
    fn a_trace_class_names_its_trace_in_the_folder_given() {
        let lte = CLASSES.iter().find(|c| c.trace.is_some()).unwrap();
        let text = lte.scenario_toml_in("newreno", 1, false, Path::new("/elsewhere"));
        let line = format!("rate = {{ trace = \"/elsewhere/{}\" }}", lte.trace.unwrap());
        assert!(text.contains(&line), "{text}");
    }

    #[test]
    fn ids_are_unique_and_queues_are_sized_as_described() {
        for (i, c) in CLASSES.iter().enumerate() {
            assert!(CLASSES[..i].iter().all(|d| d.id != c.id), "{}", c.id);
            let bdp = c.rate_mbit * 1e6 * c.base_rtt_s() / 12_000.0;
            match c.queue {
                // A drop-tail queue holds a BDP unless the class says it is shallower or deeper.
                Queue::DropTail { packets } => {
                    let said = [0.2, 5.0]
                        .into_iter()
                        .find(|f| c.description.contains(&format!("({f} BDP)")));
                    let packets = f64::from(packets);
                    match said {
                        Some(f) => assert!((packets / bdp - f).abs() < 0.05 * f, "{}", c.id),
                        None => assert!(packets >= bdp.floor(), "{}: bdp {bdp}", c.id),
                    }
                }
                // An AQM's queue is long enough never to overflow: the AQM makes every drop.
                Queue::Managed { limit, .. } => assert!(f64::from(limit) >= 10.0 * bdp, "{}", c.id),
            }
        }
        assert_eq!(CLASSES.iter().filter(|c| c.pooled).count(), 6);
        let ge = CLASSES
            .iter()
            .find(|c| c.id.starts_with("random-ge"))
            .unwrap();
        assert!((ge.loss.mean_rate().unwrap() - 0.01).abs() < 1e-4);
    }
}
