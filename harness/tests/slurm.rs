//! The Slurm recipe of docs/sharding.md, run as written on a single-node Slurm of the test's own.
//!
//! The job script and the submit lines are the document's bytes: the test saves the first as
//! `shards.sbatch` and runs the second after its own choice of command, folder and shard count,
//! which stands in for the document's choice block. `scripts/slurm-local.sh` starts the Slurm in
//! a temporary folder, and stops it, with all it left, when the test ends, passed or failed. A
//! sweep of `quick.toml` merges to the unsharded sweep's bytes; a scoreboard with one capacity
//! trace missing fails in the shards that hold that LTE class's runs, and the merge still runs
//! (`afterany`), lists the failed runs and ends non-zero, as the document says, having written
//! the unsharded scoreboard's bytes.
//!
//! Needs root and Slurm (Debian's `slurm-wlm` and `munge`; CI installs them). Built without them
//! it shows as ignored; in CI (`CI=true`) it runs, and a missing Slurm fails it.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Shards of each array: the test's value of the recipe's `shards`.
const SHARDS: usize = 3;

/// Longest the test waits for one job to end: a job that never starts trips it, not a slow one.
const JOB_DEADLINE: Duration = Duration::from_secs(600);

/// Slurm's job states after which a job runs no more.
const ENDED: &[&str] = &[
    "COMPLETED",
    "FAILED",
    "CANCELLED",
    "TIMEOUT",
    "NODE_FAIL",
    "OUT_OF_MEMORY",
    "PREEMPTED",
    "BOOT_FAIL",
    "DEADLINE",
];

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The Slurm section's three `sh` blocks.
struct Recipe {
    /// The job script, `#SBATCH` lines and all.
    job_script: String,
    /// The names the choice block sets; the test sets each of them itself.
    choices: Vec<String>,
    /// The submit lines.
    submit: String,
}

/// The contents of the document's `sh` blocks, in order.
fn sh_blocks(doc: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut block: Option<String> = None;
    for line in doc.lines() {
        match (&mut block, line) {
            (None, "```sh") => block = Some(String::new()),
            (Some(b), "```") => {
                blocks.push(std::mem::take(b));
                block = None;
            }
            (Some(b), _) => {
                b.push_str(line);
                b.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

fn recipe() -> Recipe {
    let path = repository().join("docs/sharding.md");
    let doc = String::from_utf8(read(&path)).expect("docs/sharding.md is UTF-8");
    let blocks = sh_blocks(&doc);
    let one = |what: &str, is: &dyn Fn(&str) -> bool| -> usize {
        let found: Vec<usize> = (0..blocks.len()).filter(|&i| is(&blocks[i])).collect();
        assert_eq!(
            found.len(),
            1,
            "docs/sharding.md: expected one sh block {what}, found {}",
            found.len()
        );
        found[0]
    };
    let script = one("with #SBATCH lines", &|b| {
        b.lines().any(|l| l.starts_with("#SBATCH"))
    });
    let submit = one("that submits with `sbatch --parsable`", &|b| {
        b.contains("sbatch --parsable")
    });
    assert!(
        submit > 0,
        "docs/sharding.md: no choice block before the submit lines"
    );
    let choices = blocks[submit - 1]
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let name = l.split('=').next().unwrap_or_default();
            assert!(
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
                "docs/sharding.md: the block before the submit lines should only set variables, \
                 found `{l}`"
            );
            name.to_string()
        })
        .collect();
    Recipe {
        job_script: blocks[script].clone(),
        choices,
        submit: blocks[submit].clone(),
    }
}

/// A single-node Slurm started by `scripts/slurm-local.sh up` in `dir`; taken down, daemons,
/// job steps and folder, when dropped.
struct LocalSlurm {
    dir: PathBuf,
    up: bool,
}

impl LocalSlurm {
    fn script() -> PathBuf {
        repository().join("scripts/slurm-local.sh")
    }

    fn up(dir: PathBuf) -> LocalSlurm {
        // The guard first: whatever `up` started is taken down even if it fails.
        let slurm = LocalSlurm { dir, up: true };
        let out = Command::new(Self::script())
            .arg("up")
            .arg(&slurm.dir)
            .output()
            .expect("running scripts/slurm-local.sh");
        assert!(
            out.status.success(),
            "scripts/slurm-local.sh up failed:\n{}",
            text(&out)
        );
        slurm
    }

    fn conf(&self) -> PathBuf {
        self.dir.join("slurm.conf")
    }

    /// A Slurm client command that talks to this Slurm.
    fn client(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", self.conf());
        c
    }

    /// The daemons' pids, as `up` recorded them.
    fn daemon_pids(&self) -> Vec<(String, u32)> {
        ["munged", "slurmctld", "slurmd"]
            .iter()
            .map(|name| {
                let pid = String::from_utf8(read(&self.dir.join("pids").join(name))).unwrap();
                (name.to_string(), pid.trim().parse().expect("a pid"))
            })
            .collect()
    }

    fn down(&mut self) -> Output {
        self.up = false;
        Command::new(Self::script())
            .arg("down")
            .arg(&self.dir)
            .output()
            .expect("running scripts/slurm-local.sh")
    }

    /// The logs of the daemons, for a failure's message.
    fn logs(&self) -> String {
        let mut s = String::new();
        for name in ["slurmctld", "slurmd"] {
            let log = std::fs::read_to_string(self.dir.join("log").join(format!("{name}.log")))
                .unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(20).collect();
            s.push_str(&format!("--- {name}.log (last lines)\n"));
            for l in tail.iter().rev() {
                s.push_str(l);
                s.push('\n');
            }
        }
        s
    }
}

impl Drop for LocalSlurm {
    fn drop(&mut self) {
        if self.up {
            let out = self.down();
            if !out.status.success() {
                eprintln!("scripts/slurm-local.sh down failed:\n{}", text(&out));
            }
        }
    }
}

/// Whether process `pid` is running as `name` (a zombie, or a pid reused by another program, is
/// not).
fn running(pid: u32, name: &str) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat.rsplit_once(") ").map(|(_, rest)| rest.chars().next());
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    state.is_some_and(|s| s != Some('Z')) && comm.trim() == name
}

/// One record of `scontrol show job`: a job, or one task of an array.
#[derive(Debug)]
struct JobRecord {
    task: Option<String>,
    state: String,
    exit_code: String,
}

fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
}

