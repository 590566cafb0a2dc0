//! Simulator speed: virtual seconds per wall second for one lossless flow over a 40 ms RTT path,
//! and the share of wall time spent inside quinn-proto. Ignored by default; run with
//! `cargo test --release -p quinn-discern-harness --test sim_speed -- --ignored --nocapture`.

mod sim_common;

use quinn_discern_harness::scenario::LossModel;
use quinn_discern_harness::sim;
use sim_common::*;

#[test]
#[ignore = "timing table, run on demand in release"]
fn speed_table() {
    println!(
        "| controller | link | virtual s | wall s | virtual/wall | quinn share | goodput Mbit/s |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (controller, mbit, secs) in [
        ("quinn-newreno", 10.0, 60.0),
        ("quinn-newreno", 100.0, 20.0),
        ("newreno", 10.0, 60.0),
        ("newreno", 100.0, 20.0),
    ] {
        let s = scenario(
            "speed",
            secs,
            1,
            vec![link("l", mbit, 20, bdp_packets(mbit, 40), LossModel::None)],
            vec![flow(controller, 0, None)],
        );
        let out = sim::run(&s).expect("run");
        let t = out.timing;
        println!(
            "| {controller} | {mbit} Mbit/s | {secs} | {:.3} | {:.1}x | {:.0} % | {:.2} |",
            t.wall_s,
            out.summary.duration_s / t.wall_s,
            100.0 * t.quinn_s / t.wall_s,
            out.summary.flows[0].goodput_bps / 1e6
        );
    }
}
