//! `netns`: a scenario on real quinn endpoints (tokio, UDP sockets) and kernel TCP flows, in Linux
//! network namespaces joined by veth pairs (ARCHITECTURE.md, "One link model, two runners").
//!
//! * `plan`: the topology as data: a router namespace at each end of every scenario link (the
//!   tail of X and the head of Y are one router when a path goes X then Y), a namespace per flow
//!   end, /30 addresses, static routes both ways.
//! * `topology`: builds a plan with `ip`/`tc` and owns it; dropping it removes everything.
//! * Engines (`tc`, `userlink`): on kernels with every qdisc, action and device a link needs
//!   (probed once a run: netem, tbf, ifb with mirred, and its codel, pie, fq_codel or police),
//!   each link direction is shaped where `link/` shapes it: its policer, queue (tbf and its AQM)
//!   and rate on the egress of the router it leaves, its channel loss and delay (netem) on an
//!   ifb device at the ingress of the router it reaches.
//!   Otherwise (or for a feature the kernel has no faithful form of), the link is a pair of TUN
//!   devices bridged in user space by the simulator's own link model, in real time, FQ-CoDel
//!   included. `summary.json` names the engine of each link.
//! * Flows (`flow`: sockets in their namespaces, start, results): QUIC (`quic`; controllers from
//!   the registry, their `tracing` events captured by `capture`; the receiver quinn, or
//!   s2n-quic with `receiver = "s2n-quic"`, `s2n`), noq's peers (`noq`: a noq sender and
//!   receiver, `noq-bbr3` and `noq-cubic`) and kernel TCP (`tcp`, ids `tcp-<name>`), all sending
//!   the simulator's payload pattern and checking every byte on receipt.
//! * A foreign receiver's report of its own ACK frames against the sender's recovered ACK
//!   delays (`ack_report`), per flow in `summary.json`.
//! * Record: the flows' summaries and series through the recorder both runners share
//!   ([`crate::report::record`]); the links' figures from their engines (`links`).
//! * Safety: root and `ip`/`tc` are checked before anything is made; names are unique per run
//!   (`names`); SIGINT and SIGTERM end the run through the same clean-up as an error or a panic;
//!   `discern clean` (`clean`) removes what a killed run left.

mod ack_report;
mod clean;
pub mod flow;
mod links;
pub mod names;
mod noq;
pub mod plan;
mod quic;
mod received;
mod result;
mod s2n;
pub mod sys;
pub mod tc;
pub mod tc_stats;
pub mod tcp;
mod topology;
mod tun;
pub mod userlink;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, bail, Context};
use tracing_subscriber::layer::SubscriberExt;

use crate::capture::{CaptureLayer, CwndEvent, Sink};
use crate::report::record::{EventSamples, Recorder};
use crate::report::{FlowSeries, LinkInfo, RunOutput, Summary, Timing};
use crate::scenario::{Receiver, ReceiverLies, Scenario};
use links::Links;
use names::RunPrefix;
use plan::Plan;
use sys::Signals;
use topology::Topology;

pub use clean::{clean, Cleaned};

/// At most this many flows (each has two namespaces).
pub const MAX_FLOWS: usize = 256;

/// Hooks for tests and special runs; the default is a normal run.
#[derive(Clone, Default)]
pub struct Options {
    /// Shape every link in user space even where the kernel has what the tc engine needs.
    pub user_space_only: bool,
    /// Fail on purpose once the topology is built (to test the clean-up).
    pub fail_after_topology: bool,
    /// Panic on purpose once the flows have started (to test the clean-up).
    pub panic_after_start: bool,
    /// Told the run's namespace prefix before anything is created.
    #[allow(clippy::type_complexity)]
    pub on_prefix: Option<Arc<dyn Fn(&str) + Send + Sync>>,
    /// Where each flow's endpoints write their qlog traces (`--qlog`), if anywhere.
    pub qlog: Option<crate::transport::Qlog>,
}

/// Runs `scenario` in network namespaces.
pub fn run(scenario: &Scenario) -> anyhow::Result<RunOutput> {
    run_with(scenario, &Options::default())
}

/// Checks what can be checked before anything is created: the scenario's shape and every
/// controller id (kernel TCP ones against the kernel).
pub fn validate(scenario: &Scenario) -> anyhow::Result<Plan> {
    if scenario.mtu < crate::scenario::MIN_MTU {
        bail!(
            "mtu {} is below QUIC's minimum of {}",
            scenario.mtu,
            crate::scenario::MIN_MTU
        );
    }
    if let Some(tick) = scenario.timer_granularity {
        bail!(
            "timer_granularity = {tick:?} sets the simulator's endpoint timers; --link netns runs \
             on the host's own timers (a tokio runtime's millisecond ticks). Remove \
             timer_granularity or run without --link netns"
        );
    }
    let plan = Plan::new(scenario).map_err(|e| anyhow!("scenario: {e}"))?;
    if plan.flows.len() > MAX_FLOWS {
        bail!(
            "{} flows; --link netns runs at most {MAX_FLOWS} (two namespaces each)",
            plan.flows.len()
        );
    }
    for (i, flow) in scenario.flows.iter().enumerate() {
        // A scenario file cannot say this either (parsing refuses it); `--controller` can.
        if let (Some(peer), true) = (flow.controller.noq(), flow.receiver != Receiver::Quinn) {
            bail!(
                "flow {i}: receiver = \"{}\" cannot stand behind {peer}, whose receiver is noq's \
                 own endpoint; remove receiver or choose a quinn controller",
                flow.receiver
            );
        }
        if let Some(lies) = &flow.receiver_lies {
            bail!("{}", lies_need_the_simulator(scenario, i, lies));
        }
        let Some(tcp) = flow.controller.kernel_tcp() else {
            continue;
        };
        // A scenario file cannot say this (parsing refuses it); `--controller` can.
        if flow.receiver != Receiver::Quinn {
            bail!(
                "flow {i}: receiver = \"{}\" needs a QUIC flow, but {} is the kernel's TCP",
                flow.receiver,
                tcp.id()
            );
        }
        tcp::check(tcp)?;
    }
    Ok(plan)
}

