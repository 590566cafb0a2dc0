//! The `discern` command line: the arguments (`args`), one module per command, and what they
//! share (loading a scenario, the progress bar, the output folder).

use std::io::IsTerminal;

/// `print!` that returns the error instead of panicking: a closed pipe (`discern list | head`)
/// ends the command (see [`is_closed_pipe`]) instead of crashing it.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($arg)*).map_err(crate::cli::StdoutError)
    }};
}

/// `println!` that returns the error instead of panicking; see [`out!`].
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*).map_err(crate::cli::StdoutError)
    }};
}

/// Writing a table or a message to stdout failed.
#[derive(Debug, thiserror::Error)]
#[error("writing to stdout: {0}")]
pub struct StdoutError(pub std::io::Error);

/// Whether `error` is stdout's reader having gone away (`discern list | head`): the reader has
/// what it wanted, so the command ends quietly, as other Unix tools do. Outputs and clean-up
/// happen before the tables are printed, so nothing is lost.
pub fn is_closed_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .filter_map(|e| e.downcast_ref::<StdoutError>())
        .any(|e| e.0.kind() == std::io::ErrorKind::BrokenPipe)
}
mod args;
mod clean;
mod compare;
mod list;
mod merge;
mod plot;
mod run;
mod score;
mod score_paths;
mod sweep_cmd;

pub use args::*;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::anyhow;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::report::RunOutput;
use crate::runner::{self, LinkKind};
use crate::scenario::Override;
use crate::scenario::{FlowController, Scenario};
use crate::shard::{Manifest, Shard};
use crate::transport::Qlog;

/// The command line with the scoreboard's matrix in `discern score --help`, generated from the
/// class table so the two never disagree.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    Cli::command().mut_subcommand("score", |c| c.after_help(crate::score::matrix_help()))
}

/// Parses the process's arguments with [`command`] (exits with clap's message on bad input).
pub fn parse() -> Cli {
    use clap::FromArgMatches;
    Cli::from_arg_matches(&command().get_matches()).unwrap_or_else(|e| e.exit())
}

/// Runs a parsed command line; `Err` is reported as `error: <message>` by the binary.
pub fn execute(cli: Cli) -> anyhow::Result<ExitCode> {
    let protection = cli.command.packet_protection();
    dispatch(cli, &|s, kind, qlog| {
        runner::run_with_qlog(s, kind, protection, qlog)
    })
}

/// A runner as the CLI calls it: the scenario and the `--link` choice.
pub type Runner<'a> = dyn Fn(&Scenario, LinkKind) -> anyhow::Result<RunOutput> + Sync + 'a;

/// A [`Runner`] that is also told where the run writes its qlog traces (`--qlog`): only the
/// command knows each run's output folder.
type QlogRunner<'a> =
    dyn Fn(&Scenario, LinkKind, Option<&Qlog>) -> anyhow::Result<RunOutput> + Sync + 'a;

/// [`execute`] with another runner in place of [`runner::run_with`] (tests use a synthetic one).
/// Such a runner writes no qlog traces: `--qlog` is quinn's, which it may not run.
pub fn execute_with(cli: Cli, runner: &Runner<'_>) -> anyhow::Result<ExitCode> {
    dispatch(cli, &|s, kind, _| runner(s, kind))
}

fn dispatch(cli: Cli, runner: &QlogRunner<'_>) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run(args) => run::run(args, runner),
        Command::Sweep(args) => sweep_cmd::sweep_cmd(args, runner),
        Command::Score(args) => {
            let runner = |s: &_, kind| runner(s, kind, None);
            match args.paths {
                Some(paths) => score_paths::score_paths_cmd(&args, paths, &runner),
                None => score::score_cmd(args, &runner),
            }
        }
        Command::Merge(args) => merge::merge_cmd(args),
        Command::Compare(args) => compare::compare_cmd(&args),
        Command::Plot(args) => plot::plot_cmd(&args),
        Command::List => list::list(Path::new("scenarios")),
        Command::Keys => {
            out!("{}", crate::scenario::key_reference())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Clean(args) => clean::clean(&args),
    }
}

