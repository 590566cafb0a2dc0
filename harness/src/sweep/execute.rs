//! Running a sweep's points on worker threads, and the per-run figures kept of each.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::Point;
use crate::report::{RunOutput, Summary, VerdictAccuracy};
use crate::scenario::Scenario;

/// Per-run figures summed or averaged over the flows.
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregate {
    pub flows: usize,
    /// Each flow's goodput, in flow order: what a total hides when flows compete.
    pub flow_goodput_bps: Vec<f64>,
    pub goodput_total_bps: f64,
    pub goodput_mean_bps: f64,
    /// The longest completion time; `None` if any flow did not complete.
    pub completion_time_s: Option<f64>,
    pub lost_packets: u64,
    pub congestion_events: u64,
    pub verdicts_random: u64,
    pub verdicts_congestion: u64,
    pub accuracy: Option<VerdictAccuracy>,
    /// Every flow's bytes were verified.
    pub verified: bool,
    /// Flows whose receiver closed the connection before they ended.
    pub receiver_closed: usize,
    /// Flows that did not finish their transfer: `incomplete` or `no_handshake`.
    pub unfinished: usize,
    /// Flows that delivered no byte at all, whatever their outcome.
    pub delivered_nothing: usize,
}

impl Aggregate {
    pub fn of(s: &Summary) -> Aggregate {
        let n = s.flows.len();
        let total: f64 = s.flows.iter().map(|f| f.goodput_bps).sum();
        let completion = if n == 0 {
            None
        } else {
            s.flows
                .iter()
                .map(|f| f.completion_time_s)
                .try_fold(0.0f64, |m, c| c.map(|c| m.max(c)))
        };
        Aggregate {
            flows: n,
            flow_goodput_bps: s.flows.iter().map(|f| f.goodput_bps).collect(),
            goodput_total_bps: total,
            goodput_mean_bps: if n == 0 { 0.0 } else { total / n as f64 },
            completion_time_s: completion,
            lost_packets: s.flows.iter().map(|f| f.lost_packets).sum(),
            congestion_events: s.flows.iter().map(|f| f.congestion_events).sum(),
            verdicts_random: s.flows.iter().map(|f| f.verdicts.random).sum(),
            verdicts_congestion: s.flows.iter().map(|f| f.verdicts.congestion).sum(),
            accuracy: s.verdict_accuracy,
            verified: s.flows.iter().all(|f| f.verified),
            receiver_closed: s
                .flows
                .iter()
                .filter(|f| f.receiver_closed.is_some())
                .count(),
            unfinished: s.flows.iter().filter(|f| f.outcome.is_unfinished()).count(),
            delivered_nothing: s.flows.iter().filter(|f| f.bytes_delivered == 0).count(),
        }
    }
}

/// The outcome of one point.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub point: Point,
    /// The controller column: the id the point set, else the scenario's own ids joined by ` / `.
    pub controller: String,
    pub result: Result<Aggregate, String>,
}

/// The label for a point's controller column.
pub fn controller_label(point: &Point, scenario: &Scenario) -> String {
    if let Some(c) = &point.controller {
        return c.id().to_owned();
    }
    let mut ids: Vec<&str> = Vec::new();
    for f in &scenario.flows {
        if !ids.contains(&f.controller.id()) {
            ids.push(f.controller.id());
        }
    }
    ids.join(" / ")
}

/// A runner as a sweep sees it.
pub type Runner<'a> = dyn Fn(&Scenario) -> anyhow::Result<RunOutput> + Sync + 'a;
/// A runner that is also given the job it runs.
pub type JobRunner<'a, J> = dyn Fn(&J, &Scenario) -> anyhow::Result<RunOutput> + Sync + 'a;
/// Called in the worker thread after each run, e.g. to write its outputs and tick a progress bar.
/// An error it returns marks the point as failed.
pub type OnDone<'a> = dyn Fn(&Point, &RunOutput) -> anyhow::Result<()> + Sync + 'a;

