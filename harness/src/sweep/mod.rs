//! Sweeps: every combination of varied scenario values and controllers, run in parallel, gathered
//! into one table (`sweep.csv`) and goodput plots (the total, and each flow where runs have
//! several).
//!
//! `plan` says what runs, `execute` runs it, `table` and `plot` turn the records into outputs.

pub mod conditions;
mod execute;
pub mod outputs;
mod plan;
mod plot;
mod table;

pub use execute::{
    controller_label, run_all, run_all_with, run_jobs, run_jobs_with, Aggregate, JobRunner, OnDone,
    Record, Runner, FIGURES,
};
pub use plan::{expand, expand_with_seeds, seeds, split_controllers, Point, Vary};
pub use plot::{
    flow_goodput_plot, flow_goodput_plot_repeated, goodput_plot, goodput_plot_repeated,
};
pub use table::table;
