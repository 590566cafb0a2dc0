//! Line charts, each written as PNG and SVG. Text is drawn with an embedded DejaVu Sans, so PNGs
//! render the same on a machine without any fonts installed.

use std::path::{Path, PathBuf};
use std::sync::Once;

use anyhow::anyhow;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::report::FlowSeries;

const FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
const FAMILY: &str = "sans-serif";
const SIZE: (u32, u32) = (1024, 640);
/// Series beyond this many points are thinned (per bucket: first, min, max, last) before drawing.
const MAX_POINTS: usize = 4000;

pub(crate) const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

pub(crate) fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is compiled in and known to be valid; a failure here is a build defect.
        plotters::style::register_font(FAMILY, FontStyle::Normal, FONT)
            .unwrap_or_else(|_| panic!("embedded font is not a valid TrueType font"));
    });
}

/// One labelled line.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    /// Vertical error bars `(x, low, high)`, e.g. a mean's 95 % confidence interval.
    pub error_bars: Vec<(f64, f64, f64)>,
}

/// How the x axis is laid out.
#[derive(Debug, Clone, PartialEq)]
pub enum XAxis {
    Linear,
    /// Logarithmic; every x must be > 0.
    Log,
    /// x values are indices into these labels.
    Categories(Vec<String>),
}

/// A chart: title, axis labels, lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_axis: XAxis,
    /// Draw a marker at every point (for sparse data such as sweeps).
    pub markers: bool,
    pub lines: Vec<Line>,
}

impl Chart {
    /// Writes `<stem>.png` and `<stem>.svg` into `dir`.
    pub fn write(&self, dir: &Path, stem: &str) -> anyhow::Result<Vec<PathBuf>> {
        register_font();
        let png = dir.join(format!("{stem}.png"));
        let svg = dir.join(format!("{stem}.svg"));
        {
            let root = BitMapBackend::new(&png, SIZE).into_drawing_area();
            self.draw(&root)
                .map_err(|e| anyhow!("drawing {}: {e}", png.display()))?;
            root.present()
                .map_err(|e| anyhow!("writing {}: {e}", png.display()))?;
        }
        {
            let root = SVGBackend::new(&svg, SIZE).into_drawing_area();
            self.draw(&root)
                .map_err(|e| anyhow!("drawing {}: {e}", svg.display()))?;
            root.present()
                .map_err(|e| anyhow!("writing {}: {e}", svg.display()))?;
        }
        Ok(vec![png, svg])
    }

    fn ranges(&self) -> ((f64, f64), (f64, f64)) {
        let pts = || self.lines.iter().flat_map(|l| l.points.iter());
        let (mut x0, mut x1) = pts().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.0), b.max(p.0))
        });
        let y1 = pts().fold(0.0f64, |m, p| m.max(p.1));
        let y1 = self
            .lines
            .iter()
            .flat_map(|l| l.error_bars.iter())
            .fold(y1, |m, b| m.max(b.2));
        if let XAxis::Categories(c) = &self.x_axis {
            x0 = -0.5;
            x1 = c.len().max(1) as f64 - 0.5;
        }
        if !x0.is_finite() || !x1.is_finite() {
            (x0, x1) = if self.x_axis == XAxis::Log {
                (1.0, 10.0)
            } else {
                (0.0, 1.0)
            };
        }
        if x1 <= x0 {
            if self.x_axis == XAxis::Log {
                (x0, x1) = (x0 / 2.0, x1 * 2.0);
            } else {
                (x0, x1) = (x0 - 0.5, x1 + 0.5);
            }
        }
        if self.markers {
            // Keep markers at the ends off the frame (and, on a log axis, the end values labelled).
            match self.x_axis {
                XAxis::Log => (x0, x1) = (x0 / 1.3, x1 * 1.3),
                XAxis::Linear => {
                    let pad = (x1 - x0) * 0.04;
                    (x0, x1) = (x0 - pad, x1 + pad);
                }
                XAxis::Categories(_) => {}
            }
        }
        // Headroom for the legend in the upper right corner, a line of it per series.
        let headroom = (1.06 + 0.05 * self.lines.len() as f64).min(1.8);
        let y1 = if y1 > 0.0 { y1 * headroom } else { 1.0 };
        ((x0, x1), (0.0, y1))
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        root.fill(&WHITE)?;
        let ((x0, x1), (y0, y1)) = self.ranges();
        match &self.x_axis {
            XAxis::Log => self.draw_in(root, (x0..x1).log_scale(), y0..y1, None),
            XAxis::Linear => self.draw_in(root, x0..x1, y0..y1, None),
            XAxis::Categories(c) => self.draw_in(root, x0..x1, y0..y1, Some(c)),
        }
    }

    fn draw_in<DB, X>(
        &self,
        root: &DrawingArea<DB, Shift>,
        x: X,
        y: std::ops::Range<f64>,
        categories: Option<&Vec<String>>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
    where
        DB: DrawingBackend,
        X: AsRangedCoord<Value = f64>,
        X::CoordDescType: ValueFormatter<f64>,
    {
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FAMILY, 24))
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(72)
            .build_cartesian_2d(x, y)?;
        let label_font = (FAMILY, 18);
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .axis_desc_style(label_font)
            .label_style((FAMILY, 14))
            .light_line_style(RGBColor(235, 235, 235));
        let fmt_cat;
        if let Some(c) = categories {
            fmt_cat = move |v: &f64| {
                let i = v.round();
                if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < c.len() {
                    c[i as usize].clone()
                } else {
                    String::new()
                }
            };
            mesh.x_labels(c.len().max(1) * 4 + 1)
                .x_label_formatter(&fmt_cat);
            mesh.draw()?;
        } else {
            mesh.draw()?;
        }

        for (i, line) in self.lines.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let style = ShapeStyle::from(color).stroke_width(2);
            chart
                .draw_series(LineSeries::new(line.points.iter().copied(), style))?
                .label(line.label.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
            chart.draw_series(line.error_bars.iter().map(|&(x, lo, hi)| {
                ErrorBar::new_vertical(x, lo, (lo + hi) / 2.0, hi, style, 10)
            }))?;
            if self.markers {
                chart.draw_series(
                    line.points
                        .iter()
                        .map(|&p| Circle::new(p, 4, ShapeStyle::from(color).filled())),
                )?;
            }
        }
        if !self.lines.is_empty() {
            chart
                .configure_series_labels()
                .label_font((FAMILY, 16))
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .position(SeriesLabelPosition::UpperRight)
                .draw()?;
        }
        Ok(())
    }
}

