//! The scoreboard's figures: what each is called in `score.csv`, which classes report it, and
//! its value on one seed, computed from that seed's runs (see the module doc of [`super`]).

use std::collections::HashMap;
use std::fmt;

use serde::{Serialize, Serializer};

use super::classes::{Flows, Lie, PathClass};
use super::measure::Measures;
use super::{Job, Outcome, REFERENCE};
use crate::report::{FlowQueue, Summary};
use crate::stats::jain_index;

/// One figure of the scoreboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Figure {
    GoodputBps,
    Efficiency,
    VsQuinnBbr,
    RandomAsRandom,
    CongestionAsCongestion,
    Share,
    RatioToPeer,
    PeerKept,
    Harm,
    Jain,
    QueueDelayP95S,
    QueueP95VsBudget,
    QueueP95VsReference,
    QueueDropsVsReference,
    LinkEfficiency,
    OwnDropsVsPeer,
    OwnQueueP95VsPeer,
    OwnCongestionAsCongestion,
    CompletionTimeS,
    ReceiverClosed,
    Unfinished,
    PeerKeptVsHonest,
    QueueDropsVsHonest,
    LossRateVsHonest,
    LieMeanUs,
    LiesCapped,
    ShareBesidePeer,
    QueueAfterPeerP95S,
    QueueAfterPeerVsBudget,
}

impl Figure {
    /// The name in `score.csv` and `score.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            Figure::GoodputBps => "goodput_bps",
            Figure::Efficiency => "efficiency",
            Figure::VsQuinnBbr => "vs_quinn_bbr",
            Figure::RandomAsRandom => "random_as_random",
            Figure::CongestionAsCongestion => "congestion_as_congestion",
            Figure::Share => "share",
            Figure::RatioToPeer => "ratio_to_peer",
            Figure::PeerKept => "peer_kept",
            Figure::Harm => "harm",
            Figure::Jain => "jain",
            Figure::QueueDelayP95S => "queue_delay_p95_s",
            Figure::QueueP95VsBudget => "queue_p95_vs_budget",
            Figure::QueueP95VsReference => "queue_p95_vs_reference",
            Figure::QueueDropsVsReference => "queue_drops_vs_reference",
            Figure::LinkEfficiency => "link_efficiency",
            Figure::OwnDropsVsPeer => "own_drops_vs_peer",
            Figure::OwnQueueP95VsPeer => "own_queue_p95_vs_peer",
            Figure::OwnCongestionAsCongestion => "own_congestion_as_congestion",
            Figure::CompletionTimeS => "completion_time_s",
            Figure::ReceiverClosed => "receiver_closed",
            Figure::Unfinished => "unfinished",
            Figure::PeerKeptVsHonest => "peer_kept_vs_honest",
            Figure::QueueDropsVsHonest => "queue_drops_vs_honest",
            Figure::LossRateVsHonest => "loss_rate_vs_honest",
            Figure::LieMeanUs => "lie_mean_us",
            Figure::LiesCapped => "lies_capped",
            Figure::ShareBesidePeer => "share_beside_peer",
            Figure::QueueAfterPeerP95S => "queue_after_peer_p95_s",
            Figure::QueueAfterPeerVsBudget => "queue_after_peer_vs_budget",
        }
    }

    /// The figures a class reports, in CSV order: those the scoreboard began with first, so that
    /// their rows keep their order.
    pub fn of(class: &PathClass) -> Vec<Figure> {
        use Figure::*;
        if class.lie.is_some() {
            return vec![
                GoodputBps,
                Share,
                PeerKeptVsHonest,
                QueueDropsVsHonest,
                LossRateVsHonest,
                LieMeanUs,
                LiesCapped,
                CongestionAsCongestion,
                QueueDelayP95S,
                ReceiverClosed,
            ];
        }
        let lossy = !class.is_congestion_only();
        let mut f = match class.flows {
            Flows::Visited { .. } => {
                return vec![
                    GoodputBps,
                    ShareBesidePeer,
                    QueueAfterPeerP95S,
                    QueueAfterPeerVsBudget,
                    QueueDelayP95S,
                    ReceiverClosed,
                    Unfinished,
                ];
            }
            Flows::Alone => vec![GoodputBps, Efficiency, VsQuinnBbr, RandomAsRandom],
            Flows::Against { .. } => {
                let mut f = vec![GoodputBps, Share, RatioToPeer, PeerKept, Harm];
                if lossy {
                    f.push(RandomAsRandom);
                }
                f.push(CongestionAsCongestion);
                f
            }
            Flows::Among { .. } => {
                let mut f = vec![GoodputBps, Jain, CongestionAsCongestion];
                if lossy {
                    f.push(RandomAsRandom);
                }
                f
            }
        };
        f.push(QueueDelayP95S);
        match class.flows {
            Flows::Alone => {
                f.push(QueueP95VsBudget);
                if class.is_managed() {
                    f.extend([QueueDropsVsReference, CongestionAsCongestion]);
                }
            }
            Flows::Against { .. } => {
                f.extend([QueueDropsVsReference, QueueP95VsReference]);
                if lossy {
                    f.push(LinkEfficiency);
                }
                if class.is_fair_queued() {
                    f.extend([OwnDropsVsPeer, OwnQueueP95VsPeer]);
                }
                if class.is_managed() && !lossy {
                    f.push(OwnCongestionAsCongestion);
                }
            }
            Flows::Among { .. } | Flows::Visited { .. } => {}
        }
        if class.is_transfer() {
            f.push(CompletionTimeS);
        }
        f.extend([ReceiverClosed, Unfinished]);
        f
    }
}

