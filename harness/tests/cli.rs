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
fn sweep_needs_a_vary_or_controllers_to_compare() {
    let dir = workdir();
    let o = discern(
        dir.path(),
        &["sweep", "scenarios/tiny.toml", "--controller", "reno"],
    );
    assert_fails_with(&o, "--vary");
    // Comparing controllers on one scenario, as scenarios/README.md does, is a sweep.
    let o = discern(
        dir.path(),
        &[
            "sweep",
            "scenarios/tiny.toml",
            "--controller",
            "reno,newreno",
            "--out",
            "cmp",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = std::fs::read_to_string(dir.path().join("cmp/sweep.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(dir.path().join("cmp/goodput.png").is_file());
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

/// A 5 MB transfer over a Gilbert-Elliott link whose `k` (the delivery probability in the good
/// state) was mistaken for a loss rate: the path delivers 1 packet in 100 in the state it
/// starts in. Before the outcomes, such a run printed `verified yes` and exited 0.
const HOPELESS: &str = r#"
name = "hopeless"
description = "a 5 MB transfer over a path that delivers almost nothing"
duration = "2s"
seed = 1

[[link]]
name = "bottleneck"
rate = "10Mbit"
delay = "10ms"
queue = 20
loss = { model = "gilbert-elliott", p = 0.005, r = 0.5, h = 0.0, k = 0.01 }

[[flow]]
controller = "newreno"
path = ["bottleneck"]
bytes = "5MB"
"#;

fn flows_of(summary: &Path) -> Vec<serde_json::Value> {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(summary).unwrap()).unwrap();
    json["flows"].as_array().unwrap().clone()
}

#[test]
fn a_transfer_that_moves_nothing_fails_and_says_so() {
    let dir = workdir();
    std::fs::write(dir.path().join("hopeless.toml"), HOPELESS).unwrap();
    let o = discern(dir.path(), &["run", "hopeless.toml", "--out", "out"]);
    assert_fails_with(&o, "--allow-incomplete");
    let text = stdout(&o);
    assert!(
        !text.contains(" yes "),
        "nothing delivered yet the table says verified yes:\n{text}"
    );
    let flows = flows_of(&dir.path().join("out/summary.json"));
    let outcome = flows[0]["outcome"].as_str().unwrap();
    assert!(
        outcome == "no_handshake" || outcome == "incomplete",
        "{outcome}"
    );
    assert!(
        text.contains(&outcome.to_uppercase().replace('_', " ")),
        "{text}"
    );
    assert_eq!(flows[0]["bytes_asked"], 5_000_000);
    assert!(flows[0]["bytes_delivered"].as_u64().unwrap() < 5_000_000);

    let o = discern(
        dir.path(),
        &["run", "hopeless.toml", "--out", "out", "--allow-incomplete"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_finite_transfer_cut_by_the_duration_is_incomplete_not_unbounded() {
    let dir = workdir();
    let o = discern(
        dir.path(),
        &[
            "run",
            "scenarios/tiny.toml",
            "--set",
            "flow.0.bytes=50MB",
            "--out",
            "out",
        ],
    );
    assert_fails_with(&o, "flow 0 incomplete");
    assert!(stdout(&o).contains("INCOMPLETE: "), "{}", stdout(&o));
    let flows = flows_of(&dir.path().join("out/summary.json"));
    assert_eq!(flows[0]["outcome"], "incomplete");
    let delivered = flows[0]["bytes_delivered"].as_u64().unwrap();
    assert!(delivered > 0 && delivered < 50_000_000, "{delivered}");
    assert_eq!(flows[0]["bytes_verified"], delivered);

    // Without a size, the same flow ran as long as it was meant to.
    let o = discern(dir.path(), &["run", "scenarios/tiny.toml", "--out", "open"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        flows_of(&dir.path().join("open/summary.json"))[0]["outcome"],
        "unbounded"
    );
}

/// Two flows over one bottleneck: the measured one, and cross traffic of another controller.
const TWO_FLOWS: &str = r#"
name = "two"
description = "a flow under test and one of cross traffic"
duration = "2s"
seed = 1

[[link]]
name = "bottleneck"
rate = "10Mbit"
delay = "10ms"
queue = 30

[[flow]]
controller = "newreno"
path = ["bottleneck"]

[[flow]]
controller = "quinn-cubic"
path = ["bottleneck"]
"#;

#[test]
fn a_sweep_with_several_flows_shows_each_and_keeps_the_cross_traffic() {
    let dir = workdir();
    std::fs::write(dir.path().join("two.toml"), TWO_FLOWS).unwrap();
    let o = discern(
        dir.path(),
        &[
            "sweep",
            "two.toml",
            "--vary",
            "link.bottleneck.queue=20,40",
            "--controller",
            "reno,westwood",
            "--out",
            "o",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("flow 1 %"), "{}", stdout(&o));
    let csv = std::fs::read_to_string(dir.path().join("o/sweep.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no {name} in {header:?}"))
    };
    let (total, g0, g1, s0, s1) = (
        col("goodput_total_bps"),
        col("flow0_goodput_bps"),
        col("flow1_goodput_bps"),
        col("flow0_share"),
        col("flow1_share"),
    );
    for line in csv.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let num = |i: usize| cells[i].parse::<f64>().unwrap();
        assert!((num(g0) + num(g1) - num(total)).abs() <= 2.0, "{line}");
        assert!((num(s0) + num(s1) - 1.0).abs() < 1e-3, "{line}");
        assert!(num(g0) > 0.0 && num(g1) > 0.0, "{line}");
    }
    assert!(dir.path().join("o/goodput-flows.png").is_file());
    // --controller set flow 0 only: the cross traffic kept quinn-cubic.
    let runs = std::fs::read_dir(dir.path().join("o/runs")).unwrap();
    for run in runs {
        let flows = flows_of(&run.unwrap().path().join("summary.json"));
        assert_ne!(flows[0]["controller"], "quinn-cubic");
        assert_eq!(flows[1]["controller"], "quinn-cubic");
    }
}

#[test]
fn run_scores_each_flow_s_verdicts() {
    let dir = workdir();
    std::fs::write(dir.path().join("two.toml"), TWO_FLOWS).unwrap();
    let o = discern(dir.path(), &["run", "two.toml", "--out", "o"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("\n  flow 0: random loss called random"),
        "{text}"
    );
    assert!(
        text.contains("\n  flow 1: random loss called random"),
        "{text}"
    );
    assert!(text.contains("legend: lost = "), "{text}");
}

/// `--vary link.bottleneck.rate=10,20` ran 10 bit/s links and exited 0.
#[test]
fn a_bare_rate_is_refused_naming_the_flag_and_the_units() {
    let dir = workdir();
    let o = discern(
        dir.path(),
        &[
            "sweep",
            "scenarios/tiny.toml",
            "--vary",
            "link.bottleneck.rate=10,20",
        ],
    );
    assert_fails_with(&o, "--vary link.bottleneck.rate=10: ");
    assert!(stderr(&o).contains("a rate needs a unit (bit, kbit, Mbit"));
    let o = discern(
        dir.path(),
        &[
            "run",
            "tiny",
            "--set",
            "link.bottleneck.rate=2.5MBps",
            "--out",
            "o",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let summary = std::fs::read_to_string(dir.path().join("o/summary.json")).unwrap();
    assert!(summary.contains("\"rate_bps\": 20000000"), "{summary}");
}

#[test]
fn keys_prints_the_scenario_format() {
    let dir = workdir();
    let o = discern(dir.path(), &["keys"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for needle in [
        "description",
        "P(delivery | good)",
        "model = \"gilbert-elliott\"",
        "under_test",
        "MBps",
    ] {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }
}

#[test]
fn list_describes_discern_as_it_is() {
    let dir = workdir();
    let o = discern(dir.path(), &["list"]);
    let line = stdout(&o)
        .lines()
        .find(|l| l.trim_start().starts_with("discern "))
        .expect("a discern line")
        .to_string();
    assert!(line.contains("short queue"), "{line}");
    assert!(!line.contains("full-queue delay is random"), "{line}");
}

#[test]
fn a_sweep_in_which_a_flow_delivers_nothing_fails_and_counts_it() {
    let dir = workdir();
    std::fs::write(dir.path().join("hopeless.toml"), HOPELESS).unwrap();
    let o = discern(
        dir.path(),
        &["sweep", "hopeless.toml", "--vary", "seed=1,2", "--out", "o"],
    );
    assert_fails_with(&o, "a flow delivered nothing");
    let csv = std::fs::read_to_string(dir.path().join("o/sweep.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = header
        .iter()
        .position(|h| *h == "unfinished")
        .unwrap_or_else(|| panic!("no unfinished column: {header:?}"));
    for line in csv.lines().skip(1) {
        assert_eq!(line.split(',').nth(col), Some("1"), "{line}");
    }
    assert!(stdout(&o).contains("none"), "{}", stdout(&o));
}
