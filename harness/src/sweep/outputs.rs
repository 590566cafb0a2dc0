//! What a sweep leaves in its folder once its runs are done: `sweep.csv`, the goodput plot and,
//! for repeated runs, `runs.csv` (one row per run) and `aggregate.json`. The same function writes
//! them for a sweep and for `discern merge` of its shards, so both write the same bytes.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::conditions::{self, RepeatedSweep};
use super::{
    flow_goodput_plot, flow_goodput_plot_repeated, goodput_plot, goodput_plot_repeated, table,
    Record, Vary,
};
use crate::output;

/// What a sweep runs, as its outputs (and a shard's manifest) need it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    /// The scenario's name (plot titles).
    pub scenario: String,
    /// Every `--vary`, as given (`KEY=V1,V2,...`).
    pub varies: Vec<String>,
    /// `--controller` ids; empty keeps the scenario's own.
    pub controllers: Vec<String>,
    /// The seeds of `--runs N`; empty for a single run per combination.
    pub seeds: Vec<u64>,
    pub baseline: Option<String>,
}

impl Spec {
    pub fn parsed_varies(&self) -> anyhow::Result<Vec<Vary>> {
        self.varies
            .iter()
            .map(|v| v.parse::<Vary>().map_err(|e| anyhow::anyhow!("--vary {e}")))
            .collect()
    }

    /// Repeated runs: summarised per condition with intervals.
    pub fn repeated(&self) -> bool {
        !self.seeds.is_empty()
    }
}

/// What [`write()`] printed and wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// The terminal table (and failure lines).
    pub text: String,
    pub files: Vec<PathBuf>,
    pub failed: usize,
    pub runs: usize,
}

/// Writes a sweep's tables and plot into `dir` from its records (in point order).
pub fn write(dir: &Path, spec: &Spec, records: &[Record]) -> anyhow::Result<Written> {
    let varies = spec.parsed_varies()?;
    let keys: Vec<String> = varies.iter().map(|v| v.key.clone()).collect();
    let failed = records.iter().filter(|r| r.result.is_err()).count();
    let mut files = Vec::new();
    let csv_path = dir.join("sweep.csv");
    let text;
    if spec.repeated() {
        let baseline = spec.baseline.as_deref();
        let conditions = conditions::conditions(records, baseline);
        text = format!(
            "{}{}",
            conditions::human_table(&keys, &conditions, baseline).render(),
            conditions::failure_lines(&conditions)
        );
        output::write_table_csv(
            &csv_path,
            &conditions::csv_table(&keys, &conditions, baseline),
        )?;
        files.push(csv_path);
        let runs_path = dir.join("runs.csv");
        output::write_table_csv(&runs_path, &table(&keys, records, false))?;
        files.push(runs_path);
        let json = dir.join("aggregate.json");
        output::write_json(
            &json,
            &RepeatedSweep {
                scenario: spec.scenario.clone(),
                seeds: spec.seeds.clone(),
                baseline: spec.baseline.clone(),
                conditions: conditions.clone(),
            },
        )?;
        files.push(json);
        if failed < records.len() {
            files.extend(goodput_plot_repeated(
                dir,
                &spec.scenario,
                &varies,
                &conditions,
            )?);
            if conditions.iter().any(|c| !c.flows.is_empty()) {
                files.extend(flow_goodput_plot_repeated(
                    dir,
                    &spec.scenario,
                    &varies,
                    &conditions,
                )?);
            }
        }
    } else {
        text = table(&keys, records, true).render();
        output::write_table_csv(&csv_path, &table(&keys, records, false))?;
        files.push(csv_path);
        if failed < records.len() {
            files.extend(goodput_plot(dir, &spec.scenario, &varies, records)?);
            let several = records
                .iter()
                .any(|r| matches!(&r.result, Ok(a) if a.flow_goodput_bps.len() > 1));
            if several {
                files.extend(flow_goodput_plot(dir, &spec.scenario, &varies, records)?);
            }
        }
    }
    Ok(Written {
        text,
        files,
        failed,
        runs: records.len(),
    })
}
