//! What the links did in a run, from their engines: the user-space engine's own counters, or
//! the `tc -s` statistics of the qdiscs on each router's egress.

use std::time::Duration;

use super::flow::Finished;
use super::names;
use super::plan::{Node, Plan};
use super::tc::Engine;
use super::topology::Topology;
use super::userlink::DirReport;
use crate::report::{Drops, LinkSummary, MeasuredLink};
use crate::scenario::Scenario;

/// Everything the link summaries are made from.
pub struct Links<'a> {
    pub scenario: &'a Scenario,
    pub plan: &'a Plan,
    pub topo: &'a Topology,
    pub flows: &'a Finished,
    /// Per link, the user-space engine's report of both directions (`None` for tc links).
    pub reports: &'a [Option<[DirReport; 2]>],
    /// What the run covered (`Finished::duration`).
    pub duration: Duration,
}

impl Links<'_> {
    /// Each link's summary, and the drops over all of them.
    pub fn summaries(&self) -> (Vec<LinkSummary>, Drops) {
        let mut drops = Drops::default();
        let links = (0..self.scenario.links.len())
            .map(|l| self.summary(l, &mut drops))
            .collect();
        (links, drops)
    }

    fn summary(&self, l: usize, drops: &mut Drops) -> LinkSummary {
        let engine = self.topo.engines[l];
        let base_rtt_s = self.base_rtt(l).unwrap_or(0.0);
        let (measured, observed, trace_start) = match (engine, self.user_space(l)) {
            (Engine::UserSpace, Some([fwd, rev])) => {
                drops.queue += fwd.stats.queue_drops + rev.stats.queue_drops;
                drops.channel += fwd.stats.channel_drops + rev.stats.channel_drops;
                let measured = MeasuredLink {
                    rate_bps: fwd.rate_bps(),
                    base_rtt_s,
                    loss_rate: fwd.loss_rate(),
                };
                let trace_start = fwd.epoch.map_or(Duration::ZERO, |e| {
                    self.flows.epoch.saturating_duration_since(e)
                });
                (
                    measured,
                    Some([fwd.observed(), rev.observed()]),
                    trace_start,
                )
            }
            _ => (
                self.measured_by_qdiscs(l, base_rtt_s, drops),
                None,
                Duration::ZERO,
            ),
        };
        crate::link::summary(
            &self.scenario.links[l],
            engine.as_str(),
            Some(measured),
            observed,
            self.duration,
            trace_start,
            self.delivered(l),
        )
    }

    fn user_space(&self, l: usize) -> Option<[DirReport; 2]> {
        self.reports.get(l).copied().flatten()
    }

    /// The smallest RTT of a flow across link `l`, less the other links' delays on its path.
    fn base_rtt(&self, l: usize) -> Option<f64> {
        self.flows
            .results
            .iter()
            .filter_map(|r| {
                let path = &self.plan.flows[r.outcome.index].path;
                if !path.contains(&l) {
                    return None;
                }
                let others: Duration = path
                    .iter()
                    .filter(|&&o| o != l)
                    .map(|&o| 2 * self.scenario.links[o].delay)
                    .sum();
                r.min_rtt.map(|m| m.saturating_sub(others).as_secs_f64())
            })
            .reduce(f64::min)
    }

    /// A tc link's rate and loss rate forward, from its qdiscs' counters; both directions'
    /// drops are added to `drops`. A direction's queue (tbf) is on the egress of the router it
    /// leaves, its channel loss (netem) on the ifb of the router it reaches.
    fn measured_by_qdiscs(&self, l: usize, base_rtt_s: f64, drops: &mut Drops) -> MeasuredLink {
        let lp = &self.plan.links[l];
        let mut measured = MeasuredLink {
            rate_bps: 0.0,
            base_rtt_s,
            loss_rate: 0.0,
        };
        for (from, to, forward) in [(lp.head, lp.tail, true), (lp.tail, lp.head, false)] {
            let egress = self
                .topo
                .qdisc_stats(Node::Router(from), &names::link_if(l));
            let ingress = self.topo.qdisc_stats(Node::Router(to), &names::ifb_if(l));
            let netem = ingress.iter().find(|q| q.kind == "netem");
            let tbf = egress.iter().find(|q| q.kind == "tbf");
            drops.queue += tbf.map_or(0, |q| q.dropped);
            drops.channel += netem.map_or(0, |q| q.dropped);
            if forward {
                let offered = netem.map_or(0, |q| q.sent_packets + q.dropped);
                measured.rate_bps = tbf.map_or(0.0, |q| {
                    q.sent_bytes as f64 * 8.0 / self.duration.as_secs_f64().max(1e-9)
                });
                measured.loss_rate = if offered > 0 {
                    netem.map_or(0, |q| q.dropped) as f64 / offered as f64
                } else {
                    0.0
                };
            }
        }
        measured
    }

    /// Application bytes delivered by the flows that cross link `l`.
    fn delivered(&self, l: usize) -> u64 {
        self.flows
            .results
            .iter()
            .filter(|r| self.plan.flows[r.outcome.index].path.contains(&l))
            .map(|r| r.outcome.delivered)
            .sum()
    }
}