impl fmt::Display for Figure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Figure {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// The queueing delay a flow alone may add: `max(10 ms, base RTT / 4)`. A quarter of the base
/// RTT is what a window of 1.25 BDP queues; the 10 ms floor leaves short paths room for the few
/// packets a window-based sender always has in the queue.
pub fn queue_budget_s(class: &PathClass) -> f64 {
    (0.25 * class.base_rtt_s()).max(0.010)
}

/// Every run's outcome by its job, for the look-ups of the paired figures, and what the series
/// of a run a peer visited showed.
pub struct Runs<'a> {
    by_job: HashMap<&'a Job, &'a Outcome>,
    measures: HashMap<&'a Job, &'a Measures>,
}

impl<'a> Runs<'a> {
    /// `measures` are in the jobs' order, or empty where no class has a visiting peer.
    pub fn new(jobs: &'a [Job], outcomes: &'a [Outcome], measures: &'a [Measures]) -> Self {
        Runs {
            by_job: jobs.iter().zip(outcomes).collect(),
            measures: jobs.iter().zip(measures).collect(),
        }
    }

    /// What the series of a run a peer visited showed, where it was measured.
    fn measures(&self, class: &PathClass, controller: &str, seed: u64) -> Option<&'a Measures> {
        let job = Job::of(class, controller, false, seed);
        self.measures.get(&job).copied()
    }

    /// The summary of a run that succeeded.
    pub fn get(
        &self,
        class: &PathClass,
        controller: &str,
        lossless: bool,
        seed: u64,
    ) -> Option<&'a Summary> {
        let job = Job::of(class, controller, lossless, seed);
        self.by_job.get(&job).and_then(|o| o.as_ref().ok())
    }

    /// The summary of a run that serves as a reference (the same path without loss, the peer
    /// against its own kind, a reference controller): one whose receiver closed a connection, or
    /// one of whose flows did not finish, is no reference, since its figures stop short.
    pub fn reference(
        &self,
        class: &PathClass,
        controller: &str,
        lossless: bool,
        seed: u64,
    ) -> Option<&'a Summary> {
        self.get(class, controller, lossless, seed).filter(|s| {
            s.flows
                .iter()
                .all(|f| f.receiver_closed.is_none() && !f.outcome.is_unfinished())
        })
    }
}

/// One seed's figures of one controller on one class; finite values only.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SeedValues(HashMap<Figure, f64>);

impl SeedValues {
    fn set(&mut self, figure: Figure, value: Option<f64>) {
        if let Some(v) = value.filter(|v| v.is_finite()) {
            self.0.insert(figure, v);
        }
    }

    pub fn get(&self, figure: Figure) -> Option<f64> {
        self.0.get(&figure).copied()
    }

