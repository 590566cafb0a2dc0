//! `score.{png,svg}`: controllers (rows) x path classes (columns), each cell the class's headline
//! figure (see [`super::headline_figure`]) as a colour from red (0.5 or less) through yellow to
//! green (1 or more), with the mean and its 95 % interval written in it. A figure that is best
//! at 1 or less (a queue over its budget) is coloured by its inverse.

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::classes::CLASSES;
use super::{headline_figure, Figure, Scoreboard};
use crate::output::plot::register_font;

const FAMILY: &str = "sans-serif";
const LABEL_W: u32 = 170;
const HEADER_H: u32 = 190;
const CELL_W: u32 = 120;
const CELL_H: u32 = 34;

/// Red at 0.5 or below, yellow at 0.75, green at 1 or above.
fn colour(v: f64) -> RGBColor {
    let t = ((v - 0.5) / 0.5).clamp(0.0, 1.0);
    let (r, g) = if t < 0.5 {
        (230.0, 80.0 + 2.0 * t * 150.0)
    } else {
        (230.0 - (t - 0.5) * 2.0 * 170.0, 230.0)
    };
    RGBColor(r as u8, g as u8, 90)
}

/// `v` on the colour scale's sense, where 1 or more is best.
fn goodness(figure: Figure, v: f64) -> f64 {
    match figure {
        Figure::QueueAfterPeerVsBudget => 1.0 / v.max(f64::MIN_POSITIVE),
        _ => v,
    }
}

pub fn write(dir: &Path, board: &Scoreboard) -> anyhow::Result<Vec<PathBuf>> {
    register_font();
    let size = (
        LABEL_W + CELL_W * CLASSES.len() as u32 + 20,
        HEADER_H + CELL_H * board.controllers.len().max(1) as u32 + 50,
    );
    let png = dir.join("score.png");
    let svg = dir.join("score.svg");
    {
        let root = BitMapBackend::new(&png, size).into_drawing_area();
        draw(&root, board).map_err(|e| anyhow!("drawing {}: {e}", png.display()))?;
        root.present()
            .map_err(|e| anyhow!("writing {}: {e}", png.display()))?;
    }
    {
        let root = SVGBackend::new(&svg, size).into_drawing_area();
        draw(&root, board).map_err(|e| anyhow!("drawing {}: {e}", svg.display()))?;
        root.present()
            .map_err(|e| anyhow!("writing {}: {e}", svg.display()))?;
    }
    Ok(vec![png, svg])
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    board: &Scoreboard,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let title = format!(
        "scoreboard: efficiency (one flow alone), peer kept (against a peer), Jain (among flows); \
         mean ± 95 % CI, n = {}",
        board.seeds.len()
    );
    root.draw(&Text::new(title, (10, 10), (FAMILY, 15).into_font()))?;
    let centre = Pos::new(HPos::Center, VPos::Center);
    for (ci, class) in CLASSES.iter().enumerate() {
        let x = (LABEL_W + CELL_W * ci as u32 + CELL_W / 2) as i32;
        let style = TextStyle::from((FAMILY, 13).into_font())
            .transform(FontTransform::Rotate270)
            .pos(Pos::new(HPos::Left, VPos::Center));
        root.draw(&Text::new(
            class.id.to_string(),
            (x, HEADER_H as i32 - 6),
            style,
        ))?;
    }
    for (ri, controller) in board.controllers.iter().enumerate() {
        let y = (HEADER_H + CELL_H * ri as u32) as i32;
        root.draw(&Text::new(
            controller.clone(),
            (8, y + CELL_H as i32 / 2),
            TextStyle::from((FAMILY, 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
        for (ci, class) in CLASSES.iter().enumerate() {
            let x = (LABEL_W + CELL_W * ci as u32) as i32;
            let cell = [(x, y), (x + CELL_W as i32 - 2, y + CELL_H as i32 - 2)];
            let figure = headline_figure(class);
            let e = board.get(controller, class.id, figure);
            let (fill, text) = match e {
                Some(e) => (colour(goodness(figure, e.mean)), e.display(1.0, 2)),
                None => (RGBColor(220, 220, 220), "n/a".to_string()),
            };
            root.draw(&Rectangle::new(cell, fill.filled()))?;
            root.draw(&Text::new(
                text,
                (x + CELL_W as i32 / 2 - 1, y + CELL_H as i32 / 2 - 1),
                TextStyle::from((FAMILY, 13).into_font()).pos(centre),
            ))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{colour, goodness, Figure};

    #[test]
    fn colours_run_from_red_to_green() {
        assert_eq!(colour(0.2), colour(0.5));
        assert_eq!(colour(1.4), colour(1.0));
        let (lo, hi) = (colour(0.5), colour(1.0));
        assert!(lo.0 > lo.1 && hi.1 > hi.0, "{lo:?} {hi:?}");
    }

    #[test]
    fn a_queue_over_its_budget_is_green_within_it_and_red_at_twice_it() {
        let queue = Figure::QueueAfterPeerVsBudget;
        assert_eq!(colour(goodness(queue, 0.0)), colour(1.0));
        assert_eq!(colour(goodness(queue, 0.8)), colour(1.0));
        assert_eq!(colour(goodness(queue, 2.0)), colour(0.5));
        assert_eq!(goodness(Figure::PeerKept, 0.8), 0.8);
    }
}
