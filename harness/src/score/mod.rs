//! `discern score`: every controller over a fixed matrix of path classes ([`classes::CLASSES`]),
//! n seeds each, scored with intervals.
//!
//! Per controller and class, over seeds (each figure per seed first, then its mean and 95 %
//! confidence interval, see [`crate::stats`]):
//! - random-loss classes (one flow): `efficiency` = goodput / (goodput of the same controller on
//!   the same path without random loss, same seed) / (1 - p), p the mean loss rate; `vs_quinn_bbr`
//!   = goodput / `quinn-bbr`'s on the same seed (paired); `random_as_random` = the share of random
//!   losses the controller called random (simulator ground truth);
//! - classes against a peer: `share` = own goodput / both; `peer_kept` = the peer's goodput
//!   against this controller / its goodput against a flow of its own kind (same seed), and
//!   `harm` = 1 - `peer_kept`; `ratio_to_peer` = own goodput / the peer's;
//! - classes among n flows of the controller: Jain's index of their goodputs and
//!   `congestion_as_congestion`, the share of queue losses called congestion (every verdict in the
//!   run is the controller's own);
//! - every class: `queue_delay_p95_s`, the bottleneck's p95 queueing delay from `summary.json`
//!   (`links[0].queue_delay.p95_s`), empty where the link model does not report it.
//!
//! Verdict shares in classes against a peer count the peer's verdicts too (the ground truth is
//! scored per run): they are in the CSV but not in the printed row.

pub mod classes;
mod heatmap;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::output::{self, table::TextTable};
use crate::report::Summary;
use crate::scenario::Scenario;
use crate::stats::{jain_index, Estimate};
use classes::{Flows, PathClass, CLASSES};

/// The controllers `discern score` compares when `--controller` is not given.
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
    pub fn class(&self) -> anyhow::Result<&'static PathClass> {
        CLASSES
            .iter()
            .find(|c| c.id == self.class)
            .ok_or_else(|| anyhow::anyhow!("unknown path class `{}`", self.class))
    }

    pub fn scenario(&self) -> anyhow::Result<Scenario> {
        let class = self.class()?;
        let text = class.scenario_toml(&self.controller, self.seed, self.lossless);
        Scenario::from_toml(&text, class.id, &[]).map_err(|e| anyhow::anyhow!("{e}"))
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
/// controller's runs, the lossless references of random-loss classes, the peers' runs against
/// their own kind and `quinn-bbr`'s runs on random-loss classes, each once.
pub fn plan(controllers: &[String], seeds: &[u64]) -> Vec<Job> {
    let mut jobs = Vec::new();
    for class in CLASSES {
        let mut ids: Vec<(String, bool)> = controllers
            .iter()
            .map(|c| (c.clone(), class.is_random_loss()))
            .collect();
        let mut reference = |id: &str| {
            if !ids.iter().any(|(c, _)| c == id) {
                ids.push((id.to_string(), false));
            }
        };
        if let Flows::Against { peer } = class.flows {
            reference(peer);
        }
        if class.is_random_loss() {
            reference(REFERENCE);
        }
        for (controller, with_lossless) in ids {
            for lossless in [false, true] {
                if lossless && !with_lossless {
                    continue;
                }
                for &seed in seeds {
                    jobs.push(Job {
                        class: class.id.to_string(),
                        controller: controller.clone(),
                        lossless,
                        seed,
                    });
                }
            }
        }
    }
    jobs
}

/// One figure of one controller on one class (or, with `class` = [`POOLED_RANDOM`], over the
/// random-loss classes).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Score {
    pub controller: String,
    pub class: String,
    pub figure: &'static str,
    pub estimate: Option<Estimate>,
}

/// The class column of figures pooled over every random-loss class (per seed, the mean of the
/// classes' values; for verdicts, the pooled counts).
pub const POOLED_RANDOM: &str = "random-loss (mean)";

/// What one run produced: its summary, or why it failed.
pub type Outcome = Result<Summary, String>;

/// The scoreboard's results: every figure, and every failed run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scoreboard {
    pub controllers: Vec<String>,
    pub seeds: Vec<u64>,
    pub scores: Vec<Score>,
    /// `(run folder, error)` of every run that failed; its figures are left out of the means
    /// (the `n` says how many seeds each has).
    pub failures: Vec<(String, String)>,
}

fn goodput(s: &Summary, flow: usize) -> Option<f64> {
    s.flows.get(flow).map(|f| f.goodput_bps)
}

/// The bottleneck's p95 queueing delay, when the link model reports it.
fn queue_p95(s: &Summary) -> Option<f64> {
    let v = serde_json::to_value(s).ok()?;
    v["links"][0]["queue_delay"]["p95_s"].as_f64()
}

