//! Statistics over repeated runs: mean, sample standard deviation and the 95 % confidence interval
//! of the mean from Student's t distribution, and paired ratios of one controller to a baseline.
//!
//! Runs of one condition differ only in their seed, so their figures are independent draws and the
//! interval is `mean ± t(0.975, n - 1) · sd / √n`. Two controllers run on the same seeds are
//! compared per seed (a paired design, as quicly's simulator comparisons do): the ratio of their
//! figures on each seed, then the mean and interval of those ratios. Pairing removes the variation
//! the seed causes in both (the same loss pattern), so the interval is tighter than one from two
//! independent means.

use serde::{Deserialize, Serialize};

/// Two-sided 95 % quantiles `t(0.975, df)` of Student's t distribution for df = 1..=30.
const T_975: [f64; 30] = [
    12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010,
    2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687,
    2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
];
/// `(df, t(0.975, df))` beyond the table, down to the normal quantile at df = ∞.
const T_975_TAIL: [(f64, f64); 4] = [
    (30.0, 2.0423),
    (40.0, 2.0211),
    (60.0, 2.0003),
    (120.0, 1.9799),
];
const Z_975: f64 = 1.959_964;

/// `t(0.975, df)`: the factor of the standard error that gives a two-sided 95 % interval. Exact
/// (to four decimals) up to df = 30; beyond, interpolated linearly in `1 / df` between the
/// tabulated 40, 60, 120 and ∞, the usual way, which is within 0.001 of the true value.
///
/// # Panics
/// On `df == 0`, where no interval exists (one sample has no spread); callers check `n >= 2`.
pub fn t_975(df: usize) -> f64 {
    assert!(df > 0, "Student's t needs at least one degree of freedom");
    if df <= T_975.len() {
        return T_975[df - 1];
    }
    let x = 1.0 / df as f64;
    for w in T_975_TAIL.windows(2) {
        let ((d0, t0), (d1, t1)) = (w[0], w[1]);
        if df as f64 <= d1 {
            let (x0, x1) = (1.0 / d0, 1.0 / d1);
            return t0 + (t1 - t0) * (x - x0) / (x1 - x0);
        }
    }
    let (d0, t0) = T_975_TAIL[T_975_TAIL.len() - 1];
    // Between df = 120 and ∞ (1/df = 0).
    Z_975 + (t0 - Z_975) * x * d0
}

/// n, mean, sample standard deviation and 95 % confidence interval of the mean of some figure
/// over repeated runs. With one value there is no spread: `sd` and the interval are `None`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (divisor `n - 1`).
    pub sd: Option<f64>,
    /// Lower end of the 95 % confidence interval of the mean.
    pub ci95_lo: Option<f64>,
    /// Upper end of the 95 % confidence interval of the mean.
    pub ci95_hi: Option<f64>,
}

impl Estimate {
    /// The estimate of `values`, or `None` when there are none. Values that are not finite are
    /// a caller's defect (a figure is a count, a rate or a ratio with a nonzero denominator).
    pub fn of(values: &[f64]) -> Option<Estimate> {
        let n = values.len();
        let mean = mean(values)?;
        if n == 1 {
            return Some(Estimate {
                n,
                mean,
                sd: None,
                ci95_lo: None,
                ci95_hi: None,
            });
        }
        let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let sd = var.sqrt();
        let half = t_975(n - 1) * sd / (n as f64).sqrt();
        Some(Estimate {
            n,
            mean,
            sd: Some(sd),
            ci95_lo: Some(mean - half),
            ci95_hi: Some(mean + half),
        })
    }

    /// [`Self::of`] the values an iterator yields, such as one figure over the seeds that have
    /// it.
    pub fn of_all(values: impl IntoIterator<Item = f64>) -> Option<Estimate> {
        Estimate::of(&values.into_iter().collect::<Vec<_>>())
    }

