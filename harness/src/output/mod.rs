//! What a run leaves on disk: `summary.json`, `timing.json`, `flows.csv` and plots; for sweeps,
//! `sweep.csv` and the goodput plot. Also the text tables the CLI prints.

mod files;
pub mod plot;
pub mod table;

pub use files::{
    write_flows_csv, write_json, write_scenario, write_table_csv, FLOWS_CSV_HEADER, SCENARIO_FILE,
};

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::report::RunOutput;

/// The folder of a run's qlog traces (`--qlog`), inside the run's output folder.
pub const QLOG_DIR: &str = "qlog";

/// The qlog trace of flow `flow`'s `role` (`sender` or `receiver`), e.g. `flow-0-sender.sqlog`:
/// `.sqlog` is the extension qvis and other qlog tools expect of JSON-SEQ traces.
pub fn qlog_file_name(flow: usize, role: &str) -> String {
    format!("flow-{flow}-{role}.sqlog")
}

/// Writes every output of one run into `dir` (created if needed) and returns the files written.
pub fn write_run(dir: &Path, out: &RunOutput) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut written = Vec::new();

    let summary = dir.join("summary.json");
    write_json(&summary, &out.summary)?;
    written.push(summary);

    let timing = dir.join("timing.json");
    write_json(&timing, &out.timing)?;
    written.push(timing);

    let flows = dir.join("flows.csv");
    write_flows_csv(&flows, &out.series)?;
    written.push(flows);

    written.extend(plot::cwnd(dir, &out.summary.scenario, &out.series)?);
    written.extend(plot::throughput(dir, &out.summary.scenario, &out.series)?);
    Ok(written)
}