/// Writes `manifest` to `dir/manifest.json`, the keys of its free-form parts (the spec, each
/// run's job) in sorted order. quinn's qlog support turns on serde_json's `preserve_order` for
/// the whole harness, which would otherwise write them in field order; sorting keeps manifests
/// as they always were, with or without that feature.
fn write_manifest(dir: &Path, manifest: &Manifest) -> anyhow::Result<()> {
    let mut sorted = manifest.clone();
    sorted.spec.sort_all_objects();
    for run in &mut sorted.runs {
        run.job.sort_all_objects();
    }
    crate::output::write_json(&dir.join(crate::shard::MANIFEST), &sorted)
}

/// Each run of a part as its manifest records it: plan index, folder (`dir_name` of the index and
/// job), the job, and why it failed.
fn manifest_runs<J: serde::Serialize, X, T>(
    part: &[((usize, J), X)],
    outcomes: &[Result<T, String>],
    dir_name: impl Fn(usize, &J) -> String,
) -> anyhow::Result<Vec<crate::shard::ManifestRun>> {
    part.iter()
        .zip(outcomes)
        .map(|(((i, job), _), o)| {
            Ok(crate::shard::ManifestRun {
                index: *i,
                dir: dir_name(*i, job),
                job: serde_json::to_value(job)?,
                error: o.as_ref().err().cloned(),
            })
        })
        .collect()
}

/// A file a run wrote (its `summary.json`, its measures) that the manifest says succeeded, read
/// and parsed; the error names the file.
fn read_run_file<T: serde::de::DeserializeOwned>(path: &Path) -> anyhow::Result<T> {
    use anyhow::Context;
    let text = std::fs::read_to_string(path).with_context(|| {
        format!(
            "reading {} (the manifest says the run succeeded)",
            path.display()
        )
    })?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

fn overrides(sets: &[String]) -> anyhow::Result<Vec<Override>> {
    sets.iter()
        .map(|s| s.parse::<Override>().map_err(|e| anyhow!("{e}")))
        .collect()
}

/// A path as given, or `scenarios/<name>.toml` when a bare name is not a file.
fn resolve(path: &Path) -> PathBuf {
    if !path.exists() && path.components().count() == 1 && path.extension().is_none() {
        let candidate = Path::new("scenarios").join(path).with_extension("toml");
        if candidate.exists() {
            return candidate;
        }
    }
    path.to_path_buf()
}

fn load(path: &Path, overrides: &[Override]) -> anyhow::Result<Scenario> {
    Scenario::from_file(path, overrides).map_err(|e| anyhow!("{e}"))
}

/// Resolves `--controller ID` once, so a typo stops before anything runs. Whether the kernel
/// offers a kernel TCP id's controller is the netns runner's to check.
fn controller(id: &str) -> anyhow::Result<FlowController> {
    FlowController::parse(id).map_err(|e| anyhow!("{e}"))
}

/// A scenario name made safe as one path component.
fn dir_safe(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.chars().all(|c| c == '.') {
        "scenario".into()
    } else {
        s
    }
}

/// Refuses a `--baseline` that is not one of the controllers `ids`, naming the fix.
fn check_baseline(baseline: Option<&str>, ids: &[&str]) -> anyhow::Result<()> {
    match baseline {
        Some(b) if !ids.contains(&b) => Err(anyhow!(
            "--baseline {b} is not one of --controller ({}): add it there",
            if ids.is_empty() {
                "none given".to_string()
            } else {
                ids.join(", ")
            }
        )),
        _ => Ok(()),
    }
}

/// `--jobs`, or the number of CPUs.
fn threads(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

/// What the progress bar counts: runs, and which shard when sharded.
fn runs_label(shard: Option<Shard>) -> String {
    match shard {
        Some(part) => format!("runs of shard {part}"),
        None => "runs".into(),
    }
}

/// A progress bar over `total` items with an ETA on stderr, or a hidden one when stderr is not
/// a terminal (logs and CI stay clean).
fn progress_bar(total: usize, what: &str) -> ProgressBar {
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{bar:40}} {{pos}}/{{len}} {what}  {{elapsed_precise}} (eta {{eta}})"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}
