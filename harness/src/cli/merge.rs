//! `discern merge`: the folders of `sweep --shard` or `score --shard` runs into one.

use std::process::ExitCode;

use anyhow::{bail, Context};

use super::score::{finish_score, read_measures, ScoreSpec};
use super::sweep_cmd::finish_sweep;
use super::{read_run_file, write_manifest, MergeArgs};
use crate::shard;
use crate::sweep;

pub(super) fn merge_cmd(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let merged = shard::gather(&args.shards)?;
    let runs_out = args.out.join("runs");
    std::fs::create_dir_all(&runs_out)
        .with_context(|| format!("creating {}", runs_out.display()))?;
    let mut outcomes: Vec<Result<crate::report::Summary, String>> = Vec::new();
    for (run, source) in merged.manifest.runs.iter().zip(&merged.sources) {
        let from = source.join("runs").join(&run.dir);
        let to = runs_out.join(&run.dir);
        if from.is_dir() && std::fs::canonicalize(&from).ok() != std::fs::canonicalize(&to).ok() {
            shard::copy_dir(&from, &to)?;
        }
        outcomes.push(match &run.error {
            Some(e) => Err(e.clone()),
            None => Ok(read_run_file(&to.join("summary.json"))?),
        });
    }
    write_manifest(&args.out, &merged.manifest)?;
    match merged.manifest.command.as_str() {
        "sweep" => {
            let spec: sweep::outputs::Spec =
                serde_json::from_value(merged.manifest.spec.clone())
                    .context("reading the sweep's plan from the manifest")?;
            let mut records = Vec::new();
            for (run, outcome) in merged.manifest.runs.iter().zip(outcomes) {
                let point: sweep::Point = serde_json::from_value(run.job["point"].clone())
                    .context("reading a sweep point from the manifest")?;
                records.push(sweep::Record {
                    point,
                    controller: run.job["controller"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                    result: outcome.map(|s| sweep::Aggregate::of(&s)),
                });
            }
            finish_sweep(&args.out, &spec, &records)
        }
        "score" => {
            let spec: ScoreSpec = serde_json::from_value(merged.manifest.spec.clone())
                .context("reading the scoreboard's plan from the manifest")?;
            let plan = crate::score::only_classes(
                crate::score::plan(&spec.controllers, &spec.seeds),
                &spec.classes,
            );
            let jobs: Vec<crate::score::Job> = merged
                .manifest
                .runs
                .iter()
                .map(|r| serde_json::from_value(r.job.clone()))
                .collect::<Result<_, _>>()
                .context("reading a scoreboard run from the manifest")?;
            if jobs != plan {
                bail!("the manifests' runs are not this version's scoreboard plan");
            }
            let measures = read_measures(&args.out, &merged.manifest, &jobs, &outcomes)?;
            finish_score(
                &args.out,
                &spec.controllers,
                &spec.seeds,
                &plan,
                &outcomes,
                &measures,
            )
        }
        super::score_paths::COMMAND => {
            super::score_paths::merge_paths(&args.out, &merged.manifest, outcomes)
        }
        other => {
            bail!("manifest of an unknown command `{other}` (expected sweep, score or score-paths)")
        }
    }
}
