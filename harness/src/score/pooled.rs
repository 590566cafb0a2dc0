//! The figures pooled over the random-loss classes marked `pooled` (the class column
//! [`POOLED_RANDOM`]): per seed, one value over those classes, then the estimate over the seeds.

use super::classes::CLASSES;
use super::figure::{RandomVerdicts, SeedValues};
use super::Figure;
use crate::report::Summary;
use crate::stats;

/// The class column of figures pooled over the random-loss classes marked `pooled` (per seed,
/// the mean of the classes' values; for verdicts, the pooled counts).
pub const POOLED_RANDOM: &str = "random-loss (mean)";

/// The pooled figures in CSV order: the means the scoreboard began with, the verdicts' share,
/// then the means added later, so that existing rows keep their place.
pub const FIGURES: [Figure; 5] = [
    Figure::Efficiency,
    Figure::VsQuinnBbr,
    Figure::QueueDelayP95S,
    Figure::RandomAsRandom,
    Figure::QueueP95VsBudget,
];

/// One seed of one controller over the pooled classes: each class's figures where its run
/// succeeded, and the random-loss verdicts summed over those runs.
#[derive(Debug, Clone, Default)]
pub struct PooledSeed {
    classes: Vec<SeedValues>,
    verdicts: RandomVerdicts,
}

impl PooledSeed {
    /// Adds a pooled class's figures and run on this seed; a failed run adds nothing.
    pub fn add(&mut self, values: Option<SeedValues>, run: Option<&Summary>) {
        self.classes.extend(values);
        if let Some(v) = run.and_then(RandomVerdicts::of) {
            self.verdicts += v;
        }
    }

    /// The seed's pooled value of `figure`: the share of the summed verdicts, or the mean over
    /// the pooled classes.
    pub fn value(&self, figure: Figure) -> Option<f64> {
        match figure {
            Figure::RandomAsRandom => self.verdicts.share(),
            _ => mean_of_every(self.classes.iter().map(|c| c.get(figure)), pooled_classes()),
        }
    }
}

fn pooled_classes() -> usize {
    CLASSES.iter().filter(|c| c.pooled).count()
}

/// The mean of `values` when `expected` of them are there: a seed missing a class would shift
/// the mean towards the classes that remain, so it is left out instead.
fn mean_of_every(values: impl Iterator<Item = Option<f64>>, expected: usize) -> Option<f64> {
    let values: Vec<f64> = values.flatten().collect();
    (values.len() == expected).then(|| stats::mean(&values))?
}

#[cfg(test)]
mod tests {
    use super::mean_of_every;

    #[test]
    fn a_mean_needs_every_value() {
        assert_eq!(
            mean_of_every([Some(1.0), Some(2.0)].into_iter(), 2),
            Some(1.5)
        );
        assert_eq!(mean_of_every([Some(1.0), None].into_iter(), 2), None);
        assert_eq!(mean_of_every([Some(1.0)].into_iter(), 2), None);
        assert_eq!(mean_of_every(std::iter::empty(), 0), None);
    }
}
