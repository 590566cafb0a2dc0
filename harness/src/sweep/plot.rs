//! The sweep's goodput plots: the total of each run, and each flow's own.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use super::conditions::Condition;
use super::{Record, Vary};
use crate::output::plot::{Chart, Line, XAxis};
use crate::stats::Estimate;

/// `value` as a number and its unit suffix (`100Mbit` -> (100, "Mbit"), `0.01` -> (0.01, "")).
fn number_and_unit(value: &str) -> Option<(f64, &str)> {
    let split = value
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')))
        .unwrap_or(value.len());
    // `e` may start a unit (none of ours does) rather than an exponent: try the longest number.
    (1..=split)
        .rev()
        .find_map(|n| value[..n].parse::<f64>().ok().map(|x| (x, &value[n..])))
}

/// One point of the goodput plot: a run, or the mean of a condition's runs with its interval.
struct Mark<'a> {
    /// The line's name: the controller, and for a per-flow plot the flow.
    controller: String,
    values: &'a [(String, String)],
    goodput_bps: f64,
    interval_bps: Option<(f64, f64)>,
}

impl<'a> Mark<'a> {
    /// A condition's mean with its 95 % interval, as the line `controller` draws it.
    fn mean(controller: String, values: &'a [(String, String)], e: &Estimate) -> Self {
        Mark {
            controller,
            values,
            goodput_bps: e.mean,
            interval_bps: e.ci95_lo.zip(e.ci95_hi),
        }
    }
}

/// `goodput.{png,svg}`: total goodput vs the first varied value, one line per controller (and per
/// combination of the other varied values). Failed runs are left out.
pub fn goodput_plot(
    dir: &Path,
    scenario: &str,
    varies: &[Vary],
    records: &[Record],
) -> anyhow::Result<Vec<PathBuf>> {
    let marks: Vec<Mark> = records
        .iter()
        .filter_map(|r| {
            let a = r.result.as_ref().ok()?;
            Some(Mark {
                controller: r.controller.clone(),
                values: &r.point.values,
                goodput_bps: a.goodput_total_bps,
                interval_bps: None,
            })
        })
        .collect();
    if varies.is_empty() {
        return draw_by_controller(dir, scenario, &controllers_of(&marks), &marks);
    }
    draw(dir, scenario, varies, &marks, Figure::Total)
}

/// `goodput-flows.{png,svg}`: each flow's goodput vs the first varied value, one line per
/// controller and flow, for a sweep whose runs have several flows: what the total of
/// [`goodput_plot`] hides when flows compete. Failed runs are left out.
pub fn flow_goodput_plot(
    dir: &Path,
    scenario: &str,
    varies: &[Vary],
    records: &[Record],
) -> anyhow::Result<Vec<PathBuf>> {
    let marks: Vec<Mark> = records
        .iter()
        .filter_map(|r| Some((r, r.result.as_ref().ok()?)))
        .flat_map(|(r, a)| {
            a.flow_goodput_bps.iter().enumerate().map(|(i, &g)| Mark {
                controller: format!("{} flow {i}", r.controller),
                values: &r.point.values,
                goodput_bps: g,
                interval_bps: None,
            })
        })
        .collect();
    if varies.is_empty() {
        let by_controller = controllers_of(&marks);
        return draw_categories(dir, scenario, &by_controller, &marks, Figure::PerFlow);
    }
    draw(dir, scenario, varies, &marks, Figure::PerFlow)
}

/// Which goodput a plot shows.
#[derive(Clone, Copy, PartialEq)]
enum Figure {
    /// Each run's total over its flows.
    Total,
    /// Each flow's own.
    PerFlow,
}

impl Figure {
    fn file(self) -> &'static str {
        match self {
            Figure::Total => "goodput",
            Figure::PerFlow => "goodput-flows",
        }
    }

    fn title(self, scenario: &str, intervals: bool) -> String {
        let what = match self {
            Figure::Total => "goodput",
            Figure::PerFlow => "goodput per flow",
        };
        if intervals {
            format!("{scenario}: {what} (mean, 95 % CI)")
        } else {
            format!("{scenario}: {what}")
        }
    }
}

/// The marks' line names in order of first appearance, as a categorical x axis.
fn controllers_of(marks: &[Mark]) -> Vary {
    let mut values: Vec<String> = Vec::new();
    for m in marks {
        if !values.contains(&m.controller) {
            values.push(m.controller.clone());
        }
    }
    Vary {
        key: "controller".into(),
        values,
    }
}

/// `goodput.{png,svg}` of a repeated sweep: the mean total goodput of each condition with its
/// 95 % confidence interval as an error bar. Without a varied value the x axis is the
/// controllers.
pub fn goodput_plot_repeated(
    dir: &Path,
    scenario: &str,
    varies: &[Vary],
    conditions: &[Condition],
) -> anyhow::Result<Vec<PathBuf>> {
    let marks: Vec<Mark> = conditions
        .iter()
        .filter_map(|c| {
            let e = c.figure("goodput_total_bps")?;
            Some(Mark::mean(c.controller.clone(), &c.values, e))
        })
        .collect();
    if varies.is_empty() {
        let controllers: Vec<String> = conditions.iter().map(|c| c.controller.clone()).collect();
        let by_controller = Vary {
            key: "controller".into(),
            values: controllers,
        };
        let marks: Vec<Mark> = marks
            .iter()
            .map(|m| Mark {
                controller: m.controller.clone(),
                values: &[],
                goodput_bps: m.goodput_bps,
                interval_bps: m.interval_bps,
            })
            .collect();
        return draw_by_controller(dir, scenario, &by_controller, &marks);
    }
    draw(dir, scenario, varies, &marks, Figure::Total)
}

