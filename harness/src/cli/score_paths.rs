//! `discern score --paths N --path-seed S`: the controllers over N random paths (see
//! [`crate::score::paths`]), sharded and merged as the fixed board is.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};

use super::score::{controllers, shard_done};
use super::{check_baseline, progress_bar, runs_label, threads, write_manifest, Runner, ScoreArgs};
use crate::output;
use crate::report::{RunOutput, Summary};
use crate::runner::LinkKind;
use crate::scenario::Scenario;
use crate::score::classes::traces_dir;
use crate::score::paths::render::Layout;
use crate::score::paths::{self, Draw, Measures, PathBoard, PathJob, PathRun, RandomPath};
use crate::shard::{self, Manifest, Shard};
use crate::sweep;

/// The manifest's `command` of a random-path board.
pub(super) const COMMAND: &str = "score-paths";

/// The random-path board's plan as its manifest records it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) struct PathsSpec {
    pub(super) controllers: Vec<String>,
    pub(super) draw: Draw,
    /// The controller the others are compared with path by path (`--baseline`).
    #[serde(default)]
    pub(super) baseline: Option<String>,
}

/// The draw's paths with their layouts; an error names a capacity trace that cannot be read.
fn laid_out(draw: &Draw, traces: &Path) -> anyhow::Result<Vec<(RandomPath, Layout)>> {
    draw.paths()?
        .into_iter()
        .map(|p| {
            let layout = p.layout(traces)?;
            Ok((p, layout))
        })
        .collect()
}

/// What a score-paths manifest's hash covers: the drawn paths, so that shards of different
/// draws (or of a version that draws differently) do not merge.
fn paths_text(paths: &[(RandomPath, Layout)]) -> Vec<u8> {
    let drawn: Vec<&RandomPath> = paths.iter().map(|(p, _)| p).collect();
    serde_json::to_vec(&drawn).unwrap_or_default()
}

pub(super) fn score_paths_cmd(
    args: &ScoreArgs,
    n: usize,
    runner: &Runner<'_>,
) -> anyhow::Result<ExitCode> {
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out/score-paths"));
    let controllers = controllers(args)?;
    let ids: Vec<&str> = controllers.iter().map(String::as_str).collect();
    check_baseline(args.baseline.as_deref(), &ids)?;
    let draw = Draw {
        paths: n,
        path_seed: args.path_seed,
        only_path: args.only_path,
    };
    let traces = traces_dir();
    let paths = laid_out(&draw, &traces)?;
    let drawn: Vec<RandomPath> = paths.iter().map(|(p, _)| p.clone()).collect();
    let by_index: HashMap<usize, &(RandomPath, Layout)> =
        paths.iter().map(|pl| (pl.0.index, pl)).collect();
    let plan = paths::plan(&drawn, &controllers);
    let total = plan.len();
    let part = args.shard.unwrap_or(Shard::ALL);
    let jobs: Vec<((usize, PathJob), Scenario)> = plan
        .iter()
        .enumerate()
        .filter(|(i, _)| part.contains(*i))
        .map(|(i, job)| {
            let (path, layout) = by_index[&job.path];
            let text = path.scenario_toml(layout, &job.controller, &traces);
            let name = format!("path-{}", path.index);
            let scenario = Scenario::from_toml(&text, &name, &[])
                .map_err(|e| anyhow::anyhow!("random path {}: {e}\n{text}", path.index))?;
            Ok(((i, job.clone()), scenario))
        })
        .collect::<anyhow::Result<_>>()?;
    let runs_dir = out.join("runs");
    std::fs::create_dir_all(&runs_dir)
        .with_context(|| format!("creating {}", runs_dir.display()))?;
    let bar = progress_bar(jobs.len(), &runs_label(args.shard));
    let run_one = |s: &Scenario| runner(s, LinkKind::Sim);
    let keep = |(i, job): &(usize, PathJob), run: &RunOutput| {
        let dir = runs_dir.join(job.dir_name(*i, total));
        let (path, layout) = by_index[&job.path];
        let settle_s = paths::SETTLE_OF_RUN * layout.run_s;
        let measures = Measures::of(run, settle_s);
        let scenario = path.scenario_toml(layout, &job.controller, &traces);
        let r = std::fs::create_dir_all(&dir)
            .with_context(|| format!("creating {}", dir.display()))
            .and_then(|_| output::write_json(&dir.join("summary.json"), &run.summary))
            .and_then(|_| output::write_json(&dir.join(crate::score::measure::FILE), &measures))
            .and_then(|_| output::write_scenario(&dir, &scenario));
        bar.inc(1);
        r?;
        Ok(PathRun {
            summary: run.summary.clone(),
            measures,
        })
    };
    let outcomes = sweep::run_jobs(&jobs, &run_one, threads(args.jobs), &keep);
    bar.finish_and_clear();
    let manifest = Manifest {
        command: COMMAND.into(),
        version: shard::version(),
        scenario_hash: shard::hash(&paths_text(&paths)),
        spec: serde_json::to_value(PathsSpec {
            controllers: controllers.clone(),
            draw,
            baseline: args.baseline.clone(),
        })?,
        shard: part.to_string(),
        total,
        runs: super::manifest_runs(&jobs, &outcomes, |i, job| job.dir_name(i, total))?,
    };
    write_manifest(&out, &manifest)?;
    if args.shard.is_some() {
        let failed = outcomes.iter().filter(|o| o.is_err()).count();
        return shard_done(part, total, jobs.len(), failed, &out);
    }
    let board = PathBoard::of(draw, &controllers, &paths, &plan, &outcomes)
        .with_baseline(args.baseline.as_deref());
    finish_paths(&out, &board, plan.len())
}