fn flow_label(s: &FlowSeries) -> String {
    format!("flow {}: {}", s.flow, s.controller)
}

/// `cwnd.{png,svg}`: congestion window (kB) vs time, one line per flow.
pub fn cwnd(dir: &Path, scenario: &str, series: &[FlowSeries]) -> anyhow::Result<Vec<PathBuf>> {
    Chart {
        title: format!("{scenario}: congestion window"),
        x_label: "time (s)".into(),
        y_label: "cwnd (kB)".into(),
        x_axis: XAxis::Linear,
        markers: false,
        lines: series
            .iter()
            .map(|s| Line {
                label: flow_label(s),
                points: thin(
                    &s.samples
                        .iter()
                        .map(|p| (p.t_s, p.cwnd_bytes as f64 / 1000.0))
                        .collect::<Vec<_>>(),
                    MAX_POINTS,
                ),
                error_bars: Vec::new(),
            })
            .collect(),
    }
    .write(dir, "cwnd")
}

/// `throughput.{png,svg}`: delivered rate (Mbit/s) vs time in bins of `bin_width`, one line per flow.
pub fn throughput(
    dir: &Path,
    scenario: &str,
    series: &[FlowSeries],
) -> anyhow::Result<Vec<PathBuf>> {
    let end = series
        .iter()
        .filter_map(|s| s.samples.last())
        .fold(0.0f64, |m, p| m.max(p.t_s));
    let width = bin_width(end);
    Chart {
        title: format!("{scenario}: throughput ({} ms bins)", fmt_ms(width)),
        x_label: "time (s)".into(),
        y_label: "throughput (Mbit/s)".into(),
        x_axis: XAxis::Linear,
        markers: false,
        lines: series
            .iter()
            .map(|s| Line {
                label: flow_label(s),
                // A step per bin, so each rate spans the interval it was measured over.
                points: throughput_bins(s, width, end)
                    .into_iter()
                    .flat_map(|(mid, bps)| {
                        let h = width / 2.0;
                        [(mid - h, bps / 1e6), (mid + h, bps / 1e6)]
                    })
                    .collect(),
                error_bars: Vec::new(),
            })
            .collect(),
    }
    .write(dir, "throughput")
}

fn fmt_ms(width_s: f64) -> String {
    let ms = width_s * 1000.0;
    if (ms - ms.round()).abs() < 1e-9 {
        format!("{}", ms.round() as u64)
    } else {
        format!("{ms}")
    }
}

/// Bin width for a run of `end_s` seconds: 100 ms, widened (1-2-5 steps) to keep at most 300
/// bins, or narrowed (5-2-1 steps, down to 1 ms) to draw at least `MIN_BINS`: a 40 ms transfer
/// in one 100 ms bin would be a flat line at 40 % of its rate.
pub fn bin_width(end_s: f64) -> f64 {
    let mut w = 0.1;
    let steps = [2.0, 2.5, 2.0];
    let mut i = 0;
    while end_s / w > 300.0 {
        w *= steps[i % 3];
        i += 1;
    }
    let narrower = [2.0, 2.5, 2.0];
    let mut i = 0;
    while end_s / w < MIN_BINS && w > 0.001 + 1e-12 {
        w /= narrower[i % 3];
        i += 1;
    }
    w
}

/// The fewest bins a throughput plot draws, where 1 ms bins allow it.
const MIN_BINS: f64 = 20.0;

