//! One controller on two boards of the same draw, path by path (`discern compare BASE NEW`): what
//! a change to the controller did, the way `--baseline` compares two controllers of one build
//! ([`super::paired`]). A board is the `--out` folder of a `discern score --paths` run, read
//! back from its `paths.csv`. The two must be of the same draw (the same `--paths` and
//! `--path-seed`), so that each path's pair cancels what the path does to both builds; a
//! difference whose interval is clear of zero is then the change's, not the draw's.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context};
use serde::Deserialize;

use super::board::quantile;
use super::metrics::Metric;
use super::paired::{compare, Paired};
use crate::output::table::TextTable;
use crate::stats::mean;

/// The columns of one `paths.csv` row that a comparison reads.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct BoardRow {
    pub path: usize,
    /// The path's own seed: equal on two boards of the same draw.
    pub seed: u64,
    pub controller: String,
    pub jitter_model: String,
    pub outcome: String,
    pub efficiency: Option<f64>,
    pub share: Option<f64>,
    pub peer_kept: Option<f64>,
    pub queue_p95_vs_budget: Option<f64>,
    pub queue_after_peer_vs_budget: Option<f64>,
}

impl BoardRow {
    /// The row's value of `metric`, where the path defines it (the no-jitter queue is the
    /// queue column on the paths without jitter).
    fn value(&self, metric: Metric) -> Option<f64> {
        match metric {
            Metric::Efficiency => self.efficiency,
            Metric::Share => self.share,
            Metric::PeerKept => self.peer_kept,
            Metric::QueueP95VsBudget => self.queue_p95_vs_budget,
            Metric::QueueP95VsBudgetNoJitter => self
                .queue_p95_vs_budget
                .filter(|_| self.jitter_model == "none"),
            Metric::QueueAfterPeerVsBudget => self.queue_after_peer_vs_budget,
        }
    }
}

/// One board's values of a metric: how many paths define it, their mean, and its tail (the 10th
/// percentile where higher is better, the 90th where lower is).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Side {
    pub n: usize,
    pub mean: f64,
    pub tail: f64,
}

impl Side {
    fn of(values: &mut [f64], metric: Metric) -> Option<Side> {
        let mean = mean(values)?;
        values.sort_by(f64::total_cmp);
        Some(Side {
            n: values.len(),
            mean,
            tail: quantile(values, f64::from(metric.tail_percentile()) / 100.0),
        })
    }
}

/// One metric on both boards, and the new board against the base path by path.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricComparison {
    pub metric: Metric,
    pub base: Side,
    pub new: Side,
    pub paired: Paired,
}

/// The comparison of one controller's rows of two boards.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub controller: String,
    pub paths: usize,
    pub metrics: Vec<MetricComparison>,
    /// Runs by outcome (`unbounded`, `receiver_closed`, ...), on each board.
    pub base_outcomes: BTreeMap<String, usize>,
    pub new_outcomes: BTreeMap<String, usize>,
}

/// The rows of the `paths.csv` in `dir`, a `discern score --paths` output folder.
pub fn read_board(dir: &Path) -> anyhow::Result<Vec<BoardRow>> {
    let file = dir.join("paths.csv");
    if !file.is_file() {
        bail!(
            "{} has no paths.csv: give the --out folder of a `discern score --paths` run",
            dir.display()
        );
    }
    let mut reader =
        csv::Reader::from_path(&file).with_context(|| format!("opening {}", file.display()))?;
    reader
        .deserialize()
        .enumerate()
        .map(|(i, row)| row.with_context(|| format!("{} row {}", file.display(), i + 1)))
        .collect()
}

/// `controller`'s rows of `new` against its rows of `base`, metric by metric; an error where a
/// board has no such rows or the boards are not of the same draw.
pub fn compare_boards(
    base: &[BoardRow],
    new: &[BoardRow],
    controller: &str,
) -> anyhow::Result<Comparison> {
    let base_rows = rows_of(base, controller, "base")?;
    let new_rows = rows_of(new, controller, "new")?;
    same_draw(&base_rows, &new_rows)?;
    let metrics = Metric::ALL
        .into_iter()
        .filter_map(|metric| compare_metric(&base_rows, &new_rows, metric))
        .collect();
    Ok(Comparison {
        controller: controller.to_string(),
        paths: base_rows.len(),
        metrics,
        base_outcomes: outcomes(&base_rows),
        new_outcomes: outcomes(&new_rows),
    })
}

