//! The random-path board's metrics: what each is called, on which paths it is defined, which way
//! is better, and its value for one controller on one path.

use std::collections::HashMap;

use serde::{Serialize, Serializer};

use super::draw::{PeerKind, PeerTiming, RandomPath};
use super::render::Layout;
use super::{PathJob, PathRun};
use crate::score::figure::queue_p95;

/// One metric of one controller on one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Metric {
    /// Alone: goodput / ((1 - p) x the bottleneck's capacity).
    Efficiency,
    /// Beside a peer: own bytes / both flows' bytes while both sent.
    Share,
    /// Beside a peer of another kind: its goodput here / against its own kind.
    PeerKept,
    /// Alone: the bottleneck's p95 queueing delay / `max(10 ms, RTT / 4)`.
    QueueP95VsBudget,
    /// [`Metric::QueueP95VsBudget`] on the paths without jitter.
    QueueP95VsBudgetNoJitter,
    /// After a peer that left early: flow 0's p95 queue / the budget.
    QueueAfterPeerVsBudget,
}

impl Metric {
    pub const ALL: [Metric; 6] = [
        Metric::Efficiency,
        Metric::Share,
        Metric::PeerKept,
        Metric::QueueP95VsBudget,
        Metric::QueueP95VsBudgetNoJitter,
        Metric::QueueAfterPeerVsBudget,
    ];

    /// The metrics that are columns of `paths.csv` (the no-jitter queue is a subset of a column).
    pub const COLUMNS: [Metric; 5] = [
        Metric::Efficiency,
        Metric::Share,
        Metric::PeerKept,
        Metric::QueueP95VsBudget,
        Metric::QueueAfterPeerVsBudget,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Efficiency => "efficiency",
            Metric::Share => "share",
            Metric::PeerKept => "peer_kept",
            Metric::QueueP95VsBudget => "queue_p95_vs_budget",
            Metric::QueueP95VsBudgetNoJitter => "queue_p95_vs_budget_no_jitter",
            Metric::QueueAfterPeerVsBudget => "queue_after_peer_vs_budget",
        }
    }

    /// What the metric is, for `paths.json` and the figures.
    pub fn definition(self) -> &'static str {
        match self {
            Metric::Efficiency => {
                "alone: goodput / ((1 - mean loss rate) x the bottleneck's capacity, a trace's \
                 mean over the run); packet headers and start-up count against it, so no \
                 controller reaches 1"
            }
            Metric::Share => {
                "beside a peer: own application bytes / both flows' while the peer sent \
                 (0.5 is an even split)"
            }
            Metric::PeerKept => {
                "beside newreno, quinn-cubic or quinn-bbr: the peer's goodput against this \
                 controller / against a flow of its own kind on the same path; undefined where \
                 against its own kind it took less than a twentieth of what the two delivered"
            }
            Metric::QueueP95VsBudget => {
                "alone: the bottleneck's p95 queueing delay / max(10 ms, base RTT / 4)"
            }
            Metric::QueueP95VsBudgetNoJitter => "queue_p95_vs_budget on the paths without jitter",
            Metric::QueueAfterPeerVsBudget => {
                "after a peer that left early: the p95 of the controller's RTT above its lowest, \
                 from half a run length after the peer's last byte, / max(10 ms, base RTT / 4)"
            }
        }
    }

    /// Higher is better (else lower is).
    pub fn higher_is_better(self) -> bool {
        matches!(self, Metric::Efficiency | Metric::Share | Metric::PeerKept)
    }

    /// The percentile that is the metric's tail: the 10th where higher is better, the 90th
    /// where lower is.
    pub fn tail_percentile(self) -> u8 {
        if self.higher_is_better() {
            10
        } else {
            90
        }
    }

    /// A short axis label for the figures.
    pub fn label(self) -> &'static str {
        match self {
            Metric::Efficiency => "efficiency alone (of capacity x (1 - loss))",
            Metric::Share => "share beside a peer (own / both)",
            Metric::PeerKept => "what the peer keeps (vs its own kind)",
            Metric::QueueP95VsBudget => "p95 queue alone / budget max(10 ms, RTT/4)",
            Metric::QueueP95VsBudgetNoJitter => "p95 queue alone, no jitter / budget",
            Metric::QueueAfterPeerVsBudget => "p95 queue after the peer left / budget",
        }
    }
}

impl Serialize for Metric {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Every run's outcome by its job.
pub struct Runs<'a> {
    by_job: HashMap<&'a PathJob, &'a super::Outcome>,
}

