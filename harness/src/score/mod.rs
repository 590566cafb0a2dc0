//! `discern score`: every controller over a fixed matrix of path classes ([`classes::CLASSES`]),
//! n seeds each, scored with intervals.
//!
//! Per controller and class, over seeds (each figure per seed first, then its mean and 95 %
//! confidence interval, see [`crate::stats`]; the figures are [`Figure`]):
//! - classes of one flow alone: `efficiency` = goodput / (goodput of the same controller on
//!   the same path without random loss, same seed) / (1 - p), p the mean loss rate; `vs_quinn_bbr`
//!   = goodput / `quinn-bbr`'s on the same seed (paired); `random_as_random` = the share of random
//!   losses the controller called random (simulator ground truth); `queue_p95_vs_budget` = the
//!   bottleneck's p95 queueing delay / `max(10 ms, base RTT / 4)`; on an AQM or a policer,
//!   `queue_drops_vs_reference` = the queue's drops / `newreno`'s alone on the same seed;
//! - classes against a peer: `share` = own goodput / both; `peer_kept` = the peer's goodput
//!   against this controller / its goodput against a flow of its own kind (same seed), and
//!   `harm` = 1 - `peer_kept`; `ratio_to_peer` = own goodput / the peer's;
//!   `queue_drops_vs_reference` and `queue_p95_vs_reference` = the bottleneck's queue drops and
//!   p95 queueing delay / those of the peer's run against its own kind (same seed); with random
//!   loss, `link_efficiency` = both flows' goodput / (both flows' goodput on the same seed
//!   without the loss x (1 - p)); behind fair queueing, `own_drops_vs_peer` and
//!   `own_queue_p95_vs_peer` = the controller's flow's own queue drops and p95 queueing delay /
//!   the peer flow's in the same run (`flows[].queue` of `summary.json`);
//! - classes among n flows of the controller: Jain's index of their goodputs and
//!   `congestion_as_congestion`, the share of queue losses called congestion (every verdict in the
//!   run is the controller's own);
//! - classes whose controller's receiver lies about its ACK Delay (`receiver_lies` on flow 0,
//!   [`classes::Lie`]), each beside its honest twin class (same controller, same seed):
//!   `peer_kept_vs_honest` = the peer's goodput / its goodput in the honest run,
//!   `queue_drops_vs_honest` = the bottleneck's queue drops / the honest run's,
//!   `loss_rate_vs_honest` = the controller's loss rate (lost / (lost + delivered) packets) / the
//!   honest run's; `lie_mean_us` = the mean lie (reported minus true ACK Delay) over the frames
//!   rewritten, and `lies_capped` = the share of them whose lie the field's encoded length could
//!   not hold (the simulator's ground truth, `summary.json`'s `receiver_lies`);
//! - classes a peer visits ([`classes::Flows::Visited`]): `share_beside_peer` = flow 0's bytes
//!   while the peer was there / those plus the peer's; `queue_after_peer_p95_s` = the p95 of
//!   flow 0's RTT above its lowest from [`classes::AFTER_VISIT_SETTLE_S`] after the peer's last
//!   byte, read from the run's series (`measures.json` beside its summary), and
//!   `queue_after_peer_vs_budget` = that over the queue budget;
//! - every class: `queue_delay_p95_s`, the bottleneck's p95 queueing delay from `summary.json`
//!   (`links[0].queue_delay.p95_s`), empty where the link model does not report it.
//!
//! A ratio to a reference run is empty on a seed whose reference failed, was zero (a reference
//! that dropped nothing), or ended early because its receiver closed a connection
//! (`receiver_closed`; the scoreboard counts those runs per controller).
//!
//! Verdict shares in classes against a peer count the peer's verdicts too (the ground truth is
//! scored per run): they are in the CSV but not in the printed row.

