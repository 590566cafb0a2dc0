//! Sweeps: every combination of varied scenario values and controllers, run in parallel, gathered
//! into one table (`sweep.csv`) and a goodput plot.
//!
//! `plan` says what runs, `execute` runs it, `table` and `plot` turn the records into outputs.

mod execute;
mod plan;
mod plot;
mod table;

pub use execute::{controller_label, run_all, Aggregate, OnDone, Record, Runner};
pub use plan::{expand, split_controllers, Point, Vary};
pub use plot::goodput_plot;
pub use table::table;
