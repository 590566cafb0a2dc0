//! `discern run`: one scenario, or one scenario on N seeds (`--runs`).

use std::path::Path;
use std::process::ExitCode;

use anyhow::bail;

use super::{
    controller, dir_safe, load, overrides, progress_bar, resolve, threads, QlogRunner, RunArgs,
};
use crate::output::{self, table};
use crate::report::RunOutput;
use crate::scenario::{FlowController, Override, Scenario};
use crate::sweep;

pub(super) fn run(args: RunArgs, runner: &QlogRunner<'_>) -> anyhow::Result<ExitCode> {
    let path = resolve(&args.common.scenario);
    let sets = overrides(&args.common.set)?;
    let mut scenario = load(&path, &sets)?;
    let chosen = args.controller.as_deref().map(controller).transpose()?;
    if let Some(c) = &chosen {
        scenario.set_tested_controller(c);
    }
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join(dir_safe(&scenario.name)));
    if args.runs != 1 {
        let seeds = SeedRuns {
            path: &path,
            sets: &sets,
            controller: chosen.as_ref(),
        };
        return run_repeated(&args, &seeds, &scenario, &dir, runner);
    }
    let out = runner(
        &scenario,
        args.common.link,
        args.common.qlog_in(&dir).as_ref(),
    )?;
    let files = output::write_run(&dir, &out)?;

    out!("{}", table::run_table(&out.summary).render())?;
    out!("{}", table::run_footer(&out.summary))?;
    let mut names: Vec<String> = files
        .iter()
        .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    if args.common.qlog {
        names.push(format!("{}/", output::QLOG_DIR));
    }
    outln!("outputs in {}: {}", dir.display(), names.join(", "))?;

    let unverified: Vec<String> = out
        .summary
        .flows
        .iter()
        .filter(|f| !f.verified)
        .map(|f| f.flow.to_string())
        .collect();
    if !unverified.is_empty() {
        bail!(
            "flow {}: the bytes received differ from the bytes sent",
            unverified.join(", ")
        );
    }
    let unfinished = table::unfinished(&out.summary);
    if !unfinished.is_empty() && !args.allow_incomplete {
        bail!(
            "{} did not finish its transfer (see above); pass --allow-incomplete to accept \
             that and exit 0",
            unfinished.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Where `run --runs N` builds each seed's scenario from.
struct SeedRuns<'a> {
    path: &'a Path,
    sets: &'a [Override],
    controller: Option<&'a FlowController>,
}

/// `run --runs N`: the scenario on N seeds, each seed's outputs in `dir/seed=<S>/`, and
/// `dir/aggregate.json`.
fn run_repeated(
    args: &RunArgs,
    from: &SeedRuns<'_>,
    scenario: &Scenario,
    dir: &Path,
    runner: &QlogRunner<'_>,
) -> anyhow::Result<ExitCode> {
    let seeds = sweep::seeds(scenario.seed, args.runs)?;
    let mut jobs = Vec::with_capacity(seeds.len());
    for &seed in &seeds {
        let mut all = from.sets.to_vec();
        all.extend(overrides(&[format!("seed={seed}")])?);
        let mut s = load(from.path, &all)?;
        if let Some(c) = from.controller {
            s.set_tested_controller(c);
        }
        jobs.push((seed, s));
    }
    let bar = progress_bar(jobs.len(), "runs");
    let kind = args.common.link;
    let seed_dir = |seed: u64| dir.join(format!("seed={seed}"));
    // Each job's scenario carries its seed, which names the run's folder.
    let run_one = |s: &Scenario| runner(s, kind, args.common.qlog_in(&seed_dir(s.seed)).as_ref());
    let keep = |seed: &u64, out: &RunOutput| {
        let r = output::write_run(&seed_dir(*seed), out);
        bar.inc(1);
        r?;
        Ok(out.summary.clone())
    };
    let results = sweep::run_jobs(&jobs, &run_one, threads(args.jobs), &keep);
    bar.finish_and_clear();
    let aggregate = crate::run_aggregate::RunAggregate::of(&scenario.name, &seeds, &results);
    let json = dir.join("aggregate.json");
    output::write_json(&json, &aggregate)?;
    out!("{}", aggregate.table().render())?;
    out!("{}", aggregate.footer())?;
    outln!(
        "outputs in {}: aggregate.json, and each seed's in seed=<S>/",
        dir.display()
    )?;
    let unverified: usize = aggregate.flows.iter().map(|f| f.unverified).sum();
    if unverified > 0 {
        bail!("{unverified} flow run(s): the bytes received differ from the bytes sent");
    }
    if !aggregate.failed.is_empty() {
        bail!("{} of {} runs failed", aggregate.failed.len(), seeds.len());
    }
    let unfinished: usize = aggregate.flows.iter().map(|f| f.unfinished).sum();
    if unfinished > 0 && !args.allow_incomplete {
        bail!(
            "{unfinished} flow run(s) did not finish their transfer (incomplete or no handshake); \
             pass --allow-incomplete to accept that and exit 0"
        );
    }
    Ok(ExitCode::SUCCESS)
}
