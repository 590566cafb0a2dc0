//! `sim`: a deterministic discrete-event simulator that drives real quinn-proto endpoints over
//! simulated links (ARCHITECTURE.md, "One link model, two runners").
//!
//! * Virtual time (`clock`): one event queue ordered by (virtual time, insertion order). quinn sees
//!   `epoch + virtual offset` as `Instant`s; nothing sleeps.
//! * Endpoints (`flow`): per flow a QUIC client (the sender, one unidirectional stream kept topped
//!   up in 64 KiB writes) and a server (the receiver, which checks every byte at its offset), with
//!   a real TLS 1.3 handshake (`tls`), seeded so connection IDs and packet numbers are
//!   reproducible. Each flow's endpoints have their own fake addresses; nothing touches a socket.
//!   Packets are sealed with null protection (`null_crypto`: real sizes, no ciphers) unless the
//!   run asks for [`PacketProtection::Real`]; results are the same either way.
//! * Links (`network`, over the link model both runners share, [`crate::link`]): per direction a
//!   queue of `queue` packets waiting besides the one being sent (drop-tail, optionally CoDel),
//!   served at the link rate (IPv4/UDP headers included) or by a capacity trace, ECN step
//!   marking, propagation delay with optional jitter and reordering, and channel loss decided as
//!   a packet *leaves* the link, after serialisation. Seeded RNGs per link direction.
//! * Ground truth (`truth`): every drop with its cause and the instant quinn produced the packet,
//!   against which the controllers' verdicts (captured from their `tracing` events by `capture`)
//!   are scored: a loss event's `now - sent_age_us` (microsecond resolution) names the dropped
//!   packet. And per flow, when each sender datagram reached the receiver and what the receiver
//!   had received when it sent each of its datagrams, against which the controllers' recovered
//!   ACK delays and one-way-delay hints (their `rtt` events) are scored.
//!
//! Pacing is quinn's own: the simulator honours `poll_timeout` and nothing else. The receiver
//! acknowledges as quinn does by default (every other packet, or after up to 25 ms) unless the flow
//! sets `max_ack_delay`, which the sender then asks for (ACK frequency extension). Flow-control
//! windows are many path BDPs deep unless the flow sets `receive_window` (the receiver's advertised
//! window, which then caps the bytes in flight), and the idle timeout outlives the run, so
//! otherwise the congestion controller alone limits each flow.

pub mod clock;
mod flow;
mod flows;
mod frames;
mod liar;
pub use crate::link;
pub use crate::link::loss;
mod network;
mod null_crypto;
// The namespace runner drives noq's endpoints through the same seam (`netns::noq`).
pub(crate) mod stack;
mod truth;

use std::time::{Duration, Instant};

use tracing_subscriber::layer::SubscriberExt;

use crate::capture::{CaptureLayer, CwndEvent, Sink};
use crate::report::record::{EventSamples, FlowOutcome, Reading, Recorder, SAMPLE_INTERVAL};
use crate::report::{
    FlowQueue, FlowSeries, LinkInfo, LinkSummary, MeasuredLink, RunOutput, Summary, Timing,
    VerdictAccuracy,
};
use crate::scenario::{Receiver, Scenario};
use crate::transport::{Qlog, TransportError};
use clock::{from_duration, secs, Clock, VTime};
use flows::SimFlow;
use liar::Liar;
use network::{Event, Net};
use truth::{GroundTruth, Verdict};

pub use null_crypto::PacketProtection;
pub use truth::{Cause, DropRecord};