pub mod classes;
mod figure;
mod heatmap;
pub mod measure;
pub mod paths;
mod pooled;
mod table;
pub mod tradeoff;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::noq::NoqPeer;
use crate::output;
use crate::report::Summary;
use crate::scenario::Scenario;
use crate::stats::Estimate;
use classes::{Flows, PathClass, CLASSES};
pub use figure::{queue_budget_s, Figure, DROPS_REFERENCE};
use figure::{Runs, SeedValues};
use measure::Measures;
use pooled::PooledSeed;
pub use pooled::POOLED_RANDOM;

/// The controllers `discern score` compares when `--controller` is not given.
///
/// `noq-bbr3` is not among them: noq-proto 1.4 draws BBRv3's probe timing from the operating
/// system (its `Bbr3Config` keeps the probe seed private), so its runs differ from one to the
/// next, and a board's same seeds must give the same bytes. Name it with `--controller` to
/// compare against it.
pub const DEFAULT_CONTROLLERS: &[&str] = &[
    "newreno",
    "modified-sack",
    "wnewreno",
    "composite",
    "veno",
    "westwood",
    "discern",
    "discern:queue=full",
    "quinn-newreno",
    "quinn-cubic",
    "quinn-bbr",
];

/// The controller whose goodput every other one's is paired with on random-loss classes.
pub const REFERENCE: &str = "quinn-bbr";

/// One run of the scoreboard: a class with `controller` as flow 0 (all flows in an `Among`
/// class), on one seed, with or without the class's random loss.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Job {
    pub class: String,
    pub controller: String,
    pub lossless: bool,
    pub seed: u64,
}

impl Job {
    /// The run of `controller` on `class` and `seed`, with or without the class's random loss.
    pub fn of(class: &PathClass, controller: &str, lossless: bool, seed: u64) -> Job {
        Job {
            class: class.id.to_string(),
            controller: controller.to_string(),
            lossless,
            seed,
        }
    }

    pub fn class(&self) -> anyhow::Result<&'static PathClass> {
        CLASSES
            .iter()
            .find(|c| c.id == self.class)
            .ok_or_else(|| anyhow::anyhow!("unknown path class `{}`", self.class))
    }

    /// The run's scenario; an error names a capacity trace that is not where the class looks.
    pub fn scenario(&self) -> anyhow::Result<Scenario> {
        self.scenario_in(&classes::traces_dir())
    }

    /// [`Self::scenario`] with the capacity traces in `traces`.
    pub fn scenario_in(&self, traces: &Path) -> anyhow::Result<Scenario> {
        let class = self.class()?;
        if let Some(file) = class.trace_path(traces).filter(|f| !f.is_file()) {
            anyhow::bail!(
                "path class `{}`: capacity trace {} not found; set {} to the folder that holds \
                 it (default {} from the working directory)",
                class.id,
                file.display(),
                classes::TRACES_ENV,
                classes::TRACES_DEFAULT
            );
        }
        let text = self.scenario_text(traces)?;
        Scenario::from_toml(&text, class.id, &[]).map_err(|e| anyhow::anyhow!("{e}"))
    }

    /// The run's scenario file, with the capacity traces in `traces`.
    pub fn scenario_text(&self, traces: &Path) -> anyhow::Result<String> {
        let class = self.class()?;
        Ok(class.scenario_toml_in(&self.controller, self.seed, self.lossless, traces))
    }

    /// Folder under `runs/`: index, class, controller, `lossless`, seed, made path-safe.
    pub fn dir_name(&self, index: usize, total: usize) -> String {
        let width = total.saturating_sub(1).max(1).to_string().len();
        let lossless = if self.lossless { "-lossless" } else { "" };
        let slug: String = format!(
            "{}-{}{lossless}-seed={}",
            self.class, self.controller, self.seed
        )
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '=' | '+') {
                c
            } else {
                '_'
            }
        })
        .collect();
        format!("{index:0width$}-{slug}")
    }
}

