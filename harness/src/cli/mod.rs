//! The `discern` command line: `run`, `sweep`, `list`.

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
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::output::{self, table};
use crate::report::RunOutput;
use crate::runner::{self, LinkKind};
use crate::scenario::Override;
use crate::scenario::Scenario;
use crate::shard::{self, Manifest, ManifestRun, Shard};
use crate::sim::PacketProtection;
use crate::sweep::{self, Vary};

/// Loss-discriminating congestion control for QUIC: run scenarios on a simulator or in network
/// namespaces, and compare controllers.
#[derive(Debug, Parser)]
#[command(name = "discern", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run one scenario and write its summary, time series and plots.
    Run(RunArgs),
    /// Run every combination of varied values and controllers in parallel; one table and plots.
    Sweep(SweepArgs),
    /// Score controllers over a fixed matrix of path classes, n seeds each: efficiency on random
    /// loss, harm to a competing flow, fairness, verdict accuracy, queueing delay, each with its
    /// 95 % confidence interval; writes score.csv, score.json and a heatmap.
    Score(ScoreArgs),
    /// Merge the --out folders of `sweep --shard` or `score --shard` runs into what one
    /// unsharded run writes.
    Merge(MergeArgs),
    /// Turn an application's JSON log of the controllers' events (tracing-subscriber's JSON
    /// formatter, target `discern::cwnd` at TRACE) into flows.csv and the cwnd and throughput
    /// plots a run writes.
    Plot(PlotArgs),
    /// List the controllers (with parameters) and the scenarios in ./scenarios/.
    List,
    /// Remove the network namespaces (and with them the links, TUN devices and qdiscs) that
    /// killed `--link netns` runs left behind (root).
    Clean(CleanArgs),
}

#[derive(Debug, Args)]
pub struct ScoreArgs {
    /// Controllers to score, comma-separated [default: newreno, modified-sack, wnewreno,
    /// composite, veno, westwood, discern, discern:queue=full, quinn-newreno,
    /// quinn-cubic, quinn-bbr].
    #[arg(long, value_name = "ID1,ID2,...")]
    pub controller: Vec<String>,
    /// Seeds per controller and class: SEED .. SEED+N-1.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub runs: usize,
    /// The first seed.
    #[arg(long, value_name = "SEED", default_value_t = 1)]
    pub seed: u64,
    /// Output folder; each run's summary.json goes to DIR/runs/INDEX-CLASS-CONTROLLER.../.
    #[arg(long, value_name = "DIR", default_value = "out/score")]
    pub out: PathBuf,
    /// Runs at once [default: the number of CPUs].
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Run only part K of N (round robin over the runs) and write its runs and manifest.json;
    /// `discern merge` puts the parts together.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Seal the simulator's packets with rustls's real ciphers. By default they carry null
    /// protection: the TLS handshake is real, but packets are sealed without cryptography, with
    /// the same sizes and so the same results, faster. netns runs always use the real ciphers.
    #[arg(long)]
    pub real_crypto: bool,
}

