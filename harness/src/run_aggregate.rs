//! `discern run --runs N`: one scenario on seeds `seed .. seed + N - 1`, summarised per flow as
//! n, mean, standard deviation and 95 % confidence interval of every figure (`aggregate.json`,
//! beside each seed's own `summary.json`).

use serde::Serialize;

use crate::output::table::TextTable;
use crate::report::{Outcome, Summary, VerdictAccuracy};
use crate::stats::Estimate;

/// One flow's figures over the seeds that ran.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowAggregate {
    pub flow: usize,
    pub controller: String,
    pub goodput_bps: Option<Estimate>,
    /// Over the runs in which the flow completed.
    pub completion_time_s: Option<Estimate>,
    pub lost_packets: Option<Estimate>,
    pub congestion_events: Option<Estimate>,
    pub verdicts_random: Option<Estimate>,
    pub verdicts_congestion: Option<Estimate>,
    /// Runs in which this flow's bytes did not verify.
    pub unverified: usize,
    /// Runs in which this flow did not finish its transfer: `incomplete` or `no_handshake`.
    pub unfinished: usize,
    /// Runs in which this flow's receiver closed the connection.
    pub receiver_closed: usize,
}

/// Verdict accuracy over the seeds, field by field.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AccuracyAggregate {
    pub random_as_random: Option<Estimate>,
    pub random_as_congestion: Option<Estimate>,
    pub congestion_as_congestion: Option<Estimate>,
    pub congestion_as_random: Option<Estimate>,
    pub spurious: Option<Estimate>,
}

/// A seed whose run failed, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailedSeed {
    pub seed: u64,
    pub error: String,
}

/// `aggregate.json` of `run --runs N`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunAggregate {
    pub scenario: String,
    pub seeds: Vec<u64>,
    /// Failed runs: counted and named, never dropped.
    pub failed: Vec<FailedSeed>,
    pub flows: Vec<FlowAggregate>,
    /// `None` when no run scored its verdicts (netns).
    pub verdict_accuracy: Option<AccuracyAggregate>,
}

impl RunAggregate {
    /// Summarises the runs of `seeds` (one result per seed, in order).
    pub fn of(scenario: &str, seeds: &[u64], results: &[Result<Summary, String>]) -> RunAggregate {
        let ok: Vec<&Summary> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
        let failed = seeds
            .iter()
            .zip(results)
            .filter_map(|(&seed, r)| {
                r.as_ref().err().map(|e| FailedSeed {
                    seed,
                    error: e.clone(),
                })
            })
            .collect();
        let n_flows = ok.iter().map(|s| s.flows.len()).max().unwrap_or(0);
        let flows = (0..n_flows)
            .map(|i| {
                let fs: Vec<_> = ok.iter().filter_map(|s| s.flows.get(i)).collect();
                FlowAggregate {
                    flow: i,
                    controller: fs.first().map(|f| f.controller.clone()).unwrap_or_default(),
                    goodput_bps: Estimate::of_all(fs.iter().map(|f| f.goodput_bps)),
                    completion_time_s: Estimate::of_all(
                        fs.iter().filter_map(|f| f.completion_time_s),
                    ),
                    lost_packets: Estimate::of_all(fs.iter().map(|f| f.lost_packets as f64)),
                    congestion_events: Estimate::of_all(
                        fs.iter().map(|f| f.congestion_events as f64),
                    ),
                    verdicts_random: Estimate::of_all(fs.iter().map(|f| f.verdicts.random as f64)),
                    verdicts_congestion: Estimate::of_all(
                        fs.iter().map(|f| f.verdicts.congestion as f64),
                    ),
                    unverified: fs.iter().filter(|f| !f.verified).count(),
                    unfinished: fs.iter().filter(|f| f.outcome.is_unfinished()).count(),
                    receiver_closed: fs
                        .iter()
                        .filter(|f| f.outcome == Outcome::ReceiverClosed)
                        .count(),
                }
            })
            .collect();
        let acc: Vec<VerdictAccuracy> = ok.iter().filter_map(|s| s.verdict_accuracy).collect();
        let field =
            |f: fn(&VerdictAccuracy) -> u64| Estimate::of_all(acc.iter().map(|a| f(a) as f64));
        let verdict_accuracy = (!acc.is_empty()).then(|| AccuracyAggregate {
            random_as_random: field(|a| a.random_as_random),
            random_as_congestion: field(|a| a.random_as_congestion),
            congestion_as_congestion: field(|a| a.congestion_as_congestion),
            congestion_as_random: field(|a| a.congestion_as_random),
            spurious: field(|a| a.spurious),
        });
        RunAggregate {
            scenario: scenario.to_string(),
            seeds: seeds.to_vec(),
            failed,
            flows,
            verdict_accuracy,
        }
    }

    /// One line per flow: means with their 95 % interval.
    pub fn table(&self) -> TextTable {
        let mut t = TextTable::new([
            "flow",
            "controller",
            "n",
            "goodput Mbit/s (95 % CI)",
            "completion s",
            "lost",
            "cong. events",
            "random",
            "congestion",
            "unverified",
            "unfinished",
            "rcv closed",
        ]);
        let show = |e: &Option<Estimate>, scale: f64, digits: usize| {
            e.map(|e| e.display(scale, digits))
                .unwrap_or_else(|| "-".into())
        };
        let count = |e: &Option<Estimate>| e.map_or_else(|| "-".into(), |e| e.display_count(1));
        for f in &self.flows {
            t.push(vec![
                f.flow.to_string(),
                f.controller.clone(),
                f.goodput_bps.map_or(0, |e| e.n).to_string(),
                show(&f.goodput_bps, 1e-6, 3),
                show(&f.completion_time_s, 1.0, 3),
                count(&f.lost_packets),
                count(&f.congestion_events),
                count(&f.verdicts_random),
                count(&f.verdicts_congestion),
                f.unverified.to_string(),
                f.unfinished.to_string(),
                f.receiver_closed.to_string(),
            ]);
        }
        t
    }

    /// The lines under the table: seeds, failures, verdict accuracy.
    pub fn footer(&self) -> String {
        let mut s = format!(
            "seeds {}..{} ({} runs, {} failed)\n",
            self.seeds.first().copied().unwrap_or_default(),
            self.seeds.last().copied().unwrap_or_default(),
            self.seeds.len(),
            self.failed.len()
        );
        for f in &self.failed {
            s.push_str(&format!("failed: seed {}: {}\n", f.seed, f.error));
        }
        if let Some(a) = &self.verdict_accuracy {
            let show = |e: &Option<Estimate>| e.map_or_else(|| "-".into(), |e| e.display_count(1));
            s.push_str(&format!(
                "verdicts vs ground truth (mean per run, 95 % CI): random loss called random {}, \
                 called congestion {}; congestion loss called congestion {}, called random {}\n",
                show(&a.random_as_random),
                show(&a.random_as_congestion),
                show(&a.congestion_as_congestion),
                show(&a.congestion_as_random),
            ));
        }
        s
    }
}