    /// The CSV columns of an estimate, in the order of [`Self::cells`].
    pub const COLUMNS: [&'static str; 5] = ["n", "mean", "sd", "ci95_lo", "ci95_hi"];

    /// An estimate's CSV cells: values in full precision so that a reader can recompute, empty
    /// where there is none, and `n` 0 for a figure no run had.
    pub fn cells(estimate: Option<&Estimate>) -> [String; 5] {
        let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
        match estimate {
            Some(e) => [
                e.n.to_string(),
                e.mean.to_string(),
                opt(e.sd),
                opt(e.ci95_lo),
                opt(e.ci95_hi),
            ],
            None => ["0", "", "", "", ""].map(String::from),
        }
    }

    /// Half the width of the interval, when there is one.
    pub fn half_width(&self) -> Option<f64> {
        Some((self.ci95_hi? - self.ci95_lo?) / 2.0)
    }

    /// `mean ± half` with `digits` decimals after scaling by `scale` (e.g. 1e-6 for Mbit/s), or
    /// just the mean when there is no interval.
    pub fn display(&self, scale: f64, digits: usize) -> String {
        match self.half_width() {
            Some(h) => format!(
                "{:.digits$} ± {:.digits$}",
                self.mean * scale,
                h * scale.abs()
            ),
            None => format!("{:.digits$}", self.mean * scale),
        }
    }

    /// [`Self::display`] for a figure that cannot be negative (a count of packets, events or
    /// verdicts): where the interval reaches below zero, which a count's skewed spread over few
    /// runs often makes it do, it shows as the range it means, `mean (0.0-hi)`, not `mean ± half`.
    pub fn display_count(&self, digits: usize) -> String {
        match (self.ci95_lo, self.ci95_hi) {
            (Some(lo), Some(hi)) if lo < 0.0 => {
                format!("{:.digits$} ({:.digits$}-{:.digits$})", self.mean, 0.0, hi)
            }
            _ => self.display(1.0, digits),
        }
    }
}

/// The arithmetic mean, `None` for no values.
pub fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Per-pair ratios `value / baseline` of figures measured on the same seed. Pairs whose baseline
/// is zero have no ratio and are left out (the caller reports the `n` it got).
pub fn paired_ratios(pairs: &[(f64, f64)]) -> Vec<f64> {
    pairs
        .iter()
        .filter(|(_, b)| *b != 0.0)
        .map(|(v, b)| v / b)
        .collect()
}

/// Jain's fairness index `(Σx)² / (n · Σx²)` of some allocation: 1 when all are equal, `1/n`
/// when one takes everything. `None` for no values or all zero.
pub fn jain_index(values: &[f64]) -> Option<f64> {
    let sum: f64 = values.iter().sum();
    let sq: f64 = values.iter().map(|v| v * v).sum();
    (!values.is_empty() && sq > 0.0).then(|| sum * sum / (values.len() as f64 * sq))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn t_quantiles_match_published_values() {
        // Published two-sided 95 % values (e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.2).
        for (df, t) in [
            (1, 12.706),
            (2, 4.303),
            (4, 2.776),
            (9, 2.262),
            (19, 2.093),
            (29, 2.045),
            (30, 2.042),
            (40, 2.021),
            (50, 2.009),
            (60, 2.000),
            (100, 1.984),
            (120, 1.980),
            (1000, 1.962),
        ] {
            assert!(close(t_975(df), t, 0.0015), "df {df}: {} vs {t}", t_975(df));
        }
        // Falls monotonically toward the normal quantile.
        for df in 1..2000 {
            assert!(t_975(df + 1) <= t_975(df), "df {df}");
        }
        assert!(t_975(1_000_000) > Z_975 && t_975(1_000_000) < Z_975 + 1e-3);
    }

    #[test]
    fn estimate_of_a_known_sample() {
        // 1..=5: mean 3, variance 2.5, sd 1.5811; half width 2.7764 · 1.5811 / √5 = 1.9632.
        let e = Estimate::of(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert_eq!(e.n, 5);
        assert!(close(e.mean, 3.0, 1e-12));
        assert!(close(e.sd.unwrap(), 2.5f64.sqrt(), 1e-12));
        assert!(close(e.ci95_lo.unwrap(), 3.0 - 1.9632, 1e-3));
        assert!(close(e.ci95_hi.unwrap(), 3.0 + 1.9632, 1e-3));
        assert!(close(e.half_width().unwrap(), 1.9632, 1e-3));
        // Student's sleep data (Cushny and Peebles; R's `t.test(extra ~ 1)` on group 1):
        // mean 0.75, 95 % CI (-0.5297804, 2.0297804).
        let sleep = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
        let e = Estimate::of(&sleep).unwrap();
        assert!(close(e.mean, 0.75, 1e-12));
        assert!(close(e.ci95_lo.unwrap(), -0.5297804, 1e-4));
        assert!(close(e.ci95_hi.unwrap(), 2.0297804, 1e-4));
    }

    #[test]
    fn one_value_has_no_interval_and_none_has_no_estimate() {
        let e = Estimate::of(&[7.0]).unwrap();
        assert_eq!((e.n, e.mean, e.sd, e.ci95_lo), (1, 7.0, None, None));
        assert_eq!(e.display(1.0, 1), "7.0");
        assert!(Estimate::of(&[]).is_none());
        // Identical values: zero spread, a zero-width interval.
        let e = Estimate::of(&[2.0, 2.0, 2.0]).unwrap();
        assert_eq!(
            (e.sd, e.ci95_lo, e.ci95_hi),
            (Some(0.0), Some(2.0), Some(2.0))
        );
    }

    #[test]
    fn a_count_s_interval_never_reaches_below_zero() {
        // Four runs with no loss and one with 5: the t interval of the mean reaches below zero.
        let skewed = Estimate::of(&[0.0, 0.0, 0.0, 0.0, 5.0]).unwrap();
        assert!(skewed.ci95_lo.unwrap() < 0.0);
        let shown = skewed.display_count(1);
        assert!(shown.starts_with("1.0 (0.0-"), "{shown}");
        assert!(
            !shown.contains('±') && !shown.contains("-0") && !shown.contains("(-"),
            "{shown}"
        );
        // An interval above zero shows as any other.
        let steady = Estimate::of(&[4.0, 5.0, 6.0]).unwrap();
        assert_eq!(steady.display_count(1), steady.display(1.0, 1));
    }

    #[test]
    fn display_scales_mean_and_half_width() {
        let e = Estimate::of(&[1e6, 2e6, 3e6, 4e6, 5e6]).unwrap();
        assert_eq!(e.display(1e-6, 2), "3.00 ± 1.96");
    }

    #[test]
    fn paired_ratios_are_per_pair_and_skip_a_zero_baseline() {
        let r = paired_ratios(&[(2.0, 1.0), (3.0, 2.0), (1.0, 0.0), (4.0, 4.0)]);
        assert_eq!(r, [2.0, 1.5, 1.0]);
        let e = Estimate::of(&r).unwrap();
        assert_eq!(e.n, 3);
        assert!(close(e.mean, 1.5, 1e-12));
        // sd 0.5, half width t(0.975, 2) · 0.5 / √3 = 4.3027 · 0.288675 = 1.24208.
        assert!(close(e.half_width().unwrap(), 1.24208, 1e-4));
    }

    #[test]
    fn paired_differences_reproduce_students_sleep_interval() {
        // The paired comparison's interval machinery on the textbook paired data set.
        let g1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
        let g2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4];
        let d: Vec<f64> = g1.iter().zip(g2).map(|(a, b)| b - a).collect();
        let e = Estimate::of(&d).unwrap();
        assert!(close(e.mean, 1.58, 1e-12));
        assert!(close(e.ci95_lo.unwrap(), 0.7001142, 1e-4));
        assert!(close(e.ci95_hi.unwrap(), 2.4598858, 1e-4));
    }

    #[test]
    fn jain_index_bounds() {
        assert_eq!(jain_index(&[5.0, 5.0, 5.0, 5.0]), Some(1.0));
        assert!(close(
            jain_index(&[1.0, 0.0, 0.0, 0.0]).unwrap(),
            0.25,
            1e-12
        ));
        // (1+2+3+4)² / (4 · 30) = 100 / 120.
        assert!(close(
            jain_index(&[1.0, 2.0, 3.0, 4.0]).unwrap(),
            100.0 / 120.0,
            1e-12
        ));
        assert_eq!(jain_index(&[]), None);
        assert_eq!(jain_index(&[0.0, 0.0]), None);
    }
}