/// Why a simulation could not run or did not check out.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error(transparent)]
    Transport(#[from] TransportError),
    #[error("scenario: {0}")]
    Scenario(String),
    #[error(transparent)]
    Tls(#[from] crate::tls::TlsError),
    #[error("flow {flow}: could not connect: {reason}")]
    Connect { flow: usize, reason: String },
    #[error("flow {flow}: {side} connection failed: {reason}")]
    Connection {
        flow: usize,
        side: String,
        reason: String,
    },
    #[error("flow {flow}: received bytes differ from the sent ones at stream offset {offset}")]
    Corrupt { flow: usize, offset: u64 },
    #[error("flow {flow}: byte check failed: {detail}")]
    ByteCheck { flow: usize, detail: String },
}

/// Runs `scenario` in the simulator, with null packet protection.
///
/// The summary is a pure function of the scenario (seed included); wall-clock figures go to
/// `RunOutput::timing` only. Controller events are captured on the calling thread alone, so runs
/// on different threads do not mix.
pub fn run(scenario: &Scenario) -> Result<RunOutput, SimError> {
    run_with(scenario, PacketProtection::Null)
}

/// [`run`] with the packet protection `protection`; the summary and series are the same for both.
pub fn run_with(scenario: &Scenario, protection: PacketProtection) -> Result<RunOutput, SimError> {
    run_with_qlog(scenario, protection, None)
}

/// [`run_with`], each flow's endpoints writing a qlog trace into `qlog` when it is given. The
/// traces' times are virtual: they count from the clock's epoch, as the run's outputs do.
pub fn run_with_qlog(
    scenario: &Scenario,
    protection: PacketProtection,
    qlog: Option<&Qlog>,
) -> Result<RunOutput, SimError> {
    let wall = Instant::now();
    let start = clock::ticks();
    let sink = Sink::default();
    let subscriber = crate::log::with_env_log(
        tracing_subscriber::registry().with(CaptureLayer::with_delays(sink.clone()).filtered()),
    );
    let (summary, series, quinn) = tracing::subscriber::with_default(subscriber, || {
        let mut sim = Sim::new(scenario, sink, protection, qlog)?;
        sim.run()?;
        Ok::<_, SimError>(sim.finish(scenario))
    })?;
    let whole = clock::ticks().saturating_sub(start);
    let wall_s = wall.elapsed().as_secs_f64();
    Ok(RunOutput {
        summary,
        series,
        timing: Timing {
            wall_s,
            quinn_s: clock::share(wall_s, quinn, whole),
        },
    })
}

/// One controller loss decision, kept for scoring.
struct LossDecision {
    flow: usize,
    at: VTime,
    sent_age_us: Option<u64>,
    verdict: Verdict,
}

struct Sim {
    net: Net,
    flows: Vec<SimFlow>,
    sink: Sink,
    captured: Vec<CwndEvent>,
    record: Recorder,
    decisions: Vec<LossDecision>,
    end: VTime,
    now: VTime,
}

/// The `max_ack_delay` a quinn receiver announces unless the sender asks it for another (RFC 9000
/// section 18.2's default, which quinn keeps): where quinn stops crediting ACK Delay.
const QUINN_MAX_ACK_DELAY: Duration = Duration::from_millis(25);

fn validate(scenario: &Scenario, protection: PacketProtection) -> Result<(), SimError> {
    use crate::scenario::MIN_MTU;
    let bad = |m: String| Err(SimError::Scenario(m));
    if scenario.mtu < MIN_MTU {
        return bad(format!(
            "mtu {} is below QUIC's minimum of {MIN_MTU}",
            scenario.mtu
        ));
    }
    for (i, f) in scenario.flows.iter().enumerate() {
        if let Some(&l) = f.path.iter().find(|&&l| l >= scenario.links.len()) {
            return bad(format!(
                "flow {i}: path names link {l}, which does not exist"
            ));
        }
        if f.receiver != Receiver::Quinn {
            return bad(foreign_receiver(scenario, i, f.receiver));
        }
        if let (Some(lies), Some(peer)) = (&f.receiver_lies, f.controller.noq()) {
            return bad(format!(
                "{}flow {i}: {lies} (line {}) rewrites quinn's ACK frames, and {peer}'s packets \
                 carry noq's real protection. Give the flow a quinn controller or remove \
                 receiver_lies",
                source_prefix(scenario),
                lies.line
            ));
        }
        if let (Some(lies), PacketProtection::Real) = (&f.receiver_lies, protection) {
            return bad(format!(
                "{}flow {i}: {lies} (line {}) rewrites ACK frames, which only null packet \
                 protection leaves readable; with --real-crypto they are encrypted. Remove \
                 --real-crypto or receiver_lies",
                source_prefix(scenario),
                lies.line
            ));
        }
    }
    let total: u64 = scenario.flows.iter().map(|f| f.count as u64).sum();
    if total > 65_536 {
        return bad(format!("{total} flows; at most 65536"));
    }
    Ok(())
}

/// Each flow's lying receiver, one entry per flow instance (`count` copies of a spec), `None`
/// for an honest one.
fn liars(scenario: &Scenario) -> Vec<Option<Liar>> {
    let each = |spec: &crate::scenario::Flow| {
        let max_ack_delay = spec.max_ack_delay.unwrap_or(QUINN_MAX_ACK_DELAY);
        let liar = spec
            .receiver_lies
            .map(|lies| Liar::new(lies, max_ack_delay));
        std::iter::repeat_n(liar, spec.count as usize)
    };
    scenario.flows.iter().flat_map(each).collect()
}

/// Why the simulator cannot host flow `index`'s `receiver`: it drives quinn-proto endpoints
/// sans-IO, and no other stack runs on its virtual clock.
fn foreign_receiver(scenario: &Scenario, index: usize, receiver: Receiver) -> String {
    let file = source_prefix(scenario);
    format!(
        "{file}flow {index}: receiver = \"{receiver}\" runs in network namespaces only \
         (--link netns, as root); the simulator hosts quinn receivers alone"
    )
}

/// The scenario's file, as messages begin with it; empty for a scenario from text.
fn source_prefix(scenario: &Scenario) -> String {
    scenario
        .source
        .as_ref()
        .map_or(String::new(), |p| format!("{}: ", p.display()))
}

impl Sim {
    fn new(
        scenario: &Scenario,
        sink: Sink,
        protection: PacketProtection,
        qlog: Option<&Qlog>,
    ) -> Result<Self, SimError> {
        validate(scenario, protection)?;
        let end = from_duration(scenario.duration);
        // Taken before the flows' configurations: their qlog traces count from it too.
        let epoch = Instant::now();
        let flows = flows::build(scenario, protection, qlog, epoch)?;
        let paths = flows::paths(scenario);
        let mut net = Net::new(scenario, &paths, Clock::new(epoch));
        net.liars = liars(scenario);
        Ok(Self {
            net,
            record: Recorder::new(flows.len(), EventSamples::OnePerMs),
            flows,
            sink,
            captured: Vec::new(),
            decisions: Vec::new(),
            end,
            now: 0,
        })
    }

    fn run(&mut self) -> Result<(), SimError> {
        for f in self.flows.iter().map(SimFlow::info) {
            if f.start <= self.end {
                self.net.queue.push(f.start, Event::Start(f.index));
            }
        }
        self.net.queue.push(0, Event::Tick);
        let tick = from_duration(SAMPLE_INTERVAL);
        let mut unfinished = self
            .flows
            .iter()
            .filter(|f| f.info().bytes.is_some())
            .count();
        let all_finite = self.flows.iter().all(|f| f.info().bytes.is_some());
        self.now = self.end;
        while let Some(at) = self.net.queue.peek_time() {
            if at > self.end {
                break;
            }
            let Some((now, event)) = self.net.queue.pop() else {
                break;
            };
            let touched = match event {
                Event::Start(i) => {
                    self.flows[i].start(now, &mut self.net)?;
                    Some(i)
                }
                Event::Timer { flow, side, gen } => {
                    self.flows[flow].timeout(side, gen, now, &mut self.net)?;
                    Some(flow)
                }
                Event::Packet(p) => match self.net.forward(now, p) {
                    Some(p) => {
                        self.net.arrived(now, &p);
                        let i = p.flow as usize;
                        self.flows[i].receive(now, p, &mut self.net)?;
                        Some(i)
                    }
                    None => None,
                },
                Event::Service(dir) => {
                    self.net.serve(now, dir);
                    None
                }
                Event::Tick => {
                    for f in &self.flows {
                        if f.info().started && !f.info().done() {
                            if let Some(r) = reading(f, now) {
                                self.record.reading(f.info().index, r);
                            }
                        }
                    }
                    if now + tick <= self.end {
                        self.net.queue.push(now + tick, Event::Tick);
                    }
                    None
                }
            };
            self.collect(now);
            if let Some(i) = touched {
                let f = &self.flows[i];
                let last = self.record.last_sample(i).map(|s| s.t_s);
                let info = f.info();
                if info.bytes.is_some() && info.completion == Some(now) && last.is_some() {
                    if last != Some(secs(now)) {
                        if let Some(r) = reading(f, now) {
                            self.record.reading(i, r);
                        }
                    }
                    unfinished = unfinished.saturating_sub(1);
                    if all_finite && unfinished == 0 {
                        self.now = now;
                        break;
                    }
                }
            }
        }
        Ok(())
    }

    /// Takes the controller events captured during the last call into a sender.
    fn collect(&mut self, now: VTime) {
        if let Ok(mut sink) = self.sink.lock() {
            if sink.is_empty() {
                return;
            }
            self.captured.append(&mut sink);
        }
        for e in self.captured.drain(..) {
            if let Some(delay) = &e.delay {
                self.net.delays.score(e.flow, now, delay);
                continue;
            }
            let Some(f) = self.flows.get(e.flow) else {
                continue;
            };
            self.record.event(&e, reading(f, now));
            // A CE mark is no loss: nothing in the ground truth to score it against.
            if let (true, false, Some(verdict)) = (e.loss, e.ecn_mark, e.verdict) {
                self.decisions.push(LossDecision {
                    flow: e.flow,
                    at: now,
                    sent_age_us: e.sent_age_us,
                    verdict,
                });
            }
        }
    }

    /// The summary, the time series, and the ticks spent inside quinn-proto.
    fn finish(mut self, scenario: &Scenario) -> (Summary, Vec<FlowSeries>, u64) {
        let end = self.now;
        let mut flows = std::mem::take(&mut self.flows);
        let outcomes: Vec<FlowOutcome> = flows.iter_mut().map(|f| self.outcome(f, end)).collect();
        self.flows = flows;
        let links = self.link_summaries(scenario, end);
        let accuracy = self.verdict_accuracy(None);
        let per_flow: Vec<VerdictAccuracy> = outcomes
            .iter()
            .map(|o| self.verdict_accuracy(Some(o.index)))
            .collect();
        let (mut flows, series) = self.record.finish(outcomes);
        for (f, a) in flows.iter_mut().zip(per_flow) {
            f.verdict_accuracy = Some(a);
        }
        let summary = Summary {
            scenario: scenario.name.clone(),
            link: LinkInfo {
                kind: "sim".into(),
                engine: "discrete-event simulator".into(),
            },
            duration_s: secs(end),
            seed: scenario.seed,
            flows,
            links,
            drops: Some(self.net.truth.drops()),
            verdict_accuracy: Some(accuracy),
            delay_signals: self.net.delays.summary(),
            receiver_lies: self
                .net
                .liars
                .iter()
                .enumerate()
                .filter_map(|(i, l)| Some(l.as_ref()?.summary(i)))
                .collect(),
        };
        (summary, series, self.net.quinn.ticks())
    }

    /// What flow `f` did, in a run that ended at `end`.
    fn outcome(&self, flow: &mut SimFlow, end: VTime) -> FlowOutcome {
        let sender = flow.sender_counts().unwrap_or_default();
        let f = flow.info();
        FlowOutcome {
            index: f.index,
            controller: f.controller.clone(),
            start: Duration::from_nanos(f.start),
            end: Duration::from_nanos(f.completion.unwrap_or(end)),
            completed: f.completion.is_some(),
            handshake: f.handshake,
            asked: f.bytes,
            delivered: f.delivered,
            // Every byte was checked on receipt; a mismatch ends the run with an error.
            checked: f.delivered,
            packets_delivered: f.packets_delivered,
            verified: true,
            sender,
            receiver_closed: f.receiver_closed.clone(),
            receiver_acks: None,
            queue: Some(FlowQueue {
                drops: self.net.truth.queue_drops_of(f.index),
                delay: self.net.flow_queue_delay(f.index),
            }),
        }
    }

    /// The controllers' loss decisions scored against the drops' true causes: flow `only`'s,
    /// or every flow's.
    fn verdict_accuracy(&self, only: Option<usize>) -> VerdictAccuracy {
        let mut accuracy = VerdictAccuracy::default();
        for d in self
            .decisions
            .iter()
            .filter(|d| only.is_none_or(|f| d.flow == f))
        {
            let Some(age) = d.sent_age_us else { continue };
            let to = d.at.saturating_sub(age * 1000);
            let from = d.at.saturating_sub((age + 1) * 1000 - 1).min(to);
            let cause = self.net.truth.cause_of(d.flow, from, to);
            GroundTruth::score(&mut accuracy, d.verdict, cause);
        }
        accuracy
    }

    /// Each link's summary over a run that ended at `end`.
    fn link_summaries(&self, scenario: &Scenario, end: VTime) -> Vec<LinkSummary> {
        let paths: Vec<&[usize]> = scenario
            .flows
            .iter()
            .flat_map(|f| std::iter::repeat_n(f.path.as_slice(), f.count as usize))
            .collect();
        scenario
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let fwd = &self.net.links[network::dir_index(i, loss::Direction::Forward)];
                let rev = &self.net.links[network::dir_index(i, loss::Direction::Reverse)];
                let stats = fwd.stats;
                let measured = MeasuredLink {
                    rate_bps: if end > 0 {
                        stats.departed_bytes as f64 * 8.0 / secs(end)
                    } else {
                        0.0
                    },
                    base_rtt_s: 2.0 * l.delay.as_secs_f64(),
                    loss_rate: if stats.departed_packets > 0 {
                        stats.channel_drops as f64 / stats.departed_packets as f64
                    } else {
                        0.0
                    },
                };
                let delivered = self
                    .flows
                    .iter()
                    .map(SimFlow::info)
                    .filter(|f| paths.get(f.index).is_some_and(|p| p.contains(&i)))
                    .map(|f| f.delivered)
                    .sum();
                link::summary(
                    l,
                    "simulator",
                    Some(measured),
                    Some([fwd.observed(), rev.observed()]),
                    Duration::from_nanos(end),
                    Duration::ZERO,
                    delivered,
                )
            })
            .collect()
    }
}

/// What `f`'s sender shows at `now`, once it has a connection.
fn reading(f: &SimFlow, now: VTime) -> Option<Reading> {
    let (cwnd_bytes, rtt) = f.window_and_rtt()?;
    Some(Reading {
        at: Duration::from_nanos(now),
        cwnd_bytes,
        ssthresh_bytes: None,
        rtt_s: rtt.as_secs_f64(),
        delivered_bytes: f.info().delivered,
    })
}