fn job_records(slurm: &LocalSlurm, id: u64) -> Vec<JobRecord> {
    let out = slurm
        .client("scontrol")
        .args(["-o", "show", "job", &id.to_string()])
        .output()
        .expect("running scontrol");
    assert!(
        out.status.success(),
        "scontrol show job {id}: {}",
        text(&out)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| JobRecord {
            task: field(l, "ArrayTaskId").map(str::to_string),
            state: field(l, "JobState").unwrap_or_default().to_string(),
            exit_code: field(l, "ExitCode").unwrap_or_default().to_string(),
        })
        .collect()
}

/// The records of job `id` once every one has ended.
fn wait_ended(slurm: &LocalSlurm, id: u64) -> Vec<JobRecord> {
    let start = Instant::now();
    loop {
        let records = job_records(slurm, id);
        if records.iter().all(|r| ENDED.contains(&r.state.as_str())) {
            return records;
        }
        assert!(
            start.elapsed() < JOB_DEADLINE,
            "job {id} has not ended after {JOB_DEADLINE:?}: {records:?}\n{}",
            slurm.logs()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The ended tasks of array job `id`, by task id.
fn array_tasks(slurm: &LocalSlurm, id: u64) -> Vec<JobRecord> {
    let mut tasks = wait_ended(slurm, id);
    tasks.sort_by_key(|r| r.task.as_deref().and_then(|t| t.parse::<usize>().ok()));
    let ids: Vec<Option<&str>> = tasks.iter().map(|r| r.task.as_deref()).collect();
    let expected: Vec<String> = (0..SHARDS).map(|k| k.to_string()).collect();
    assert_eq!(
        ids,
        expected
            .iter()
            .map(|s| Some(s.as_str()))
            .collect::<Vec<_>>(),
        "array job {id}'s tasks"
    );
    tasks
}

/// A folder where the test runs the recipe, with what its commands need.
struct Bench<'a> {
    slurm: &'a LocalSlurm,
    recipe: &'a Recipe,
    /// The folder `sbatch` is called from, holding `shards.sbatch`.
    work: PathBuf,
    /// The capacity traces, as `$DISCERN_TRACES`.
    traces: PathBuf,
}

/// The two jobs the submit lines start.
struct Submitted {
    array: u64,
    merge: u64,
}

impl Bench<'_> {
    /// The test build's `discern` first on the `PATH`, as the recipe asks of every node.
    fn path() -> String {
        let bin = Path::new(env!("CARGO_BIN_EXE_discern")).parent().unwrap();
        let path = std::env::var("PATH").unwrap_or_default();
        format!("{}:{path}", bin.display())
    }

    /// The document's submit lines, after the test's `run`, `out` and [`SHARDS`] in place of the
    /// choice block.
    fn submit(&self, run: &str, out: &Path) -> Submitted {
        let mut chosen = String::new();
        for name in &self.recipe.choices {
            let value = match name.as_str() {
                "run" => run.to_string(),
                "out" => out.display().to_string(),
                "shards" => SHARDS.to_string(),
                other => panic!(
                    "docs/sharding.md's choice block sets `{other}`; this test sets `run`, \
                     `out` and `shards` only: teach it the new one"
                ),
            };
            assert!(!value.contains('\''), "{value}");
            chosen.push_str(&format!("{name}='{value}'\n"));
        }
        let program = format!(
            "{chosen}{}printf 'array job %s\\n' \"$jobid\"\n",
            self.recipe.submit
        );
        let done = self
            .slurm
            .client("bash")
            .args(["-e", "-c", &program])
            .current_dir(&self.work)
            .env("PATH", Self::path())
            .env("DISCERN_TRACES", &self.traces)
            .output()
            .expect("running bash");
        let said = text(&done);
        assert!(done.status.success(), "the submit lines failed:\n{said}");
        let id_after = |prefix: &str| -> u64 {
            said.lines()
                .find_map(|l| l.strip_prefix(prefix)?.trim().parse().ok())
                .unwrap_or_else(|| panic!("no `{prefix}N` in the submit lines' output:\n{said}"))
        };
        Submitted {
            array: id_after("array job "),
            merge: id_after("Submitted batch job "),
        }
    }

    /// `discern RUN --jobs 2 --out OUT` on this machine, in one piece.
    fn unsharded(&self, run: &str, out: &Path) -> Output {
        Command::new(env!("CARGO_BIN_EXE_discern"))
            .args(run.split_whitespace())
            .args(["--jobs", "2", "--out"])
            .arg(out)
            .current_dir(&self.work)
            .env("DISCERN_TRACES", &self.traces)
            .output()
            .expect("running discern")
    }

    /// A job's log under `logs/`, or why there is none (a task that could not open it).
    fn log(&self, name: &str) -> String {
        let path = self.work.join("logs").join(name);
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| format!("(no log {}: {e})", path.display()))
    }
}

