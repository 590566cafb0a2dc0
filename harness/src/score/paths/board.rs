//! The random-path board's results: one row per (path, controller), and per controller and
//! metric the mean, the 10th, 50th and 90th percentiles and the worst path; written as
//! `paths.csv` and `paths.json`, printed as one small table per metric.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::draw::{Capacity, RandomPath};
use super::metrics::{self, Metric, Runs};
use super::paired::{self, Paired};
use super::render::Layout;
use super::{Draw, Outcome, PathJob};
use crate::output::table::TextTable;
use crate::report::Outcome as FlowOutcome;
use crate::score::figure::queue_p95;

/// One controller on one path.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub path: RandomPath,
    pub layout: Layout,
    pub controller: String,
    /// How flow 0 (the controller's own) ended; `None` where the run failed.
    pub outcome: Option<FlowOutcome>,
    pub goodput_bps: Option<f64>,
    pub queue_delay_p95_s: Option<f64>,
    pub values: HashMap<Metric, f64>,
    pub error: Option<String>,
}

/// The path whose value is the worst, and how to run it again.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Worst {
    pub value: f64,
    pub path: usize,
    pub description: String,
    pub command: String,
}

/// One controller's distribution of one metric over the paths where it is defined.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spread {
    pub controller: String,
    pub metric: Metric,
    pub n: usize,
    pub mean: f64,
    pub p10: f64,
    pub p50: f64,
    pub p90: f64,
    pub worst: Worst,
}

/// How often one controller's own flow ended one way over the draw.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutcomeCount {
    pub controller: String,
    pub outcome: FlowOutcome,
    pub runs: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricInfo {
    pub metric: Metric,
    pub definition: &'static str,
    pub higher_is_better: bool,
}

/// `paths.json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PathBoard {
    pub draw: Draw,
    /// The command line that scores the whole draw.
    pub command: String,
    pub controllers: Vec<String>,
    pub metrics: Vec<MetricInfo>,
    pub spreads: Vec<Spread>,
    /// Per controller, how its own flow ended on the paths it ran (every outcome seen at least
    /// once). A receiver that closed the connection is a fault of the controller on that path,
    /// which the metrics show only as a low value.
    pub outcomes: Vec<OutcomeCount>,
    /// `(run folder, error)` of every run that failed; its path's metrics are left out.
    pub failures: Vec<(String, String)>,
    /// With a baseline ([`Self::with_baseline`]): every other controller against it, path by
    /// path.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paired: Vec<Paired>,
    #[serde(skip)]
    pub rows: Vec<Row>,
}

/// The `q` quantile of sorted `values` (linear between order statistics, as numpy's default).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let at = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo as f64)
}

impl Spread {
    /// The distribution's tail ([`Metric::tail_percentile`]).
    pub fn tail(&self) -> f64 {
        if self.metric.tail_percentile() == 10 {
            self.p10
        } else {
            self.p90
        }
    }
}

impl PathBoard {
    /// Scores `jobs` (from [`super::plan`] of `paths`) given their outcomes, in the same order.
    pub fn of(
        draw: Draw,
        controllers: &[String],
        paths: &[(RandomPath, Layout)],
        jobs: &[PathJob],
        outcomes: &[Outcome],
    ) -> Self {
        let runs = Runs::new(jobs, outcomes);
        let errors: HashMap<&PathJob, &String> = jobs
            .iter()
            .zip(outcomes)
            .filter_map(|(j, o)| o.as_ref().err().map(|e| (j, e)))
            .collect();
        let mut rows = Vec::new();
        for (path, layout) in paths {
            for controller in controllers {
                let run = runs.get(path.index, controller);
                let job = PathJob {
                    path: path.index,
                    controller: controller.clone(),
                };
                rows.push(Row {
                    path: path.clone(),
                    layout: layout.clone(),
                    controller: controller.clone(),
                    outcome: run.and_then(|r| r.summary.flows.first().map(|f| f.outcome)),
                    goodput_bps: run.and_then(|r| r.summary.flows.first().map(|f| f.goodput_bps)),
                    queue_delay_p95_s: run.and_then(|r| queue_p95(&r.summary)),
                    values: metrics::values(path, layout, controller, &runs),
                    error: errors.get(&job).map(|e| (*e).clone()),
                });
            }
        }
        let spreads = controllers
            .iter()
            .flat_map(|c| Metric::ALL.into_iter().map(move |m| (c, m)))
            .filter_map(|(c, m)| spread(&draw, &rows, c, m))
            .collect();
        let own_flow_outcomes = outcome_counts(controllers, &rows);
        let total = jobs.len();
        let failures = crate::score::failed_runs(jobs, outcomes, |i, j| j.dir_name(i, total));
        PathBoard {
            draw,
            command: whole_draw_command(&draw, controllers),
            controllers: controllers.to_vec(),
            metrics: Metric::ALL
                .into_iter()
                .map(|metric| MetricInfo {
                    metric,
                    definition: metric.definition(),
                    higher_is_better: metric.higher_is_better(),
                })
                .collect(),
            spreads,
            outcomes: own_flow_outcomes,
            failures,
            paired: Vec::new(),
            rows,
        }
    }

