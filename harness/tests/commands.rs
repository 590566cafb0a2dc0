//! `run` and `sweep` end to end with a synthetic runner: what they write and where.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;

use clap::Parser;
use quinn_discern_harness::cli::{execute_with, Cli};
use quinn_discern_harness::report::RunOutput;
use quinn_discern_harness::runner::LinkKind;
use quinn_discern_harness::scenario::Scenario;

mod common;

/// Goodput = seed Mbit/s per flow; records every scenario it was given.
fn runner(
    seen: &Mutex<Vec<(Scenario, LinkKind)>>,
) -> impl Fn(&Scenario, LinkKind) -> anyhow::Result<RunOutput> + Sync + '_ {
    move |s, kind| {
        seen.lock().unwrap().push((s.clone(), kind));
        let ids: Vec<&str> = s
            .flows
            .iter()
            .flat_map(|f| std::iter::repeat_n(f.controller.id(), f.count as usize))
            .collect();
        let mut out = common::synthetic(&ids, s.seed as f64 * 1e6, 30);
        out.summary.scenario = s.name.clone();
        out.summary.seed = s.seed;
        Ok(out)
    }
}

fn write_scenario(dir: &Path) -> String {
    let path = dir.join("two.toml");
    std::fs::write(&path, common::two_flows("two flows", "2s")).unwrap();
    path.to_string_lossy().into_owned()
}

fn exec(args: &[&str], seen: &Mutex<Vec<(Scenario, LinkKind)>>) -> anyhow::Result<ExitCode> {
    let mut argv = vec!["discern"];
    argv.extend_from_slice(args);
    execute_with(Cli::try_parse_from(argv).unwrap(), &runner(seen))
}

#[test]
fn run_applies_overrides_and_controller_and_writes_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = write_scenario(dir.path());
    let out = dir.path().join("out");
    let seen = Mutex::new(Vec::new());
    exec(
        &[
            "run",
            &scenario,
            "--set",
            "seed=3",
            "--controller",
            "modified-sack:tolerance=0.02",
            "--out",
            out.to_str().unwrap(),
        ],
        &seen,
    )
    .unwrap();
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.len(), 1);
    let (s, kind) = &seen[0];
    assert_eq!(*kind, LinkKind::Sim);
    assert_eq!(s.seed, 3);
    assert!(s
        .flows
        .iter()
        .all(|f| f.controller == "modified-sack:tolerance=0.02"));
    for f in [
        "summary.json",
        "timing.json",
        "flows.csv",
        "cwnd.png",
        "throughput.svg",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(json["flows"].as_array().unwrap().len(), 2);
    assert_eq!(json["flows"][1]["goodput_bps"], 3e6);
}

#[test]
fn run_fails_when_a_flow_is_unverified() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = write_scenario(dir.path());
    let out = dir.path().join("out");
    let argv = ["discern", "run", &scenario, "--out", out.to_str().unwrap()];
    let bad = |s: &Scenario, _: LinkKind| {
        let mut o = common::synthetic(&["newreno", "newreno"], 1e6, 5);
        o.summary.scenario = s.name.clone();
        o.summary.flows[1].verified = false;
        Ok(o)
    };
    let err = execute_with(Cli::try_parse_from(argv).unwrap(), &bad).unwrap_err();
    assert!(err.to_string().contains("flow 1"), "{err}");
    assert!(
        out.join("summary.json").is_file(),
        "outputs are still written"
    );
}

#[test]
fn sweep_runs_every_combination_and_writes_table_plots_and_runs() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = write_scenario(dir.path());
    let out = dir.path().join("sweep");
    let seen = Mutex::new(Vec::new());
    exec(
        &[
            "sweep",
            &scenario,
            "--vary",
            "seed=1,2,4",
            "--vary",
            "link.bottleneck.rate=5Mbit,50Mbit",
            "--controller",
            "newreno,modified-sack:tolerance=0.02",
            "--link",
            "sim",
            "--jobs",
            "3",
            "--out",
            out.to_str().unwrap(),
        ],
        &seen,
    )
    .unwrap();
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.len(), 3 * 2 * 2);
    let mut combos: Vec<(u64, u64, String)> = seen
        .iter()
        .map(|(s, _)| {
            (
                s.seed,
                s.links[0].rate.0,
                s.flows[0].controller.id().to_owned(),
            )
        })
        .collect();
    combos.sort();
    combos.dedup();
    assert_eq!(combos.len(), 12, "each combination exactly once");

    let mut r = csv::Reader::from_path(out.join("sweep.csv")).unwrap();
    let headers: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        headers[..4],
        ["run", "seed", "link.bottleneck.rate", "controller"]
    );
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 12);
    let col = |h: &str| headers.iter().position(|x| x == h).unwrap();
    // Order: first --vary slowest, controller fastest.
    assert_eq!(&rows[0][col("seed")], "1");
    assert_eq!(&rows[0][col("link.bottleneck.rate")], "5Mbit");
    assert_eq!(&rows[0][col("controller")], "newreno");
    assert_eq!(&rows[1][col("controller")], "modified-sack:tolerance=0.02");
    assert_eq!(&rows[2][col("link.bottleneck.rate")], "50Mbit");
    assert_eq!(&rows[11][col("seed")], "4");
    // Two flows at `seed` Mbit/s each.
    assert_eq!(&rows[11][col("goodput_total_bps")], "8000000");
    assert_eq!(&rows[11][col("goodput_mean_bps")], "4000000");
    assert_eq!(&rows[11][col("verified")], "true");

    assert!(out.join("goodput.png").is_file());
    let svg = std::fs::read_to_string(out.join("goodput.svg")).unwrap();
    assert!(svg.contains("modified-sack:tolerance=0.02, link.bottleneck.rate=50Mbit"));
    let mut runs: Vec<String> = std::fs::read_dir(out.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    runs.sort();
    assert_eq!(runs.len(), 12);
    assert_eq!(runs[0], "00-seed=1-bottleneck.rate=5Mbit-newreno");
    assert_eq!(
        runs[11],
        "11-seed=4-bottleneck.rate=50Mbit-modified-sack_tolerance=0.02"
    );
    assert!(out
        .join("runs")
        .join(&runs[5])
        .join("summary.json")
        .is_file());
}