    /// `controller`'s figures on `class` and `seed`, or `None` when its run failed.
    pub fn of(class: &PathClass, controller: &str, seed: u64, runs: &Runs<'_>) -> Option<Self> {
        let run = runs.get(class, controller, false, seed)?;
        let mut v = SeedValues::default();
        v.set(Figure::QueueDelayP95S, queue_p95(run));
        v.set(Figure::ReceiverClosed, Some(receiver_closed(class, run)));
        if let Some(lie) = class.lie {
            v.lied_to(lie, controller, seed, run, runs);
            return Some(v);
        }
        v.set(Figure::Unfinished, Some(unfinished(class, run)));
        if class.is_transfer() {
            v.set(
                Figure::CompletionTimeS,
                run.flows.first().and_then(|f| f.completion_time_s),
            );
        }
        match class.flows {
            Flows::Alone => v.alone(class, controller, seed, run, runs),
            Flows::Against { peer } => v.against(class, controller, peer, seed, run, runs),
            Flows::Among { .. } => v.among(class, run),
            Flows::Visited { .. } => v.visited(class, run, runs.measures(class, controller, seed)),
        }
        Some(v)
    }

    /// A peer came and went: flow 0's share of what both delivered while the peer was there,
    /// and the queue flow 0 kept once the peer had gone, against the queue budget.
    fn visited(&mut self, class: &PathClass, run: &Summary, measures: Option<&Measures>) {
        self.set(Figure::GoodputBps, goodput(run, 0));
        let own = measures.and_then(|m| m.own_bytes_beside_peer);
        let peer = run.flows.get(1).map(|f| f.bytes_delivered);
        let both = own.zip(peer).map(|(a, b)| a + b);
        self.set(
            Figure::ShareBesidePeer,
            ratio(own.map(|b| b as f64), both.map(|b| b as f64)),
        );
        let after = measures.and_then(|m| m.queue_after_peer_p95_s);
        self.set(Figure::QueueAfterPeerP95S, after);
        self.set(
            Figure::QueueAfterPeerVsBudget,
            after.map(|q| q / queue_budget_s(class)),
        );
    }

    fn alone(
        &mut self,
        class: &PathClass,
        controller: &str,
        seed: u64,
        run: &Summary,
        runs: &Runs<'_>,
    ) {
        let g = goodput(run, 0);
        self.set(Figure::GoodputBps, g);
        let lossless = runs
            .reference(class, controller, true, seed)
            .and_then(|r| goodput(r, 0));
        let expected = lossless
            .zip(class.loss.mean_rate())
            .map(|(l, p)| l * (1.0 - p));
        self.set(Figure::Efficiency, ratio(g, expected));
        let bbr = runs
            .reference(class, REFERENCE, false, seed)
            .and_then(|r| goodput(r, 0));
        self.set(Figure::VsQuinnBbr, ratio(g, bbr));
        self.set(Figure::RandomAsRandom, random_as_random(run));
        self.set(
            Figure::QueueP95VsBudget,
            queue_p95(run).map(|q| q / queue_budget_s(class)),
        );
        if class.is_managed() {
            let newreno = runs.reference(class, DROPS_REFERENCE, false, seed);
            self.set(Figure::QueueDropsVsReference, drops_ratio(run, newreno));
            // Alone behind an AQM or a policer, every queue drop is the controller's to answer.
            self.set(
                Figure::CongestionAsCongestion,
                congestion_as_congestion(run),
            );
        }
    }