fn share(a: u64, b: u64) -> Option<f64> {
    (a + b > 0).then(|| a as f64 / (a + b) as f64)
}

impl Scoreboard {
    /// Scores `jobs` (from [`plan`]) given their outcomes, in the same order.
    pub fn of(controllers: &[String], seeds: &[u64], jobs: &[Job], outcomes: &[Outcome]) -> Self {
        let total = jobs.len();
        let by_job: HashMap<&Job, &Outcome> = jobs.iter().zip(outcomes).collect();
        let ok = |class: &str, controller: &str, lossless: bool, seed: u64| {
            let job = Job {
                class: class.to_string(),
                controller: controller.to_string(),
                lossless,
                seed,
            };
            by_job.get(&job).and_then(|o| o.as_ref().ok())
        };
        let mut scores = Vec::new();
        for controller in controllers {
            // Per seed, per random-loss class: (efficiency, vs bbr, rr, rc, p95).
            let mut pooled: Vec<Vec<[Option<f64>; 3]>> = vec![Vec::new(); seeds.len()];
            let mut pooled_verdicts = vec![(0u64, 0u64); seeds.len()];
            for class in CLASSES {
                let mut per: HashMap<&'static str, Vec<f64>> = HashMap::new();
                let mut push = |name: &'static str, v: Option<f64>| {
                    if let Some(v) = v.filter(|v| v.is_finite()) {
                        per.entry(name).or_default().push(v);
                    }
                };
                for (si, &seed) in seeds.iter().enumerate() {
                    let Some(run) = ok(class.id, controller, false, seed) else {
                        continue;
                    };
                    let acc = run.verdict_accuracy;
                    push("queue_delay_p95_s", queue_p95(run));
                    match class.flows {
                        Flows::Alone => {
                            let g = goodput(run, 0);
                            push("goodput_bps", g);
                            let lossless =
                                ok(class.id, controller, true, seed).and_then(|r| goodput(r, 0));
                            let p = class.loss.mean_rate();
                            let eff = g
                                .zip(lossless)
                                .filter(|(_, l)| *l > 0.0)
                                .map(|(g, l)| g / (l * (1.0 - p)));
                            push("efficiency", eff);
                            let bbr =
                                ok(class.id, REFERENCE, false, seed).and_then(|r| goodput(r, 0));
                            let vs = g.zip(bbr).filter(|(_, b)| *b > 0.0).map(|(g, b)| g / b);
                            push("vs_quinn_bbr", vs);
                            let rr =
                                acc.and_then(|a| share(a.random_as_random, a.random_as_congestion));
                            push("random_as_random", rr);
                            if class.is_random_loss() {
                                pooled[si].push([eff, vs, queue_p95(run)]);
                                if let Some(a) = acc {
                                    pooled_verdicts[si].0 += a.random_as_random;
                                    pooled_verdicts[si].1 += a.random_as_congestion;
                                }
                            }
                        }
                        Flows::Against { peer } => {
                            let (g0, g1) = (goodput(run, 0), goodput(run, 1));
                            push("goodput_bps", g0);
                            let both = g0.zip(g1).map(|(a, b)| a + b).filter(|t| *t > 0.0);
                            push("share", g0.zip(both).map(|(a, t)| a / t));
                            push(
                                "ratio_to_peer",
                                g0.zip(g1).filter(|(_, b)| *b > 0.0).map(|(a, b)| a / b),
                            );
                            let own_kind =
                                ok(class.id, peer, false, seed).and_then(|r| goodput(r, 1));
                            let kept = g1
                                .zip(own_kind)
                                .filter(|(_, o)| *o > 0.0)
                                .map(|(g, o)| g / o);
                            push("peer_kept", kept);
                            push("harm", kept.map(|k| 1.0 - k));
                            push(
                                "random_as_random",
                                acc.and_then(|a| share(a.random_as_random, a.random_as_congestion)),
                            );
                            push(
                                "congestion_as_congestion",
                                acc.and_then(|a| {
                                    share(a.congestion_as_congestion, a.congestion_as_random)
                                }),
                            );
                        }
                        Flows::Among { .. } => {
                            let gs: Vec<f64> = run.flows.iter().map(|f| f.goodput_bps).collect();
                            push("goodput_bps", Some(gs.iter().sum()));
                            push("jain", jain_index(&gs));
                            push(
                                "congestion_as_congestion",
                                acc.and_then(|a| {
                                    share(a.congestion_as_congestion, a.congestion_as_random)
                                }),
                            );
                            if !class.is_congestion_only() {
                                push(
                                    "random_as_random",
                                    acc.and_then(|a| {
                                        share(a.random_as_random, a.random_as_congestion)
                                    }),
                                );
                            }
                        }
                    }
                }
                for figure in figures_of(class) {
                    scores.push(Score {
                        controller: controller.clone(),
                        class: class.id.to_string(),
                        figure,
                        estimate: Estimate::of(per.get(figure).map_or(&[][..], |v| v)),
                    });
                }
            }
            let mean_over = |i: usize| -> Vec<f64> {
                pooled
                    .iter()
                    .filter_map(|classes| {
                        let vals: Vec<f64> = classes.iter().filter_map(|c| c[i]).collect();
                        // A seed counts only when every random-loss class has the figure.
                        (!vals.is_empty() && vals.len() == random_classes())
                            .then(|| vals.iter().sum::<f64>() / vals.len() as f64)
                    })
                    .collect()
            };
            for (i, figure) in ["efficiency", "vs_quinn_bbr", "queue_delay_p95_s"]
                .into_iter()
                .enumerate()
            {
                scores.push(Score {
                    controller: controller.clone(),
                    class: POOLED_RANDOM.into(),
                    figure,
                    estimate: Estimate::of(&mean_over(i)),
                });
            }
            let rr: Vec<f64> = pooled_verdicts
                .iter()
                .filter_map(|&(a, b)| share(a, b))
                .collect();
            scores.push(Score {
                controller: controller.clone(),
                class: POOLED_RANDOM.into(),
                figure: "random_as_random",
                estimate: Estimate::of(&rr),
            });
        }
        let failures = jobs
            .iter()
            .zip(outcomes)
            .enumerate()
            .filter_map(|(i, (j, o))| o.as_ref().err().map(|e| (j.dir_name(i, total), e.clone())))
            .collect();
        Scoreboard {
            controllers: controllers.to_vec(),
            seeds: seeds.to_vec(),
            scores,
            failures,
        }
    }

    pub fn get(&self, controller: &str, class: &str, figure: &str) -> Option<&Estimate> {
        self.scores
            .iter()
            .find(|s| s.controller == controller && s.class == class && s.figure == figure)
            .and_then(|s| s.estimate.as_ref())
    }

    /// `score.csv`: one row per controller, class and figure, with n, mean, sd and the 95 %
    /// interval (empty cells where a figure has no value, such as an unreported queue delay).
    pub fn csv(&self) -> TextTable {
        let mut t = TextTable::new([
            "controller",
            "class",
            "figure",
            "n",
            "mean",
            "sd",
            "ci95_lo",
            "ci95_hi",
        ]);
        let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
        for s in &self.scores {
            let mut row = vec![s.controller.clone(), s.class.clone(), s.figure.to_string()];
            match &s.estimate {
                Some(e) => row.extend([
                    e.n.to_string(),
                    e.mean.to_string(),
                    opt(e.sd),
                    opt(e.ci95_lo),
                    opt(e.ci95_hi),
                ]),
                None => row.extend(["0", "", "", "", ""].map(String::from)),
            }
            t.push(row);
        }
        t
    }

    /// The printed scoreboard: one row per controller, headline figures with their intervals.
    pub fn table(&self) -> TextTable {
        let columns = headline_columns();
        let mut headers = vec!["controller".to_string()];
        headers.extend(columns.iter().map(|c| c.header.clone()));
        let mut t = TextTable::new(headers);
        for c in &self.controllers {
            let mut row = vec![c.clone()];
            for col in &columns {
                row.push(
                    self.get(c, &col.class, col.figure)
                        .map(|e| e.display(1.0, 3))
                        .unwrap_or_else(|| "n/a".into()),
                );
            }
            t.push(row);
        }
        t
    }

    /// The notes under the printed table: what each column is, and every failed run.
    pub fn footer(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "mean ± 95 % CI half width over {} seed(s) ({}..{}); n/a: no value (no run had the \
             figure, e.g. a link model that does not report its queueing delay).",
            self.seeds.len(),
            self.seeds.first().copied().unwrap_or_default(),
            self.seeds.last().copied().unwrap_or_default()
        );
        for col in headline_columns() {
            let _ = writeln!(s, "  {}: {}", col.header, col.help);
        }
        for (run, e) in &self.failures {
            let _ = writeln!(s, "failed: {run}: {e}");
        }
        s
    }
}

