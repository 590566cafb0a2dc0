//! `discern sweep`: every combination of varied values and controllers, in parallel.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context};

use super::{
    check_baseline, dir_safe, load, overrides, progress_bar, resolve, runs_label, threads,
    write_manifest, QlogRunner, SweepArgs,
};
use crate::output;
use crate::report::RunOutput;
use crate::scenario::{FlowController, Override, Scenario};
use crate::shard::{self, Manifest, ManifestRun, Shard};
use crate::sweep;

pub(super) fn sweep_cmd(args: SweepArgs, runner: &QlogRunner<'_>) -> anyhow::Result<ExitCode> {
    let path = resolve(&args.common.scenario);
    let sets = overrides(&args.common.set)?;
    let controllers = controllers(&args)?;
    check_args(&args, controllers.len())?;
    let base = load(&path, &sets)?;
    let repeated = args.runs > 1 || args.baseline.is_some();
    // One run per combination keeps each scenario's seed (and `--vary seed=...`).
    let seeds = if repeated {
        sweep::seeds(base.seed, args.runs)?
    } else {
        Vec::new()
    };
    let spec = sweep::outputs::Spec {
        scenario: base.name.clone(),
        varies: args.vary.iter().map(ToString::to_string).collect(),
        controllers: controllers.iter().map(|c| c.id().to_owned()).collect(),
        seeds: seeds.clone(),
        baseline: args.baseline.clone(),
    };
    let points = sweep::expand_with_seeds(
        &args.vary,
        (!controllers.is_empty()).then_some(controllers.as_slice()),
        &seeds,
    );
    let jobs = scenarios(&path, &sets, points)?;
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join(format!("{}-sweep", dir_safe(&base.name))));
    let total = jobs.len();
    let part = args.shard.unwrap_or(Shard::ALL);
    let jobs: Vec<_> = jobs
        .into_iter()
        .filter(|(p, _)| part.contains(p.index))
        .collect();
    let records = run_points(&args, &dir, total, jobs, runner)?;
    let text = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
    let manifest = Manifest {
        command: "sweep".into(),
        version: shard::version(),
        scenario_hash: shard::hash(&[text, args.common.set.join("\n").into_bytes()].concat()),
        spec: serde_json::to_value(&spec)?,
        shard: part.to_string(),
        total,
        runs: records
            .iter()
            .map(|r| ManifestRun {
                index: r.point.index,
                dir: r.point.dir_name(total),
                job: serde_json::json!({ "point": r.point, "controller": r.controller }),
                error: r.result.as_ref().err().cloned(),
            })
            .collect(),
    };
    write_manifest(&dir, &manifest)?;
    if args.shard.is_some() {
        return shard_done(part, total, &dir, &records);
    }
    finish_sweep(&dir, &spec, &records)
}

/// The options that contradict each other or leave nothing to sweep (given `controllers`
/// resolved from `--controller`).
fn check_args(args: &SweepArgs, controllers: usize) -> anyhow::Result<()> {
    for (i, v) in args.vary.iter().enumerate() {
        if args.vary[..i].iter().any(|w| w.key == v.key) {
            bail!("--vary `{}` is given twice", v.key);
        }
    }
    if args.vary.is_empty() && args.runs < 2 && controllers < 2 {
        bail!(
            "a sweep needs --vary KEY=V1,V2,..., --runs N (N >= 2) or --controller with two \
             ids or more; for one run, use `discern run`"
        );
    }
    if args.runs > 1 && args.vary.iter().any(|v| v.key == "seed") {
        bail!("--vary seed=... and --runs both choose the seeds: use one (--runs N runs SEED .. SEED+N-1)");
    }
    Ok(())
}

/// `--controller` resolved, and `--baseline` checked to be one of them.
fn controllers(args: &SweepArgs) -> anyhow::Result<Vec<FlowController>> {
    let mut controllers = Vec::new();
    for list in &args.controller {
        controllers.extend(sweep::split_controllers(list)?);
    }
    let ids: Vec<&str> = controllers.iter().map(FlowController::id).collect();
    check_baseline(args.baseline.as_deref(), &ids)?;
    Ok(controllers)
}

