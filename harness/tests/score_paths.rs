//! `discern score --paths N --path-seed S` end to end: the same draw gives the same bytes, its
//! outputs (CSV, JSON, CDFs, summary page) exist and parse, shards merge to the unsharded bytes,
//! a worst path's command reruns it, and bad input is refused with a message that says why.

use std::path::Path;

use clap::Parser;
use quinn_discern_harness::cli::{execute, execute_with, Cli};
use quinn_discern_harness::report::{LinkSummary, QueueDelay, RunOutput};
use quinn_discern_harness::runner::LinkKind;
use quinn_discern_harness::scenario::Scenario;
use quinn_discern_harness::score::paths::draw::{Capacity, PeerKind, PeerTiming};
use quinn_discern_harness::score::paths::{draw_all, RandomPath};

mod common;

/// Goodput that depends on the controller, the rate and the seed, every digit significant.
fn synthetic(s: &Scenario, _: LinkKind) -> anyhow::Result<RunOutput> {
    let id = s.flows[0].controller.id();
    let g = (s.seed % 97) as f64 / 131.0 * s.links[0].rate.0 as f64 / (id.len() as f64 + 1.0);
    let ids: Vec<&str> = vec![id; s.flow_count()];
    let mut out = common::synthetic(&ids, g, 50);
    out.summary.scenario = s.name.clone();
    out.summary.seed = s.seed;
    // A bottleneck queue that grows with the path's delay.
    out.summary.links = vec![LinkSummary {
        name: "bottleneck".into(),
        rate_bps: s.links[0].rate.0,
        delay_s: s.links[0].delay.as_secs_f64(),
        queue_packets: s.links[0].queue,
        loss: String::new(),
        engine: "synthetic".into(),
        measured: None,
        queue: String::new(),
        queue_delay: Some(QueueDelay {
            mean_s: 0.0,
            p95_s: s.links[0].delay.as_secs_f64() * (s.seed % 5) as f64 / 4.0,
        }),
        queue_delay_unavailable: None,
        ce_marks: 0,
        reordered: 0,
        trace: None,
        queue_drops: None,
    }];
    Ok(out)
}