#[derive(Debug, Args)]
pub struct PlotArgs {
    /// The log: one JSON object per line, as tracing-subscriber's `fmt().json()` writes it.
    #[arg(value_name = "LOGFILE")]
    pub log: PathBuf,
    /// Output folder [default: out/LOG_FILE_STEM/].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The --out folders of every shard.
    #[arg(value_name = "DIR", required = true)]
    pub shards: Vec<PathBuf>,
    /// Where the merged outputs go (the runs are copied there).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
pub struct CleanArgs {
    /// Also remove the namespaces of runs that are still going.
    #[arg(long)]
    pub all: bool,
}

#[derive(Debug, Args)]
pub struct Common {
    /// Scenario file (TOML), or the name of one in ./scenarios/.
    #[arg(value_name = "SCENARIO")]
    pub scenario: PathBuf,
    /// What carries the packets: the deterministic simulator, or Linux network namespaces (root).
    #[arg(long, value_name = "sim|netns", default_value = "sim")]
    pub link: LinkKind,
    /// Override a scenario value, e.g. `--set link.bottleneck.loss.rate=0.01`. Repeatable.
    #[arg(long = "set", value_name = "K=V")]
    pub set: Vec<String>,
    /// Seal the simulator's packets with rustls's real ciphers. By default they carry null
    /// protection: the TLS handshake is real, but packets are sealed without cryptography, with
    /// the same sizes and so the same results, faster. netns runs always use the real ciphers.
    #[arg(long)]
    pub real_crypto: bool,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub common: Common,
    /// Output folder [default: out/SCENARIO_NAME/].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Run every flow with this controller, e.g. `modified-sack:tolerance=0.02`.
    #[arg(long, value_name = "ID")]
    pub controller: Option<String>,
    /// Repeat the run on seeds SEED .. SEED+N-1 (SEED is the scenario's `seed`): each seed's
    /// outputs go to DIR/seed=SEED/, and DIR/aggregate.json holds n, mean, sd and the 95 %
    /// confidence interval of every figure.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub runs: usize,
    /// Runs at once with --runs [default: the number of CPUs].
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
}

#[derive(Debug, Args)]
pub struct SweepArgs {
    #[command(flatten)]
    pub common: Common,
    /// A scenario key and its values, e.g. `--vary link.bottleneck.loss.rate=0.001,0.01,0.1`.
    /// Repeatable: every combination runs. The first one is the x axis of the goodput plot.
    /// A sweep needs --vary or --runs N (N >= 2).
    #[arg(long, value_name = "K=V1,V2,...")]
    pub vary: Vec<Vary>,
    /// Controllers to compare, comma-separated, e.g. `newreno,modified-sack:tolerance=0.02`
    /// (a piece `param=value` continues the id before it). Repeatable. Without it, each run
    /// keeps the scenario's own controllers.
    #[arg(long, value_name = "ID1,ID2,...")]
    pub controller: Vec<String>,
    /// Output folder [default: out/SCENARIO_NAME-sweep/]; each run's outputs go to
    /// DIR/runs/INDEX-VALUES/.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Runs at once [default: the number of CPUs].
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Repeat every combination on seeds SEED .. SEED+N-1 (SEED is the scenario's `seed`; every
    /// controller runs on the same seeds). sweep.csv then has one row per combination with n,
    /// mean, sd and the 95 % confidence interval (Student's t) of every figure, runs.csv one row
    /// per run, aggregate.json both, and the plot error bars.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub runs: usize,
    /// Report each controller's goodput as a ratio to this controller's on the same seed and
    /// values (paired), with the mean and 95 % confidence interval of the ratios. One of
    /// --controller.
    #[arg(long, value_name = "ID")]
    pub baseline: Option<String>,
    /// Run only part K of N of the sweep (round robin over the runs) and write its runs and
    /// manifest.json; `discern merge` puts the parts together.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
}

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
    execute_with(cli, &|s, kind| runner::run_with(s, kind, protection))
}

impl Command {
    /// How the simulator seals packets for this command (`--real-crypto`).
    fn packet_protection(&self) -> PacketProtection {
        let real = match self {
            Command::Run(a) => a.common.real_crypto,
            Command::Sweep(a) => a.common.real_crypto,
            Command::Score(a) => a.real_crypto,
            _ => false,
        };
        if real {
            PacketProtection::Real
        } else {
            PacketProtection::Null
        }
    }
}

/// A runner as the CLI calls it: the scenario and the `--link` choice.
pub type Runner<'a> = dyn Fn(&Scenario, LinkKind) -> anyhow::Result<RunOutput> + Sync + 'a;

/// [`execute`] with another runner in place of [`runner::run_with`] (tests use a synthetic one).
pub fn execute_with(cli: Cli, runner: &Runner<'_>) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run(args) => run(args, runner),
        Command::Sweep(args) => sweep_cmd(args, runner),
        Command::Score(args) => score_cmd(args, runner),
        Command::Merge(args) => merge_cmd(args),
        Command::Plot(args) => plot_cmd(&args),
        Command::List => list(Path::new("scenarios")),
        Command::Clean(args) => clean(&args),
    }
}