fn random_classes() -> usize {
    CLASSES.iter().filter(|c| c.is_random_loss()).count()
}

/// The figures a class reports, in CSV order.
fn figures_of(class: &PathClass) -> Vec<&'static str> {
    let mut f = match class.flows {
        Flows::Alone => vec![
            "goodput_bps",
            "efficiency",
            "vs_quinn_bbr",
            "random_as_random",
        ],
        Flows::Against { .. } => {
            let mut f = vec!["goodput_bps", "share", "ratio_to_peer", "peer_kept", "harm"];
            if !class.is_congestion_only() {
                f.push("random_as_random");
            }
            f.push("congestion_as_congestion");
            f
        }
        Flows::Among { .. } => {
            let mut f = vec!["goodput_bps", "jain", "congestion_as_congestion"];
            if !class.is_congestion_only() {
                f.push("random_as_random");
            }
            f
        }
    };
    f.push("queue_delay_p95_s");
    f
}

/// A column of the printed scoreboard.
struct Column {
    header: String,
    class: String,
    figure: &'static str,
    help: String,
}

/// Pooled random-loss figures, then each other class's headline figure (peers kept, fairness),
/// then the verdict accuracy under congestion and the queueing delay. Derived from the class
/// table, so a new class adds its column.
fn headline_columns() -> Vec<Column> {
    let pooled = |header: &str, figure: &'static str, help: &str| Column {
        header: header.into(),
        class: POOLED_RANDOM.into(),
        figure,
        help: help.into(),
    };
    let mut cols = vec![
        pooled(
            "efficiency",
            "efficiency",
            "goodput / (lossless goodput x (1 - p)), mean over the random-loss classes",
        ),
        pooled(
            "x quinn-bbr",
            "vs_quinn_bbr",
            "goodput / quinn-bbr's on the same seed, mean over the random-loss classes",
        ),
        pooled(
            "rnd→rnd",
            "random_as_random",
            "share of random losses called random, random-loss classes",
        ),
    ];
    for class in CLASSES.iter().filter(|c| !c.is_random_loss()) {
        match class.flows {
            Flows::Against { peer } => cols.push(Column {
                header: format!("kept {}", class.label),
                class: class.id.into(),
                figure: "peer_kept",
                help: format!(
                    "{peer}'s goodput against the controller / against another {peer} ({})",
                    class.description
                ),
            }),
            Flows::Among { n } => {
                cols.push(Column {
                    header: format!("Jain {}", class.label),
                    class: class.id.into(),
                    figure: "jain",
                    help: format!(
                        "Jain's index of {n} flows of the controller ({})",
                        class.description
                    ),
                });
                if class.is_congestion_only() {
                    cols.push(Column {
                        header: "cong→cong".into(),
                        class: class.id.into(),
                        figure: "congestion_as_congestion",
                        help: format!("share of queue losses called congestion, {}", class.id),
                    });
                }
            }
            Flows::Alone => {}
        }
    }
    cols.push(pooled(
        "p95 queue s",
        "queue_delay_p95_s",
        "bottleneck p95 queueing delay, mean over the random-loss classes",
    ));
    cols
}

