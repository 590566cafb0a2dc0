//! Output writers, plots and sweeps, fed with synthetic results.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use quinn_discern_harness::output::{self, plot};
use quinn_discern_harness::report::*;
use quinn_discern_harness::scenario::{Flow, FlowController, Scenario};
use quinn_discern_harness::sweep::{self, Vary};

mod common;
use common::synthetic;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn run_outputs_are_parseable_with_the_right_columns_and_rows() {
    let dir = tempfile::tempdir().unwrap();
    let out = synthetic(&["composite", "newreno"], 8e6, 50);
    let files = output::write_run(dir.path(), &out).unwrap();
    for name in [
        "summary.json",
        "timing.json",
        "flows.csv",
        "cwnd.png",
        "cwnd.svg",
        "throughput.png",
        "throughput.svg",
    ] {
        assert!(
            files.contains(&dir.path().join(name)),
            "{name} not reported"
        );
        assert!(
            std::fs::metadata(dir.path().join(name)).unwrap().len() > 0,
            "{name} is empty"
        );
    }

    let summary: Summary = serde_json::from_str(&read(&dir.path().join("summary.json"))).unwrap();
    assert_eq!(summary, out.summary);
    let json: serde_json::Value =
        serde_json::from_str(&read(&dir.path().join("summary.json"))).unwrap();
    assert_eq!(
        json["flows"][1]["completion_time_s"],
        serde_json::Value::Null
    );
    assert_eq!(json["flows"][0]["verdicts"]["random"], 1);
    assert_eq!(json["drops"]["channel"], 9);
    let timing: Timing = serde_json::from_str(&read(&dir.path().join("timing.json"))).unwrap();
    assert_eq!(timing, out.timing);

    let mut r = csv::Reader::from_path(dir.path().join("flows.csv")).unwrap();
    assert_eq!(
        r.headers().unwrap().iter().collect::<Vec<_>>(),
        [
            "flow",
            "controller",
            "t_s",
            "cwnd_bytes",
            "ssthresh_bytes",
            "rtt_s",
            "delivered_bytes"
        ]
    );
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 100);
    assert_eq!(&rows[0][0], "0");
    assert_eq!(&rows[0][1], "composite");
    assert_eq!(&rows[0][4], "", "unknown ssthresh is an empty cell");
    assert_eq!(&rows[60][0], "1");
    assert_eq!(&rows[60][1], "newreno");
    assert_eq!(rows[60][2].parse::<f64>().unwrap(), 0.1);
    assert_eq!(&rows[60][4], "30000");
    assert_eq!(rows[60][6].parse::<u64>().unwrap(), 12_500);
}

