//! Simulator speed: virtual seconds per wall second for one lossless flow over a 40 ms RTT path
//! (10 Mbit/s to 1 Gbit/s, a queue of one BDP, the default null packet protection),
//! and the share of wall time spent inside quinn-proto. Ignored by default; run with
//! `cargo test --release -p quinn-discern-harness --test sim_speed -- --ignored --nocapture`.

mod sim_common;

use quinn_discern_harness::scenario::LossModel;
use quinn_discern_harness::sim;
use quinn_discern_harness::units::Bytes;
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
        ("quinn-newreno", 1000.0, 5.0),
    ] {
        let mut f = flow(controller, 0, None);
        if mbit >= 1000.0 {
            // Slow start would overshoot a 1 Gbit/s pipe by thousands of packets and leave more
            // holes in the receiver's stream than quinn-proto buffers (it closes the
            // connection); 1.5 BDP of receive window keeps the run lossless and at the link rate.
            f.receive_window = Some(Bytes((1.5 * mbit * 1e6 / 8.0 * 0.040) as u64));
        }
        let s = scenario(
            "speed",
            secs,
            1,
            vec![link("l", mbit, 20, bdp_packets(mbit, 40), LossModel::None)],
            vec![f],
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