/// Runs every `(point, scenario)` on `threads` worker threads and returns one record per point,
/// in point order. A failing run is recorded with its error; the others go on.
pub fn run_all(
    jobs: Vec<(Point, Scenario)>,
    runner: &Runner<'_>,
    threads: usize,
    on_done: &OnDone<'_>,
) -> Vec<Record> {
    run_all_with(jobs, &|_, s| runner(s), threads, on_done)
}

/// [`run_all`] with a runner that is told each run's point too (e.g. to name a folder after it).
pub fn run_all_with(
    jobs: Vec<(Point, Scenario)>,
    runner: &JobRunner<'_, Point>,
    threads: usize,
    on_done: &OnDone<'_>,
) -> Vec<Record> {
    let results = run_jobs_with(&jobs, runner, threads, &|point: &Point, out: &RunOutput| {
        on_done(point, out)?;
        Ok(Aggregate::of(&out.summary))
    });
    jobs.iter()
        .zip(results)
        .map(|((point, scenario), result)| Record {
            point: point.clone(),
            controller: controller_label(point, scenario),
            result,
        })
        .collect()
}

/// Runs every job's scenario on `threads` worker threads, hands each output to `keep` in the
/// worker thread, and returns what it kept (or the run's error, as text) in job order.
pub fn run_jobs<J: Sync, T: Send>(
    jobs: &[(J, Scenario)],
    runner: &Runner<'_>,
    threads: usize,
    keep: &(dyn Fn(&J, &RunOutput) -> anyhow::Result<T> + Sync),
) -> Vec<Result<T, String>> {
    run_jobs_with(jobs, &|_, s| runner(s), threads, keep)
}

/// [`run_jobs`] with a runner that is told each run's job too.
pub fn run_jobs_with<J: Sync, T: Send>(
    jobs: &[(J, Scenario)],
    runner: &JobRunner<'_, J>,
    threads: usize,
    keep: &(dyn Fn(&J, &RunOutput) -> anyhow::Result<T> + Sync),
) -> Vec<Result<T, String>> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<T, String>>>> =
        Mutex::new((0..jobs.len()).map(|_| None).collect());
    let threads = threads.clamp(1, jobs.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((job, scenario)) = jobs.get(i) else {
                    break;
                };
                let result = runner(job, scenario)
                    .and_then(|out| keep(job, &out))
                    .map_err(|e| format!("{e:#}"));
                results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(result);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .map(|r| r.expect("every job was run"))
        .collect()
}

/// The names of [`Aggregate::figures`], in order: the columns a repeated sweep summarises.
pub const FIGURES: [&str; 12] = [
    "goodput_total_bps",
    "goodput_mean_bps",
    "completion_time_s",
    "lost_packets",
    "congestion_events",
    "verdicts_random",
    "verdicts_congestion",
    "random_as_random",
    "random_as_congestion",
    "congestion_as_congestion",
    "congestion_as_random",
    "spurious",
];

impl Aggregate {
    /// Flow `i`'s share of the run's total goodput; `None` when the flow did not run or the
    /// total is zero.
    pub fn share(&self, i: usize) -> Option<f64> {
        let g = *self.flow_goodput_bps.get(i)?;
        (self.goodput_total_bps > 0.0).then(|| g / self.goodput_total_bps)
    }

    /// Every numeric figure in the order of [`FIGURES`]; `None` where this run has none (no
    /// completion, no ground truth).
    pub fn figures(&self) -> [Option<f64>; 12] {
        let acc = self.accuracy;
        let a = |f: fn(&VerdictAccuracy) -> u64| acc.as_ref().map(|a| f(a) as f64);
        [
            Some(self.goodput_total_bps),
            Some(self.goodput_mean_bps),
            self.completion_time_s,
            Some(self.lost_packets as f64),
            Some(self.congestion_events as f64),
            Some(self.verdicts_random as f64),
            Some(self.verdicts_congestion as f64),
            a(|a| a.random_as_random),
            a(|a| a.random_as_congestion),
            a(|a| a.congestion_as_congestion),
            a(|a| a.congestion_as_random),
            a(|a| a.spurious),
        ]
    }
}
