//! Every command the other documents show, run through the `discern` command line as written:
//! the `sh` blocks of `docs/*.md`, `harness/README.md` and `controllers/README.md`, the command
//! column of `scenarios/README.md` and the commands in the scenario files' comments. (README's
//! own commands run for real in `readme.rs`.)
//!
//! Most of them are sweeps of many controllers and seeds that take minutes to hours, so each runs
//! here on a stand-in runner that returns a small synthetic result at once. Everything else is
//! the product's: the argument parsing, the scenario file and its overrides, every controller id,
//! the sweep or board it plans, and the files it writes. A command that no longer parses, names
//! a file or key that is gone, or plans nothing fails here. A command this test does not know is a
//! failure: a new command in a document runs, or gets a line in [`NOT_RUN`] saying why not.
//!
//! One test, since the commands run in the process and name paths relative to the working
//! directory: it moves into a scratch directory that holds the repository's `scenarios/`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use quinn_discern_harness::cli::{execute_with, Cli};
use quinn_discern_harness::report::RunOutput;
use quinn_discern_harness::runner::LinkKind;
use quinn_discern_harness::scenario::Scenario;

mod common;

/// The documents whose commands run here, relative to the repository.
const DOCUMENTS: &[&str] = &[
    "docs/ARCHITECTURE.md",
    "docs/RESULTS.md",
    "docs/evaluation.md",
    "docs/sharding.md",
    "harness/README.md",
    "controllers/README.md",
    "scenarios/README.md",
];

/// How a document may start the `discern` binary.
const PROGRAMS: &[&str] = &[
    "cargo run --release -p quinn-discern-harness --",
    "sudo target/release/discern",
    "target/release/discern",
    "discern",
];

/// Commands that are not run, and why.
const NOT_RUN: &[(&str, &str)] = &[
    (
        "cargo install --path harness",
        "installs the binary this test runs in process",
    ),
    (
        "scripts/kernel_eval.py",
        "boots a VM for minutes; tests/kernel_qdiscs.rs runs the same scenarios on the same \
         kernel",
    ),
    (
        "discern score --runs 30 --shard 3/8 --out shard-3",
        "one part of eight, on one machine of eight; tests/shards.rs merges every part of a \
         board to the unsharded bytes, tests/slurm.rs runs the parts as sharding.md's recipe",
    ),
    (
        "mkdir -p logs",
        "part of the Slurm recipe, which tests/slurm.rs runs on a real Slurm",
    ),
    (
        "jobid=$(sbatch --parsable --array=0-$((shards - 1)) shards.sbatch \"$out\" $run)",
        "the Slurm recipe's submit line, which tests/slurm.rs runs on a real Slurm",
    ),
    (
        "sbatch --dependency=afterany:\"$jobid\" --output=logs/%j.out --wrap \"discern merge \
         $out/shard-* --out $out/merged\"",
        "the Slurm recipe's merge job, which tests/slurm.rs runs on a real Slurm",
    ),
    (
        "N=8",
        "part of the GNU parallel recipe, which needs ssh hosts",
    ),
    (
        "parallel --sshlogin 4/host1,4/host2 --jobs 1 --results logs/ --return shard-{} \
         --cleanup 'discern score --runs 30 --jobs 4 --shard {}/'\"$N\"' --out shard-{}' ::: \
         $(seq 1 $N)",
        "runs the board's parts on two ssh hosts",
    ),
    (
        "discern merge shard-* --out score",
        "merges the eight parts of a board that eight machines ran (the line before it, or the \
         GNU parallel recipe's hosts)",
    ),
];

/// Blocks that are not commands but files or settings a recipe uses: the Slurm job script and
/// its variables, which tests/slurm.rs runs as written.
const NOT_COMMANDS: &[&str] = &["#!/bin/bash", "run=\"score --runs 30\""];

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// A command and where it was found, for failure messages.
#[derive(Debug, Clone)]
struct Documented {
    command: String,
    place: String,
}

/// The commands of a Markdown text's `sh` blocks: comments stripped, `\` continuations joined,
/// a `for VAR in A B ...; do` loop expanded into its body once per value. A block that starts
/// with a line of [`NOT_COMMANDS`] is a file, not commands, and is left out.
fn sh_block_commands(text: &str) -> Vec<String> {
    let mut blocks: Vec<Vec<String>> = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.starts_with("```") {
            in_block = line == "```sh";
            if in_block {
                blocks.push(Vec::new());
            }
            continue;
        }
        if in_block {
            blocks.last_mut().unwrap().push(line.to_owned());
        }
    }
    blocks
        .into_iter()
        .filter(|b| {
            !b.first()
                .is_some_and(|l| NOT_COMMANDS.iter().any(|n| l.trim() == *n))
        })
        .flat_map(|b| expand_loops(common::shell_commands(b.iter().map(String::as_str))))
        .collect()
}

/// `for VAR in A B; do` ... `done` replaced by the body with `$VAR` set to each value in turn.
fn expand_loops(commands: Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut commands = commands.into_iter();
    while let Some(c) = commands.next() {
        let Some(header) = c.strip_prefix("for ").and_then(|h| h.strip_suffix("; do")) else {
            out.push(c);
            continue;
        };
        let (var, values) = header.split_once(" in ").expect("for VAR in VALUES; do");
        let body: Vec<String> = commands.by_ref().take_while(|c| c != "done").collect();
        for value in values.split_whitespace() {
            let var = format!("${var}");
            out.extend(body.iter().map(|b| b.replace(&var, value)));
        }
    }
    out
}

