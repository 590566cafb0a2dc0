//! The flows of a run, from sockets to results: each flow's sockets are made in its namespaces,
//! every flow runs (quinn's QUIC on the runtime, noq's and kernel TCP on threads) until it
//! completes or the run's deadline, and what each reports at its end is collected in flow order.

use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context};
use tokio::task::JoinSet;

use super::plan::{Node, Plan};
pub use super::result::FlowResult;
use super::s2n::S2nEnd;
use super::sys::{self, Signals};
use super::topology::Topology;
use super::{noq, quic, tcp};
use crate::noq::{NoqConfigs, NoqIdentity};
use crate::scenario::{Flow, Receiver, Scenario};
use crate::tls;
use crate::transport::{FlowQlog, FlowTransport, Qlog};

const QUIC_PORT: u16 = 4433;
const TCP_PORT: u16 = 5001;

/// Every flow of a run, ended.
pub struct Finished {
    /// In flow order.
    pub results: Vec<FlowResult>,
    pub epoch: Instant,
    pub deadline: Instant,
}

impl Finished {
    /// The wall time the run covered: to the last completion if every flow completed, otherwise
    /// to the deadline.
    pub fn duration(&self) -> Duration {
        let all_done = !self.results.is_empty() && self.results.iter().all(|r| r.outcome.completed);
        if all_done {
            self.results
                .iter()
                .map(|r| r.outcome.end)
                .max()
                .unwrap_or_default()
        } else {
            self.deadline.saturating_duration_since(self.epoch)
        }
    }
}

/// Every flow, ready to start.
enum Ready {
    Quic(Box<quic::QuicFlow>),
    Noq(Box<noq::NoqFlow>),
    Tcp(tcp::TcpFlow),
}

/// Makes every flow's sockets in `topo`, runs the flows until they complete, the scenario's
/// duration passes or a signal comes, and collects their results.
pub async fn run(
    scenario: &Scenario,
    plan: &Plan,
    topo: &Topology,
    signals: Signals,
    options: &super::Options,
) -> anyhow::Result<Finished> {
    let ready = prepare(scenario, plan, topo, options.qlog.as_ref())?;
    let epoch = Instant::now();
    let deadline = epoch + scenario.duration;
    let stop = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    let mut quic_tasks = JoinSet::new();
    for r in ready {
        match r {
            Ready::Tcp(f) => threads.push(f.spawn(epoch, deadline, stop.clone())?),
            Ready::Noq(f) => threads.push((*f).spawn(epoch, deadline, stop.clone())?),
            Ready::Quic(f) => {
                quic_tasks.spawn(quic::run(*f, epoch, deadline));
            }
        }
    }
    let mut signals = signals;
    let quic = join_quic(quic_tasks, &mut signals, options.panic_after_start).await;
    if quic.is_err() {
        stop.store(true, Ordering::Relaxed);
    }
    // Flows on threads end by the deadline, or within a poll interval of `stop`.
    let threaded = join_threads(threads, &mut signals, &stop).await;
    let mut results = quic?;
    results.extend(threaded?);
    results.sort_by_key(|r| r.outcome.index);
    Ok(Finished {
        results,
        epoch,
        deadline,
    })
}

/// Every flow's sockets and configurations; with `qlog`, each QUIC flow's endpoints write traces
/// whose times count from here, just before the flows start (real time).
fn prepare(
    scenario: &Scenario,
    plan: &Plan,
    topo: &Topology,
    qlog: Option<&Qlog>,
) -> anyhow::Result<Vec<Ready>> {
    let ids = Identities::generate(scenario)?;
    let start = Instant::now();
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
        let flow_qlog = qlog.map(|qlog| FlowQlog {
            qlog,
            flow: fp.index,
            start,
        });
        if let Some(peer) = spec.controller.noq() {
            let configs = NoqConfigs::new(ids.noq()?, scenario, spec, peer, flow_qlog)?;
            let sockets = (sender_ns.as_str(), receiver_ns.as_str());
            ready.push(Ready::Noq(Box::new(noq_flow(
                scenario, spec, fp, peer, configs, sockets,
            )?)));
            continue;
        }
        let transport = FlowTransport::with_qlog(scenario, spec, flow_qlog)?;
        let server_socket = udp_socket(&receiver_ns, fp.receiver_addr(), QUIC_PORT)?;
        let (mut client_config, receiver) =
            ids.ends(scenario, spec.receiver, &transport, server_socket)?;
        client_config.transport_config(transport.sender);
        ready.push(Ready::Quic(Box::new(quic::QuicFlow {
            index: fp.index,
            controller: spec.controller.id().to_owned(),
            start: spec.start,
            bytes,
            seed: scenario.seed,
            client_socket: udp_socket(&sender_ns, fp.sender_addr(), 0)?,
            server_addr: SocketAddr::from((fp.receiver_addr(), QUIC_PORT)),
            client_config,
            receiver,
        })));
    }
    Ok(ready)
}

