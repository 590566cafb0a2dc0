//! The random-path board's figures: one CDF per metric (`cdf-METRIC.{png,svg}`), a curve per
//! controller, and the one-page summary (`paths-summary.{png,svg}`, drawn by `summary_page`).

use std::path::{Path, PathBuf};

use super::board::PathBoard;
use super::metrics::Metric;
use crate::output::plot::{Chart, Line, XAxis};

/// The metrics drawn as CDFs.
pub const CDFS: [Metric; 4] = [
    Metric::Efficiency,
    Metric::Share,
    Metric::PeerKept,
    Metric::QueueP95VsBudget,
];

/// Queue ratios below this are drawn at it, so that a log axis can show a queue of zero.
const QUEUE_FLOOR: f64 = 0.01;

/// A step CDF of sorted `values`: at each value the fraction of paths at or below it.
pub fn cdf_points(sorted: &[f64]) -> Vec<(f64, f64)> {
    let n = sorted.len() as f64;
    let mut points = Vec::with_capacity(2 * sorted.len());
    for (i, &v) in sorted.iter().enumerate() {
        points.push((v, i as f64 / n));
        points.push((v, (i + 1) as f64 / n));
    }
    points
}

/// The CDF of `metric`, one line per controller that has values.
pub fn cdf_chart(board: &PathBoard, metric: Metric) -> Chart {
    let queue = !metric.higher_is_better();
    let lines = board
        .controllers
        .iter()
        .filter_map(|c| {
            let mut values = board.values(c, metric);
            if queue {
                values.iter_mut().for_each(|v| *v = v.max(QUEUE_FLOOR));
            }
            (!values.is_empty()).then(|| Line {
                label: format!("{c} (n = {})", values.len()),
                points: cdf_points(&values),
                error_bars: Vec::new(),
            })
        })
        .collect();
    let floor = if queue {
        format!(", values below {QUEUE_FLOOR} at {QUEUE_FLOOR}")
    } else {
        String::new()
    };
    Chart {
        title: format!(
            "CDF of {} over {} random paths (seed {}){floor}",
            metric.as_str(),
            board.draw.paths,
            board.draw.path_seed
        ),
        x_label: metric.label().to_string(),
        y_label: "fraction of paths at or below".to_string(),
        x_axis: if queue { XAxis::Log } else { XAxis::Linear },
        markers: false,
        lines,
    }
}

/// Writes the CDFs into `dir`; returns the files.
pub fn write(dir: &Path, board: &PathBoard) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for metric in CDFS {
        files.extend(cdf_chart(board, metric).write(dir, &format!("cdf-{}", metric.as_str()))?);
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::cdf_points;

    #[test]
    fn a_cdf_steps_up_by_one_path_at_each_value() {
        let p = cdf_points(&[0.2, 0.5]);
        assert_eq!(p, vec![(0.2, 0.0), (0.2, 0.5), (0.5, 0.5), (0.5, 1.0)]);
    }
}