fn assert_same(whole: &Path, merged: &Path, files: &[&str]) {
    for file in files {
        assert!(
            read(&whole.join(file)) == read(&merged.join(file)),
            "{file} differs between the unsharded run ({}) and the merged shards ({})",
            whole.display(),
            merged.display()
        );
    }
}

/// A sweep of quick.toml, two seeds of two controllers: every shard and the merge succeed, and the
/// merge writes the unsharded sweep's bytes.
fn sweep_merges_to_the_unsharded_bytes(bench: &Bench) {
    let quick = repository().join("scenarios/quick.toml");
    let quick = quick.canonicalize().expect("scenarios/quick.toml");
    let run = format!(
        "sweep {} --runs 2 --controller newreno,composite --baseline newreno",
        quick.display()
    );
    let out = bench.work.join("results/sweep");
    let jobs = bench.submit(&run, &out);
    let merge = wait_ended(bench.slurm, jobs.merge);
    for (k, task) in array_tasks(bench.slurm, jobs.array).iter().enumerate() {
        let log = bench.log(&format!("{}_{k}.out", jobs.array));
        assert_eq!(
            (task.state.as_str(), task.exit_code.as_str()),
            ("COMPLETED", "0:0"),
            "sweep shard {}: {task:?}, its log:\n{log}",
            k + 1
        );
        assert!(out.join(format!("shard-{}/manifest.json", k + 1)).is_file());
    }
    let merge_log = bench.log(&format!("{}.out", jobs.merge));
    assert_eq!(
        (merge[0].state.as_str(), merge[0].exit_code.as_str()),
        ("COMPLETED", "0:0"),
        "the sweep's merge: {merge:?}, its log:\n{merge_log}"
    );
    let whole = bench.work.join("whole/sweep");
    let done = bench.unsharded(&run, &whole);
    assert!(done.status.success(), "unsharded sweep: {}", text(&done));
    assert_same(
        &whole,
        &out.join("merged"),
        &["sweep.csv", "runs.csv", "aggregate.json", "manifest.json"],
    );
}

/// The failed runs a shard's manifest lists.
fn failed_runs(shard: &Path) -> Vec<String> {
    let manifest: serde_json::Value =
        serde_json::from_slice(&read(&shard.join("manifest.json"))).unwrap();
    manifest["runs"]
        .as_array()
        .expect("a manifest's runs")
        .iter()
        .filter(|r| !r["error"].is_null())
        .map(|r| r["dir"].as_str().unwrap().to_string())
        .collect()
}