fn exec(args: &[String]) -> anyhow::Result<std::process::ExitCode> {
    let mut argv = vec!["discern".to_string()];
    argv.extend_from_slice(args);
    execute_with(Cli::try_parse_from(argv)?, &synthetic)
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A seed whose first `n` paths replay no trace (so the test needs no trace files) and hold a
/// flow alone, a peer of another kind and a peer that leaves early.
fn seed_without_traces(n: usize) -> u64 {
    (1..1000)
        .find(|&seed| {
            let paths = draw_all(seed, n);
            let has = |f: &dyn Fn(&RandomPath) -> bool| paths.iter().any(f);
            !has(&|p| matches!(p.capacity, Capacity::Trace { .. }))
                && has(&|p| p.peer.is_none())
                && has(&|p| p.peer.is_some_and(|x| x.kind != PeerKind::Copy))
                && has(&|p| p.peer.is_some_and(|x| x.timing == PeerTiming::LeavesEarly))
        })
        .expect("some seed below 1000 draws such paths")
}

/// `score` of the first `n` paths of seed `seed` with `options`, into `out`.
fn draw_args(n: usize, seed: u64, options: &[&str], out: &Path) -> Vec<String> {
    let mut a = strings(&["score", "--paths", &n.to_string(), "--path-seed"]);
    a.push(seed.to_string());
    a.extend(strings(options));
    a.extend(["--out".to_string(), out.to_string_lossy().into_owned()]);
    a
}

const OUTPUTS: [&str; 8] = [
    "paths.csv",
    "paths.json",
    "manifest.json",
    "cdf-efficiency.png",
    "cdf-share.png",
    "cdf-peer_kept.png",
    "cdf-queue_p95_vs_budget.png",
    "paths-summary.png",
];

#[test]
fn a_draw_gives_the_same_bytes_its_outputs_parse_and_shards_merge_to_them() {
    let n = 8;
    let seed = seed_without_traces(n);
    let dir = tempfile::tempdir().unwrap();
    let args = |out: &Path, shard: Option<&str>| {
        let mut a = draw_args(
            n,
            seed,
            &["--controller", "newreno,discern", "--jobs", "2"],
            out,
        );
        if let Some(s) = shard {
            a.extend(strings(&["--shard", s]));
        }
        a
    };
    let (whole, again) = (dir.path().join("whole"), dir.path().join("again"));
    exec(&args(&whole, None)).unwrap();
    exec(&args(&again, None)).unwrap();
    for file in OUTPUTS {
        assert!(
            read(&whole.join(file)) == read(&again.join(file)),
            "{file} differs between two runs"
        );
    }

    // The CSV: one row per (path, controller) with the path's parameters.
    let csv = String::from_utf8(read(&whole.join("paths.csv"))).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    for column in [
        "path",
        "rtt_ms",
        "peer",
        "controller",
        "outcome",
        "efficiency",
        "share",
        "peer_kept",
    ] {
        assert!(header.contains(&column), "{column} missing from {header:?}");
    }
    assert_eq!(lines.count(), 2 * n);

    // The JSON: per controller and metric the spread and a worst path with its command.
    let json: serde_json::Value = serde_json::from_slice(&read(&whole.join("paths.json"))).unwrap();
    assert_eq!(json["draw"]["paths"], n);
    let spreads = json["spreads"].as_array().unwrap();
    for metric in ["efficiency", "share", "peer_kept", "queue_p95_vs_budget"] {
        let s = spreads
            .iter()
            .find(|s| s["controller"] == "discern" && s["metric"] == metric)
            .unwrap_or_else(|| panic!("no spread of {metric}"));
        let (p10, mean, p90) = (
            s["p10"].as_f64().unwrap(),
            s["mean"].as_f64().unwrap(),
            s["p90"].as_f64().unwrap(),
        );
        assert!(p10 <= p90 && s["n"].as_u64().unwrap() >= 1, "{s}");
        assert!(mean.is_finite(), "{s}");
        assert!(
            s["worst"]["command"]
                .as_str()
                .unwrap()
                .contains("--only-path"),
            "{s}"
        );
    }
    // Every run's own flow is counted under exactly one outcome.
    let outcomes = json["outcomes"].as_array().unwrap();
    for controller in ["discern", "newreno"] {
        let runs: u64 = outcomes
            .iter()
            .filter(|o| o["controller"] == controller)
            .map(|o| o["runs"].as_u64().unwrap())
            .sum();
        assert_eq!(runs, n as u64, "{controller}: {outcomes:?}");
    }
    for png in OUTPUTS.iter().filter(|f| f.ends_with(".png")) {
        assert_eq!(&read(&whole.join(png))[..4], b"\x89PNG", "{png}");
    }

    // Shards together run every run once and merge to the same bytes.
    let shards: Vec<_> = (1..=3).map(|k| dir.path().join(format!("s{k}"))).collect();
    for (k, s) in shards.iter().enumerate() {
        exec(&args(s, Some(&format!("{}/3", k + 1)))).unwrap();
        assert!(!s.join("paths.csv").exists(), "a shard writes no board");
    }
    let merged = dir.path().join("merged");
    let mut m = strings(&["merge"]);
    m.extend(shards.iter().map(|s| s.to_string_lossy().into_owned()));
    m.extend(strings(&["--out", &merged.to_string_lossy()]));
    exec(&m).unwrap();
    for file in OUTPUTS {
        assert!(
            read(&whole.join(file)) == read(&merged.join(file)),
            "{file} differs between unsharded and merged"
        );
    }

    // The worst path's command reruns that path alone.
    let s = spreads
        .iter()
        .find(|s| s["metric"] == "efficiency")
        .unwrap();
    let command = s["worst"]["command"]
        .as_str()
        .unwrap()
        .replace("out/", &format!("{}/", dir.path().display()));
    let argv: Vec<String> = command
        .split_whitespace()
        .skip(1)
        .map(String::from)
        .collect();
    exec(&argv).unwrap();
    let out = argv.last().unwrap();
    let rerun = String::from_utf8(read(&Path::new(out).join("paths.csv"))).unwrap();
    assert_eq!(rerun.lines().count(), 2, "{rerun}");
    let path = s["worst"]["path"].as_u64().unwrap();
    assert!(
        rerun
            .lines()
            .nth(1)
            .unwrap()
            .starts_with(&format!("{path},")),
        "{rerun}"
    );
}

/// `--baseline`: every other controller against it path by path, in paths.json, from the same
/// values paths.csv lists.
#[test]
fn a_baseline_compares_the_other_controllers_path_by_path() {
    let n = 8;
    let seed = seed_without_traces(n);
    let dir = tempfile::tempdir().unwrap();
    // The synthetic runner's goodput falls with the controller id's length: reno's is higher.
    let options = ["--controller", "newreno,reno", "--baseline", "newreno"];
    exec(&draw_args(n, seed, &options, dir.path())).unwrap();

    let csv = String::from_utf8(read(&dir.path().join("paths.csv"))).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (controller, efficiency) = (column("controller"), column("efficiency"));
    let mut by_path: std::collections::BTreeMap<&str, [Option<f64>; 2]> = Default::default();
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let slot = usize::from(cells[controller] == "reno");
        by_path.entry(cells[0]).or_default()[slot] = cells[efficiency].parse().ok();
    }
    let differences: Vec<f64> = by_path
        .values()
        .filter_map(|[base, own]| Some((*own)? - (*base)?))
        .collect();
    assert!(!differences.is_empty(), "{csv}");

    let board: serde_json::Value =
        serde_json::from_slice(&read(&dir.path().join("paths.json"))).unwrap();
    let paired = board["paired"].as_array().expect("paths.json has `paired`");
    assert!(paired
        .iter()
        .all(|p| p["controller"] == "reno" && p["baseline"] == "newreno"));
    let eff = paired
        .iter()
        .find(|p| p["metric"] == "efficiency")
        .expect("efficiency is compared");
    assert_eq!(eff["difference"]["n"], differences.len());
    let mean = differences.iter().sum::<f64>() / differences.len() as f64;
    let reported = eff["difference"]["mean"].as_f64().unwrap();
    assert!((reported - mean).abs() < 1e-3, "{reported} against {mean}");
    let better = differences.iter().filter(|d| **d > 0.0).count();
    assert_eq!(eff["better"], better);
}