/// Writes the board's outputs and prints its tables; `runs` is how many the board ran.
fn finish_paths(dir: &Path, board: &PathBoard, runs: usize) -> anyhow::Result<ExitCode> {
    let files = paths::write(dir, board)?;
    out!("{}", board.tables())?;
    let names: Vec<String> = files
        .iter()
        .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    outln!(
        "\noutputs in {}: {}, and each run's summary in runs/",
        dir.display(),
        names.join(", ")
    )?;
    if !board.failures.is_empty() {
        for (run, error) in &board.failures {
            outln!("failed: {run}: {error}")?;
        }
        bail!(
            "{} of {} runs failed (listed above; their paths are left out of the figures)",
            board.failures.len(),
            runs
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `discern merge` of score-paths shards: the merged `manifest`'s runs, whose summaries
/// (`summaries`, in order) are already read from `dir/runs/`, with their measures.
pub(super) fn merge_paths(
    dir: &Path,
    manifest: &Manifest,
    summaries: Vec<Result<Summary, String>>,
) -> anyhow::Result<ExitCode> {
    let spec: PathsSpec = serde_json::from_value(manifest.spec.clone())
        .context("reading the random paths' plan from the manifest")?;
    let paths = laid_out(&spec.draw, &traces_dir())?;
    if shard::hash(&paths_text(&paths)) != manifest.scenario_hash {
        bail!("the shards' paths are not the ones this version draws for their seed");
    }
    let drawn: Vec<RandomPath> = paths.iter().map(|(p, _)| p.clone()).collect();
    let plan = paths::plan(&drawn, &spec.controllers);
    let jobs: Vec<PathJob> = manifest
        .runs
        .iter()
        .map(|r| serde_json::from_value(r.job.clone()))
        .collect::<Result<_, _>>()
        .context("reading a random-path run from the manifest")?;
    if jobs != plan {
        bail!("the manifests' runs are not this version's plan for the random paths");
    }
    let mut outcomes = Vec::with_capacity(summaries.len());
    for (run, summary) in manifest.runs.iter().zip(summaries) {
        outcomes.push(match summary {
            Err(e) => Err(e),
            Ok(summary) => {
                let file = crate::score::measure::FILE;
                let measures = super::read_run_file(&dir.join("runs").join(&run.dir).join(file))?;
                Ok(PathRun { summary, measures })
            }
        });
    }
    let board = PathBoard::of(spec.draw, &spec.controllers, &paths, &plan, &outcomes)
        .with_baseline(spec.baseline.as_deref());
    finish_paths(dir, &board, plan.len())
}