/// Every run the scoreboard needs, in a fixed order (class, controller, lossless, seed): each
/// controller's runs, the lossless references of classes with random loss, the peers' runs
/// against their own kind, `quinn-bbr`'s runs on random-loss classes and `newreno`'s alone on an
/// AQM or a policer, each once.
pub fn plan(controllers: &[String], seeds: &[u64]) -> Vec<Job> {
    let mut jobs = Vec::new();
    for class in CLASSES {
        let lossless = class.is_random_loss()
            || matches!(class.flows, Flows::Against { .. }) && !class.is_congestion_only();
        let mut ids: Vec<(String, bool)> =
            controllers.iter().map(|c| (c.clone(), lossless)).collect();
        let mut reference = |id: &str| {
            if !ids.iter().any(|(c, _)| c == id) {
                ids.push((id.to_string(), false));
            }
        };
        // A lying class's reference is its honest twin, whose runs the twin's row plans.
        if let (Flows::Against { peer }, None) = (class.flows, class.lie) {
            reference(peer);
        }
        if class.is_random_loss() {
            reference(REFERENCE);
        }
        if class.flows == Flows::Alone && class.is_managed() {
            reference(DROPS_REFERENCE);
        }
        for (controller, with_lossless) in ids {
            // A lie rewrites the ACK frames of a quinn receiver; a noq peer's are noq's own,
            // sealed with real protection, so its lying classes have no run.
            if class.lie.is_some() && NoqPeer::parse(&controller).is_some() {
                continue;
            }
            for lossless in [false, true] {
                if lossless && !with_lossless {
                    continue;
                }
                for &seed in seeds {
                    jobs.push(Job::of(class, &controller, lossless, seed));
                }
            }
        }
    }
    jobs
}

/// The class ids `patterns` name (ids, or prefixes ending in `*`), with the honest twin of each
/// lying class among them, in the matrix's order; empty for no pattern (every class). An
/// unknown id or a prefix that matches nothing is an error naming it.
pub fn select_classes(patterns: &[String]) -> anyhow::Result<Vec<String>> {
    let matches = |p: &str, id: &str| match p.strip_suffix('*') {
        Some(prefix) => id.starts_with(prefix),
        None => id == p,
    };
    if let Some(p) = patterns
        .iter()
        .find(|p| !CLASSES.iter().any(|c| matches(p, c.id)))
    {
        anyhow::bail!(
            "--class {p} names no path class; `discern score --help` lists them (a prefix ends \
             in *, e.g. lie-*)"
        );
    }
    let chosen = |c: &PathClass| patterns.iter().any(|p| matches(p, c.id));
    let twin = |c: &PathClass| {
        CLASSES
            .iter()
            .any(|l| chosen(l) && l.lie.is_some_and(|lie| lie.honest == c.id))
    };
    Ok(CLASSES
        .iter()
        .filter(|c| chosen(c) || twin(c))
        .map(|c| c.id.to_owned())
        .collect())
}

/// The jobs of `plan` on `classes` (from [`select_classes`]); all of them for none.
pub fn only_classes(plan: Vec<Job>, classes: &[String]) -> Vec<Job> {
    if classes.is_empty() {
        return plan;
    }
    plan.into_iter()
        .filter(|j| classes.contains(&j.class))
        .collect()
}

/// One figure of one controller on one class (or, with `class` = [`POOLED_RANDOM`], over the
/// pooled random-loss classes).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Score {
    pub controller: String,
    pub class: String,
    pub figure: Figure,
    pub estimate: Option<Estimate>,
}

/// What one run produced: its summary, or why it failed.
pub type Outcome = Result<Summary, String>;

/// A class as `score.json` lists it, so that readers can group the classes as the printed
/// tables do.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassInfo {
    pub id: &'static str,
    pub label: &'static str,
    pub family: &'static str,
    pub description: &'static str,
    pub pooled: bool,
}

/// The scoreboard's results: every figure, and every failed run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scoreboard {
    pub controllers: Vec<String>,
    pub seeds: Vec<u64>,
    pub classes: Vec<ClassInfo>,
    pub scores: Vec<Score>,
    /// `(run folder, error)` of every run that failed; its figures are left out of the means
    /// (the `n` says how many seeds each has).
    pub failures: Vec<(String, String)>,
}