/// The scoreboard, one controller and one seed, with one of its two capacity traces missing: the
/// runs of that LTE class fail in whichever shards hold them. Those shards end FAILED and the
/// others COMPLETED; the merge runs all the same, lists the failures and ends FAILED, having
/// written the unsharded scoreboard's bytes.
fn score_with_a_failed_run_merges_and_fails(bench: &Bench) {
    let run = "score --controller newreno --runs 1";
    let out = bench.work.join("results/score");
    let jobs = bench.submit(run, &out);
    let merge = wait_ended(bench.slurm, jobs.merge);
    let tasks = array_tasks(bench.slurm, jobs.array);
    let mut failed = Vec::new();
    let mut shards_failed = 0;
    for (k, task) in tasks.iter().enumerate() {
        let runs = failed_runs(&out.join(format!("shard-{}", k + 1)));
        let log = bench.log(&format!("{}_{k}.out", jobs.array));
        let expected = if runs.is_empty() {
            ("COMPLETED", "0:0")
        } else {
            ("FAILED", "1:0")
        };
        assert_eq!(
            (task.state.as_str(), task.exit_code.as_str()),
            expected,
            "score shard {} with failed runs {runs:?}: {task:?}, its log:\n{log}",
            k + 1
        );
        shards_failed += usize::from(!runs.is_empty());
        failed.extend(runs);
    }
    assert!(
        !failed.is_empty() && failed.iter().all(|r| r.contains(MISSING_CLASS)),
        "the runs of {MISSING_CLASS}, and only they, fail: {failed:?}"
    );
    // Round robin spreads the class's runs; shards without one end COMPLETED.
    assert!(shards_failed < SHARDS, "{failed:?} {tasks:?}");

    let merge_log = bench.log(&format!("{}.out", jobs.merge));
    assert_eq!(
        (merge[0].state.as_str(), merge[0].exit_code.as_str()),
        ("FAILED", "1:0"),
        "the score's merge: {merge:?}, its log:\n{merge_log}"
    );
    for run in &failed {
        assert!(
            merge_log.contains(&format!("failed: {run}: ")),
            "the merge lists the failed run {run}:\n{merge_log}"
        );
    }
    let whole = bench.work.join("whole/score");
    let done = bench.unsharded(run, &whole);
    assert!(!done.status.success(), "the unsharded scoreboard fails too");
    assert_same(
        &whole,
        &out.join("merged"),
        &["score.csv", "score.json", "manifest.json"],
    );
}

/// The scoreboard class whose capacity trace the test leaves out, and that trace; the test
/// provides every other trace a class names.
const MISSING_CLASS: &str = "lte-att-vs-cubic";
const MISSING_TRACE: &str = "ATT-LTE-driving-2016.down";

/// A mahimahi capacity trace: one 1500-byte delivery opportunity a millisecond (12 Mbit/s),
/// repeated.
fn write_trace(path: &Path) {
    let lines: String = (1..=1000).map(|ms| format!("{ms}\n")).collect();
    std::fs::write(path, lines).unwrap();
}

#[test]
#[cfg_attr(
    not(slurm),
    ignore = "needs root and Slurm: apt-get install slurm-wlm munge (CI installs them)"
)]
fn the_documented_slurm_recipe_runs_as_written() {
    // Built as root (so not ignored) but run as another user: a failure, not a silent pass.
    assert!(
        quinn_discern_harness::netns::sys::is_root(),
        "the Slurm test was built as root but runs as another user; run `cargo test` as root"
    );
    let recipe = recipe();
    let tmp = tempfile::tempdir().unwrap();
    // munged wants every folder above its socket searchable by all.
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let work = tmp.path().join("work");
    let traces = tmp.path().join("traces");
    for dir in [&work, &traces] {
        std::fs::create_dir(dir).unwrap();
    }
    let provided = quinn_discern_harness::score::classes::CLASSES
        .iter()
        .filter_map(|class| class.trace)
        .filter(|&trace| trace != MISSING_TRACE);
    for trace in provided {
        write_trace(&traces.join(trace));
    }
    std::fs::write(work.join("shards.sbatch"), &recipe.job_script).unwrap();

    let mut slurm = LocalSlurm::up(tmp.path().join("slurm"));
    let bench = Bench {
        slurm: &slurm,
        recipe: &recipe,
        work,
        traces,
    };
    sweep_merges_to_the_unsharded_bytes(&bench);
    score_with_a_failed_run_merges_and_fails(&bench);

    // Taken down, nothing of it is left: no daemon, no folder.
    let daemons = slurm.daemon_pids();
    let down = slurm.down();
    assert!(
        down.status.success(),
        "slurm-local.sh down: {}",
        text(&down)
    );
    for (name, pid) in daemons {
        assert!(!running(pid, &name), "{name} ({pid}) still runs after down");
    }
    assert!(!tmp.path().join("slurm").exists(), "down left its folder");
}