#[test]
fn sweep_without_controllers_keeps_the_scenarios_own_and_reports_failures() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = write_scenario(dir.path());
    let out = dir.path().join("sweep");
    let argv = [
        "discern",
        "sweep",
        &scenario,
        "--vary",
        "seed=1,2",
        "--out",
        out.to_str().unwrap(),
    ];
    let flaky = |s: &Scenario, _: LinkKind| {
        if s.seed == 2 {
            anyhow::bail!("no route to the moon");
        }
        Ok(common::synthetic(&["newreno", "newreno"], 1e6, 5))
    };
    let err = execute_with(Cli::try_parse_from(argv).unwrap(), &flaky).unwrap_err();
    assert!(err.to_string().contains("1 of 2 runs failed"), "{err}");
    let text = std::fs::read_to_string(out.join("sweep.csv")).unwrap();
    assert!(text.contains("no route to the moon"));
    let mut r = csv::Reader::from_path(out.join("sweep.csv")).unwrap();
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(&rows[0][2], "newreno");
}

/// Goodput per flow: seed Mbit/s for `newreno`, twice that for anything else; seed 2 of
/// `composite` fails.
fn paired(s: &Scenario, _: LinkKind) -> anyhow::Result<RunOutput> {
    let id = s.flows[0].controller.id();
    if id == "composite" && s.seed == 2 {
        anyhow::bail!("simulated failure");
    }
    let per_flow = s.seed as f64 * 1e6 * if id == "newreno" { 1.0 } else { 2.0 };
    let mut out = common::synthetic(&[id, id], per_flow, 30);
    out.summary.scenario = s.name.clone();
    out.summary.seed = s.seed;
    Ok(out)
}

#[test]
fn repeated_sweep_reports_intervals_paired_ratios_and_failed_runs() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = write_scenario(dir.path());
    let out = dir.path().join("rep");
    let argv = [
        "discern",
        "sweep",
        &scenario,
        "--runs",
        "3",
        "--controller",
        "newreno,quinn-bbr,composite",
        "--baseline",
        "newreno",
        "--jobs",
        "2",
        "--out",
        out.to_str().unwrap(),
    ];
    let err = execute_with(Cli::try_parse_from(argv).unwrap(), &paired).unwrap_err();
    assert!(err.to_string().contains("1 of 9 runs failed"), "{err}");

    let mut r = csv::Reader::from_path(out.join("sweep.csv")).unwrap();
    let headers: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    let col = |h: &str| headers.iter().position(|x| x == h).unwrap();
    assert_eq!(rows.len(), 3, "one row per controller");
    // newreno: totals 2, 4, 6 Mbit/s on seeds 1-3: mean 4, sd 2, CI 4 ± 4.3027 · 2 / √3.
    let nr = &rows[0];
    assert_eq!(&nr[col("controller")], "newreno");
    assert_eq!(&nr[col("goodput_total_bps_n")], "3");
    assert_eq!(&nr[col("goodput_total_bps_mean")], "4000000");
    assert_eq!(&nr[col("goodput_total_bps_sd")], "2000000");
    let lo: f64 = nr[col("goodput_total_bps_ci95_lo")].parse().unwrap();
    assert!(
        (lo - (4e6 - 4.3027 * 2e6 / 3f64.sqrt())).abs() < 10.0,
        "{lo}"
    );
    // quinn-bbr: twice newreno on every seed, so the paired ratio is exactly 2 with no spread.
    let bbr = &rows[1];
    assert_eq!(&bbr[col("goodput_ratio_mean")], "2");
    assert_eq!(&bbr[col("goodput_ratio_sd")], "0");
    assert_eq!(&bbr[col("baseline")], "newreno");
    // composite: seed 2 failed; counted, named, and left out of the mean (seeds 1 and 3).
    let comp = &rows[2];
    assert_eq!(&comp[col("runs")], "3");
    assert_eq!(&comp[col("failed")], "1");
    assert_eq!(&comp[col("goodput_total_bps_n")], "2");
    assert_eq!(&comp[col("goodput_total_bps_mean")], "8000000");
    assert_eq!(&comp[col("goodput_ratio_n")], "2");
    assert!(comp[col("errors")].contains("seed 2: simulated failure"));

    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 1 + 9, "one row per run");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("aggregate.json")).unwrap())
            .unwrap();
    assert_eq!(json["seeds"], serde_json::json!([1, 2, 3]));
    assert_eq!(json["conditions"][2]["failed"][0]["seed"], 2);
    assert!(std::fs::read_to_string(out.join("goodput.svg"))
        .unwrap()
        .contains("95 % CI"));
}

