//! `netns`: a scenario on real quinn endpoints (tokio, UDP sockets) and kernel TCP flows, in Linux
//! network namespaces joined by veth pairs (ARCHITECTURE.md, "One link model, two runners").
//!
//! * `plan`: the topology as data: a router namespace at each end of every scenario link (the
//!   tail of X and the head of Y are one router when a path goes X then Y), a namespace per flow
//!   end, /30 addresses, static routes both ways.
//! * `topology`: builds a plan with `ip`/`tc` and owns it; dropping it removes everything.
//! * Engines (`tc`, `userlink`): on kernels with every qdisc and action a link needs (probed
//!   once a run: netem, tbf, and its codel, pie, fq_codel or police), each link direction is
//!   shaped on its router's egress by netem (delay, loss), tbf (rate, queue) and its AQM.
//!   Otherwise (or for a feature the kernel has no faithful form of), the link is a pair of TUN
//!   devices bridged in user space by the simulator's own link model, in real time, FQ-CoDel
//!   included. `summary.json` names the engine of each link.
//! * Flows: QUIC (`quic`; controllers from the registry, their `tracing` events captured by
//!   `capture`) and kernel TCP (`tcp`, ids `tcp-<name>`), all sending the simulator's payload
//!   pattern and checking every byte on receipt.
//! * Safety: root and `ip`/`tc` are checked before anything is made; names are unique per run
//!   (`names`); SIGINT and SIGTERM end the run through the same clean-up as an error or a panic;
//!   `discern clean` (`clean`) removes what a killed run left.

mod clean;
pub mod flow;
pub mod names;
pub mod plan;
mod quic;
pub mod sys;
pub mod tc;
pub mod tcp;
mod topology;
mod tun;
pub mod userlink;

use std::collections::BTreeSet;
use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context};
use tokio::signal::unix::{signal, SignalKind};
use tracing_subscriber::layer::SubscriberExt;

use crate::capture::{CaptureLayer, CwndEvent, Sink};
use crate::report::{Drops, FlowSeries, LinkInfo, MeasuredLink, RunOutput, Summary, Timing};
use crate::scenario::Scenario;
use crate::tls;
use crate::transport::{FlowTransport, IP_UDP_OVERHEAD};
use flow::FlowResult;
use names::RunPrefix;
use plan::{Node, Plan};
use tc::Engine;
use topology::Topology;

pub use clean::{clean, Cleaned};

/// At most this many flows (each has two namespaces).
pub const MAX_FLOWS: usize = 256;
const QUIC_PORT: u16 = 4433;
const TCP_PORT: u16 = 5001;

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
}

/// Runs `scenario` in network namespaces.
pub fn run(scenario: &Scenario) -> anyhow::Result<RunOutput> {
    run_with(scenario, &Options::default())
}