/// One controller's figures on every class, then over the pooled classes.
fn controller_scores(controller: &str, seeds: &[u64], runs: &Runs<'_>) -> Vec<Score> {
    let score = |class: &str, figure, estimate| Score {
        controller: controller.to_string(),
        class: class.to_string(),
        figure,
        estimate,
    };
    let mut scores = Vec::new();
    let mut pooled = vec![PooledSeed::default(); seeds.len()];
    for class in CLASSES {
        let per_seed: Vec<Option<SeedValues>> = seeds
            .iter()
            .map(|&seed| SeedValues::of(class, controller, seed, runs))
            .collect();
        scores.extend(Figure::of(class).into_iter().map(|figure| {
            let values = per_seed.iter().flatten().filter_map(|v| v.get(figure));
            score(class.id, figure, Estimate::of_all(values))
        }));
        if class.pooled {
            for ((pool, values), &seed) in pooled.iter_mut().zip(per_seed).zip(seeds) {
                pool.add(values, runs.get(class, controller, false, seed));
            }
        }
    }
    scores.extend(pooled::FIGURES.into_iter().map(|figure| {
        let values = pooled.iter().filter_map(|seed| seed.value(figure));
        score(POOLED_RANDOM, figure, Estimate::of_all(values))
    }));
    scores
}

/// Each failed run's folder under `runs/` (`dir_name` of its plan index and job) and why it
/// failed, in plan order: the boards list them beside their tables.
pub(crate) fn failed_runs<J, T>(
    jobs: &[J],
    outcomes: &[Result<T, String>],
    dir_name: impl Fn(usize, &J) -> String,
) -> Vec<(String, String)> {
    jobs.iter()
        .zip(outcomes)
        .enumerate()
        .filter_map(|(i, (j, o))| o.as_ref().err().map(|e| (dir_name(i, j), e.clone())))
        .collect()
}

impl Scoreboard {
    /// Scores `jobs` (from [`plan`]) given their outcomes, in the same order.
    pub fn of(controllers: &[String], seeds: &[u64], jobs: &[Job], outcomes: &[Outcome]) -> Self {
        Self::measured(controllers, seeds, jobs, outcomes, &[])
    }

    /// [`Self::of`] with what the series of the runs a peer visited showed (`measures`, in the
    /// jobs' order).
    pub fn measured(
        controllers: &[String],
        seeds: &[u64],
        jobs: &[Job],
        outcomes: &[Outcome],
        measures: &[Measures],
    ) -> Self {
        let runs = Runs::new(jobs, outcomes, measures);
        let scores = controllers
            .iter()
            .flat_map(|c| controller_scores(c, seeds, &runs))
            .collect();
        let total = jobs.len();
        let failures = failed_runs(jobs, outcomes, |i, j| j.dir_name(i, total));
        let classes = CLASSES
            .iter()
            .map(|c| ClassInfo {
                id: c.id,
                label: c.label,
                family: c.family.title(),
                description: c.description,
                pooled: c.pooled,
            })
            .collect();
        Scoreboard {
            controllers: controllers.to_vec(),
            seeds: seeds.to_vec(),
            classes,
            scores,
            failures,
        }
    }

    pub fn get(&self, controller: &str, class: &str, figure: Figure) -> Option<&Estimate> {
        self.scores
            .iter()
            .find(|s| s.controller == controller && s.class == class && s.figure == figure)
            .and_then(|s| s.estimate.as_ref())
    }
}

/// Writes `score.csv`, `score.json`, the heatmap and the trade-off plot into `dir`; returns the files.
pub fn write(dir: &Path, board: &Scoreboard) -> anyhow::Result<Vec<PathBuf>> {
    let csv = dir.join("score.csv");
    output::write_table_csv(&csv, &board.csv())?;
    let json = dir.join("score.json");
    output::write_json(&json, board)?;
    let mut files = vec![csv, json];
    files.extend(heatmap::write(dir, board)?);
    files.extend(tradeoff::write(dir, board)?);
    Ok(files)
}