#[test]
fn plots_have_axis_labels_and_legends() {
    let dir = tempfile::tempdir().unwrap();
    let out = synthetic(&["composite", "quinn-cubic"], 8e6, 300);
    output::write_run(dir.path(), &out).unwrap();
    let cwnd = read(&dir.path().join("cwnd.svg"));
    for text in [
        "time (s)",
        "cwnd (kB)",
        "flow 0: composite",
        "flow 1: quinn-cubic",
    ] {
        assert!(cwnd.contains(text), "cwnd.svg lacks {text:?}");
    }
    let tput = read(&dir.path().join("throughput.svg"));
    for text in ["throughput (Mbit/s)", "flow 1: quinn-cubic", "100 ms bins"] {
        assert!(tput.contains(text), "throughput.svg lacks {text:?}");
    }
    let png = std::fs::read(dir.path().join("cwnd.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
}

#[test]
fn plots_survive_empty_series() {
    let dir = tempfile::tempdir().unwrap();
    let out = synthetic(&["reno"], 0.0, 0);
    output::write_run(dir.path(), &out).unwrap();
    assert!(
        std::fs::metadata(dir.path().join("throughput.png"))
            .unwrap()
            .len()
            > 0
    );
}

fn scenario(controller: &str) -> Scenario {
    Scenario {
        name: "s".into(),
        description: String::new(),
        duration: Duration::from_secs(1),
        seed: 1,
        mtu: 1500,
        timer_granularity: None,
        links: vec![],
        flows: vec![Flow {
            controller: controller.parse().expect("controller id"),
            path: vec![0],
            start: Duration::ZERO,
            bytes: None,
            count: 1,
            receive_window: None,
            max_ack_delay: None,
            ack_every: None,
            receiver: Default::default(),
            under_test: false,
            receiver_lies: None,
        }],
        source: None,
    }
}

#[test]
fn sweep_runs_every_point_through_the_runner_and_tabulates_in_order() {
    let varies: Vec<Vary> = vec!["loss=0.001,0.01,0.1".parse().unwrap()];
    let ctrls: Vec<FlowController> = vec!["newreno".parse().unwrap(), "composite".parse().unwrap()];
    let points = sweep::expand(&varies, Some(&ctrls));
    // The synthetic runner encodes the scenario's seed and controller in the goodput, so the
    // table shows whether each point got its own scenario.
    let jobs: Vec<_> = points
        .iter()
        .map(|p| {
            let mut s = scenario(p.controller.as_ref().unwrap().id());
            s.seed = p.index as u64;
            (p.clone(), s)
        })
        .collect();
    let calls = AtomicUsize::new(0);
    let runner = |s: &Scenario| {
        calls.fetch_add(1, Ordering::SeqCst);
        if s.seed == 4 {
            anyhow::bail!("synthetic failure");
        }
        let c = s.flows[0].controller.id();
        Ok(synthetic(&[c, c], 1e6 * (s.seed + 1) as f64, 20))
    };
    let done = AtomicUsize::new(0);
    let on_done = |_: &sweep::Point, _: &RunOutput| {
        done.fetch_add(1, Ordering::SeqCst);
        Ok(())
    };
    let records = sweep::run_all(jobs, &runner, 3, &on_done);
    assert_eq!(calls.load(Ordering::SeqCst), 6);
    assert_eq!(done.load(Ordering::SeqCst), 5);
    assert_eq!(records.len(), 6);
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r.point.index, i);
        if i == 4 {
            assert_eq!(r.result.as_ref().unwrap_err(), "synthetic failure");
            continue;
        }
        let a = r.result.as_ref().unwrap();
        assert_eq!(a.flows, 2);
        assert_eq!(a.goodput_total_bps, 2e6 * (i + 1) as f64);
        assert_eq!(a.goodput_mean_bps, 1e6 * (i + 1) as f64);
        assert_eq!(a.completion_time_s, None, "flow 1 never completes");
        assert_eq!(a.lost_packets, 3 + 4);
    }
    assert_eq!(records[3].controller, "composite");
    assert_eq!(records[3].point.values[0].1, "0.01");

    let keys = vec!["loss".to_string()];
    let t = sweep::table(&keys, &records, false);
    assert_eq!(t.headers[..4], ["run", "loss", "controller", "flows"]);
    assert!(t.headers.contains(&"random_as_random".to_string()));
    assert_eq!(t.headers.last().unwrap(), "error");
    let col = |name: &str| t.headers.iter().position(|h| h == name).unwrap();
    assert_eq!(t.rows.len(), 6);
    assert_eq!(t.rows[5][col("goodput_total_bps")], "12000000");
    assert_eq!(t.rows[5][col("loss")], "0.1");
    assert_eq!(t.rows[5][col("verified")], "true");
    assert_eq!(t.rows[4][col("error")], "synthetic failure");
    assert_eq!(t.rows[4][col("goodput_total_bps")], "");
    assert!(t.rows.iter().all(|r| r.len() == t.headers.len()));

    let dir = tempfile::tempdir().unwrap();
    let csv_path = dir.path().join("sweep.csv");
    output::write_table_csv(&csv_path, &t).unwrap();
    let mut r = csv::Reader::from_path(&csv_path).unwrap();
    assert_eq!(r.headers().unwrap().len(), t.headers.len());
    assert_eq!(r.records().count(), 6);

    let files = sweep::goodput_plot(dir.path(), "synthetic", &varies, &records).unwrap();
    assert_eq!(files.len(), 2);
    let svg = read(&dir.path().join("goodput.svg"));
    for text in ["goodput (Mbit/s)", "loss", "newreno", "composite"] {
        assert!(svg.contains(text), "goodput.svg lacks {text:?}");
    }
}

#[test]
fn goodput_plot_handles_units_and_categories() {
    let dir = tempfile::tempdir().unwrap();
    let varies: Vec<Vary> = vec!["model=bernoulli,gilbert".parse().unwrap()];
    let points = sweep::expand(&varies, Some(&["reno".parse().unwrap()]));
    let records: Vec<sweep::Record> = points
        .into_iter()
        .map(|p| sweep::Record {
            controller: "reno".into(),
            result: Ok(sweep::Aggregate::of(&synthetic(&["reno"], 5e6, 5).summary)),
            point: p,
        })
        .collect();
    sweep::goodput_plot(dir.path(), "cats", &varies, &records).unwrap();
    let svg = read(&dir.path().join("goodput.svg"));
    assert!(svg.contains("bernoulli") && svg.contains("gilbert"));

    let varies: Vec<Vary> = vec!["link.l.rate=1Mbit,10Mbit,100Mbit".parse().unwrap()];
    let points = sweep::expand(&varies, None);
    let records: Vec<sweep::Record> = points
        .into_iter()
        .map(|p| sweep::Record {
            controller: "reno".into(),
            result: Ok(sweep::Aggregate::of(&synthetic(&["reno"], 5e6, 5).summary)),
            point: p,
        })
        .collect();
    sweep::goodput_plot(dir.path(), "rates", &varies, &records).unwrap();
    let svg = read(&dir.path().join("goodput.svg"));
    assert!(svg.contains("link.l.rate (Mbit)"));
}

#[test]
fn chart_writes_png_and_svg_with_log_axis() {
    let dir = tempfile::tempdir().unwrap();
    let chart = plot::Chart {
        title: "log".into(),
        x_label: "loss rate".into(),
        y_label: "y".into(),
        x_axis: plot::XAxis::Log,
        markers: true,
        lines: vec![plot::Line {
            label: "a".into(),
            points: vec![(0.001, 1.0), (0.01, 2.0), (0.1, 3.0)],
            error_bars: vec![(0.01, 1.5, 2.5)],
        }],
    };
    let files = chart.write(dir.path(), "x").unwrap();
    assert_eq!(files, [dir.path().join("x.png"), dir.path().join("x.svg")]);
    assert!(read(&files[1]).contains("loss rate"));
}