/// Checks what can be checked before anything is created: the scenario's shape and every
/// controller id (kernel TCP ones against the kernel).
pub fn validate(scenario: &Scenario) -> anyhow::Result<Plan> {
    if (scenario.mtu as u64) < 1200 + IP_UDP_OVERHEAD {
        bail!("mtu {} is below QUIC's minimum of 1228", scenario.mtu);
    }
    let plan = Plan::new(scenario).map_err(|e| anyhow!("scenario: {e}"))?;
    if plan.flows.len() > MAX_FLOWS {
        bail!(
            "{} flows; --link netns runs at most {MAX_FLOWS} (two namespaces each)",
            plan.flows.len()
        );
    }
    for tcp in scenario
        .flows
        .iter()
        .filter_map(|f| f.controller.kernel_tcp())
    {
        tcp::check(tcp)?;
    }
    Ok(plan)
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
    let subscriber = tracing_subscriber::registry().with(CaptureLayer::new(sink.clone()));
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

/// Every flow, ready to start.
enum Ready {
    Quic(Box<quic::QuicFlow>),
    Tcp(tcp::TcpFlow),
}

fn udp_socket(ns: &str, addr: Ipv4Addr, port: u16) -> anyhow::Result<UdpSocket> {
    sys::in_netns(ns, || {
        UdpSocket::bind(SocketAddr::from((addr, port)))
            .with_context(|| format!("binding UDP {addr}:{port} in {ns}"))
    })
}

fn prepare(scenario: &Scenario, plan: &Plan, topo: &Topology) -> anyhow::Result<Vec<Ready>> {
    let identity = tls::Identity::generate()?;
    let mut ready = Vec::with_capacity(plan.flows.len());
    for fp in &plan.flows {
        let spec = &scenario.flows[fp.spec];
        let sender_ns = topo.node_ns(Node::Sender(fp.index));
        let receiver_ns = topo.node_ns(Node::Receiver(fp.index));
        let bytes = spec.bytes.map(|b| b.0);
        if let Some(kernel) = spec.controller.kernel_tcp() {
            ready.push(Ready::Tcp(tcp::TcpFlow::new(
                fp.index,
                kernel,
                spec.start,
                bytes,
                scenario.seed,
                &sender_ns,
                &receiver_ns,
                SocketAddr::from((fp.receiver_addr(), TCP_PORT)),
            )?));
            continue;
        }
        let transport = FlowTransport::new(scenario, spec)?;
        let mut server_config = identity.server_config()?;
        server_config.transport = transport.receiver;
        let mut client_config = identity.client_config()?;
        client_config.transport_config(transport.sender);
        ready.push(Ready::Quic(Box::new(quic::QuicFlow {
            index: fp.index,
            controller: spec.controller.id().to_owned(),
            start: spec.start,
            bytes,
            seed: scenario.seed,
            client_socket: udp_socket(&sender_ns, fp.sender_addr(), 0)?,
            server_socket: udp_socket(&receiver_ns, fp.receiver_addr(), QUIC_PORT)?,
            server_addr: SocketAddr::from((fp.receiver_addr(), QUIC_PORT)),
            client_config,
            server_config,
        })));
    }
    Ok(ready)
}

async fn run_async(
    scenario: &Scenario,
    plan: &Plan,
    options: &Options,
    sink: &Sink,
) -> anyhow::Result<(Summary, Vec<FlowSeries>)> {
    // Signals first: from here on SIGINT/SIGTERM end the run through the clean-up below.
    let mut sigint = signal(SignalKind::interrupt()).context("handling SIGINT")?;
    let mut sigterm = signal(SignalKind::terminate()).context("handling SIGTERM")?;
    let prefix = RunPrefix::unique();
    if let Some(f) = &options.on_prefix {
        f(prefix.as_str());
    }
    let mut topo = Topology::build(prefix, scenario, plan, options.user_space_only)?;
    if options.fail_after_topology {
        bail!("failing on purpose after building the topology");
    }
    let ready = prepare(scenario, plan, &topo)?;

    let epoch = Instant::now();
    let deadline = epoch + scenario.duration;
    let stop = Arc::new(AtomicBool::new(false));
    let mut tcp_threads = Vec::new();
    let mut quic_tasks = tokio::task::JoinSet::new();
    for r in ready {
        match r {
            Ready::Tcp(f) => tcp_threads.push(f.spawn(epoch, deadline, stop.clone())?),
            Ready::Quic(f) => {
                quic_tasks.spawn(quic::run(*f, epoch, deadline));
            }
        }
    }
    let panic_after_start = options.panic_after_start;
    let work = async {
        if panic_after_start {
            tokio::time::sleep(Duration::from_millis(300)).await;
            panic!("panicking on purpose with the flows running");
        }
        let mut results = Vec::new();
        while let Some(r) = quic_tasks.join_next().await {
            results.push(r.map_err(|e| anyhow!("a flow task failed: {e}"))??);
        }
        Ok::<_, anyhow::Error>(results)
    };
    let outcome = tokio::select! {
        r = work => r,
        _ = sigint.recv() => Err(anyhow!("interrupted (SIGINT); the run's namespaces were removed")),
        _ = sigterm.recv() => Err(anyhow!("terminated (SIGTERM); the run's namespaces were removed")),
    };
    if outcome.is_err() {
        stop.store(true, Ordering::Relaxed);
    }
    // TCP flows end by the deadline, or within a poll interval of `stop`.
    let mut results = Vec::new();
    let mut tcp_error = None;
    for t in tcp_threads {
        match t.join() {
            Ok(Ok(r)) => results.push(r),
            Ok(Err(e)) => tcp_error = tcp_error.or(Some(e)),
            Err(_) => tcp_error = tcp_error.or(Some(anyhow!("a TCP flow thread panicked"))),
        }
    }
    results.extend(outcome?);
    if let Some(e) = tcp_error {
        return Err(e);
    }
    results.sort_by_key(|r| r.index);
    let reports = topo.finish_user_links();
    let events: Vec<CwndEvent> = sink
        .lock()
        .map(|mut s| std::mem::take(&mut *s))
        .unwrap_or_default();
    let summary = summarise(
        scenario, plan, &topo, &results, &events, &reports, epoch, deadline,
    );
    let series = results
        .iter()
        .map(|r| {
            let mine: Vec<&CwndEvent> = events.iter().filter(|e| e.flow == r.index).collect();
            FlowSeries {
                flow: r.index,
                controller: r.controller.clone(),
                samples: flow::merge(&r.samples, &mine, epoch),
            }
        })
        .collect();
    drop(topo);
    Ok((summary, series))
}

#[allow(clippy::too_many_arguments)]
fn summarise(
    scenario: &Scenario,
    plan: &Plan,
    topo: &Topology,
    results: &[FlowResult],
    events: &[CwndEvent],
    reports: &[Option<[userlink::DirReport; 2]>],
    epoch: Instant,
    deadline: Instant,
) -> Summary {
    let flows: Vec<_> = results
        .iter()
        .map(|r| {
            let mine: Vec<&CwndEvent> = events.iter().filter(|e| e.flow == r.index).collect();
            r.summary(flow::verdicts(&mine))
        })
        .collect();
    let all_done = !results.is_empty() && results.iter().all(|r| r.completed);
    let duration = if all_done {
        results.iter().map(|r| r.end).max().unwrap_or_default()
    } else {
        deadline.saturating_duration_since(epoch)
    };
    let mut drops = Drops::default();
    let mut links = Vec::with_capacity(scenario.links.len());
    for (l, link) in scenario.links.iter().enumerate() {
        let engine = topo.engines[l];
        // Base RTT: the smallest RTT of a flow across this link, less the other links' delays.
        let base_rtt = results
            .iter()
            .filter_map(|r| {
                let path = &plan.flows[r.index].path;
                if !path.contains(&l) {
                    return None;
                }
                let others: Duration = path
                    .iter()
                    .filter(|&&o| o != l)
                    .map(|&o| 2 * scenario.links[o].delay)
                    .sum();
                r.min_rtt.map(|m| m.saturating_sub(others).as_secs_f64())
            })
            .reduce(f64::min);
        let measured = match (engine, reports.get(l).copied().flatten()) {
            (Engine::UserSpace, Some([fwd, rev])) => {
                drops.queue += fwd.stats.queue_drops + rev.stats.queue_drops;
                drops.channel += fwd.stats.channel_drops + rev.stats.channel_drops;
                Some(MeasuredLink {
                    rate_bps: fwd.rate_bps(),
                    base_rtt_s: base_rtt.unwrap_or(0.0),
                    loss_rate: fwd.loss_rate(),
                })
            }
            _ => {
                let lp = &plan.links[l];
                let mut fwd = (0.0, 0.0);
                for (node, forward) in [
                    (Node::Router(lp.head), true),
                    (Node::Router(lp.tail), false),
                ] {
                    let stats = topo.qdisc_stats(node, l);
                    let netem = stats.iter().find(|q| q.kind == "netem");
                    let tbf = stats.iter().find(|q| q.kind == "tbf");
                    drops.queue += tbf.map_or(0, |q| q.dropped);
                    drops.channel += netem.map_or(0, |q| q.dropped);
                    if forward {
                        let offered = netem.map_or(0, |q| q.sent_packets + q.dropped);
                        fwd = (
                            tbf.map_or(0.0, |q| {
                                q.sent_bytes as f64 * 8.0 / duration.as_secs_f64().max(1e-9)
                            }),
                            if offered > 0 {
                                netem.map_or(0, |q| q.dropped) as f64 / offered as f64
                            } else {
                                0.0
                            },
                        );
                    }
                }
                Some(MeasuredLink {
                    rate_bps: fwd.0,
                    base_rtt_s: base_rtt.unwrap_or(0.0),
                    loss_rate: fwd.1,
                })
            }
        };
        let delivered = results
            .iter()
            .filter(|r| plan.flows[r.index].path.contains(&l))
            .filter_map(|r| flows.iter().find(|f| f.flow == r.index))
            .map(|f| f.bytes_delivered)
            .sum();
        let (observed, trace_start) = match (engine, reports.get(l).copied().flatten()) {
            (Engine::UserSpace, Some([fwd, rev])) => (
                Some([fwd.observed(), rev.observed()]),
                fwd.epoch
                    .map_or(Duration::ZERO, |e| epoch.saturating_duration_since(e)),
            ),
            _ => (None, Duration::ZERO),
        };
        links.push(crate::link::summary(
            link,
            engine.as_str(),
            measured,
            observed,
            duration,
            trace_start,
            delivered,
        ));
    }
    let engines: BTreeSet<&str> = topo.engines.iter().map(|e| e.as_str()).collect();
    Summary {
        scenario: scenario.name.clone(),
        link: LinkInfo {
            kind: "netns".into(),
            engine: engines.into_iter().collect::<Vec<_>>().join(", "),
        },
        duration_s: duration.as_secs_f64(),
        seed: scenario.seed,
        flows,
        links,
        drops: Some(drops),
        verdict_accuracy: None,
        delay_signals: None,
    }
}