/// The figure a heatmap cell shows for `class`: efficiency alone on a path, what the peer
/// kept against a peer, Jain's index among flows of one controller, all 1 at their best; and
/// where a peer visits, the queue kept after it left over the budget, 1 or less at its best.
pub fn headline_figure(class: &PathClass) -> Figure {
    if class.lie.is_some() {
        return Figure::PeerKeptVsHonest;
    }
    match class.flows {
        Flows::Alone => Figure::Efficiency,
        Flows::Against { .. } => Figure::PeerKept,
        Flows::Among { .. } => Figure::Jain,
        Flows::Visited { .. } => Figure::QueueAfterPeerVsBudget,
    }
}

/// The matrix as `discern score --help` shows it: one line per class, then the figures.
pub fn matrix_help() -> String {
    let mut s =
        String::from("Path classes (one simulated bottleneck each; flow 0 runs the controller):\n");
    for c in CLASSES {
        let _ = writeln!(s, "  {:<28} {} s: {}", c.id, c.duration_s, c.description);
    }
    let _ = write!(
        s,
        "\nThe LTE classes replay mahimahi capacity traces from ${} (default {} from the \
         working directory); when a trace is not there, those classes' runs fail naming the \
         file.\n",
        classes::TRACES_ENV,
        classes::TRACES_DEFAULT
    );
    s.push_str(
        "\nFigures per controller and class, mean and 95 % CI over the seeds (score.csv):\n\
         \x20 efficiency = goodput / (lossless goodput, same controller and seed, x (1 - p));\n\
         \x20 vs_quinn_bbr = goodput / quinn-bbr's (same seed); share = own / both flows;\n\
         \x20 peer_kept = peer's goodput against the controller / against its own kind; harm = 1 - peer_kept;\n\
         \x20 ratio_to_peer = own / peer's goodput; jain = Jain's index among the controller's flows;\n\
         \x20 random_as_random, congestion_as_congestion = verdicts vs the simulator's ground truth;\n\
         \x20 queue_delay_p95_s = the bottleneck's p95 queueing delay;\n\
         \x20 queue_p95_vs_budget (alone) = p95 queueing delay / max(10 ms, base RTT / 4);\n\
         \x20 queue_drops_vs_reference, queue_p95_vs_reference = queue drops, p95 queueing delay / the\n\
         \x20   reference run's (same seed): the peer against its own kind, or newreno alone on an AQM;\n\
         \x20 link_efficiency (against a peer, random loss) = both flows' goodput / (both flows' lossless\n\
         \x20   goodput, same seed, x (1 - p));\n\
         \x20 own_drops_vs_peer, own_queue_p95_vs_peer (fair queueing) = the flow's own queue drops,\n\
         \x20   p95 queueing delay / the peer flow's in the same run;\n\
         \x20 peer_kept_vs_honest, queue_drops_vs_honest, loss_rate_vs_honest (a lying receiver) = the\n\
         \x20   peer's goodput, queue drops, the controller's loss rate / those beside an honest receiver\n\
         \x20   (the class named in the description, same seed); lie_mean_us, lies_capped = the mean lie\n\
         \x20   and the share of lies the ACK Delay field's encoded length capped;\n\
         \x20 share_beside_peer (a peer visits) = own bytes / both flows' while the peer was there;\n\
         \x20 queue_after_peer_p95_s, queue_after_peer_vs_budget = p95 of the RTT above its lowest from\n\
         \x20   5 s after the peer's last byte, and that over max(10 ms, base RTT / 4).\n\
         quinn-bbr, each class's peer against its own kind, and newreno alone on an AQM run as\n\
         references when not listed.\n",
    );
    s
}

#[cfg(test)]
mod tests;