/// `args` fail with an error that contains `text`.
fn assert_refused(args: &[&str], text: &str) {
    let e = exec(&strings(args)).unwrap_err();
    assert!(e.to_string().contains(text), "{e}");
}

#[test]
fn bad_draws_are_refused_naming_the_fix() {
    let only_path = "--only-path 4 is not in a draw of 4 paths";
    assert_refused(&["score", "--paths", "4", "--only-path", "4"], only_path);
    assert_refused(&["score", "--paths", "0"], "--paths 200");
    assert_refused(&["score", "--path-seed", "3"], "--paths");
    assert_refused(&["score", "--paths", "3", "--runs", "2"], "--runs");
    let unscored = "--baseline newreno is not one of --controller (reno)";
    let baseline = ["--controller", "reno", "--baseline", "newreno"];
    assert_refused(
        &[&["score", "--paths", "3"], &baseline[..]].concat(),
        unscored,
    );
    assert_refused(&["score", "--baseline", "reno"], "--paths");
}

/// The real simulator on the cheapest paths of a draw: twice the same bytes, and once more from
/// the scenario file the board left beside the run.
#[test]
fn the_simulator_gives_a_path_the_same_bytes_twice_and_its_scenario_file_again() {
    let seed = 11;
    let paths = draw_all(seed, 40);
    let cost = |p: &RandomPath| {
        let l = p.layout_at(match p.capacity {
            Capacity::Fixed { rate_kbit } => rate_kbit as f64 * 1000.0,
            Capacity::Trace { .. } => f64::INFINITY,
        });
        l.capacity_bps * l.duration_s
    };
    let cheapest = paths
        .iter()
        .filter(|p| p.peer.is_some_and(|x| x.kind != PeerKind::Copy))
        .min_by(|a, b| cost(a).total_cmp(&cost(b)))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str| {
        let out = dir.path().join(name);
        let mut argv = strings(&[
            "discern",
            "score",
            "--paths",
            "40",
            "--path-seed",
            "11",
            "--only-path",
        ]);
        argv.push(cheapest.index.to_string());
        argv.extend(strings(&[
            "--controller",
            "discern",
            "--out",
            &out.to_string_lossy(),
        ]));
        execute(Cli::try_parse_from(argv).unwrap()).unwrap();
        out
    };
    let (a, b) = (run("a"), run("b"));
    for file in ["paths.csv", "paths.json"] {
        assert!(read(&a.join(file)) == read(&b.join(file)), "{file} differs");
    }
    let csv = String::from_utf8(read(&a.join("paths.csv"))).unwrap();
    let row = csv.lines().nth(1).unwrap();
    // The peer's own-kind reference ran, so what the peer kept is there.
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let kept = header.iter().position(|h| *h == "peer_kept").unwrap();
    let value: f64 = row.split(',').nth(kept).unwrap().parse().unwrap();
    assert!(value > 0.0, "{row}");
    // Each run's folder holds its scenario, and `discern run` on it gives the same run again.
    let runs: Vec<_> = std::fs::read_dir(a.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let board_run = runs
        .iter()
        .find(|d| d.to_string_lossy().ends_with("-discern"))
        .unwrap();
    let again = dir.path().join("again");
    execute(
        Cli::try_parse_from(strings(&[
            "discern",
            "run",
            &board_run.join("scenario.toml").to_string_lossy(),
            "--out",
            &again.to_string_lossy(),
        ]))
        .unwrap(),
    )
    .unwrap();
    let goodputs = |file: &std::path::Path| {
        let summary: serde_json::Value = serde_json::from_slice(&read(file)).unwrap();
        let flows = summary["flows"].as_array().unwrap().clone();
        flows
            .iter()
            .map(|f| f["goodput_bps"].as_f64().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        goodputs(&board_run.join("summary.json")),
        goodputs(&again.join("summary.json"))
    );
    let _ = seed;
}