    fn against(
        &mut self,
        class: &PathClass,
        controller: &str,
        peer: &str,
        seed: u64,
        run: &Summary,
        runs: &Runs<'_>,
    ) {
        let (g0, g1) = (goodput(run, 0), goodput(run, 1));
        self.set(Figure::GoodputBps, g0);
        let both = g0.zip(g1).map(|(a, b)| a + b);
        self.set(Figure::Share, ratio(g0, both));
        self.set(Figure::RatioToPeer, ratio(g0, g1));
        let own_kind = runs.reference(class, peer, false, seed);
        let kept = ratio(g1, own_kind.and_then(|r| goodput(r, 1)));
        self.set(Figure::PeerKept, kept);
        self.set(Figure::Harm, kept.map(|k| 1.0 - k));
        self.set(Figure::RandomAsRandom, random_as_random(run));
        self.set(
            Figure::CongestionAsCongestion,
            congestion_as_congestion(run),
        );
        self.set(Figure::QueueDropsVsReference, drops_ratio(run, own_kind));
        self.set(
            Figure::QueueP95VsReference,
            ratio(queue_p95(run), own_kind.and_then(queue_p95)),
        );
        if class.is_managed() && class.is_congestion_only() {
            // Without random loss every loss is the AQM's, so flow 0's own verdicts are its
            // accuracy, apart from the peer's.
            let own = run.flows.first().map(|f| f.verdicts);
            self.set(
                Figure::OwnCongestionAsCongestion,
                own.and_then(|v| share(v.congestion, v.random)),
            );
        }
        if class.is_fair_queued() {
            let (own, other) = (flow_queue(run, 0), flow_queue(run, 1));
            let drops = |q: FlowQueue| q.drops as f64;
            self.set(
                Figure::OwnDropsVsPeer,
                ratio(own.map(drops), other.map(drops)),
            );
            let p95 = |q: FlowQueue| q.delay.map(|d| d.p95_s);
            self.set(
                Figure::OwnQueueP95VsPeer,
                ratio(own.and_then(p95), other.and_then(p95)),
            );
        }
        if !class.is_congestion_only() {
            let lossless = runs.reference(class, controller, true, seed).and_then(|r| {
                let both = goodput(r, 0).zip(goodput(r, 1))?;
                Some((both.0 + both.1) * (1.0 - class.loss.mean_rate()?))
            });
            self.set(Figure::LinkEfficiency, ratio(both, lossless));
        }
    }

    /// A class whose controller's receiver lies: beside the same path with an honest receiver
    /// (same controller, same seed), what the peer keeps, the queue's drops and the controller's
    /// loss rate; and what the lie was.
    fn lied_to(&mut self, lie: Lie, controller: &str, seed: u64, run: &Summary, runs: &Runs<'_>) {
        let (g0, g1) = (goodput(run, 0), goodput(run, 1));
        self.set(Figure::GoodputBps, g0);
        self.set(Figure::Share, ratio(g0, g0.zip(g1).map(|(a, b)| a + b)));
        self.set(
            Figure::CongestionAsCongestion,
            congestion_as_congestion(run),
        );
        let honest = super::CLASSES
            .iter()
            .find(|c| c.id == lie.honest)
            .and_then(|c| runs.reference(c, controller, false, seed));
        self.set(
            Figure::PeerKeptVsHonest,
            ratio(g1, honest.and_then(|h| goodput(h, 1))),
        );
        self.set(Figure::QueueDropsVsHonest, drops_ratio(run, honest));
        self.set(
            Figure::LossRateVsHonest,
            ratio(loss_rate(run, 0), honest.and_then(|h| loss_rate(h, 0))),
        );
        if let Some(l) = run.receiver_lies.iter().find(|l| l.flow == 0) {
            self.set(Figure::LieMeanUs, Some(l.lie_mean_us));
            let capped = l.capped as f64 / l.rewritten.max(1) as f64;
            self.set(Figure::LiesCapped, Some(capped));
        }
    }

    fn among(&mut self, class: &PathClass, run: &Summary) {
        let gs: Vec<f64> = run.flows.iter().map(|f| f.goodput_bps).collect();
        self.set(Figure::GoodputBps, Some(gs.iter().sum()));
        self.set(Figure::Jain, jain_index(&gs));
        self.set(
            Figure::CongestionAsCongestion,
            congestion_as_congestion(run),
        );
        if !class.is_congestion_only() {
            self.set(Figure::RandomAsRandom, random_as_random(run));
        }
    }
}

/// The controller whose queue drops a flow alone on an AQM or a policer is compared with: the
/// Reno response (RFC 5681) AQMs are designed around.
pub const DROPS_REFERENCE: &str = "newreno";

/// `a / b`, defined when `b` is positive.
fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    a.zip(b).filter(|(_, b)| *b > 0.0).map(|(a, b)| a / b)
}

