//! `paths-summary.{png,svg}`: the random-path board on one page that fits a screen. On top, a
//! table of controllers (rows) by metrics (columns, each named with what it measures), each cell
//! the mean and the tail that matters (the 10th percentile where higher is better, the 90th
//! where lower is), coloured by that tail; below, the four CDFs side by side.

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::board::PathBoard;
use super::metrics::Metric;
use super::plots::{cdf_points, CDFS};
use crate::output::plot::{register_font, PALETTE};

const FAMILY: &str = "sans-serif";
const WIDTH: u32 = 1600;
const LABEL_W: u32 = 190;
const TITLE_H: u32 = 40;
const HEADER_H: u32 = 56;
const ROW_H: u32 = 26;
const FOOT_H: u32 = 44;
const CDF_H: u32 = 330;

/// A table column: a metric, the tail shown beside its mean, and where its colour runs from red
/// (at `bad`) to green (at `good`) on that tail. The thresholds are the goals the board is read
/// against (docs/evaluation.md), not measurements.
struct Column {
    metric: Metric,
    header: [&'static str; 2],
    good: f64,
    bad: f64,
}

const COLUMNS: [Column; 5] = [
    Column {
        metric: Metric::Efficiency,
        header: ["efficiency alone", "mean | p10"],
        good: 0.9,
        bad: 0.5,
    },
    Column {
        metric: Metric::Share,
        header: ["share beside a peer", "mean | p10"],
        good: 0.4,
        bad: 0.1,
    },
    Column {
        metric: Metric::PeerKept,
        header: ["what the peer keeps", "mean | p10"],
        good: 0.9,
        bad: 0.5,
    },
    Column {
        metric: Metric::QueueP95VsBudgetNoJitter,
        header: ["p95 queue / budget, no jitter", "mean | p90"],
        good: 1.0,
        bad: 3.0,
    },
    Column {
        metric: Metric::QueueAfterPeerVsBudget,
        header: ["queue after a peer left / budget", "mean | p90"],
        good: 1.0,
        bad: 3.0,
    },
];

/// Red at `bad`, yellow halfway, green at `good` (either may be the larger).
fn colour(v: f64, good: f64, bad: f64) -> RGBColor {
    let t = ((v - bad) / (good - bad)).clamp(0.0, 1.0);
    let (r, g) = if t < 0.5 {
        (230.0, 80.0 + 2.0 * t * 150.0)
    } else {
        (230.0 - (t - 0.5) * 2.0 * 170.0, 230.0)
    };
    RGBColor(r as u8, g as u8, 90)
}

fn size(board: &PathBoard) -> (u32, u32) {
    let rows = board.controllers.len().max(1) as u32;
    (WIDTH, TITLE_H + HEADER_H + ROW_H * rows + FOOT_H + CDF_H)
}

pub fn write(dir: &Path, board: &PathBoard) -> anyhow::Result<Vec<PathBuf>> {
    register_font();
    let png = dir.join("paths-summary.png");
    let svg = dir.join("paths-summary.svg");
    {
        let root = BitMapBackend::new(&png, size(board)).into_drawing_area();
        draw(&root, board).map_err(|e| anyhow!("drawing {}: {e}", png.display()))?;
        root.present()
            .map_err(|e| anyhow!("writing {}: {e}", png.display()))?;
    }
    {
        let root = SVGBackend::new(&svg, size(board)).into_drawing_area();
        draw(&root, board).map_err(|e| anyhow!("drawing {}: {e}", svg.display()))?;
        root.present()
            .map_err(|e| anyhow!("writing {}: {e}", svg.display()))?;
    }
    Ok(vec![png, svg])
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    board: &PathBoard,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let table_h = TITLE_H + HEADER_H + ROW_H * board.controllers.len().max(1) as u32 + FOOT_H;
    let (top, bottom) = root.split_vertically(table_h);
    draw_table(&top, board)?;
    for (panel, metric) in bottom.split_evenly((1, CDFS.len())).iter().zip(CDFS) {
        draw_cdf(panel, board, metric)?;
    }
    Ok(())
}

fn draw_table<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    board: &PathBoard,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let title = format!(
        "{} random paths, seed {} ({}): mean and tail per controller; colour by the tail",
        board.draw.paths, board.draw.path_seed, board.command
    );
    area.draw(&Text::new(title, (10, 12), (FAMILY, 18).into_font()))?;
    let cell_w = (WIDTH - LABEL_W - 10) / COLUMNS.len() as u32;
    let centre = Pos::new(HPos::Center, VPos::Center);
    for (ci, column) in COLUMNS.iter().enumerate() {
        let x = (LABEL_W + cell_w * ci as u32 + cell_w / 2) as i32;
        for (line, text) in column.header.iter().enumerate() {
            let y = (TITLE_H + 14 + 20 * line as u32) as i32;
            let style =
                TextStyle::from((FAMILY, if line == 0 { 15 } else { 13 }).into_font()).pos(centre);
            area.draw(&Text::new(text.to_string(), (x, y), style))?;
        }
    }
    for (ri, controller) in board.controllers.iter().enumerate() {
        let y = (TITLE_H + HEADER_H + ROW_H * ri as u32) as i32;
        area.draw(&Text::new(
            controller.clone(),
            (10, y + ROW_H as i32 / 2),
            TextStyle::from((FAMILY, 15).into_font()).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
        for (ci, column) in COLUMNS.iter().enumerate() {
            let x = (LABEL_W + cell_w * ci as u32) as i32;
            let cell = [(x, y), (x + cell_w as i32 - 3, y + ROW_H as i32 - 3)];
            let (fill, text) = match board.get(controller, column.metric) {
                Some(s) => {
                    let tail = s.tail();
                    (
                        colour(tail, column.good, column.bad),
                        format!("{:.2} | {:.2}  (n {})", s.mean, tail, s.n),
                    )
                }
                None => (RGBColor(220, 220, 220), "n/a".to_string()),
            };
            area.draw(&Rectangle::new(cell, fill.filled()))?;
            area.draw(&Text::new(
                text,
                (x + cell_w as i32 / 2 - 1, y + ROW_H as i32 / 2 - 1),
                TextStyle::from((FAMILY, 14).into_font()).pos(centre),
            ))?;
        }
    }
    let foot_y = (TITLE_H + HEADER_H + ROW_H * board.controllers.len().max(1) as u32 + 8) as i32;
    let foot = "efficiency = goodput / (capacity x (1 - loss)), alone; share = own bytes / both \
                while the peer sent; peer keeps = its goodput / against its own kind; budget = \
                max(10 ms, RTT / 4). Green at the goal (p10 >= 0.9, share p10 >= 0.4, p90 <= 1), \
                red far from it.";
    area.draw(&Text::new(foot, (10, foot_y), (FAMILY, 13).into_font()))?;
    Ok(())
}

fn draw_cdf<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    board: &PathBoard,
    metric: Metric,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let queue = !metric.higher_is_better();
    let lines: Vec<(String, Vec<(f64, f64)>)> = board
        .controllers
        .iter()
        .map(|c| {
            let values: Vec<f64> = board
                .values(c, metric)
                .into_iter()
                .map(|v| {
                    if queue {
                        v.clamp(0.0, QUEUE_MAX)
                    } else {
                        v.clamp(0.0, 1.2)
                    }
                })
                .collect();
            (c.clone(), cdf_points(&values))
        })
        .collect();
    let x_max = if queue { QUEUE_MAX } else { 1.2 };
    let mut chart = ChartBuilder::on(area)
        .caption(metric.label(), (FAMILY, 14))
        .margin(8)
        .x_label_area_size(28)
        .y_label_area_size(36)
        .build_cartesian_2d(0.0..x_max, 0.0..1.0)?;
    chart
        .configure_mesh()
        .label_style((FAMILY, 12))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    for (i, (label, points)) in lines.into_iter().enumerate() {
        let style = ShapeStyle::from(PALETTE[i % PALETTE.len()]).stroke_width(2);
        chart
            .draw_series(LineSeries::new(points, style))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], style));
    }
    if metric == CDFS[0] {
        chart
            .configure_series_labels()
            .label_font((FAMILY, 11))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()?;
    }
    Ok(())
}

/// Queue ratios above this are drawn at it, so that one bad path does not squash the others.
const QUEUE_MAX: f64 = 5.0;

#[cfg(test)]
mod tests {
    use super::colour;

    #[test]
    fn colours_run_from_red_at_bad_to_green_at_good_either_way_round() {
        let (red, green) = (colour(0.5, 0.9, 0.5), colour(0.9, 0.9, 0.5));
        assert!(red.0 > red.1 && green.1 > green.0, "{red:?} {green:?}");
        assert_eq!(colour(3.0, 1.0, 3.0), red);
        assert_eq!(colour(0.5, 1.0, 3.0), green);
    }
}
