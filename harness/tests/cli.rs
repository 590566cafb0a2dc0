//! The `discern` binary: arguments, error messages, exit codes.

use std::path::Path;
use std::process::{Command, Output};

fn discern(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_discern"))
        .args(args)
        .current_dir(dir)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const SCENARIO: &str = r#"
name = "tiny"
description = "one flow over one link"
duration = "1s"
seed = 1

[[link]]
name = "bottleneck"
rate = "10Mbit"
delay = "10ms"
queue = 20

[[flow]]
controller = "newreno"
path = ["bottleneck"]
"#;

fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("scenarios")).unwrap();
    std::fs::write(dir.path().join("scenarios/tiny.toml"), SCENARIO).unwrap();
    dir
}

fn assert_fails_with(o: &Output, text: &str) {
    assert!(!o.status.success(), "exit status {:?}", o.status);
    let e = stderr(o);
    assert!(e.contains(text), "stderr lacks {text:?}: {e}");
    assert!(!e.contains("panicked"), "panicked: {e}");
    assert!(!e.contains("stack backtrace"), "backtrace: {e}");
}

#[test]
fn missing_scenario_file_is_an_error_not_a_panic() {
    let dir = workdir();
    let o = discern(dir.path(), &["run", "no-such-file.toml"]);
    assert_fails_with(&o, "no-such-file.toml");
    assert!(stderr(&o).starts_with("error: "));
}

#[test]
fn unparseable_scenario_is_an_error() {
    let dir = workdir();
    std::fs::write(dir.path().join("broken.toml"), "name = \n").unwrap();
    let o = discern(dir.path(), &["run", "broken.toml"]);
    assert_fails_with(&o, "broken.toml");
}

#[test]
fn unknown_controller_is_an_error() {
    let dir = workdir();
    let o = discern(
        dir.path(),
        &["run", "scenarios/tiny.toml", "--controller", "vegas"],
    );
    assert_fails_with(&o, "unknown controller \"vegas\"");
    let o = discern(
        dir.path(),
        &[
            "sweep",
            "scenarios/tiny.toml",
            "--vary",
            "seed=1,2",
            "--controller",
            "reno,vegas",
        ],
    );
    assert_fails_with(&o, "unknown controller \"vegas\"");
}

#[test]
fn bad_set_is_an_error() {
    let dir = workdir();
    let o = discern(dir.path(), &["run", "scenarios/tiny.toml", "--set", "seed"]);
    assert_fails_with(&o, "--set \"seed\": expected KEY=VALUE");
    let o = discern(
        dir.path(),
        &[
            "run",
            "scenarios/tiny.toml",
            "--set",
            "link.nowhere.rate=1Mbit",
        ],
    );
    assert_fails_with(&o, "nowhere");
}

#[test]
fn bad_vary_is_an_error() {
    let dir = workdir();
    for (vary, text) in [
        ("seed", "no `=`"),
        ("seed=", "empty value"),
        ("seed=1,,2", "empty value"),
        ("=1,2", "empty key"),
    ] {
        let o = discern(
            dir.path(),
            &[
                "sweep",
                "scenarios/tiny.toml",
                "--vary",
                vary,
                "--controller",
                "reno",
            ],
        );
        assert_fails_with(&o, text);
        assert!(stderr(&o).contains("--vary"), "{}", stderr(&o));
    }
    let o = discern(
        dir.path(),
        &[
            "sweep",
            "scenarios/tiny.toml",
            "--vary",
            "seed=1",
            "--vary",
            "seed=2",
        ],
    );
    assert_fails_with(&o, "given twice");
}

#[test]
fn sweep_needs_a_vary() {
    let dir = workdir();
    let o = discern(
        dir.path(),
        &["sweep", "scenarios/tiny.toml", "--controller", "reno"],
    );
    assert_fails_with(&o, "--vary");
}

#[test]
fn unknown_link_kind_is_an_error() {
    let dir = workdir();
    let o = discern(
        dir.path(),
        &["run", "scenarios/tiny.toml", "--link", "wifi"],
    );
    assert_fails_with(&o, "unknown link kind `wifi`");
}

#[test]
fn netns_runs_as_root_and_says_how_otherwise() {
    let dir = workdir();
    let o = discern(
        dir.path(),
        &["run", "tiny", "--link", "netns", "--out", "o"],
    );
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        assert_fails_with(&o, "needs root");
        return;
    }
    assert!(o.status.success(), "{}", stderr(&o));
    let summary = std::fs::read_to_string(dir.path().join("o/summary.json")).unwrap();
    assert!(summary.contains("\"kind\": \"netns\""), "{summary}");
}

