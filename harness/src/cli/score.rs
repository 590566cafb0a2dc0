//! `discern score`: the controllers over the scoreboard's path classes, n seeds each.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context};

use super::{controller, progress_bar, runs_label, threads, write_manifest, Runner, ScoreArgs};
use crate::output;
use crate::report::{RunOutput, Summary};
use crate::runner::LinkKind;
use crate::scenario::Scenario;
use crate::score::classes::{traces_dir, Flows, AFTER_VISIT_SETTLE_S};
use crate::score::measure::{self, Measures};
use crate::score::Job;
use crate::shard::{self, Manifest, Shard};
use crate::sweep;

/// The scoreboard's plan as its manifest records it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) struct ScoreSpec {
    pub(super) controllers: Vec<String>,
    pub(super) seeds: Vec<u64>,
    /// The classes `--class` chose; empty: every class.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) classes: Vec<String>,
}

/// Every class's scenario text: what a score manifest's hash covers. Capacity traces are named
/// in a fixed folder, so that shards run where the traces lie elsewhere still merge.
fn score_text() -> Vec<u8> {
    let traces = Path::new("TRACES");
    crate::score::classes::CLASSES
        .iter()
        .flat_map(|c| c.scenario_toml_in("ID", 0, false, traces).into_bytes())
        .collect()
}

/// A scoreboard job with its place in the plan, and its scenario or why it cannot be built.
type ScorePartJob = ((usize, crate::score::Job), Result<Scenario, String>);

/// The jobs of `part` of the plan. A job whose scenario cannot be built (a capacity trace not
/// where the class looks) fails alone, named in the failures, while the other classes run.
fn score_part(plan: &[crate::score::Job], part: Shard) -> Vec<ScorePartJob> {
    plan.iter()
        .enumerate()
        .filter(|(i, _)| part.contains(*i))
        .map(|(i, job)| {
            (
                (i, job.clone()),
                job.scenario().map_err(|e| format!("{e:#}")),
            )
        })
        .collect()
}

/// The part's outcomes in its order: those of the jobs that ran (`ran`, in order), and the
/// errors of those that could not be built.
fn with_unbuilt<T>(part: &[ScorePartJob], ran: Vec<Result<T, String>>) -> Vec<Result<T, String>> {
    let mut ran = ran.into_iter();
    part.iter()
        .map(|(_, scenario)| match scenario {
            Ok(_) => ran.next().expect("every job with a scenario ran"),
            Err(e) => Err(e.clone()),
        })
        .collect()
}

/// Writes a run's `summary.json` and its scenario ([`output::SCENARIO_FILE`]) in `dir`; for a
/// class a peer visits, also what its series showed beside the summary (`measures.json`), which
/// the figures need and the summary does not hold.
fn keep_run(job: &Job, out: &RunOutput, dir: &Path) -> anyhow::Result<(Summary, Measures)> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    output::write_json(&dir.join("summary.json"), &out.summary)?;
    output::write_scenario(dir, &job.scenario_text(&traces_dir())?)?;
    let measures = match job.class()?.flows {
        Flows::Visited { .. } => {
            let measures = Measures::of(out, AFTER_VISIT_SETTLE_S);
            output::write_json(&dir.join(measure::FILE), &measures)?;
            measures
        }
        _ => Measures::default(),
    };
    Ok((out.summary.clone(), measures))
}

/// The outcomes and, in the same order, the measures (none for a failed run).
fn split_measures(
    runs: Vec<Result<(Summary, Measures), String>>,
) -> (Vec<crate::score::Outcome>, Vec<Measures>) {
    runs.into_iter()
        .map(|r| match r {
            Ok((summary, measures)) => (Ok(summary), measures),
            Err(e) => (Err(e), Measures::default()),
        })
        .unzip()
}

/// The measures of the runs the merged `outcomes` name, read from each run's folder in `dir`
/// where its class has a visiting peer and the run succeeded.
pub(super) fn read_measures(
    dir: &Path,
    manifest: &Manifest,
    jobs: &[Job],
    outcomes: &[crate::score::Outcome],
) -> anyhow::Result<Vec<Measures>> {
    let mut measures = Vec::with_capacity(jobs.len());
    for ((run, job), outcome) in manifest.runs.iter().zip(jobs).zip(outcomes) {
        let visited = matches!(job.class()?.flows, Flows::Visited { .. });
        if !visited || outcome.is_err() {
            measures.push(Measures::default());
            continue;
        }
        let file = dir.join("runs").join(&run.dir).join(measure::FILE);
        measures.push(super::read_run_file(&file)?);
    }
    Ok(measures)
}

/// The word in `--controller` that names [`crate::score::DEFAULT_CONTROLLERS`].
const DEFAULTS: &str = "defaults";

/// `--controller` resolved (the defaults without it); the scoreboard runs on the simulator, so
/// no kernel TCP. It keys its runs and labels its rows by id: each run's scenario resolves the
/// id when the class's scenario loads.
pub(super) fn controllers(args: &ScoreArgs) -> anyhow::Result<Vec<String>> {
    let mut chosen = Vec::new();
    for list in &args.controller {
        let (defaults, named): (Vec<&str>, Vec<&str>) =
            list.split(',').partition(|id| id.trim() == DEFAULTS);
        if !defaults.is_empty() {
            for id in crate::score::DEFAULT_CONTROLLERS {
                chosen.push(controller(id)?);
            }
        }
        if !named.is_empty() {
            chosen.extend(sweep::split_controllers(&named.join(","))?);
        }
    }
    if chosen.is_empty() {
        for id in crate::score::DEFAULT_CONTROLLERS {
            chosen.push(controller(id)?);
        }
    }
    if let Some(c) = chosen.iter().find(|c| c.kernel_tcp().is_some()) {
        bail!("{c} is the kernel's TCP: the scoreboard runs on the simulator");
    }
    let mut ids: Vec<String> = Vec::with_capacity(chosen.len());
    for id in chosen.iter().map(|c| c.id()) {
        if !ids.iter().any(|seen| seen == id) {
            ids.push(id.to_owned());
        }
    }
    Ok(ids)
}