fn clean(args: &CleanArgs) -> anyhow::Result<ExitCode> {
    let done = crate::netns::clean(None, args.all)?;
    if done.removed.is_empty() {
        outln!("nothing to remove")?;
    } else {
        outln!("removed {} namespace(s):", done.removed.len())?;
        for ns in &done.removed {
            outln!("  {ns}")?;
        }
    }
    if !done.kept.is_empty() {
        outln!(
            "kept {} namespace(s) of runs still going (--all removes them too): {}",
            done.kept.len(),
            done.kept.join(", ")
        )?;
    }
    if !done.errors.is_empty() {
        bail!("could not remove: {}", done.errors.join("; "));
    }
    Ok(ExitCode::SUCCESS)
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

/// Resolves a controller id through the registry, so a typo stops before anything runs. Kernel
/// TCP ids (`tcp-cubic`, ...) are the netns runner's to check.
fn check_controller(id: &str) -> anyhow::Result<()> {
    if crate::netns::tcp::kernel_cc(id).is_some() {
        return Ok(());
    }
    quinn_discern::registry::parse(id)
        .map(|_| ())
        .map_err(|e| anyhow!("{e}"))
}

fn check_controllers(scenario: &Scenario) -> anyhow::Result<()> {
    for f in &scenario.flows {
        check_controller(&f.controller)?;
    }
    Ok(())
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

fn run(args: RunArgs, runner: &Runner<'_>) -> anyhow::Result<ExitCode> {
    let path = resolve(&args.common.scenario);
    let sets = overrides(&args.common.set)?;
    let mut scenario = load(&path, &sets)?;
    if let Some(id) = &args.controller {
        check_controller(id)?;
        scenario.set_controller(id);
    }
    check_controllers(&scenario)?;
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join(dir_safe(&scenario.name)));
    if args.runs != 1 {
        return run_repeated(&args, &path, &sets, &scenario, &dir, runner);
    }
    let out = runner(&scenario, args.common.link)?;
    let files = output::write_run(&dir, &out)?;

    out!("{}", table::run_table(&out.summary).render())?;
    out!("{}", table::run_footer(&out.summary))?;
    let names: Vec<String> = files
        .iter()
        .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
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
    Ok(ExitCode::SUCCESS)
}

/// `run --runs N`: the scenario on N seeds, each seed's outputs in `dir/seed=<S>/`, and
/// `dir/aggregate.json`.
fn run_repeated(
    args: &RunArgs,
    path: &Path,
    sets: &[Override],
    scenario: &Scenario,
    dir: &Path,
    runner: &Runner<'_>,
) -> anyhow::Result<ExitCode> {
    let seeds = sweep::seeds(scenario.seed, args.runs)?;
    let mut jobs = Vec::with_capacity(seeds.len());
    for &seed in &seeds {
        let mut all = sets.to_vec();
        all.extend(overrides(&[format!("seed={seed}")])?);
        let mut s = load(path, &all)?;
        if let Some(id) = &args.controller {
            s.set_controller(id);
        }
        jobs.push((seed, s));
    }
    let bar = progress_bar(jobs.len(), "runs");
    let kind = args.common.link;
    let run_one = |s: &Scenario| runner(s, kind);
    let keep = |seed: &u64, out: &RunOutput| {
        let r = output::write_run(&dir.join(format!("seed={seed}")), out);
        bar.inc(1);
        r?;
        Ok(out.summary.clone())
    };
    let results = sweep::run_jobs(&jobs, &run_one, threads(args.jobs), &keep);
    bar.finish_and_clear();
    let aggregate = crate::repeated::RunAggregate::of(&scenario.name, &seeds, &results);
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
    Ok(ExitCode::SUCCESS)
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

fn sweep_cmd(args: SweepArgs, runner: &Runner<'_>) -> anyhow::Result<ExitCode> {
    let path = resolve(&args.common.scenario);
    let sets = overrides(&args.common.set)?;
    let kind = args.common.link;
    for (i, v) in args.vary.iter().enumerate() {
        if args.vary[..i].iter().any(|w| w.key == v.key) {
            bail!("--vary `{}` is given twice", v.key);
        }
    }
    if args.vary.is_empty() && args.runs < 2 {
        bail!("a sweep needs --vary KEY=V1,V2,... or --runs N (N >= 2)");
    }
    if args.runs > 1 && args.vary.iter().any(|v| v.key == "seed") {
        bail!("--vary seed=... and --runs both choose the seeds: use one (--runs N runs SEED .. SEED+N-1)");
    }
    let mut controllers = Vec::new();
    for list in &args.controller {
        for id in sweep::split_controllers(list)? {
            check_controller(&id)?;
            controllers.push(id);
        }
    }
    if let Some(b) = &args.baseline {
        if !controllers.contains(b) {
            bail!(
                "--baseline {b} is not one of --controller ({}): add it there",
                if controllers.is_empty() {
                    "none given".to_string()
                } else {
                    controllers.join(", ")
                }
            );
        }
    }
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
        controllers: controllers.clone(),
        seeds: seeds.clone(),
        baseline: args.baseline.clone(),
    };
    let points = sweep::expand_with_seeds(
        &args.vary,
        (!controllers.is_empty()).then_some(controllers.as_slice()),
        &seeds,
    );

    // Build every scenario first, so a bad key or value stops the sweep before anything runs.
    let mut jobs = Vec::with_capacity(points.len());
    for p in points {
        let mut all = sets.clone();
        all.extend(overrides(&p.overrides())?);
        let mut s = load(&path, &all)?;
        if let Some(c) = &p.controller {
            s.set_controller(c);
        }
        check_controllers(&s)?;
        jobs.push((p, s));
    }

    let dir = args
        .out
        .unwrap_or_else(|| Path::new("out").join(format!("{}-sweep", dir_safe(&base.name))));
    let runs_dir = dir.join("runs");
    std::fs::create_dir_all(&runs_dir)
        .with_context(|| format!("creating {}", runs_dir.display()))?;
    let total = jobs.len();
    let part = args.shard.unwrap_or(Shard::ALL);
    let jobs: Vec<_> = jobs
        .into_iter()
        .filter(|(p, _)| part.contains(p.index))
        .collect();
    let bar = progress_bar(jobs.len(), &runs_label(args.shard));
    let run_one = |s: &Scenario| runner(s, kind);
    let on_done = |p: &sweep::Point, out: &RunOutput| {
        let r = output::write_run(&runs_dir.join(p.dir_name(total)), out);
        bar.inc(1);
        r.map(|_| ())
    };
    let records = sweep::run_all(jobs, &run_one, threads(args.jobs), &on_done);
    bar.finish_and_clear();

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
    output::write_json(&dir.join(shard::MANIFEST), &manifest)?;
    let failed = records.iter().filter(|r| r.result.is_err()).count();
    if args.shard.is_some() {
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
        return Ok(if failed > 0 {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        });
    }
    finish_sweep(&dir, &spec, &records)
}

/// Writes and prints a whole sweep's tables and plot; fails when a run failed.
fn finish_sweep(
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
    Ok(ExitCode::SUCCESS)
}

/// The scoreboard's plan as its manifest records it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct ScoreSpec {
    controllers: Vec<String>,
    seeds: Vec<u64>,
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
fn with_unbuilt(
    part: &[ScorePartJob],
    ran: Vec<crate::score::Outcome>,
) -> Vec<crate::score::Outcome> {
    let mut ran = ran.into_iter();
    part.iter()
        .map(|(_, scenario)| match scenario {
            Ok(_) => ran.next().expect("every job with a scenario ran"),
            Err(e) => Err(e.clone()),
        })
        .collect()
}

fn score_cmd(args: ScoreArgs, runner: &Runner<'_>) -> anyhow::Result<ExitCode> {
    let mut controllers = Vec::new();
    for list in &args.controller {
        controllers.extend(sweep::split_controllers(list)?);
    }
    if controllers.is_empty() {
        controllers = crate::score::DEFAULT_CONTROLLERS
            .iter()
            .map(|c| c.to_string())
            .collect();
    }
    for c in &controllers {
        check_controller(c)?;
        if crate::netns::tcp::kernel_cc(c).is_some() {
            bail!("{c} is the kernel's TCP: the scoreboard runs on the simulator");
        }
    }
    let seeds = sweep::seeds(args.seed, args.runs)?;
    let plan = crate::score::plan(&controllers, &seeds);
    let total = plan.len();
    let part = args.shard.unwrap_or(Shard::ALL);
    let part_jobs = score_part(&plan, part);
    let jobs: Vec<_> = part_jobs
        .iter()
        .filter_map(|(job, s)| s.as_ref().ok().map(|s| (job.clone(), s.clone())))
        .collect();
    let runs_dir = args.out.join("runs");
    std::fs::create_dir_all(&runs_dir)
        .with_context(|| format!("creating {}", runs_dir.display()))?;
    let bar = progress_bar(jobs.len(), &runs_label(args.shard));
    let run_one = |s: &Scenario| runner(s, LinkKind::Sim);
    let keep = |(i, job): &(usize, crate::score::Job), out: &RunOutput| {
        let dir = runs_dir.join(job.dir_name(*i, total));
        let r = std::fs::create_dir_all(&dir)
            .with_context(|| format!("creating {}", dir.display()))
            .and_then(|_| output::write_json(&dir.join("summary.json"), &out.summary));
        bar.inc(1);
        r?;
        Ok(out.summary.clone())
    };
    let ran = sweep::run_jobs(&jobs, &run_one, threads(args.jobs), &keep);
    bar.finish_and_clear();
    let outcomes = with_unbuilt(&part_jobs, ran);
    let manifest = Manifest {
        command: "score".into(),
        version: shard::version(),
        scenario_hash: shard::hash(&score_text()),
        spec: serde_json::to_value(ScoreSpec {
            controllers: controllers.clone(),
            seeds: seeds.clone(),
        })?,
        shard: part.to_string(),
        total,
        runs: part_jobs
            .iter()
            .zip(&outcomes)
            .map(|(((i, job), _), o)| {
                Ok(ManifestRun {
                    index: *i,
                    dir: job.dir_name(*i, total),
                    job: serde_json::to_value(job)?,
                    error: o.as_ref().err().cloned(),
                })
            })
            .collect::<anyhow::Result<_>>()?,
    };
    output::write_json(&args.out.join(shard::MANIFEST), &manifest)?;
    let failed = outcomes.iter().filter(|o| o.is_err()).count();
    if args.shard.is_some() {
        outln!(
            "shard {part}: {} of {total} runs ({failed} failed) in {}; `discern merge` the \
             shards' folders for the scoreboard",
            part_jobs.len(),
            args.out.display()
        )?;
        return Ok(if failed > 0 {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        });
    }
    finish_score(&args.out, &controllers, &seeds, &plan, &outcomes)
}

fn finish_score(
    dir: &Path,
    controllers: &[String],
    seeds: &[u64],
    plan: &[crate::score::Job],
    outcomes: &[crate::score::Outcome],
) -> anyhow::Result<ExitCode> {
    let board = crate::score::Scoreboard::of(controllers, seeds, plan, outcomes);
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

fn plot_cmd(args: &PlotArgs) -> anyhow::Result<ExitCode> {
    let out = args.out.clone().unwrap_or_else(|| {
        let stem = args.log.file_stem().unwrap_or_default().to_string_lossy();
        Path::new("out").join(stem.as_ref())
    });
    let files = crate::logplot::plot_log(&args.log, &out)?;
    let names: Vec<String> = files
        .iter()
        .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    outln!("outputs in {}: {}", out.display(), names.join(", "))?;
    Ok(ExitCode::SUCCESS)
}

fn merge_cmd(args: MergeArgs) -> anyhow::Result<ExitCode> {
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
            None => {
                let path = to.join("summary.json");
                let text = std::fs::read_to_string(&path).with_context(|| {
                    format!(
                        "reading {} (the manifest says the run succeeded)",
                        path.display()
                    )
                })?;
                Ok(serde_json::from_str(&text)
                    .with_context(|| format!("parsing {}", path.display()))?)
            }
        });
    }
    output::write_json(&args.out.join(shard::MANIFEST), &merged.manifest)?;
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
            let plan = crate::score::plan(&spec.controllers, &spec.seeds);
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
            finish_score(&args.out, &spec.controllers, &spec.seeds, &plan, &outcomes)
        }
        other => bail!("manifest of an unknown command `{other}` (expected sweep or score)"),
    }
}