/// `goodput-flows.{png,svg}` of a repeated sweep: each flow's mean goodput and its 95 % interval
/// over the condition's seeds, one line per controller and flow.
pub fn flow_goodput_plot_repeated(
    dir: &Path,
    scenario: &str,
    varies: &[Vary],
    conditions: &[Condition],
) -> anyhow::Result<Vec<PathBuf>> {
    let marks: Vec<Mark> = conditions
        .iter()
        .flat_map(|c| {
            c.flows.iter().filter_map(|f| {
                let e = f.goodput_bps.as_ref()?;
                let line = format!("{} flow {}", c.controller, f.flow);
                Some(Mark::mean(line, &c.values, e))
            })
        })
        .collect();
    if varies.is_empty() {
        let by_controller = controllers_of(&marks);
        return draw_categories(dir, scenario, &by_controller, &marks, Figure::PerFlow);
    }
    draw(dir, scenario, varies, &marks, Figure::PerFlow)
}

fn draw_by_controller(
    dir: &Path,
    scenario: &str,
    controllers: &Vary,
    marks: &[Mark],
) -> anyhow::Result<Vec<PathBuf>> {
    draw_categories(dir, scenario, controllers, marks, Figure::Total)
}

/// One mark per category of `controllers`, the x axis.
fn draw_categories(
    dir: &Path,
    scenario: &str,
    controllers: &Vary,
    marks: &[Mark],
    figure: Figure,
) -> anyhow::Result<Vec<PathBuf>> {
    let lines = marks
        .iter()
        .filter_map(|m| {
            let x = controllers.values.iter().position(|c| *c == m.controller)? as f64;
            let y = m.goodput_bps / 1e6;
            Some(Line {
                label: m.controller.to_string(),
                points: vec![(x, y)],
                error_bars: m
                    .interval_bps
                    .map(|(lo, hi)| (x, lo / 1e6, hi / 1e6))
                    .into_iter()
                    .collect(),
            })
        })
        .collect();
    let intervals = marks.iter().any(|m| m.interval_bps.is_some());
    Chart {
        title: figure.title(scenario, intervals),
        x_label: "controller".into(),
        y_label: "goodput (Mbit/s)".into(),
        x_axis: XAxis::Categories(controllers.values.clone()),
        markers: true,
        lines,
    }
    .write(dir, figure.file())
    .with_context(|| format!("drawing the {} plot", figure.file()))
}

fn draw(
    dir: &Path,
    scenario: &str,
    varies: &[Vary],
    marks: &[Mark],
    figure: Figure,
) -> anyhow::Result<Vec<PathBuf>> {
    let Some(first) = varies.first() else {
        bail!("a goodput plot needs a varied value");
    };
    let (x_axis, x_of, x_label) = x_axis(first);
    let intervals = marks.iter().any(|m| m.interval_bps.is_some());
    Chart {
        title: figure.title(scenario, intervals),
        x_label,
        y_label: "goodput (Mbit/s)".into(),
        x_axis,
        markers: true,
        lines: lines(first, &x_of, marks),
    }
    .write(dir, figure.file())
    .with_context(|| format!("drawing the {} plot", figure.file()))
}

/// The x axis of the varied value `first`, the x of each of its values, and the axis label. Numbers
/// with one unit share a numeric axis, logarithmic if they span a factor of 20; anything else is
/// a category.
fn x_axis(first: &Vary) -> (XAxis, Vec<f64>, String) {
    let parsed: Option<Vec<(f64, &str)>> =
        first.values.iter().map(|v| number_and_unit(v)).collect();
    let unit_shared = parsed
        .as_ref()
        .filter(|p| p.iter().all(|(_, u)| *u == p[0].1));
    let Some(p) = unit_shared else {
        return (
            XAxis::Categories(first.values.clone()),
            (0..first.values.len()).map(|i| i as f64).collect(),
            first.key.clone(),
        );
    };
    let xs: Vec<f64> = p.iter().map(|(x, _)| *x).collect();
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let log = lo > 0.0 && hi / lo >= 20.0;
    let unit = p[0].1;
    let label = if unit.is_empty() {
        first.key.clone()
    } else {
        format!("{} ({unit})", first.key)
    };
    (if log { XAxis::Log } else { XAxis::Linear }, xs, label)
}

/// One line per controller and combination of the other varied values, its points in x order;
/// `x_of` is the x of each of `first`'s values.
fn lines(first: &Vary, x_of: &[f64], marks: &[Mark]) -> Vec<Line> {
    let mut lines: Vec<Line> = Vec::new();
    for m in marks {
        let mut label = m.controller.clone();
        for (k, v) in m.values.iter().skip(1) {
            label.push_str(&format!(", {k}={v}"));
        }
        let Some(xi) = first
            .values
            .iter()
            .position(|v| Some(v) == m.values.first().map(|(_, v)| v))
        else {
            continue;
        };
        let x = x_of[xi];
        let p = (x, m.goodput_bps / 1e6);
        let bar = m.interval_bps.map(|(lo, hi)| (x, lo / 1e6, hi / 1e6));
        match lines.iter_mut().find(|l| l.label == label) {
            Some(l) => {
                l.points.push(p);
                l.error_bars.extend(bar);
            }
            None => lines.push(Line {
                label,
                points: vec![p],
                error_bars: bar.into_iter().collect(),
            }),
        }
    }
    for l in &mut lines {
        l.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_units() {
        assert_eq!(number_and_unit("100Mbit"), Some((100.0, "Mbit")));
        assert_eq!(number_and_unit("0.01"), Some((0.01, "")));
        assert_eq!(number_and_unit("1e-3"), Some((0.001, "")));
        assert_eq!(number_and_unit("50ms"), Some((50.0, "ms")));
        assert_eq!(number_and_unit("gilbert"), None);
    }
}
