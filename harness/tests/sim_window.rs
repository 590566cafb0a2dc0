//! A flow's `receive_window`: the receiver's advertised window caps the bytes in flight, as the
//! ns-2 agents' `window_` capped the papers' flows.

mod sim_common;

use std::path::Path;

use quinn_discern_harness::scenario::{LossModel, Scenario};
use quinn_discern_harness::sim;
use quinn_discern_harness::units::Bytes;
use sim_common::*;

#[test]
fn receive_window_caps_goodput_at_window_per_rtt() {
    // 100 Mbit/s, RTT 100 ms: a BDP of 1.25 MB (833 packets), against a window of ~20 packets.
    let window = 20 * 1440;
    let mut f = flow("quinn-newreno", 0, None);
    f.receive_window = Some(Bytes(window));
    let s = scenario(
        "window",
        10.0,
        1,
        vec![link("l", 100.0, 50, 1000, LossModel::None)],
        vec![f],
    );
    let out = sim::run(&s).expect("run");
    let f = &out.summary.flows[0];
    let s = &out.series[0].samples;
    let from = s.iter().find(|s| s.t_s >= 2.0).expect("samples");
    let last = s.last().unwrap();
    let steady = (last.delivered_bytes - from.delivered_bytes) as f64 * 8.0 / (last.t_s - from.t_s);
    let rtt = 0.1 + 1500.0 * 8.0 / 100e6;
    let expected = window as f64 * 8.0 / rtt;
    eprintln!(
        "steady goodput {:.3} Mbit/s, window / RTT {:.3} Mbit/s",
        steady / 1e6,
        expected / 1e6
    );
    assert!(
        (steady / expected - 1.0).abs() <= 0.15,
        "steady {steady}, expected {expected}"
    );
    assert!(f.flow_control_limited, "{f:?}");
    assert_eq!(out.summary.drops.unwrap().queue, 0);
}

/// Without a cap, a controller that ignores random losses slow-starts far past the BDP of paper
/// 004's path, and the drop-tail burst leaves more gaps in the receiver's stream buffer than
/// quinn accepts; ns-2's window of 50 packets keeps the flow well inside the pipe.
#[test]
fn a_capped_flow_survives_heavy_random_loss() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/004-errors-only.toml");
    let sets: Vec<_> = [
        "duration=30s",
        "link.egress.loss.rate=0.01",
        "flow.0.controller=modified-sack",
        "flow.0.receive_window=73600",
    ]
    .iter()
    .map(|s| s.parse().unwrap())
    .collect();
    let s = Scenario::from_file(&path, &sets).expect("parse");
    let out = sim::run(&s).expect("run");
    let f = &out.summary.flows[0];
    let drops = out.summary.drops.unwrap();
    eprintln!("goodput {:.3} Mbit/s, drops {drops:?}", f.goodput_bps / 1e6);
    assert!(f.verified && f.bytes_delivered > 0);
    assert!(drops.channel > 0);
    assert_eq!(drops.queue, 0);
    // At most the window per round trip.
    assert!(f.goodput_bps <= 73_600.0 * 8.0 / 0.2, "{f:?}");
}