    /// The board with every other controller compared with `baseline` path by path
    /// ([`paired::against`]); none without one.
    pub fn with_baseline(mut self, baseline: Option<&str>) -> Self {
        if let Some(b) = baseline {
            let values: Vec<paired::PathValues<'_>> = self
                .rows
                .iter()
                .map(|r| (r.controller.as_str(), r.path.index, &r.values))
                .collect();
            self.paired = paired::against(b, &self.controllers, &values);
        }
        self
    }

    pub fn get(&self, controller: &str, metric: Metric) -> Option<&Spread> {
        self.spreads
            .iter()
            .find(|s| s.controller == controller && s.metric == metric)
    }

    /// `controller`'s values of `metric`, sorted.
    pub fn values(&self, controller: &str, metric: Metric) -> Vec<f64> {
        let mut v: Vec<f64> = self
            .rows
            .iter()
            .filter(|r| r.controller == controller)
            .filter_map(|r| r.values.get(&metric).copied())
            .collect();
        v.sort_by(f64::total_cmp);
        v
    }

    /// `paths.csv`: every (path, controller) with the path's parameters and its metrics.
    pub fn csv(&self) -> TextTable {
        let mut headers: Vec<String> = [
            "path",
            "seed",
            "capacity",
            "capacity_mbit",
            "rtt_ms",
            "buffer_bdp",
            "queue",
            "queue_packets",
            "loss_model",
            "loss_rate",
            "jitter_model",
            "jitter_ms",
            "decimated",
            "peer",
            "peer_timing",
            "duration_s",
            "controller",
            "outcome",
            "goodput_mbit",
            "queue_delay_p95_ms",
        ]
        .map(String::from)
        .to_vec();
        headers.extend(Metric::COLUMNS.map(|m| m.as_str().to_string()));
        headers.push("error".into());
        let mut t = TextTable::new(headers);
        let opt =
            |v: Option<f64>, scale: f64| v.map_or(String::new(), |v| format!("{:.4}", v * scale));
        for r in &self.rows {
            let p = &r.path;
            let capacity = match &p.capacity {
                Capacity::Fixed { .. } => "fixed".to_string(),
                Capacity::Trace { file } => file.clone(),
            };
            let mut row = vec![
                p.index.to_string(),
                p.seed.to_string(),
                capacity,
                format!("{:.3}", r.layout.capacity_bps / 1e6),
                format!("{}", p.rtt_us as f64 / 1000.0),
                format!("{}", p.buffer_bdp),
                p.queue.as_str().to_string(),
                r.layout.queue_packets.to_string(),
                p.loss.name().to_string(),
                format!("{}", p.loss.mean_rate()),
                p.jitter.name().to_string(),
                format!("{}", p.jitter.scale_ms()),
                p.decimated.to_string(),
                p.peer.map_or("none", |x| x.kind.name()).to_string(),
                p.peer.map_or("", |x| x.timing.name()).to_string(),
                format!("{}", r.layout.duration_s),
                r.controller.clone(),
                r.outcome.map_or("", FlowOutcome::name).to_string(),
                opt(r.goodput_bps, 1e-6),
                opt(r.queue_delay_p95_s, 1e3),
            ];
            row.extend(Metric::COLUMNS.map(|m| opt(r.values.get(&m).copied(), 1.0)));
            row.push(r.error.clone().unwrap_or_default());
            t.push(row);
        }
        t
    }

    /// One table per metric: each controller's n, mean, percentiles and worst path.
    pub fn tables(&self) -> String {
        let mut s = format!(
            "Random paths: {} (seed {}){}\n",
            self.draw.paths,
            self.draw.path_seed,
            self.draw
                .only_path
                .map_or(String::new(), |k| format!(", only path {k}"))
        );
        for m in Metric::ALL {
            let mut t = TextTable::new([
                "controller",
                "n",
                "mean",
                "p10",
                "p50",
                "p90",
                "worst",
                "path",
            ]);
            for c in &self.controllers {
                if let Some(x) = self.get(c, m) {
                    t.push(vec![
                        c.clone(),
                        x.n.to_string(),
                        format!("{:.3}", x.mean),
                        format!("{:.3}", x.p10),
                        format!("{:.3}", x.p50),
                        format!("{:.3}", x.p90),
                        format!("{:.3}", x.worst.value),
                        x.worst.path.to_string(),
                    ]);
                }
            }
            if !t.rows.is_empty() {
                let better = if m.higher_is_better() {
                    "higher"
                } else {
                    "lower"
                };
                let _ = write!(
                    s,
                    "\n{} ({better} is better): {}\n{}",
                    m.as_str(),
                    m.definition(),
                    t.render()
                );
            }
        }
        if let Some(first) = self.paired.first() {
            let _ = write!(
                s,
                "\nAgainst {} on the same paths (the controller's value minus its; better and \
                 worse by each metric's direction):\n{}",
                first.baseline,
                self.paired_table().render()
            );
        }
        let _ = write!(
            s,
            "\nHow each controller's own flow ended (runs):\n{}",
            self.outcome_table().render()
        );
        s
    }

