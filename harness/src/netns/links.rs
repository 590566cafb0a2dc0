//! What the links did in a run, from their engines: the user-space engine's own counters, or
//! the `tc -s` statistics of the qdiscs on each router's egress.

use std::time::Duration;

use super::flow::Finished;
use super::names;
use super::plan::{Node, Plan};
use super::tc::Engine;
use super::tc_stats;
use super::topology::Topology;
use super::userlink::DirReport;
use crate::link::{DirObserved, DirStats};
use crate::report::{Drops, LinkSummary, MeasuredLink};
use crate::scenario::Scenario;

/// Why a tc link's `queue_delay` is null: the kernel counts packets, not their sojourn times.
const KERNEL_HAS_NO_SOJOURN: &str = "the kernel's qdiscs count packets, not sojourn times: \
     no percentile of the queueing delay is available on the tc engine";

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
            _ => {
                let (measured, observed) = self.measured_by_qdiscs(l, base_rtt_s, drops);
                (measured, observed, Duration::ZERO)
            }
        };
        let mut summary = crate::link::summary(
            &self.scenario.links[l],
            engine.as_str(),
            Some(measured),
            observed,
            self.duration,
            trace_start,
            self.delivered(l),
        );
        if engine == Engine::Netem {
            summary.queue_delay_unavailable = Some(KERNEL_HAS_NO_SOJOURN.into());
        }
        summary
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

    /// A tc link's rate and loss rate forward, and both directions' counters, from its qdiscs
    /// and policer (`tc_stats`); both directions' drops are added to `drops`. A direction's
    /// queue (tbf and its AQM) and policer are on the egress of the router it leaves, its
    /// channel loss (netem) on the ifb of the router it reaches. Counters the kernel would not
    /// give leave the link's `observed` unknown (null in `summary.json`), never zero.
    fn measured_by_qdiscs(
        &self,
        l: usize,
        base_rtt_s: f64,
        drops: &mut Drops,
    ) -> (MeasuredLink, Option<[DirObserved; 2]>) {
        let lp = &self.plan.links[l];
        let mut measured = MeasuredLink {
            rate_bps: 0.0,
            base_rtt_s,
            loss_rate: 0.0,
        };
        let mut observed = [DirObserved::default(); 2];
        for (d, (from, to)) in [(lp.head, lp.tail), (lp.tail, lp.head)]
            .into_iter()
            .enumerate()
        {
            let stats = match self.kernel_counters(l, from, to) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("warning: link {}: the kernel's counters: {e:#}", l);
                    return (measured, None);
                }
            };
            drops.queue += stats.queue_drops;
            drops.channel += stats.channel_drops;
            if d == 0 {
                measured.rate_bps =
                    stats.departed_bytes as f64 * 8.0 / self.duration.as_secs_f64().max(1e-9);
                let offered = stats.departed_packets;
                measured.loss_rate = if offered > 0 {
                    stats.channel_drops as f64 / offered as f64
                } else {
                    0.0
                };
            }
            observed[d] = DirObserved {
                stats,
                queue_delay: None,
            };
        }
        (measured, Some(observed))
    }

    /// One direction's counters: it leaves router `from` and reaches router `to`.
    fn kernel_counters(&self, l: usize, from: usize, to: usize) -> anyhow::Result<DirStats> {
        let dev = names::link_if(l);
        let egress = self.topo.qdisc_stats(Node::Router(from), &dev)?;
        let police = self.topo.police_drops(Node::Router(from), &dev)?;
        let ingress = self.topo.qdisc_stats(Node::Router(to), &names::ifb_if(l))?;
        let netem = ingress.iter().find(|q| q.kind == "netem");
        Ok(tc_stats::dir_stats(&egress, police, netem))
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