/// Flow `fp`'s noq endpoints' sockets, bound in its (sender, receiver) namespaces.
fn noq_flow(
    scenario: &Scenario,
    spec: &Flow,
    fp: &super::plan::FlowPlan,
    peer: crate::noq::NoqPeer,
    configs: NoqConfigs,
    (sender_ns, receiver_ns): (&str, &str),
) -> anyhow::Result<noq::NoqFlow> {
    Ok(noq::NoqFlow {
        terms: noq::Terms {
            index: fp.index,
            peer,
            start: spec.start,
            bytes: spec.bytes.map(|b| b.0),
        },
        seed: scenario.seed,
        sender_socket: udp_socket(sender_ns, fp.sender_addr(), 0)?,
        receiver_socket: udp_socket(receiver_ns, fp.receiver_addr(), QUIC_PORT)?,
        receiver_addr: SocketAddr::from((fp.receiver_addr(), QUIC_PORT)),
        configs,
    })
}

/// The run's TLS identities: quinn's, noq's form of it if a flow runs noq, and one for foreign
/// receivers if a flow has one.
struct Identities {
    quinn: tls::Identity,
    noq: Option<NoqIdentity>,
    foreign: Option<Arc<tls::ForeignIdentity>>,
}

impl Identities {
    fn generate(scenario: &Scenario) -> anyhow::Result<Self> {
        let foreign = scenario.flows.iter().any(|f| f.receiver != Receiver::Quinn);
        let quinn = tls::Identity::generate()?;
        let noq = match scenario.flows.iter().any(|f| f.controller.noq().is_some()) {
            true => Some(NoqIdentity::new(&quinn)?),
            false => None,
        };
        Ok(Self {
            quinn,
            noq,
            foreign: match foreign {
                true => Some(Arc::new(tls::ForeignIdentity::generate()?)),
                false => None,
            },
        })
    }

    /// noq's form of the identity, made for every run with a noq flow.
    fn noq(&self) -> anyhow::Result<&NoqIdentity> {
        self.noq
            .as_ref()
            .ok_or_else(|| anyhow!("no noq identity: the run has no noq flow"))
    }

    /// A flow's client configuration (its transport still to set) and receiving endpoint.
    fn ends(
        &self,
        scenario: &Scenario,
        receiver: Receiver,
        transport: &FlowTransport,
        socket: UdpSocket,
    ) -> anyhow::Result<(quinn::ClientConfig, quic::ReceiverEnd)> {
        if receiver == Receiver::Quinn {
            let mut config = self.quinn.server_config()?;
            config.transport = transport.receiver.clone();
            let end = quic::ReceiverEnd::Quinn { socket, config };
            return Ok((self.quinn.client_config()?, end));
        }
        let identity = self
            .foreign
            .clone()
            .expect("generated for every foreign receiver");
        let client = identity.client_config()?;
        let end = quic::ReceiverEnd::S2n(S2nEnd {
            socket,
            identity,
            receive_window: transport.receive_window,
            idle_timeout: transport.idle_timeout,
            mtu: scenario.mtu,
        });
        Ok((client, end))
    }
}

fn udp_socket(ns: &str, addr: Ipv4Addr, port: u16) -> anyhow::Result<UdpSocket> {
    sys::in_netns(ns, || {
        UdpSocket::bind(SocketAddr::from((addr, port)))
            .with_context(|| format!("binding UDP {addr}:{port} in {ns}"))
    })
}

/// The QUIC flows' results, unless a flow fails or a signal ends the run first.
async fn join_quic(
    mut tasks: JoinSet<anyhow::Result<FlowResult>>,
    signals: &mut Signals,
    panic_after_start: bool,
) -> anyhow::Result<Vec<FlowResult>> {
    let work = async {
        if panic_after_start {
            tokio::time::sleep(Duration::from_millis(300)).await;
            panic!("panicking on purpose with the flows running");
        }
        let mut results = Vec::new();
        while let Some(r) = tasks.join_next().await {
            results.push(r.map_err(|e| anyhow!("a flow task failed: {e}"))??);
        }
        Ok::<_, anyhow::Error>(results)
    };
    tokio::select! {
        r = work => r,
        e = signals.ended() => Err(e),
    }
}

/// Every threaded flow's result (noq's and kernel TCP), or the first error among them once all
/// have ended. A signal sets `stop`, so the threads end within their poll interval, and ends the
/// run with its error once they have.
async fn join_threads(
    threads: Vec<JoinHandle<anyhow::Result<FlowResult>>>,
    signals: &mut Signals,
    stop: &AtomicBool,
) -> anyhow::Result<Vec<FlowResult>> {
    if threads.is_empty() {
        return Ok(Vec::new());
    }
    let mut joined = tokio::task::spawn_blocking(move || join_all(threads));
    tokio::select! {
        r = &mut joined => r.map_err(|e| anyhow!("joining the flow threads: {e}"))?,
        e = signals.ended() => {
            stop.store(true, Ordering::Relaxed);
            let _ = joined.await;
            Err(e)
        }
    }
}

fn join_all(
    threads: Vec<JoinHandle<anyhow::Result<FlowResult>>>,
) -> anyhow::Result<Vec<FlowResult>> {
    let mut results = Vec::new();
    let mut error = None;
    for t in threads {
        match t.join() {
            Ok(Ok(r)) => results.push(r),
            Ok(Err(e)) => error = error.or(Some(e)),
            Err(_) => error = error.or(Some(anyhow!("a flow thread panicked"))),
        }
    }
    match error {
        Some(e) => Err(e),
        None => Ok(results),
    }
}