/// `controller`'s rows of one board by path; an error naming the controllers it has where it has
/// none.
fn rows_of<'a>(
    rows: &'a [BoardRow],
    controller: &str,
    board: &str,
) -> anyhow::Result<BTreeMap<usize, &'a BoardRow>> {
    let own: BTreeMap<usize, &BoardRow> = rows
        .iter()
        .filter(|r| r.controller == controller)
        .map(|r| (r.path, r))
        .collect();
    if own.is_empty() {
        let mut present: Vec<&str> = rows.iter().map(|r| r.controller.as_str()).collect();
        present.sort_unstable();
        present.dedup();
        bail!(
            "the {board} board has no `{controller}` runs; name one it has with --controller: {}",
            present.join(", ")
        );
    }
    Ok(own)
}

/// Whether two boards ran the same paths: the same path indices, each with the same seed.
fn same_draw(
    base: &BTreeMap<usize, &BoardRow>,
    new: &BTreeMap<usize, &BoardRow>,
) -> anyhow::Result<()> {
    for (path, row) in base {
        match new.get(path) {
            Some(other) if other.seed == row.seed => {}
            Some(other) => bail!(
                "the boards are of different draws: path {path} has seed {} on the base board and \
                 {} on the new one; score both with the same --paths and --path-seed",
                row.seed,
                other.seed
            ),
            None => bail!(
                "the boards are of different draws: path {path} is on the base board only; score \
                 both with the same --paths and --path-seed"
            ),
        }
    }
    if let Some(path) = new.keys().find(|p| !base.contains_key(p)) {
        bail!(
            "the boards are of different draws: path {path} is on the new board only; score both \
             with the same --paths and --path-seed"
        );
    }
    Ok(())
}

/// One metric on both boards; `None` where no path defines it on both.
fn compare_metric(
    base: &BTreeMap<usize, &BoardRow>,
    new: &BTreeMap<usize, &BoardRow>,
    metric: Metric,
) -> Option<MetricComparison> {
    let pairs: Vec<(f64, f64)> = new
        .iter()
        .filter_map(|(path, row)| Some((row.value(metric)?, base.get(path)?.value(metric)?)))
        .collect();
    let paired = compare("new", "base", metric, &pairs)?;
    let values = |rows: &BTreeMap<usize, &BoardRow>| -> Vec<f64> {
        rows.values().filter_map(|r| r.value(metric)).collect()
    };
    Some(MetricComparison {
        metric,
        base: Side::of(&mut values(base), metric)?,
        new: Side::of(&mut values(new), metric)?,
        paired,
    })
}

/// Runs by outcome.
fn outcomes(rows: &BTreeMap<usize, &BoardRow>) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for row in rows.values() {
        *counts.entry(row.outcome.clone()).or_insert(0) += 1;
    }
    counts
}

