//! The command line's shape: clap's types for every command and option, apart from what the
//! commands do.

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};

use crate::runner::LinkKind;
use crate::shard::Shard;
use crate::sim::PacketProtection;
use crate::sweep::Vary;
use crate::transport::Qlog;

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
    /// 95 % confidence interval; writes score.csv, score.json and a heatmap. With --paths N,
    /// over N random paths instead: distributions, worst paths and CDFs.
    Score(ScoreArgs),
    /// Merge the --out folders of `sweep --shard` or `score --shard` runs into what one
    /// unsharded run writes.
    Merge(MergeArgs),
    /// One controller on two random-path boards of the same draw (`discern score --paths N
    /// --path-seed S` output folders, say from the builds before and after a change), path by
    /// path: per metric each board's mean and tail, and the difference with its 95 % interval.
    Compare(CompareArgs),
    /// Turn an application's JSON log of the controllers' events (tracing-subscriber's JSON
    /// formatter, target `discern::cwnd` at TRACE) into flows.csv and the cwnd and throughput
    /// plots a run writes.
    Plot(PlotArgs),
    /// List the controllers (with parameters) and the scenarios in ./scenarios/.
    List,
    /// Print the scenario format's reference: every key, its unit, whether it is required, its
    /// default and its meaning.
    Keys,
    /// Remove the network namespaces (and with them the links, TUN devices and qdiscs) that
    /// killed `--link netns` runs left behind (root).
    Clean(CleanArgs),
}

#[derive(Debug, Args)]
pub struct ScoreArgs {
    /// Controllers to score, comma-separated [default: newreno, modified-sack, wnewreno,
    /// composite, veno, westwood, discern, discern:queue=full, quinn-newreno,
    /// quinn-cubic, quinn-bbr]; noq-bbr3 only when named, since its runs are not reproducible.
    /// `defaults` names the default list, e.g. `--controller defaults,noq-bbr3`.
    #[arg(long, value_name = "ID1,ID2,...")]
    pub controller: Vec<String>,
    /// Seeds per controller and class: SEED .. SEED+N-1.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub runs: usize,
    /// Only these path classes, comma-separated ids or id prefixes ending in `*` (`lie-*`); a
    /// class whose receiver lies brings its honest twin [default: every class].
    #[arg(long, value_name = "ID1,ID2,...")]
    pub class: Vec<String>,
    /// The first seed.
    #[arg(long, value_name = "SEED", default_value_t = 1)]
    pub seed: u64,
    /// Output folder [default: out/score, or out/score-paths with --paths]; each run's
    /// summary.json goes to DIR/runs/INDEX-CLASS-CONTROLLER.../ (INDEX-path-K-CONTROLLER/).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Score on N paths drawn at random (rate, RTT, buffer, AQM, loss, jitter, trace, ACK
    /// decimation, peer; the distributions are in docs/evaluation.md) instead of the fixed
    /// classes: writes paths.csv, paths.json, a CDF per metric and a summary page.
    #[arg(long, value_name = "N", conflicts_with_all = ["runs", "seed"])]
    pub paths: Option<usize>,
    /// The random paths' seed: the same N and S draw the same paths and give the same bytes.
    #[arg(long, value_name = "S", default_value_t = 1, requires = "paths")]
    pub path_seed: u64,
    /// With --paths: run only path K (from 0) of the draw, with its reference runs (paths.json
    /// gives this command for each controller's worst path).
    #[arg(long, value_name = "K", requires = "paths")]
    pub only_path: Option<usize>,
    /// With --paths: compare every other controller with this one path by path: per metric,
    /// the mean difference over the paths where both have it, with its 95 % confidence
    /// interval, and on how many paths it did better and worse (printed, and `paired` in
    /// paths.json). One of --controller.
    #[arg(long, value_name = "ID", requires = "paths")]
    pub baseline: Option<String>,
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
pub struct CompareArgs {
    /// The --out folder of the board to compare against (the build before a change).
    #[arg(value_name = "BASE")]
    pub base: PathBuf,
    /// The --out folder of the board compared (the build after it), of the same draw.
    #[arg(value_name = "NEW")]
    pub new: PathBuf,
    /// The controller whose runs are compared; both boards must have run it.
    #[arg(long, value_name = "ID", default_value = "discern")]
    pub controller: String,
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
    /// Write a qlog trace of each flow's sender and receiver to the run's folder, e.g.
    /// qlog/flow-0-sender.sqlog (JSON-SEQ; open it in qvis). Simulator traces are in virtual time.
    #[arg(long)]
    pub qlog: bool,
}

impl Common {
    /// Where the run whose outputs go to `run_dir` writes its qlog traces, with `--qlog`.
    pub fn qlog_in(&self, run_dir: &Path) -> Option<Qlog> {
        self.qlog.then(|| Qlog::in_run(run_dir))
    }
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub common: Common,
    /// Output folder [default: out/SCENARIO_NAME/].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Run flow 0 (the scenario's first `[[flow]]` table, every copy of its count) with this
    /// controller, e.g. `modified-sack:tolerance=0.02`; the other flows keep theirs. Other
    /// flows: `--set flow.N.controller=ID`, every flow: `--set 'flow.*.controller=ID'`.
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
    /// Exit 0 even when a flow with a size did not finish its transfer before the run ended
    /// (outcome `incomplete`) or never completed its handshake (`no_handshake`). Without it
    /// such a run is an error, after its outputs are written.
    #[arg(long)]
    pub allow_incomplete: bool,
}

#[derive(Debug, Args)]
pub struct SweepArgs {
    #[command(flatten)]
    pub common: Common,
    /// A scenario key and its values, e.g. `--vary link.bottleneck.loss.rate=0.001,0.01,0.1`.
    /// Repeatable: every combination runs. The first one is the x axis of the goodput plot.
    /// A sweep needs --vary, --runs N (N >= 2) or two controllers or more.
    #[arg(long, value_name = "K=V1,V2,...")]
    pub vary: Vec<Vary>,
    /// Controllers to compare, comma-separated, e.g. `newreno,modified-sack:tolerance=0.02`
    /// (a piece `param=value` continues the id before it). Repeatable. Each sets flow 0's
    /// controller (the scenario's first `[[flow]]` table, every copy of its count); the other
    /// flows keep theirs. To vary another flow: `--vary flow.N.controller=ID1,ID2`; every flow
    /// at once: `--vary 'flow.*.controller=ID1,ID2'`. Without it, each run keeps the scenario's
    /// own controllers.
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

impl Command {
    /// How the simulator seals packets for this command (`--real-crypto`).
    pub fn packet_protection(&self) -> PacketProtection {
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