#[test]
fn repeated_run_writes_each_seed_and_an_aggregate() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = write_scenario(dir.path());
    let out = dir.path().join("run");
    let seen = Mutex::new(Vec::new());
    exec(
        &[
            "run",
            &scenario,
            "--runs",
            "4",
            "--out",
            out.to_str().unwrap(),
        ],
        &seen,
    )
    .unwrap();
    let mut seeds: Vec<u64> = seen.lock().unwrap().iter().map(|(s, _)| s.seed).collect();
    seeds.sort();
    assert_eq!(seeds, [1, 2, 3, 4]);
    for s in 1..=4 {
        assert!(out.join(format!("seed={s}/summary.json")).is_file());
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("aggregate.json")).unwrap())
            .unwrap();
    // Per flow seed Mbit/s: 1, 2, 3, 4 -> mean 2.5.
    assert_eq!(json["flows"][1]["goodput_bps"]["n"], 4);
    assert_eq!(json["flows"][1]["goodput_bps"]["mean"], 2.5e6);
    assert!(json["flows"][1]["goodput_bps"]["ci95_lo"].as_f64().unwrap() < 2.5e6);
}

#[test]
fn baseline_must_be_a_compared_controller_and_seeds_come_from_one_place() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = write_scenario(dir.path());
    let seen = Mutex::new(Vec::new());
    let e = exec(
        &[
            "sweep",
            &scenario,
            "--runs",
            "2",
            "--controller",
            "newreno",
            "--baseline",
            "quinn-bbr",
        ],
        &seen,
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("--baseline quinn-bbr is not one of"),
        "{e}"
    );
    let e = exec(
        &["sweep", &scenario, "--runs", "2", "--vary", "seed=1,2"],
        &seen,
    )
    .unwrap_err();
    assert!(e.to_string().contains("--vary seed"), "{e}");
    assert!(seen.lock().unwrap().is_empty(), "nothing ran");
}

/// Flow 0 gets 3 Mbit/s per seed number, flow 1 1 Mbit/s: a split the total hides.
fn uneven(s: &Scenario, _: LinkKind) -> anyhow::Result<RunOutput> {
    let id = s.flows[0].controller.id();
    let mut out = common::synthetic(&[id, "newreno"], 1e6, 30);
    out.summary.flows[0].goodput_bps = 3e6 * s.seed as f64;
    out.summary.flows[1].goodput_bps = 1e6 * s.seed as f64;
    out.summary.seed = s.seed;
    Ok(out)
}

#[test]
fn a_repeated_sweep_of_several_flows_shows_each_flow_s_goodput_and_share() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = write_scenario(dir.path());
    let out = dir.path().join("flows");
    let argv = [
        "discern",
        "sweep",
        &scenario,
        "--runs",
        "2",
        "--controller",
        "composite",
        "--out",
        out.to_str().unwrap(),
    ];
    execute_with(Cli::try_parse_from(argv).unwrap(), &uneven).unwrap();
    let mut r = csv::Reader::from_path(out.join("sweep.csv")).unwrap();
    let headers: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let row = r.records().next().unwrap().unwrap();
    let col = |h: &str| &row[headers.iter().position(|x| x == h).expect(h)];
    // Seeds 1 and 2: flow 0 3 and 6 Mbit/s, flow 1 1 and 2; a share of 3/4 and 1/4 each time.
    assert_eq!(col("flow0_goodput_bps_mean"), "4500000");
    assert_eq!(col("flow1_goodput_bps_mean"), "1500000");
    assert_eq!(col("flow0_share_mean"), "0.75");
    assert_eq!(col("flow1_share_sd"), "0");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("aggregate.json")).unwrap())
            .unwrap();
    assert_eq!(json["conditions"][0]["flows"][1]["share"]["mean"], 0.25);
    assert!(out.join("goodput-flows.svg").is_file());
}
