//! `tradeoff.{png,svg}`: each controller as one point, its efficiency alone on a lossy path
//! against the harm it does to a flow beside it. A loss-based controller sits low and left
//! (harmless, wasteful), a buffer-filler high and right; the goal is the top-left corner. The
//! label carries the third figure a user pays: the p95 queueing delay it leaves alone on a lossy
//! path, as a multiple of the budget `max(10 ms, base RTT / 4)`.

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::classes::{Flows, PathClass, CLASSES};
use super::{Figure, Scoreboard};
use crate::output::plot::register_font;
use crate::stats;

const FAMILY: &str = "sans-serif";
const SIZE: (u32, u32) = (900, 620);

/// One controller's place on the plot: means over classes of per-class means.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub controller: String,
    /// Mean efficiency over the classes where it runs alone with random loss.
    pub efficiency: f64,
    /// Mean harm (1 - what the peer kept) over the classes against a peer.
    pub harm: f64,
    /// Mean p95 queueing delay over the budget, alone with random loss.
    pub queue_vs_budget: Option<f64>,
}

fn alone_with_loss(class: &PathClass) -> bool {
    class.flows == Flows::Alone && !class.is_congestion_only()
}

fn against_a_peer(class: &PathClass) -> bool {
    matches!(class.flows, Flows::Against { .. })
}

/// The mean over `classes` of `controller`'s per-class mean of `figure`, where it has one.
fn mean_over(
    board: &Scoreboard,
    controller: &str,
    figure: Figure,
    classes: fn(&PathClass) -> bool,
) -> Option<f64> {
    let means: Vec<f64> = CLASSES
        .iter()
        .filter(|c| classes(c))
        .filter_map(|c| board.get(controller, c.id, figure).map(|e| e.mean))
        .collect();
    stats::mean(&means)
}

/// The controllers that have both coordinates.
pub fn points(board: &Scoreboard) -> Vec<Point> {
    board
        .controllers
        .iter()
        .filter_map(|c| {
            Some(Point {
                controller: c.clone(),
                efficiency: mean_over(board, c, Figure::Efficiency, alone_with_loss)?,
                harm: mean_over(board, c, Figure::Harm, against_a_peer)?,
                queue_vs_budget: mean_over(board, c, Figure::QueueP95VsBudget, alone_with_loss),
            })
        })
        .collect()
}

pub fn write(dir: &Path, board: &Scoreboard) -> anyhow::Result<Vec<PathBuf>> {
    register_font();
    let points = points(board);
    let png = dir.join("tradeoff.png");
    let svg = dir.join("tradeoff.svg");
    {
        let root = BitMapBackend::new(&png, SIZE).into_drawing_area();
        draw(&root, &points, board.seeds.len())
            .map_err(|e| anyhow!("drawing {}: {e}", png.display()))?;
        root.present()
            .map_err(|e| anyhow!("writing {}: {e}", png.display()))?;
    }
    {
        let root = SVGBackend::new(&svg, SIZE).into_drawing_area();
        draw(&root, &points, board.seeds.len())
            .map_err(|e| anyhow!("drawing {}: {e}", svg.display()))?;
        root.present()
            .map_err(|e| anyhow!("writing {}: {e}", svg.display()))?;
    }
    Ok(vec![png, svg])
}

fn label(p: &Point) -> String {
    match p.queue_vs_budget {
        Some(q) => format!("{} (queue {q:.1}x)", p.controller),
        None => p.controller.clone(),
    }
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    points: &[Point],
    seeds: usize,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let harm = |f: fn(f64, f64) -> f64, start: f64| points.iter().map(|p| p.harm).fold(start, f);
    // Room on the right for the labels; a peer may keep more than against its own kind.
    let (harm_min, harm_max) = (harm(f64::min, 0.0) - 0.05, harm(f64::max, 0.5) + 0.3);
    let eff_min = points.iter().map(|p| p.efficiency).fold(0.5_f64, f64::min) - 0.05;
    let caption = format!(
        "efficiency alone on random loss vs harm to a peer, mean over classes, n = {seeds} \
         (queue: p95 alone / budget)"
    );
    let mut chart = ChartBuilder::on(root)
        .caption(caption, (FAMILY, 16))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(harm_min..harm_max, eff_min..1.08)?;
    chart
        .configure_mesh()
        .x_desc("harm: 1 - what a newreno or cubic flow beside it keeps (0 is harmless)")
        .y_desc("efficiency: goodput / (lossless x (1 - p))")
        .label_style((FAMILY, 13))
        .draw()?;
    let mut placed: Vec<(i32, i32)> = Vec::new();
    for p in points {
        let at = (p.harm, p.efficiency);
        let (x, mut y) = chart.backend_coord(&at);
        // Points close together would print their labels over each other: move a label
        // a line up until it clears those already placed.
        for _ in 0..points.len() {
            if !placed
                .iter()
                .any(|&(px, py)| (px - x).abs() < 200 && (py - y).abs() < 14)
            {
                break;
            }
            y -= 14;
        }
        placed.push((x, y));
        chart.draw_series(std::iter::once(Circle::new(at, 5, BLUE.filled())))?;
        let (_, point_y) = chart.backend_coord(&at);
        root.draw(&Text::new(
            label(p),
            (x + 8, y - 7),
            (FAMILY, 13).into_font(),
        ))?;
        if y != point_y {
            root.draw(&PathElement::new(vec![(x, point_y), (x + 7, y)], BLACK))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::Score;
    use crate::stats::Estimate;

    fn score(controller: &str, class: &str, figure: Figure, mean: f64) -> Score {
        Score {
            controller: controller.into(),
            class: class.into(),
            figure,
            estimate: Some(Estimate {
                n: 2,
                mean,
                sd: None,
                ci95_lo: None,
                ci95_hi: None,
            }),
        }
    }

    #[test]
    fn a_point_is_the_mean_over_its_classes_and_needs_both_coordinates() {
        let board = Scoreboard {
            controllers: vec!["a".into(), "b".into()],
            seeds: vec![1, 2],
            classes: Vec::new(),
            scores: vec![
                score("a", "random-10M-40ms-1%", Figure::Efficiency, 0.9),
                score("a", "random-20M-60ms-0.5%", Figure::Efficiency, 0.7),
                // A congestion-only class alone is not a random-loss class.
                score("a", "codel-vs-newreno", Figure::Harm, 0.2),
                score("a", "congestion-vs-cubic", Figure::Harm, 0.4),
                score("a", "random-10M-40ms-1%", Figure::QueueP95VsBudget, 2.0),
                score("b", "random-10M-40ms-1%", Figure::Efficiency, 1.0),
            ],
            failures: Vec::new(),
        };
        let points = points(&board);
        assert_eq!(points.len(), 1, "b has no harm: {points:?}");
        let a = &points[0];
        assert!((a.efficiency - 0.8).abs() < 1e-12 && (a.harm - 0.3).abs() < 1e-12);
        assert_eq!(a.queue_vs_budget, Some(2.0));
    }
}
