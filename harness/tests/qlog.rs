//! `--qlog` end to end on the simulator: one JSON-SEQ trace per endpoint of each flow, in the
//! run's folder, in virtual time, with quinn's loss and congestion-metrics events; and nothing
//! without the flag.

use std::path::Path;

use clap::Parser;
use quinn_discern_harness::cli::{execute, Cli};
use serde_json::Value;

const QUICK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios/quick.toml");

/// Two seconds of the quick scenario: at 1 % random loss, a few dozen packets are lost.
const DURATION_MS: f64 = 2000.0;

fn discern(args: &[&str]) {
    let mut argv = vec!["discern"];
    argv.extend_from_slice(args);
    execute(Cli::try_parse_from(argv).unwrap()).expect("the command runs");
}

/// A JSON-SEQ file's records: each starts with the record separator (RFC 7464).
fn records(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        text.starts_with('\u{1e}'),
        "{} is not JSON-SEQ",
        path.display()
    );
    text.split('\u{1e}')
        .filter(|r| !r.trim().is_empty())
        .map(|r| serde_json::from_str(r).unwrap_or_else(|e| panic!("record {r:?}: {e}")))
        .collect()
}

fn names(events: &[Value]) -> Vec<&str> {
    events.iter().filter_map(|e| e["name"].as_str()).collect()
}

#[test]
fn run_writes_a_trace_per_endpoint_in_virtual_time() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let out_s = out.to_str().unwrap();
    discern(&[
        "run",
        QUICK,
        "--set",
        "duration=2s",
        "--qlog",
        "--out",
        out_s,
    ]);

    let sender = records(&out.join("qlog/flow-0-sender.sqlog"));
    let header = &sender[0];
    assert_eq!(header["qlog_format"], "JSON-SEQ", "{header}");
    assert!(header["trace"].is_object(), "{header}");
    let events = &sender[1..];
    let names = names(events);
    assert!(names.contains(&"recovery:packet_lost"), "{names:?}");
    assert!(names.contains(&"recovery:metrics_updated"), "{names:?}");
    assert!(names.contains(&"transport:packet_sent"), "{names:?}");

    // The controller's window and ssthresh (its `metrics()`) reach the trace.
    let metrics = |key: &str| {
        events
            .iter()
            .filter(|e| e["name"] == "recovery:metrics_updated")
            .any(|e| e["data"][key].as_u64().is_some_and(|v| v > 0))
    };
    assert!(metrics("congestion_window"), "no congestion_window");
    assert!(metrics("ssthresh"), "no ssthresh");

    // Virtual time: the flow starts at the clock's epoch, and nothing is later than the run.
    let times: Vec<f64> = events.iter().filter_map(|e| e["time"].as_f64()).collect();
    assert_eq!(times.len(), events.len());
    assert_eq!(times[0], 0.0, "the first event is not at the epoch");
    let last = times.iter().copied().fold(0.0, f64::max);
    assert!(
        last > DURATION_MS / 2.0 && last <= DURATION_MS + 1.0,
        "{last} ms"
    );

    let receiver = records(&out.join("qlog/flow-0-receiver.sqlog"));
    assert!(names_of(&receiver).contains(&"transport:packet_received"));
}

fn names_of(records: &[Value]) -> Vec<&str> {
    names(&records[1..])
}

#[test]
fn sweep_writes_traces_in_each_runs_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("sweep");
    discern(&[
        "sweep",
        QUICK,
        "--set",
        "duration=500ms",
        "--vary",
        "seed=1,2",
        "--jobs",
        "1",
        "--qlog",
        "--out",
        out.to_str().unwrap(),
    ]);
    let runs: Vec<_> = std::fs::read_dir(out.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 2, "{runs:?}");
    for run in runs {
        for role in ["sender", "receiver"] {
            let trace = run.join(format!("qlog/flow-0-{role}.sqlog"));
            assert!(records(&trace).len() > 1, "{}", trace.display());
        }
    }
}

#[test]
fn without_the_flag_no_trace_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    discern(&[
        "run",
        QUICK,
        "--set",
        "duration=500ms",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(out.join("summary.json").is_file());
    assert!(!out.join("qlog").exists());
}