/// Why flow `index`'s lying receiver cannot run here: its ACK frames cross real sockets under
/// real packet protection, where nothing can read or rewrite them.
fn lies_need_the_simulator(scenario: &Scenario, index: usize, lies: &ReceiverLies) -> String {
    let file = scenario
        .source
        .as_ref()
        .map_or(String::new(), |p| format!("{}:", p.display()));
    format!(
        "{file}{}: flow {index}: {lies} needs the simulator, which rewrites the receiver's ACK \
         frames in plaintext; --link netns carries them encrypted over real sockets. Remove \
         receiver_lies or run without --link netns",
        lies.line
    )
}

/// [`run`] with hooks.
pub fn run_with(scenario: &Scenario, options: &Options) -> anyhow::Result<RunOutput> {
    let wall = Instant::now();
    sys::preflight()?;
    let plan = validate(scenario)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let sink = Sink::default();
    // A foreign receiver's ACKs are scored against the sender's recovered delays, one `rtt`
    // record per ACK frame; without one, those records would only be dropped.
    let capture = match scenario.flows.iter().all(|f| f.receiver == Receiver::Quinn) {
        true => CaptureLayer::new(sink.clone()),
        false => CaptureLayer::with_delays(sink.clone()),
    };
    let subscriber =
        crate::log::with_env_log(tracing_subscriber::registry().with(capture.filtered()));
    let (summary, series) = tracing::subscriber::with_default(subscriber, || {
        runtime.block_on(run_async(scenario, &plan, options, &sink))
    })?;
    Ok(RunOutput {
        summary,
        series,
        timing: Timing {
            wall_s: wall.elapsed().as_secs_f64(),
            quinn_s: 0.0,
        },
    })
}

/// One run, in order: the topology is built, the flows run in it, and what they and the links
/// did is recorded; the topology is removed on every way out, signals included.
async fn run_async(
    scenario: &Scenario,
    plan: &Plan,
    options: &Options,
    sink: &Sink,
) -> anyhow::Result<(Summary, Vec<FlowSeries>)> {
    // Signals first: from here on SIGINT/SIGTERM end the run through the clean-up below.
    let signals = Signals::handle()?;
    let prefix = RunPrefix::unique();
    if let Some(f) = &options.on_prefix {
        f(prefix.as_str());
    }
    let mut topo = Topology::build(prefix, scenario, plan, options.user_space_only)?;
    if options.fail_after_topology {
        bail!("failing on purpose after building the topology");
    }
    // A flow that started before a qdisc acts would meet another queue than the scenario's.
    tokio::time::sleep_until(topo.aqms_awake_at.into()).await;
    let flows = flow::run(scenario, plan, &topo, signals, options).await?;
    let reports = topo.finish_user_links();
    let events: Vec<CwndEvent> = sink
        .lock()
        .map(|mut s| std::mem::take(&mut *s))
        .unwrap_or_default();
    let links = Links {
        scenario,
        plan,
        topo: &topo,
        flows: &flows,
        reports: &reports,
        duration: flows.duration(),
    };
    Ok(record(&links, &events))
}

/// The run's summary and series: the flows through the recorder, the links from their engines.
fn record(links: &Links, events: &[CwndEvent]) -> (Summary, Vec<FlowSeries>) {
    let (scenario, flows) = (links.scenario, links.flows);
    let mut recorder = Recorder::new(links.plan.flows.len(), EventSamples::All);
    for r in &flows.results {
        recorder.replay(r.outcome.index, &r.readings, events, flows.epoch);
    }
    let (link_summaries, drops) = links.summaries();
    let outcomes = flows.results.iter().map(|r| {
        let mut outcome = r.outcome.clone();
        if let Some(log) = &r.receiver_log {
            let propagation = propagation(scenario, links.plan, outcome.index);
            let recovered = events.iter().filter(|e| e.flow == outcome.index);
            let recovered = recovered.filter_map(|e| {
                e.delay
                    .map(|frame| ack_report::Recovered { at: e.at, frame })
            });
            outcome.receiver_acks = Some(ack_report::score(log, recovered, propagation));
        }
        outcome
    });
    let (flow_summaries, series) = recorder.finish(outcomes);
    let engines: BTreeSet<&str> = links.topo.engines.iter().map(|e| e.as_str()).collect();
    let summary = Summary {
        receiver_lies: Vec::new(),
        scenario: scenario.name.clone(),
        link: LinkInfo {
            kind: "netns".into(),
            engine: engines.into_iter().collect::<Vec<_>>().join(", "),
        },
        duration_s: links.duration.as_secs_f64(),
        seed: scenario.seed,
        flows: flow_summaries,
        links: link_summaries,
        drops: Some(drops),
        verdict_accuracy: None,
        delay_signals: None,
    };
    (summary, series)
}

/// The one-way propagation delay of flow `index`'s path: what no packet of it beats.
fn propagation(scenario: &Scenario, plan: &Plan, index: usize) -> std::time::Duration {
    plan.flows
        .iter()
        .find(|f| f.index == index)
        .map(|f| &scenario.flows[f.spec].path)
        .map_or(Default::default(), |path| {
            path.iter().map(|&l| scenario.links[l].delay).sum()
        })
}
