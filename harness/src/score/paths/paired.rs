//! A controller against a baseline on the same random paths (`discern score --paths N
//! --baseline ID`): per metric, the differences path by path, their mean with its 95 %
//! confidence interval, and on how many paths the controller did better and worse.
//!
//! Two controllers' 10th percentiles over one draw are set by a handful of paths each, and a
//! change that moves some paths up and others down moves them by chance as much as by effect.
//! The paired difference cancels what a path does to both (its rate, its buffer, its peer), so
//! its interval says whether a difference is the controllers' or the draw's, and the counts say
//! whether it is broad or carried by a few paths.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::metrics::Metric;
use crate::stats::Estimate;

/// One controller against the baseline on one metric, over the paths where both define it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Paired {
    pub controller: String,
    pub baseline: String,
    pub metric: Metric,
    /// `controller`'s value minus the baseline's, path by path.
    pub difference: Estimate,
    /// Paths where the controller did better or worse by the metric's direction (equal values
    /// count in neither).
    pub better: usize,
    pub worse: usize,
}

/// One controller's metric values on one path: `(controller, path index, values)`.
pub type PathValues<'a> = (&'a str, usize, &'a HashMap<Metric, f64>);

/// Every controller but `baseline` against it, metric by metric, in `controllers`' order, from
/// every controller's `values` on each path; a metric no path defines for both is left out.
pub fn against(baseline: &str, controllers: &[String], values: &[PathValues<'_>]) -> Vec<Paired> {
    let base = &by_path(values, baseline);
    controllers
        .iter()
        .filter(|c| c.as_str() != baseline)
        .flat_map(|c| {
            let own = by_path(values, c);
            Metric::ALL.into_iter().filter_map(move |m| {
                let pairs: Vec<(f64, f64)> = own
                    .iter()
                    .filter_map(|(path, values)| {
                        Some((*values.get(&m)?, *base.get(path)?.get(&m)?))
                    })
                    .collect();
                compare(c, baseline, m, &pairs)
            })
        })
        .collect()
}

/// `controller`'s metric values by path index.
fn by_path<'a>(
    values: &[PathValues<'a>],
    controller: &str,
) -> BTreeMap<usize, &'a HashMap<Metric, f64>> {
    values
        .iter()
        .filter(|(c, _, _)| *c == controller)
        .map(|&(_, path, v)| (path, v))
        .collect()
}

/// The comparison of `(controller's value, baseline's value)` pairs of `metric`, `None` for no
/// pairs.
pub fn compare(
    controller: &str,
    baseline: &str,
    metric: Metric,
    pairs: &[(f64, f64)],
) -> Option<Paired> {
    let differences: Vec<f64> = pairs.iter().map(|(own, base)| own - base).collect();
    let difference = Estimate::of(&differences)?;
    let sign = if metric.higher_is_better() { 1.0 } else { -1.0 };
    let count = |pick: fn(f64) -> bool| differences.iter().filter(|&&d| pick(sign * d)).count();
    Some(Paired {
        controller: controller.to_string(),
        baseline: baseline.to_string(),
        metric,
        difference,
        better: count(|d| d > 0.0),
        worse: count(|d| d < 0.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_difference_carried_by_one_path_has_an_interval_that_spans_zero() {
        // Nine paths a hair worse, one far better: the mean difference is positive, but the
        // interval includes zero and the counts show the controller worse on most paths.
        let mut pairs = vec![(0.50, 0.51); 9];
        pairs.push((0.90, 0.30));
        let p = compare("new", "old", Metric::Efficiency, &pairs).unwrap();
        assert!(p.difference.mean > 0.0);
        assert!(p.difference.ci95_lo.unwrap() < 0.0);
        assert_eq!((p.better, p.worse), (1, 9));
    }

    #[test]
    fn a_broad_difference_has_an_interval_clear_of_zero() {
        let pairs: Vec<(f64, f64)> = (0..20)
            .map(|i| {
                let base = 0.3 + 0.02 * f64::from(i);
                (base + 0.1 + 0.01 * f64::from(i % 3), base)
            })
            .collect();
        let p = compare("new", "old", Metric::Efficiency, &pairs).unwrap();
        assert!(p.difference.ci95_lo.unwrap() > 0.05, "{p:?}");
        assert_eq!((p.better, p.worse), (20, 0));
    }

    #[test]
    fn better_follows_the_metric_s_direction() {
        // A queue ratio is better lower: a controller whose queue is shorter on every path is
        // better on every path though its differences are negative.
        let pairs = [(0.5, 1.0), (0.8, 1.2), (2.0, 2.0)];
        let p = compare("new", "old", Metric::QueueP95VsBudget, &pairs).unwrap();
        assert!(p.difference.mean < 0.0);
        assert_eq!((p.better, p.worse), (2, 0));
        assert!(compare("new", "old", Metric::QueueP95VsBudget, &[]).is_none());
    }
}