/// Throughput of one flow in consecutive bins `[k*w, (k+1)*w)` up to `end_s`, from the cumulative
/// `delivered_bytes` (a step function: the latest sample at or before a time). Returns
/// `(bin midpoint s, bit/s)`.
pub fn throughput_bins(series: &FlowSeries, width: f64, end_s: f64) -> Vec<(f64, f64)> {
    let samples = &series.samples;
    if samples.is_empty() || width <= 0.0 {
        return Vec::new();
    }
    let delivered_at = |t: f64| -> u64 {
        // Samples are in time order: the last one at or before t.
        let n = samples.partition_point(|p| p.t_s <= t);
        if n == 0 {
            0
        } else {
            samples[n - 1].delivered_bytes
        }
    };
    let bins = (end_s / width).ceil().max(1.0) as usize;
    (0..bins)
        .map(|k| {
            let a = k as f64 * width;
            let b = a + width;
            let bytes = delivered_at(b).saturating_sub(delivered_at(a));
            (a + width / 2.0, bytes as f64 * 8.0 / width)
        })
        .collect()
}

/// Reduces `points` (sorted by x) to at most about `max` points, keeping, per bucket of equal x
/// span, the first, lowest, highest and last point in x order, so peaks and drops stay visible.
pub fn thin(points: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    if points.len() <= max || max < 8 {
        return points.to_vec();
    }
    let buckets = max / 4;
    let (x0, x1) = (points[0].0, points[points.len() - 1].0);
    let span = (x1 - x0).max(f64::MIN_POSITIVE);
    let bucket = |x: f64| ((((x - x0) / span) * buckets as f64).floor() as usize).min(buckets - 1);
    let mut out = Vec::with_capacity(max);
    let mut start = 0;
    while start < points.len() {
        let b = bucket(points[start].0);
        let mut end = start + 1;
        while end < points.len() && bucket(points[end].0) == b {
            end += 1;
        }
        let chunk = &points[start..end];
        let mut idx = vec![0, chunk.len() - 1];
        let (mut lo, mut hi) = (0, 0);
        for (i, p) in chunk.iter().enumerate() {
            if p.1 < chunk[lo].1 {
                lo = i;
            }
            if p.1 > chunk[hi].1 {
                hi = i;
            }
        }
        idx.push(lo);
        idx.push(hi);
        idx.sort_unstable();
        idx.dedup();
        out.extend(idx.into_iter().map(|i| chunk[i]));
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Sample;

    fn series(points: &[(f64, u64)]) -> FlowSeries {
        FlowSeries {
            flow: 0,
            controller: "x".into(),
            samples: points
                .iter()
                .map(|&(t_s, d)| Sample {
                    t_s,
                    cwnd_bytes: 0,
                    ssthresh_bytes: None,
                    rtt_s: 0.0,
                    delivered_bytes: d,
                })
                .collect(),
        }
    }

    #[test]
    fn throughput_bins_difference_the_cumulative_bytes() {
        // 1250 bytes by 0.05 s, 2500 by 0.15 s: 1250 B in each 0.1 s bin = 100 kbit/s.
        let s = series(&[(0.0, 0), (0.05, 1250), (0.15, 2500), (0.3, 2500)]);
        let bins = throughput_bins(&s, 0.1, 0.3);
        assert_eq!(bins.len(), 3);
        assert!((bins[0].0 - 0.05).abs() < 1e-12);
        assert!((bins[0].1 - 100_000.0).abs() < 1e-6);
        assert!((bins[1].1 - 100_000.0).abs() < 1e-6);
        assert!(bins[2].1.abs() < 1e-6);
    }

    #[test]
    fn bin_width_grows_for_long_runs() {
        assert_eq!(bin_width(10.0), 0.1);
        // The drop_in example's 40 ms transfer: 2 ms bins, not one flat 100 ms bin.
        assert!(
            (bin_width(0.04) - 0.002).abs() < 1e-12,
            "{}",
            bin_width(0.04)
        );
        assert!((bin_width(1.0) - 0.05).abs() < 1e-12, "{}", bin_width(1.0));
        assert!(
            (bin_width(0.001) - 0.001).abs() < 1e-12,
            "{}",
            bin_width(0.001)
        );
        assert_eq!(bin_width(30.0), 0.1);
        assert!((bin_width(100.0) - 0.5).abs() < 1e-12);
        assert!(1000.0 / bin_width(1000.0) <= 300.0);
    }

    #[test]
    fn thinning_keeps_extremes_and_ends() {
        let pts: Vec<(f64, f64)> = (0..100_000)
            .map(|i| (i as f64, if i == 54_321 { 1e9 } else { (i % 7) as f64 }))
            .collect();
        let t = thin(&pts, 1000);
        assert!(t.len() <= 1000, "{}", t.len());
        assert_eq!(t.first(), pts.first());
        assert_eq!(t.last(), pts.last());
        assert!(t.contains(&(54_321.0, 1e9)));
        assert!(t.windows(2).all(|w| w[0].0 <= w[1].0));
    }
}