impl Comparison {
    /// One row per metric: each board's n, mean and tail, and the paired difference (new minus
    /// base) with its 95 % interval and the paths the new board did better and worse on.
    pub fn table(&self) -> TextTable {
        let mut t = TextTable::new([
            "metric",
            "tail",
            "base: n, mean, tail",
            "new: n, mean, tail",
            "new - base (95 % interval)",
            "better / worse",
        ]);
        for m in &self.metrics {
            let side = |s: &Side| format!("{}, {:.4}, {:.4}", s.n, s.mean, s.tail);
            let d = &m.paired.difference;
            let interval = match (d.ci95_lo, d.ci95_hi) {
                (Some(lo), Some(hi)) => format!(" [{lo:+.4}, {hi:+.4}]"),
                _ => String::new(),
            };
            t.push(vec![
                m.metric.as_str().to_string(),
                format!("p{}", m.metric.tail_percentile()),
                side(&m.base),
                side(&m.new),
                format!("{:+.4}{interval} (n {})", d.mean, d.n),
                format!("{} / {}", m.paired.better, m.paired.worse),
            ]);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(path: usize, seed: u64, efficiency: Option<f64>, queue: Option<f64>) -> BoardRow {
        BoardRow {
            path,
            seed,
            controller: "discern".into(),
            jitter_model: if path.is_multiple_of(2) {
                "none"
            } else {
                "uniform"
            }
            .into(),
            outcome: "unbounded".into(),
            efficiency,
            share: None,
            peer_kept: None,
            queue_p95_vs_budget: queue,
            queue_after_peer_vs_budget: None,
        }
    }

    #[test]
    fn a_change_that_lifts_every_path_is_better_on_every_path_with_its_mean_difference() {
        let base: Vec<BoardRow> = (0..10)
            .map(|p| row(p, 100 + p as u64, Some(0.5), Some(2.0)))
            .collect();
        let new: Vec<BoardRow> = (0..10)
            .map(|p| row(p, 100 + p as u64, Some(0.6 + 0.01 * p as f64), Some(1.0)))
            .collect();
        let c = compare_boards(&base, &new, "discern").unwrap();
        let efficiency = &c.metrics[0];
        assert_eq!(efficiency.metric, Metric::Efficiency);
        assert!((efficiency.paired.difference.mean - 0.145).abs() < 1e-9);
        assert_eq!((efficiency.paired.better, efficiency.paired.worse), (10, 0));
        // A shorter queue is better though its difference is negative; the no-jitter queue reads
        // only the five paths without jitter.
        let queue = &c.metrics[1];
        assert_eq!(queue.metric, Metric::QueueP95VsBudget);
        assert_eq!((queue.paired.better, queue.paired.worse), (10, 0));
        let no_jitter = &c.metrics[2];
        assert_eq!(no_jitter.metric, Metric::QueueP95VsBudgetNoJitter);
        assert_eq!(no_jitter.paired.difference.n, 5);
        // Metrics no path defines (share, what the peer keeps) are left out.
        assert_eq!(c.metrics.len(), 3);
        assert_eq!(c.new_outcomes.get("unbounded"), Some(&10));
    }

    #[test]
    fn boards_of_different_draws_are_refused_with_the_fix() {
        let base = vec![row(0, 1, Some(0.5), None), row(1, 2, Some(0.5), None)];
        let other_seed = vec![row(0, 1, Some(0.5), None), row(1, 3, Some(0.5), None)];
        let e = compare_boards(&base, &other_seed, "discern").unwrap_err();
        assert!(
            e.to_string().contains("same --paths and --path-seed"),
            "{e}"
        );
        let fewer = vec![row(0, 1, Some(0.5), None)];
        let e = compare_boards(&base, &fewer, "discern").unwrap_err();
        assert!(
            e.to_string().contains("path 1 is on the base board only"),
            "{e}"
        );
    }

    #[test]
    fn a_controller_a_board_did_not_run_is_refused_naming_those_it_did() {
        let base = vec![row(0, 1, Some(0.5), None)];
        let e = compare_boards(&base, &base, "quinn-bbr").unwrap_err();
        assert!(e.to_string().contains("--controller: discern"), "{e}");
    }

    #[test]
    fn a_board_is_read_back_from_its_paths_csv() {
        let dir = tempfile::tempdir().unwrap();
        let header = "path,seed,capacity,controller,jitter_model,outcome,efficiency,share,\
                      peer_kept,queue_p95_vs_budget,queue_after_peer_vs_budget,error";
        let csv = format!(
            "{header}\n0,7,fixed,discern,none,unbounded,0.8125,,,0.5000,,\n\
             1,9,fixed,discern,none,receiver_closed,,,,,,receiver closed\n"
        );
        std::fs::write(dir.path().join("paths.csv"), csv).unwrap();
        let rows = read_board(dir.path()).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].efficiency, Some(0.8125));
        assert_eq!(rows[1].efficiency, None);
        let e = read_board(&dir.path().join("missing")).unwrap_err();
        assert!(e.to_string().contains("no paths.csv"), "{e}");
    }
}