/// The `discern` commands in backticks in `scenarios/README.md`'s table rows.
fn table_commands(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with('|'))
        .flat_map(|l| l.split('`').skip(1).step_by(2).map(str::to_owned))
        .filter(|span| span.starts_with("discern "))
        .collect()
}

/// The commands in a scenario file's comments: from `discern ` to the end of the line, joined
/// with the comment lines that `\` continues it onto.
fn comment_commands(text: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut pending: Option<String> = None;
    for line in text.lines() {
        let Some(comment) = line.trim_start().strip_prefix('#') else {
            pending = None;
            continue;
        };
        let part = match (&pending, comment.find("discern ")) {
            (Some(_), _) => comment.trim(),
            (None, Some(at)) => comment[at..].trim(),
            (None, None) => continue,
        };
        let mut command = pending.take().unwrap_or_default();
        match part.strip_suffix('\\') {
            Some(continued) => {
                command.push_str(continued);
                pending = Some(command);
            }
            None => {
                command.push_str(part);
                commands.push(command.split_whitespace().collect::<Vec<_>>().join(" "));
            }
        }
    }
    commands
}

/// Every documented command, in document order.
fn documented() -> Vec<Documented> {
    let root = repository();
    let mut all = Vec::new();
    let mut add = |place: String, commands: Vec<String>| {
        all.extend(commands.into_iter().map(|command| Documented {
            command,
            place: place.clone(),
        }));
    };
    for doc in DOCUMENTS {
        let text = std::fs::read_to_string(root.join(doc)).expect(doc);
        add(doc.to_string(), sh_block_commands(&text));
        if doc.starts_with("scenarios/") {
            add(doc.to_string(), table_commands(&text));
        }
    }
    let mut scenarios: Vec<PathBuf> = std::fs::read_dir(root.join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    scenarios.sort();
    for file in scenarios {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        add(name, comment_commands(&text));
    }
    all
}

/// The words of a command line, with single- and double-quoted words unquoted.
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut in_word = false;
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => (quote, in_word) = (Some(c), true),
            (Some(q), _) if c == q => quote = None,
            (None, ' ') => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                }
                in_word = false;
            }
            _ => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The arguments after the program, if `command` starts `discern`.
fn discern_args(command: &str) -> Option<Vec<String>> {
    PROGRAMS
        .iter()
        .find_map(|p| command.strip_prefix(p)?.strip_prefix(' '))
        .map(words)
}

/// Every run as a synthetic result: 1 Mbit/s per flow, at once.
fn stand_in(s: &Scenario, _: LinkKind) -> anyhow::Result<RunOutput> {
    let ids: Vec<&str> = s
        .flows
        .iter()
        .flat_map(|f| std::iter::repeat_n(f.controller.id(), f.count as usize))
        .collect();
    let mut out = common::synthetic(&ids, 1e6, 30);
    out.summary.scenario = s.name.clone();
    out.summary.seed = s.seed;
    Ok(out)
}

#[test]
fn every_documented_command_runs_through_the_command_line_as_written() {
    let commands = documented();
    assert!(commands.len() >= 30, "too few commands: {commands:#?}");
    let scratch = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        repository().join("scenarios"),
        scratch.path().join("scenarios"),
    )
    .unwrap();
    std::env::set_current_dir(scratch.path()).unwrap();
    // The score classes' traces, wherever the scratch directory is.
    std::env::set_var(
        quinn_discern_harness::score::classes::TRACES_ENV,
        repository().join("../shared/traces"),
    );
    let mut ran = 0;
    for doc in &commands {
        let Some(args) = discern_args(&doc.command) else {
            match NOT_RUN.iter().find(|(c, _)| *c == doc.command) {
                Some((_, why)) => eprintln!("not run: `{}`: {why}", doc.command),
                None => panic!(
                    "{}: `{}` is not a discern command and has no reason in NOT_RUN",
                    doc.place, doc.command
                ),
            }
            continue;
        };
        if let Some((_, why)) = NOT_RUN.iter().find(|(c, _)| *c == doc.command) {
            eprintln!("not run: `{}`: {why}", doc.command);
            continue;
        }
        let argv = std::iter::once("discern".to_owned()).chain(args);
        let cli = Cli::try_parse_from(argv)
            .unwrap_or_else(|e| panic!("{}: `{}` does not parse: {e}", doc.place, doc.command));
        let started = std::time::Instant::now();
        let code = execute_with(cli, &stand_in)
            .unwrap_or_else(|e| panic!("{}: `{}` failed: {e:#}", doc.place, doc.command));
        assert_eq!(
            code,
            ExitCode::SUCCESS,
            "{}: `{}` exited non-zero",
            doc.place,
            doc.command
        );
        eprintln!(
            "{:>6.1} s  {}",
            started.elapsed().as_secs_f64(),
            doc.command
        );
        ran += 1;
    }
    eprintln!("{ran} documented commands ran");
    assert!(ran >= 25, "ran {ran}");
}