#[test]
fn kernel_tcp_on_the_simulator_is_a_clear_error() {
    let dir = workdir();
    let o = discern(dir.path(), &["run", "tiny", "--controller", "tcp-cubic"]);
    assert_fails_with(&o, "tcp-cubic runs only with --link netns");
}

#[test]
fn help_documents_the_defaults() {
    let dir = workdir();
    let o = discern(dir.path(), &["run", "--help"]);
    assert!(o.status.success());
    let h = stdout(&o);
    for text in [
        "out/SCENARIO_NAME/",
        "--set <K=V>",
        "--controller <ID>",
        "sim|netns",
    ] {
        assert!(h.contains(text), "run --help lacks {text:?}: {h}");
    }
    let o = discern(dir.path(), &["sweep", "--help"]);
    let h = stdout(&o);
    for text in ["--vary <K=V1,V2,...>", "--jobs <N>", "runs/INDEX-VALUES"] {
        assert!(h.contains(text), "sweep --help lacks {text:?}: {h}");
    }
}

#[test]
fn list_shows_controllers_and_scenarios_and_survives_a_broken_file() {
    let dir = workdir();
    std::fs::write(
        dir.path().join("scenarios/broken.toml"),
        "this is = = not toml",
    )
    .unwrap();
    let o = discern(dir.path(), &["list"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for text in [
        "modified-sack",
        "tolerance = 0.05",
        "wnewreno",
        "margin = 0.15",
        "quinn-bbr",
        "noq-bbr3",
        "noq-cubic",
        "noq-proto 1.4",
        "tiny",
        "one flow over one link",
        "broken.toml",
        "(error)",
    ] {
        assert!(out.contains(text), "list lacks {text:?}: {out}");
    }
}

#[test]
fn run_on_the_simulator_prints_the_table_and_writes_the_outputs() {
    let dir = workdir();
    let o = discern(
        dir.path(),
        &[
            "run",
            "tiny",
            "--set",
            "duration=0.5s",
            "--controller",
            "quinn-cubic",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("goodput Mbit/s"), "{out}");
    assert!(out.contains("quinn-cubic"), "{out}");
    assert!(out.contains("outputs in out/tiny"), "{out}");
    for f in ["summary.json", "flows.csv", "cwnd.svg", "throughput.png"] {
        assert!(dir.path().join("out/tiny").join(f).is_file(), "{f} missing");
    }
}

#[test]
fn sweep_on_the_simulator_writes_one_row_per_combination() {
    let dir = workdir();
    let o = discern(
        dir.path(),
        &[
            "sweep",
            "tiny",
            "--set",
            "duration=0.3s",
            "--vary",
            "link.bottleneck.loss.rate=0,0.01",
            "--controller",
            "newreno,quinn-cubic",
            "--jobs",
            "2",
            "--out",
            "sw",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = std::fs::read_to_string(dir.path().join("sw/sweep.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 1 + 4, "{csv}");
    assert!(lines[0].starts_with("run,link.bottleneck.loss.rate,controller,"));
    assert!(
        lines[4].starts_with("3,0.01,quinn-cubic,1,"),
        "{}",
        lines[4]
    );
    assert_eq!(
        std::fs::read_dir(dir.path().join("sw/runs"))
            .unwrap()
            .count(),
        4
    );
}

#[test]
fn score_help_documents_every_path_class() {
    let dir = workdir();
    let o = discern(dir.path(), &["score", "--help"]);
    assert!(o.status.success());
    let h = stdout(&o);
    for c in quinn_discern_harness::score::classes::CLASSES {
        assert!(h.contains(c.id), "score --help lacks {}: {h}", c.id);
    }
    for text in ["--runs <N>", "--shard <K/N>", "efficiency", "peer_kept"] {
        assert!(h.contains(text), "score --help lacks {text:?}: {h}");
    }
    let o = discern(
        dir.path(),
        &["sweep", "x.toml", "--vary", "seed=1", "--shard", "3/2"],
    );
    assert_fails_with(&o, "expected K/N");
}

#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    // `discern list | head -1`: the reader is gone before the first line is written.
    let dir = workdir();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = Command::new(env!("CARGO_BIN_EXE_discern"))
        .arg("list")
        .current_dir(dir.path())
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert!(o.status.success(), "exit status {:?}", o.status);
    assert_eq!(stderr(&o), "", "a closed pipe is not an error");
}