/// The fixed board; `--paths` is the random-path board's (`score_paths`).
pub(super) fn score_cmd(args: ScoreArgs, runner: &Runner<'_>) -> anyhow::Result<ExitCode> {
    let out = args.out.clone().unwrap_or_else(|| "out/score".into());
    let controllers = controllers(&args)?;
    let seeds = sweep::seeds(args.seed, args.runs)?;
    let patterns: Vec<String> = args
        .class
        .iter()
        .flat_map(|l| l.split(','))
        .map(|c| c.trim().to_owned())
        .filter(|c| !c.is_empty())
        .collect();
    let classes = crate::score::select_classes(&patterns)?;
    let plan = crate::score::only_classes(crate::score::plan(&controllers, &seeds), &classes);
    let total = plan.len();
    let part = args.shard.unwrap_or(Shard::ALL);
    let part_jobs = score_part(&plan, part);
    let jobs: Vec<_> = part_jobs
        .iter()
        .filter_map(|(job, s)| s.as_ref().ok().map(|s| (job.clone(), s.clone())))
        .collect();
    let runs_dir = out.join("runs");
    std::fs::create_dir_all(&runs_dir)
        .with_context(|| format!("creating {}", runs_dir.display()))?;
    let bar = progress_bar(jobs.len(), &runs_label(args.shard));
    let run_one = |s: &Scenario| runner(s, LinkKind::Sim);
    let keep = |(i, job): &(usize, crate::score::Job), out: &RunOutput| {
        let dir = runs_dir.join(job.dir_name(*i, total));
        let r = keep_run(job, out, &dir);
        bar.inc(1);
        r
    };
    let ran = sweep::run_jobs(&jobs, &run_one, threads(args.jobs), &keep);
    bar.finish_and_clear();
    let (outcomes, measures) = split_measures(with_unbuilt(&part_jobs, ran));
    let manifest = Manifest {
        command: "score".into(),
        version: shard::version(),
        scenario_hash: shard::hash(&score_text()),
        spec: serde_json::to_value(ScoreSpec {
            controllers: controllers.clone(),
            seeds: seeds.clone(),
            classes,
        })?,
        shard: part.to_string(),
        total,
        runs: super::manifest_runs(&part_jobs, &outcomes, |i, job| job.dir_name(i, total))?,
    };
    write_manifest(&out, &manifest)?;
    if args.shard.is_some() {
        let failed = outcomes.iter().filter(|o| o.is_err()).count();
        return shard_done(part, total, part_jobs.len(), failed, &out);
    }
    finish_score(&out, &controllers, &seeds, &plan, &outcomes, &measures)
}

/// One shard's runs are done; the scoreboard waits for `discern merge`.
pub(super) fn shard_done(
    part: Shard,
    total: usize,
    ran: usize,
    failed: usize,
    dir: &Path,
) -> anyhow::Result<ExitCode> {
    outln!(
        "shard {part}: {ran} of {total} runs ({failed} failed) in {}; `discern merge` the \
         shards' folders for the scoreboard",
        dir.display()
    )?;
    Ok(if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

pub(super) fn finish_score(
    dir: &Path,
    controllers: &[String],
    seeds: &[u64],
    plan: &[crate::score::Job],
    outcomes: &[crate::score::Outcome],
    measures: &[Measures],
) -> anyhow::Result<ExitCode> {
    let board = crate::score::Scoreboard::measured(controllers, seeds, plan, outcomes, measures);
    let files = crate::score::write(dir, &board)?;
    out!("{}", board.tables())?;
    out!("{}", board.footer())?;
    let names: Vec<String> = files
        .iter()
        .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    outln!(
        "outputs in {}: {}, and each run's summary in runs/",
        dir.display(),
        names.join(", ")
    )?;
    if !board.failures.is_empty() {
        bail!(
            "{} of {} runs failed (listed above; their seeds are left out of the means)",
            board.failures.len(),
            plan.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command};

    fn chosen(list: &str) -> anyhow::Result<Vec<String>> {
        let cli = Cli::try_parse_from(["discern", "score", "--controller", list]).unwrap();
        let Command::Score(args) = cli.command else {
            panic!("a score command")
        };
        controllers(&args)
    }

    #[test]
    fn defaults_names_the_default_controllers_beside_others_once_each() {
        let ids = chosen("defaults,noq-bbr3,discern").unwrap();
        let defaults = crate::score::DEFAULT_CONTROLLERS;
        assert_eq!(ids.len(), defaults.len() + 1, "{ids:?}");
        assert_eq!(&ids[..defaults.len()], defaults);
        assert_eq!(ids.last().map(String::as_str), Some("noq-bbr3"));
        let e = chosen("defaults,tcp-cubic").unwrap_err().to_string();
        assert!(e.contains("kernel's TCP"), "{e}");
    }
}
