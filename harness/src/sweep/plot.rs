//! The sweep's goodput plot.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use super::{Record, Vary};
use crate::output::plot::{Chart, Line, XAxis};

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

/// `goodput.{png,svg}`: total goodput vs the first varied value, one line per controller (and per
/// combination of the other varied values). Failed runs are left out.
pub fn goodput_plot(
    dir: &Path,
    scenario: &str,
    varies: &[Vary],
    records: &[Record],
) -> anyhow::Result<Vec<PathBuf>> {
    let Some(first) = varies.first() else {
        bail!("a goodput plot needs a varied value");
    };
    let parsed: Option<Vec<(f64, &str)>> =
        first.values.iter().map(|v| number_and_unit(v)).collect();
    let unit_shared = parsed
        .as_ref()
        .filter(|p| p.iter().all(|(_, u)| *u == p[0].1));
    let (x_axis, x_of, x_label): (XAxis, Vec<f64>, String) = match unit_shared {
        Some(p) => {
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
        None => (
            XAxis::Categories(first.values.clone()),
            (0..first.values.len()).map(|i| i as f64).collect(),
            first.key.clone(),
        ),
    };
    let mut lines: Vec<Line> = Vec::new();
    for r in records {
        let Ok(a) = &r.result else { continue };
        let mut label = r.controller.clone();
        for (k, v) in r.point.values.iter().skip(1) {
            label.push_str(&format!(", {k}={v}"));
        }
        let Some(xi) = first
            .values
            .iter()
            .position(|v| Some(v) == r.point.values.first().map(|(_, v)| v))
        else {
            continue;
        };
        let p = (x_of[xi], a.goodput_total_bps / 1e6);
        match lines.iter_mut().find(|l| l.label == label) {
            Some(l) => l.points.push(p),
            None => lines.push(Line {
                label,
                points: vec![p],
            }),
        }
    }
    for l in &mut lines {
        l.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    Chart {
        title: format!("{scenario}: goodput"),
        x_label,
        y_label: "goodput (Mbit/s)".into(),
        x_axis,
        markers: true,
        lines,
    }
    .write(dir, "goodput")
    .context("drawing the goodput plot")
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
