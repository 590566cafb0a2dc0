//! Every shell command in the repository's README, run as written, in a scratch directory that
//! holds the repository's `scenarios/`.
//!
//! `cargo run ... -p quinn-discern-harness --` runs the `discern` binary of this build and
//! `cargo run --release -p quinn-discern --example drop_in` the example binary that `cargo test --workspace`
//! built beside it, so that the test builds nothing itself. A command this test does not know is a
//! failure: a new README command needs a line here.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

/// Longest any one README command may take; the slowest, the netns run of
/// `004-congestion-only.toml` for 20 s, takes about half.
const COMMAND_DEADLINE: Duration = Duration::from_secs(120);

const HARNESS: &str = "cargo run --release -p quinn-discern-harness --";
const DROP_IN: &str = "cargo run --release -p quinn-discern --example drop_in --";
const BUILT_BINARY: &str = "sudo target/release/discern";

/// Commands that are not run, and why.
const NOT_RUN: &[(&str, &str)] = &[
    ("cargo test --workspace", "the command that runs this test"),
    (
        "cargo build --release -p quinn-discern-harness",
        "builds the binary this test already runs",
    ),
    (
        "apt-get install -y qemu-system-x86 busybox-static",
        "installs packages; .ci/run installs them",
    ),
    (
        "scripts/kernel-vm.sh harness/tests/kernel/k-fq-codel.toml",
        "boots a VM for minutes; tests/kernel_qdiscs.rs runs this script on every scenario of \
         harness/tests/kernel/",
    ),
];

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The commands of the README's `sh` blocks: comments stripped, `\` continuations joined.
fn readme_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(repository().join("README.md")).expect("README.md");
    let mut in_sh_block = false;
    let lines = readme.lines().filter(|line| {
        if line.starts_with("```") {
            in_sh_block = *line == "```sh";
            return false;
        }
        in_sh_block
    });
    common::shell_commands(lines)
}

/// How one README command is run here.
#[derive(Debug)]
enum Plan {
    /// The `discern` binary with these arguments, with `env` set and stderr to `stderr_to` where
    /// the README says so.
    Harness {
        args: Vec<String>,
        needs_root: bool,
        env: Option<(String, String)>,
        stderr_to: Option<String>,
    },
    /// The `drop_in` example with these arguments, stderr to `stderr_to`.
    DropIn {
        args: Vec<String>,
        stderr_to: String,
    },
    /// Not run, for this reason.
    Skip(&'static str),
}

fn plan(command: &str) -> Plan {
    let words = |rest: &str| -> Vec<String> { rest.split_whitespace().map(String::from).collect() };
    // One leading `NAME=value` assignment (the log's directives), and a trailing `2> FILE`.
    let (env, command) = match command.split_once(' ') {
        Some((assignment, rest)) if assignment.contains('=') && !assignment.starts_with('-') => {
            let (name, value) = assignment.split_once('=').unwrap();
            (Some((name.to_owned(), value.to_owned())), rest)
        }
        _ => (None, command),
    };
    let (command, stderr_to) = match command.split_once("2>") {
        Some((command, file)) => (command.trim_end(), Some(file.trim().to_owned())),
        None => (command, None),
    };
    if let Some(rest) = command.strip_prefix(HARNESS) {
        return Plan::Harness {
            args: words(rest),
            needs_root: false,
            env,
            stderr_to,
        };
    }
    if let Some(rest) = command.strip_prefix(BUILT_BINARY) {
        return Plan::Harness {
            args: words(rest),
            needs_root: true,
            env,
            stderr_to,
        };
    }
    if let Some(rest) = command.strip_prefix(DROP_IN) {
        return Plan::DropIn {
            args: words(rest),
            stderr_to: stderr_to.expect("the README sends drop_in's log to a file"),
        };
    }
    match NOT_RUN.iter().find(|(c, _)| *c == command) {
        Some((_, why)) => Plan::Skip(why),
        None => panic!("README command not covered by harness/tests/readme.rs: {command}"),
    }
}

/// The `drop_in` example binary that `cargo test --workspace` built into this target directory.
fn drop_in_binary() -> PathBuf {
    let deps = std::env::current_exe().expect("test binary path");
    let profile_dir = deps
        .parent()
        .and_then(Path::parent)
        .expect("target/PROFILE");
    let binary = profile_dir.join("examples").join("drop_in");
    assert!(
        binary.exists(),
        "{} is missing: run the suite with `cargo test --workspace`, which builds the examples",
        binary.display()
    );
    binary
}

/// Runs `command` in `dir`, killing it after [`COMMAND_DEADLINE`]; `stderr` is where its stderr
/// went, for the failure message.
fn run(readme_line: &str, mut command: Command, dir: &Path, stderr: &Path) {
    let mut child = command
        .current_dir(dir)
        .stdout(Stdio::null())
        .spawn()
        .expect("spawn");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > COMMAND_DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`{readme_line}` still running after {COMMAND_DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stderr = std::fs::read_to_string(stderr).unwrap_or_default();
    assert!(
        status.success(),
        "`{readme_line}` failed ({status}): {stderr}"
    );
}

/// A scratch directory with the repository's scenarios, as a fresh clone has them.
fn clone_like_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        repository().join("scenarios").canonicalize().unwrap(),
        dir.path().join("scenarios"),
    )
    .unwrap();
    dir
}