/// 1 when the receiver closed the controller's connection (any flow's, among flows of the
/// controller), else 0: the mean over seeds is the share of runs a stock quinn receiver ended.
fn receiver_closed(class: &PathClass, run: &Summary) -> f64 {
    let closed = run
        .flows
        .iter()
        .take(own_flows(class, run))
        .any(|f| f.receiver_closed.is_some());
    f64::from(u8::from(closed))
}

/// 1 when a flow of the controller did not finish what it was meant to (`incomplete`: a flow
/// without a size that delivered nothing, or `no_handshake`), else 0, as [`receiver_closed`]
/// counts closes.
fn unfinished(class: &PathClass, run: &Summary) -> f64 {
    let unfinished = run
        .flows
        .iter()
        .take(own_flows(class, run))
        .any(|f| f.outcome.is_unfinished());
    f64::from(u8::from(unfinished))
}

/// How many of a run's first flows are the scored controller's.
fn own_flows(class: &PathClass, run: &Summary) -> usize {
    match class.flows {
        Flows::Among { .. } => run.flows.len(),
        Flows::Alone | Flows::Against { .. } | Flows::Visited { .. } => 1,
    }
}

/// What the queues did to flow `flow`'s data packets, where the runner reports it.
fn flow_queue(s: &Summary, flow: usize) -> Option<FlowQueue> {
    s.flows.get(flow)?.queue
}

/// The share of flow `flow`'s packets its sender declared lost: lost over lost and delivered.
fn loss_rate(s: &Summary, flow: usize) -> Option<f64> {
    let f = s.flows.get(flow)?;
    share(f.lost_packets, f.packets_delivered)
}

fn goodput(s: &Summary, flow: usize) -> Option<f64> {
    s.flows.get(flow).map(|f| f.goodput_bps)
}

/// The bottleneck's p95 queueing delay, when the link model reports it.
pub fn queue_p95(s: &Summary) -> Option<f64> {
    let v = serde_json::to_value(s).ok()?;
    v["links"][0]["queue_delay"]["p95_s"].as_f64()
}

/// The packets the bottleneck's queue dropped: the forward direction of link 0 when the link
/// summary reports it (`links[0].queue_drops`), else the run's ground truth over all links
/// (`drops.queue`; the classes have one link, whose reverse direction carries only ACKs).
pub fn queue_drops(s: &Summary) -> Option<f64> {
    queue_drops_in(&serde_json::to_value(s).ok()?)
}

/// [`queue_drops`] of a summary as JSON.
pub(super) fn queue_drops_in(summary: &serde_json::Value) -> Option<f64> {
    summary["links"][0]["queue_drops"]
        .as_u64()
        .or_else(|| summary["drops"]["queue"].as_u64())
        .map(|d| d as f64)
}

/// The run's queue drops over the reference run's; undefined when the reference dropped none.
fn drops_ratio(run: &Summary, reference: Option<&Summary>) -> Option<f64> {
    ratio(queue_drops(run), reference.and_then(queue_drops))
}

/// `a` as a share of `a + b`, undefined when both are zero.
fn share(a: u64, b: u64) -> Option<f64> {
    (a + b > 0).then(|| a as f64 / (a + b) as f64)
}

fn random_as_random(s: &Summary) -> Option<f64> {
    s.verdict_accuracy
        .and_then(|a| share(a.random_as_random, a.random_as_congestion))
}

fn congestion_as_congestion(s: &Summary) -> Option<f64> {
    s.verdict_accuracy
        .and_then(|a| share(a.congestion_as_congestion, a.congestion_as_random))
}

/// What the controller called the losses the simulator made at random, counted over runs: the
/// pooled classes' share is of the summed counts, so that a class with more losses weighs more.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RandomVerdicts {
    pub random: u64,
    pub congestion: u64,
}

impl RandomVerdicts {
    /// A run's counts, where it scored its verdicts.
    pub fn of(s: &Summary) -> Option<Self> {
        s.verdict_accuracy.map(|a| RandomVerdicts {
            random: a.random_as_random,
            congestion: a.random_as_congestion,
        })
    }

    /// The share called random.
    pub fn share(self) -> Option<f64> {
        share(self.random, self.congestion)
    }
}

impl std::ops::AddAssign for RandomVerdicts {
    fn add_assign(&mut self, other: Self) {
        self.random += other.random;
        self.congestion += other.congestion;
    }
}