impl<'a> Runs<'a> {
    pub fn new(jobs: &'a [PathJob], outcomes: &'a [super::Outcome]) -> Self {
        Runs {
            by_job: jobs.iter().zip(outcomes).collect(),
        }
    }

    pub fn get(&self, path: usize, controller: &str) -> Option<&'a PathRun> {
        let job = PathJob {
            path,
            controller: controller.to_string(),
        };
        self.by_job.get(&job).and_then(|o| o.as_ref().ok())
    }
}

/// The least share a peer must take against a flow of its own kind (of what the two delivered)
/// for what it keeps beside the controller to be measured: a tenth of an even split. A ratio to
/// almost nothing says nothing (one BBRv1 flow can starve another of its kind behind a shallow
/// buffer, and whatever the peer gets beside the controller is then many times it), and a few
/// such paths would make the mean of the ratio.
const MIN_REFERENCE_SHARE: f64 = 0.05;

/// What a peer that delivered `beside` (bits per second) against the controller keeps of the
/// `reference` it delivered against its own kind, where the two flows of that run delivered
/// `reference_total`: undefined where the reference is below [`MIN_REFERENCE_SHARE`] of it.
fn peer_kept(beside: f64, reference: f64, reference_total: f64) -> Option<f64> {
    (reference >= MIN_REFERENCE_SHARE * reference_total)
        .then(|| ratio(beside, reference))
        .flatten()
}

/// `a / b`, defined when `b` is positive and the result finite.
fn ratio(a: f64, b: f64) -> Option<f64> {
    (b > 0.0).then(|| a / b).filter(|v| v.is_finite())
}

/// `controller`'s metrics on `path`, from its run and the references it needs; empty where the
/// run failed.
pub fn values(
    path: &RandomPath,
    layout: &Layout,
    controller: &str,
    runs: &Runs<'_>,
) -> HashMap<Metric, f64> {
    let mut v = HashMap::new();
    let Some(run) = runs.get(path.index, controller) else {
        return v;
    };
    let s = &run.summary;
    let flow = |i: usize| s.flows.get(i);
    let mut set = |m: Metric, x: Option<f64>| {
        if let Some(x) = x.filter(|x| x.is_finite()) {
            v.insert(m, x);
        }
    };
    let budget = path.queue_budget_s();
    match path.peer {
        None => {
            let capacity = s
                .links
                .first()
                .and_then(|l| l.trace.as_ref())
                .map_or(layout.capacity_bps, |t| t.mean_capacity_bps);
            let expected = (1.0 - path.loss.mean_rate()) * capacity;
            set(
                Metric::Efficiency,
                flow(0).and_then(|f| ratio(f.goodput_bps, expected)),
            );
            let queue = queue_p95(s).map(|q| q / budget);
            set(Metric::QueueP95VsBudget, queue);
            if path.jitter == super::draw::PathJitter::None {
                set(Metric::QueueP95VsBudgetNoJitter, queue);
            }
        }
        Some(peer) => {
            let own = run.measures.own_bytes_beside_peer.map(|b| b as f64);
            let theirs = flow(1).map(|f| f.bytes_delivered as f64);
            set(
                Metric::Share,
                own.zip(theirs).and_then(|(a, b)| ratio(a, a + b)),
            );
            if peer.kind != PeerKind::Copy {
                let reference = runs
                    .get(path.index, peer.kind.id(controller))
                    .filter(|r| r.summary.flows.iter().all(|f| f.receiver_closed.is_none()))
                    .map(|r| &r.summary.flows);
                set(
                    Metric::PeerKept,
                    flow(1).zip(reference).and_then(|(peer, reference)| {
                        let total = reference.iter().map(|f| f.goodput_bps).sum();
                        let own = reference.get(1)?.goodput_bps;
                        peer_kept(peer.goodput_bps, own, total)
                    }),
                );
            }
            if peer.timing == PeerTiming::LeavesEarly {
                set(
                    Metric::QueueAfterPeerVsBudget,
                    run.measures.queue_after_peer_p95_s.map(|q| q / budget),
                );
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::peer_kept;

    #[test]
    fn what_a_peer_keeps_is_measured_only_against_a_reference_that_had_a_share() {
        // A peer that got 4 Mbit/s of 9 against its own kind and 3 beside the controller.
        assert_eq!(peer_kept(3e6, 4e6, 9e6), Some(0.75));
        // Against its own kind it starved (0.1 Mbit/s of 9): 3 Mbit/s beside the controller is
        // no thirtyfold gain worth averaging.
        assert_eq!(peer_kept(3e6, 0.1e6, 9e6), None);
        assert_eq!(peer_kept(3e6, 0.0, 9e6), None);
    }
}