/// Runs the README commands that `include` selects, in README order, in one scratch directory;
/// returns the directory and how many ran.
fn run_readme(include: impl Fn(&Plan) -> bool) -> (tempfile::TempDir, usize) {
    let dir = clone_like_dir();
    let mut ran = 0;
    for line in readme_commands() {
        let plan = plan(&line);
        if !include(&plan) {
            continue;
        }
        match plan {
            Plan::Harness {
                args,
                env,
                stderr_to,
                ..
            } => {
                let stderr = dir
                    .path()
                    .join(stderr_to.as_deref().unwrap_or("stderr.txt"));
                let mut command = Command::new(env!("CARGO_BIN_EXE_discern"));
                command.args(&args).stderr(File::create(&stderr).unwrap());
                if let Some((name, value)) = env {
                    command.env(name, value);
                }
                run(&line, command, dir.path(), &stderr);
            }
            Plan::DropIn { args, stderr_to } => {
                let stderr = dir.path().join(&stderr_to);
                let mut command = Command::new(drop_in_binary());
                command.args(&args).stderr(File::create(&stderr).unwrap());
                run(&line, command, dir.path(), &stderr);
            }
            Plan::Skip(_) => continue,
        }
        ran += 1;
    }
    (dir, ran)
}

#[test]
fn every_readme_command_is_known_here() {
    let commands = readme_commands();
    assert!(commands.len() >= 6, "too few commands found: {commands:?}");
    for command in &commands {
        if let Plan::Skip(why) = plan(command) {
            eprintln!("not run: `{command}`: {why}");
        }
    }
    assert!(commands.iter().any(|c| c == "cargo test --workspace"));
}

#[test]
fn the_readme_simulator_commands_work_as_written() {
    let (dir, ran) = run_readme(|p| {
        matches!(
            p,
            Plan::Harness {
                needs_root: false,
                ..
            } | Plan::DropIn { .. }
        )
    });
    assert!(ran >= 4, "ran {ran} commands");
    let out = dir.path().join("out");
    // `run scenarios/quick.toml`: "outputs go to out/quick/".
    assert!(out.join("quick/summary.json").is_file());
    // The drop_in log, plotted: "flows.csv, cwnd and throughput plots in out/drop_in/".
    for file in [
        "flows.csv",
        "cwnd.png",
        "cwnd.svg",
        "throughput.png",
        "throughput.svg",
    ] {
        assert!(
            out.join("drop_in").join(file).is_file(),
            "out/drop_in/{file} missing"
        );
    }
    let flows = std::fs::read_to_string(out.join("drop_in/flows.csv")).unwrap();
    assert!(flows.lines().count() > 10, "flows.csv too short: {flows}");
    // `DISCERN_LOG=discern::round=debug ... 2> rounds.log`: a line a round, prefixed by its flow.
    let rounds = std::fs::read_to_string(dir.path().join("rounds.log")).unwrap();
    let lines: Vec<&str> = rounds.lines().collect();
    assert!(lines.len() > 10, "rounds.log too short: {rounds}");
    assert!(
        lines
            .iter()
            .all(|l| l.contains("discern_flow{index=0") && l.contains("discern::round: round=")),
        "{rounds}"
    );
}

#[test]
#[cfg_attr(not(as_root), ignore = "needs root: the README's netns commands")]
fn the_readme_netns_commands_work_as_written() {
    let (dir, ran) = run_readme(|p| {
        matches!(
            p,
            Plan::Harness {
                needs_root: true,
                ..
            }
        )
    });
    assert!(ran >= 3, "ran {ran} commands");
    assert!(dir.path().join("out/quick/summary.json").is_file());
}