    /// One row per compared controller and metric: the mean difference, its 95 % interval,
    /// and the paths better and worse.
    fn paired_table(&self) -> TextTable {
        let mut t = TextTable::new([
            "controller",
            "metric",
            "n",
            "mean difference",
            "95 % interval",
            "better",
            "worse",
        ]);
        for p in &self.paired {
            let d = &p.difference;
            let interval = match (d.ci95_lo, d.ci95_hi) {
                (Some(lo), Some(hi)) => format!("{lo:+.3} to {hi:+.3}"),
                _ => String::new(),
            };
            t.push(vec![
                p.controller.clone(),
                p.metric.as_str().to_string(),
                d.n.to_string(),
                format!("{:+.3}", d.mean),
                interval,
                p.better.to_string(),
                p.worse.to_string(),
            ]);
        }
        t
    }

    /// Per controller, its runs by how its own flow ended: one column per outcome seen.
    fn outcome_table(&self) -> TextTable {
        let seen: Vec<FlowOutcome> = FlowOutcome::ALL
            .into_iter()
            .filter(|o| self.outcomes.iter().any(|x| x.outcome == *o))
            .collect();
        let mut headers = vec!["controller".to_string()];
        headers.extend(seen.iter().map(|o| o.name().to_string()));
        let mut t = TextTable::new(headers);
        for c in &self.controllers {
            let mut row = vec![c.clone()];
            row.extend(seen.iter().map(|o| {
                self.outcomes
                    .iter()
                    .find(|x| &x.controller == c && x.outcome == *o)
                    .map_or(0, |x| x.runs)
                    .to_string()
            }));
            t.push(row);
        }
        t
    }
}

/// Per controller (in order) and outcome (in [`FlowOutcome::ALL`]'s order), the rows whose own
/// flow ended that way; outcomes no row had are left out.
fn outcome_counts(controllers: &[String], rows: &[Row]) -> Vec<OutcomeCount> {
    controllers
        .iter()
        .flat_map(|c| FlowOutcome::ALL.into_iter().map(move |o| (c, o)))
        .filter_map(|(c, o)| {
            let runs = rows
                .iter()
                .filter(|r| &r.controller == c && r.outcome == Some(o))
                .count();
            (runs > 0).then(|| OutcomeCount {
                controller: c.clone(),
                outcome: o,
                runs,
            })
        })
        .collect()
}

/// `controller`'s spread of `metric`, where some path defines it.
fn spread(draw: &Draw, rows: &[Row], controller: &str, metric: Metric) -> Option<Spread> {
    let mut points: Vec<(f64, &Row)> = rows
        .iter()
        .filter(|r| r.controller == controller)
        .filter_map(|r| r.values.get(&metric).map(|v| (*v, r)))
        .collect();
    if points.is_empty() {
        return None;
    }
    let mut sorted: Vec<f64> = points.iter().map(|(v, _)| *v).collect();
    sorted.sort_by(f64::total_cmp);
    // The worst value, the lowest path index among equals.
    points.sort_by(|a, b| {
        let by_value = if metric.higher_is_better() {
            a.0.total_cmp(&b.0)
        } else {
            b.0.total_cmp(&a.0)
        };
        by_value.then(a.1.path.index.cmp(&b.1.path.index))
    });
    let (value, row) = points[0];
    Some(Spread {
        controller: controller.to_string(),
        metric,
        n: sorted.len(),
        mean: sorted.iter().sum::<f64>() / sorted.len() as f64,
        p10: quantile(&sorted, 0.1),
        p50: quantile(&sorted, 0.5),
        p90: quantile(&sorted, 0.9),
        worst: Worst {
            value,
            path: row.path.index,
            description: row.path.describe(&row.layout),
            command: draw.rerun_command(row.path.index, controller),
        },
    })
}

/// The command that reruns the whole board: the draw, and the controllers where they are not the
/// default list.
fn whole_draw_command(draw: &Draw, controllers: &[String]) -> String {
    let default = crate::score::DEFAULT_CONTROLLERS;
    if controllers
        .iter()
        .map(String::as_str)
        .eq(default.iter().copied())
    {
        draw.command()
    } else {
        format!("{} --controller {}", draw.command(), controllers.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::quantile;

    #[test]
    fn quantiles_interpolate_between_order_statistics() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&v, 0.5), 3.0);
        assert_eq!(quantile(&v, 1.0), 5.0);
        assert!((quantile(&v, 0.1) - 1.4).abs() < 1e-12);
        assert_eq!(quantile(&[7.0], 0.9), 7.0);
    }
}
