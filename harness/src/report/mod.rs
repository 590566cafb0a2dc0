//! What a run produces: the summary (`summary.json`), per-flow time series, sweep tables, and the
//! recorder (`record`) through which both runners build a run's flows.

mod model;
pub mod record;
pub use model::*;
