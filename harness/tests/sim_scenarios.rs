//! The shipped scenario files run in the simulator.

use std::path::{Path, PathBuf};

use quinn_discern_harness::scenario::Scenario;
use quinn_discern_harness::sim;

fn scenarios_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios")
}

#[test]
fn quick_scenario_runs() {
    let s = Scenario::from_file(&scenarios_dir().join("quick.toml"), &[]).expect("parse");
    let out = sim::run(&s).expect("run");
    let f = &out.summary.flows[0];
    assert!(f.verified && f.bytes_delivered > 0);
    assert!(f.verdicts.random + f.verdicts.congestion > 0);
    assert!(out.summary.drops.unwrap().channel > 0);
    assert_eq!(out.summary.duration_s, 5.0);
}

/// Every scenario file, with its wall time; run on demand in release:
/// `cargo test --release -p quinn-discern-harness --test sim_scenarios -- --ignored --nocapture`.
#[test]
#[ignore = "runs every shipped scenario in full"]
fn every_scenario_runs() {
    let mut files: Vec<_> = std::fs::read_dir(scenarios_dir())
        .expect("scenarios/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    for path in files {
        let s = match Scenario::from_file(&path, &[]) {
            Ok(s) => s,
            // The LTE scenarios read recorded traces kept beside the repository.
            Err(e) if e.to_string().contains("cannot read trace file") => {
                println!("SKIPPED {}: {e}", path.display());
                continue;
            }
            Err(e) => panic!("{e}"),
        };
        let out = sim::run(&s).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let goodput: f64 = out.summary.flows.iter().map(|f| f.goodput_bps).sum();
        println!(
            "{:40} {:6.1} s virtual in {:6.2} s wall ({:5.1}x), {} flows, {:7.2} Mbit/s total, drops {:?}",
            path.file_name().unwrap().to_string_lossy(),
            out.summary.duration_s,
            out.timing.wall_s,
            out.summary.duration_s / out.timing.wall_s,
            out.summary.flows.len(),
            goodput / 1e6,
            out.summary.drops.unwrap()
        );
    }
}
