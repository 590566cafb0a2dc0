//! JSON and CSV writers.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context;
use serde::Serialize;

use crate::output::table::TextTable;
use crate::report::FlowSeries;

/// Columns of `flows.csv`, one row per sample of every flow.
pub const FLOWS_CSV_HEADER: [&str; 7] = [
    "flow",
    "controller",
    "t_s",
    "cwnd_bytes",
    "ssthresh_bytes",
    "rtt_s",
    "delivered_bytes",
];

/// The scenario a board's run came from, written beside its `summary.json`: `discern run` on it
/// gives the run again, with the cwnd trace and plots a board does not write.
pub const SCENARIO_FILE: &str = "scenario.toml";

/// Writes a board run's scenario `text` to [`SCENARIO_FILE`] in `dir`.
pub fn write_scenario(dir: &Path, text: &str) -> anyhow::Result<()> {
    let file = dir.join(SCENARIO_FILE);
    std::fs::write(&file, text).with_context(|| format!("writing {}", file.display()))
}

/// Writes `value` as pretty JSON followed by a newline.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> anyhow::Result<()> {
    let file = File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut w = BufWriter::new(file);
    serde_json::to_writer_pretty(&mut w, value)
        .with_context(|| format!("writing {}", path.display()))?;
    writeln!(w)?;
    w.flush()
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// Writes every flow's samples to one CSV (`FLOWS_CSV_HEADER`); an unknown ssthresh is an empty cell.
pub fn write_flows_csv(path: &Path, series: &[FlowSeries]) -> anyhow::Result<()> {
    let mut w =
        csv::Writer::from_path(path).with_context(|| format!("creating {}", path.display()))?;
    w.write_record(FLOWS_CSV_HEADER)?;
    for s in series {
        let flow = s.flow.to_string();
        for p in &s.samples {
            w.write_record([
                flow.as_str(),
                s.controller.as_str(),
                &p.t_s.to_string(),
                &p.cwnd_bytes.to_string(),
                &p.ssthresh_bytes.map(|v| v.to_string()).unwrap_or_default(),
                &p.rtt_s.to_string(),
                &p.delivered_bytes.to_string(),
            ])?;
        }
    }
    w.flush()
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// Writes a table as CSV: its headers, then its rows.
pub fn write_table_csv(path: &Path, table: &TextTable) -> anyhow::Result<()> {
    let mut w =
        csv::Writer::from_path(path).with_context(|| format!("creating {}", path.display()))?;
    w.write_record(&table.headers)?;
    for row in &table.rows {
        w.write_record(row)?;
    }
    w.flush()
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