/// Every point's scenario, built before anything runs, so that a bad key or value stops the
/// sweep at once.
fn scenarios(
    path: &Path,
    sets: &[Override],
    points: Vec<sweep::Point>,
) -> anyhow::Result<Vec<(sweep::Point, Scenario)>> {
    let mut jobs = Vec::with_capacity(points.len());
    for p in points {
        let mut all = sets.to_vec();
        all.extend(p.overrides());
        let mut s = load(path, &all)?;
        if let Some(c) = &p.controller {
            s.set_tested_controller(c);
        }
        jobs.push((p, s));
    }
    Ok(jobs)
}

/// Runs `jobs` in parallel, each run's outputs in `dir/runs/`.
fn run_points(
    args: &SweepArgs,
    dir: &Path,
    total: usize,
    jobs: Vec<(sweep::Point, Scenario)>,
    runner: &QlogRunner<'_>,
) -> anyhow::Result<Vec<sweep::Record>> {
    let runs_dir = dir.join("runs");
    std::fs::create_dir_all(&runs_dir)
        .with_context(|| format!("creating {}", runs_dir.display()))?;
    let bar = progress_bar(jobs.len(), &runs_label(args.shard));
    let kind = args.common.link;
    let run_dir = |p: &sweep::Point| runs_dir.join(p.dir_name(total));
    let run_one =
        |p: &sweep::Point, s: &Scenario| runner(s, kind, args.common.qlog_in(&run_dir(p)).as_ref());
    let on_done = |p: &sweep::Point, out: &RunOutput| {
        let r = output::write_run(&run_dir(p), out);
        bar.inc(1);
        r.map(|_| ())
    };
    let records = sweep::run_all_with(jobs, &run_one, threads(args.jobs), &on_done);
    bar.finish_and_clear();
    Ok(records)
}

/// One shard's runs are done: what ran and failed; the tables wait for `discern merge`.
fn shard_done(
    part: Shard,
    total: usize,
    dir: &Path,
    records: &[sweep::Record],
) -> anyhow::Result<ExitCode> {
    let failed = records.iter().filter(|r| r.result.is_err()).count();
    outln!(
        "shard {part}: {} of {total} runs ({failed} failed) in {}; `discern merge` the \
         shards' folders for the tables and plots",
        records.len(),
        dir.display()
    )?;
    for r in records.iter().filter(|r| r.result.is_err()) {
        if let Err(e) = &r.result {
            outln!("failed: {}: {e}", r.point.dir_name(total))?;
        }
    }
    Ok(if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Writes and prints a whole sweep's tables and plot; fails when a run failed or a flow
/// delivered nothing.
pub(super) fn finish_sweep(
    dir: &Path,
    spec: &sweep::outputs::Spec,
    records: &[sweep::Record],
) -> anyhow::Result<ExitCode> {
    let written = sweep::outputs::write(dir, spec, records)?;
    out!("{}", written.text)?;
    let names: Vec<String> = written
        .files
        .iter()
        .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    outln!(
        "outputs in {}: {}, and each run's in runs/",
        dir.display(),
        names.join(", ")
    )?;
    if written.failed > 0 {
        bail!(
            "{} of {} runs failed (see the error column)",
            written.failed,
            written.runs
        );
    }
    let empty = empty_runs(records);
    if !empty.is_empty() {
        bail!(
            "in run(s) {} a flow delivered nothing (its outcome is in the run's summary.json): \
             check the path's rate, loss and duration",
            empty.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The runs in which some flow delivered no byte: never a result a sweep can report as one.
/// Flows cut short by the run's end with some bytes delivered are counted in the `unfinished`
/// column instead, since a sweep may mean to cut them.
fn empty_runs(records: &[sweep::Record]) -> Vec<String> {
    records
        .iter()
        .filter(|r| matches!(&r.result, Ok(a) if a.delivered_nothing > 0))
        .map(|r| r.point.index.to_string())
        .collect()
}
