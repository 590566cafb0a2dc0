//! The simulator end to end: transfers complete and verify, runs are deterministic.

mod sim_common;

use discern_harness::scenario::LossModel;
use discern_harness::sim;
use sim_common::*;

#[test]
fn finite_transfer_completes_and_verifies() {
    let s = scenario(
        "finite",
        10.0,
        1,
        vec![link("l", 10.0, 20, bdp_packets(10.0, 40), LossModel::None)],
        vec![flow("quinn-newreno", 0, Some(1_000_000))],
    );
    let out = sim::run(&s).expect("run");
    let f = &out.summary.flows[0];
    eprintln!("{:#?}\n{:?}", out.summary, out.timing);
    assert_eq!(f.bytes_delivered, 1_000_000);
    assert!(f.verified);
    let ct = f.completion_time_s.expect("completed");
    // 1 MB at 10 Mbit/s is 0.8 s plus handshake and slow start.
    assert!(ct > 0.8 && ct < 3.0, "completion {ct}");
    assert!(out.summary.duration_s < 10.0);
}