/// Writes `score.csv`, `score.json` and the heatmap into `dir`; returns the files.
pub fn write(dir: &Path, board: &Scoreboard) -> anyhow::Result<Vec<PathBuf>> {
    let csv = dir.join("score.csv");
    output::write_table_csv(&csv, &board.csv())?;
    let json = dir.join("score.json");
    output::write_json(&json, board)?;
    let mut files = vec![csv, json];
    files.extend(heatmap::write(dir, board)?);
    Ok(files)
}

/// The figure a heatmap cell shows for `class`: efficiency on random-loss classes, what the peer
/// kept against a peer, Jain's index among flows of one controller. All are 1 at their best.
pub fn headline_figure(class: &PathClass) -> &'static str {
    match class.flows {
        Flows::Alone => "efficiency",
        Flows::Against { .. } => "peer_kept",
        Flows::Among { .. } => "jain",
    }
}

/// The matrix as `discern score --help` shows it: one line per class, then the figures.
pub fn matrix_help() -> String {
    let mut s =
        String::from("Path classes (one simulated bottleneck each; flow 0 runs the controller):\n");
    for c in CLASSES {
        let _ = writeln!(s, "  {:<24} {} s: {}", c.id, c.duration_s, c.description);
    }
    s.push_str(
        "\nFigures per controller and class, mean and 95 % CI over the seeds (score.csv):\n\
         \x20 efficiency = goodput / (lossless goodput, same controller and seed, x (1 - p));\n\
         \x20 vs_quinn_bbr = goodput / quinn-bbr's (same seed); share = own / both flows;\n\
         \x20 peer_kept = peer's goodput against the controller / against its own kind; harm = 1 - peer_kept;\n\
         \x20 ratio_to_peer = own / peer's goodput; jain = Jain's index among the controller's flows;\n\
         \x20 random_as_random, congestion_as_congestion = verdicts vs the simulator's ground truth;\n\
         \x20 queue_delay_p95_s = the bottleneck's p95 queueing delay.\n\
         quinn-bbr, and each class's peer against its own kind, run as references when not listed.\n",
    );
    s
}

#[cfg(test)]
mod tests;