fn list(scenarios_dir: &Path) -> anyhow::Result<ExitCode> {
    let catalog = quinn_discern::registry::catalog();
    outln!("Controllers (--controller ID, ID:param=value,param=value, or CLASSIFIER+ID):")?;
    let width = catalog.iter().map(|c| c.id.len()).max().unwrap_or(0);
    for c in catalog {
        let tag = if c.classifier { " [classifier]" } else { "" };
        outln!("  {:width$}  {}{tag}", c.id, c.summary)?;
        for p in c.params {
            outln!("  {:width$}    {} = {}: {}", "", p.name, p.default, p.help)?;
        }
    }
    outln!()?;
    outln!("Scenarios in {}/:", scenarios_dir.display())?;
    let mut files: Vec<PathBuf> = match std::fs::read_dir(scenarios_dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect(),
        Err(_) => {
            outln!("  (none: no {}/ here)", scenarios_dir.display())?;
            return Ok(ExitCode::SUCCESS);
        }
    };
    files.sort();
    let mut t = table::TextTable::new(["file", "name", "description"]);
    for f in &files {
        let file = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match Scenario::from_file(f, &[]) {
            Ok(s) => t.push(vec![file, s.name, s.description]),
            Err(e) => t.push(vec![
                file,
                "(error)".into(),
                e.to_string().lines().next().unwrap_or_default().to_string(),
            ]),
        }
    }
    for line in t.render().lines() {
        outln!("  {line}")?;
    }
    Ok(ExitCode::SUCCESS)
}
