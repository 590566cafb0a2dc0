//! What a run produces: the summary (`summary.json`), per-flow time series, sweep tables.

mod model;
pub use model::*;
