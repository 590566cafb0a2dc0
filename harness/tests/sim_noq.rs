//! noq's peers on the simulator: a noq sender and a noq receiver on the same links and clock as
//! quinn's flows. BBRv3's signature against draft-ietf-ccwg-bbr-06 (full rate below its 2 %
//! per-round loss threshold, a fall above it where BBRv1 keeps going, a share against CUBIC in
//! deep buffers between BBRv1's and NewReno's), and what the recorder gets of a flow whose
//! controller logs nothing.

mod sim_common;

use quinn_discern_harness::report::Summary;
use quinn_discern_harness::scenario::{LossModel, Scenario};
use quinn_discern_harness::sim;
use sim_common::*;

const MBIT: f64 = 20.0;
const RTT_MS: u64 = 40;

/// One flow of `controller` over a 20 Mbit/s, 40 ms link with a one-BDP queue and random loss.
fn lossy(controller: &str, rate: f64, seed: u64) -> Scenario {
    let queue = bdp_packets(MBIT, RTT_MS);
    let loss = LossModel::Bernoulli { rate };
    scenario(
        "noq-lossy",
        10.0,
        seed,
        vec![link("l", MBIT, RTT_MS / 2, queue, loss)],
        vec![flow(controller, 0, None)],
    )
}

/// `controller` against quinn-cubic over a lossless link with a queue of four BDPs.
fn against_cubic(controller: &str, seed: u64) -> Scenario {
    let queue = 4 * bdp_packets(MBIT, RTT_MS);
    scenario(
        "noq-deep",
        20.0,
        seed,
        vec![link("l", MBIT, RTT_MS / 2, queue, LossModel::None)],
        vec![flow(controller, 0, None), flow("quinn-cubic", 0, None)],
    )
}

fn run(s: &Scenario) -> Summary {
    sim::run(s)
        .unwrap_or_else(|e| panic!("{}: {e}", s.flows[0].controller))
        .summary
}

fn mbit(s: &Summary) -> f64 {
    s.flows[0].goodput_bps / 1e6
}

fn share(s: &Summary) -> f64 {
    s.flows[0].goodput_bps / (s.flows[0].goodput_bps + s.flows[1].goodput_bps)
}

/// The summary as `summary.json` holds it.
fn json(s: &Scenario) -> String {
    serde_json::to_string_pretty(&run(s)).expect("summary serializes")
}

#[test]
fn bbr3_holds_its_rate_below_the_loss_threshold_and_falls_above_it_where_bbr1_does_not() {
    let half_percent = mbit(&run(&lossy("noq-bbr3", 0.005, 1)));
    let five_percent = mbit(&run(&lossy("noq-bbr3", 0.05, 1)));
    let bbr1_five_percent = mbit(&run(&lossy("quinn-bbr", 0.05, 1)));
    eprintln!(
        "noq-bbr3: {half_percent:.2} Mbit/s at 0.5 %, {five_percent:.2} at 5 %; \
         quinn-bbr {bbr1_five_percent:.2} at 5 %"
    );
    // Below the 2 % per-round threshold a loss does not bound inflight: near the link's rate.
    assert!(half_percent > 0.7 * MBIT, "{half_percent} Mbit/s at 0.5 %");
    // Above it every round's losses cut inflight_longterm by beta = 0.7: a clear fall.
    assert!(
        five_percent < 0.6 * half_percent,
        "{five_percent} Mbit/s at 5 %, {half_percent} at 0.5 %"
    );
    // BBRv1 does not look at losses: it keeps going.
    assert!(bbr1_five_percent > 0.8 * MBIT, "{bbr1_five_percent}");
    assert!(bbr1_five_percent > 1.5 * five_percent);
}

#[test]
fn bbr3_against_cubic_in_deep_buffers_takes_less_than_bbr1() {
    let bbr3 = share(&run(&against_cubic("noq-bbr3", 1)));
    let bbr1 = share(&run(&against_cubic("quinn-bbr", 1)));
    // The control: noq's CUBIC against quinn's shares evenly, so the glue favours neither.
    let control = share(&run(&against_cubic("noq-cubic", 1)));
    eprintln!("share against quinn-cubic: noq-bbr3 {bbr3:.3}, quinn-bbr {bbr1:.3}, noq-cubic {control:.3}");
    assert!(
        (0.35..0.65).contains(&control),
        "noq-cubic's share {control}"
    );
    // BBRv3's loss response (the overflows CUBIC causes cut inflight_longterm) and its
    // headroom leave CUBIC more of the queue than BBRv1's cwnd gain of 2 does.
    assert!(bbr3 < bbr1, "noq-bbr3 {bbr3}, quinn-bbr {bbr1}");
    assert!(bbr3 > 0.02, "noq-bbr3 starved: {bbr3}");
}

#[test]
fn a_noq_flow_is_recorded_from_its_statistics_with_no_controller_records() {
    let mut s = lossy("noq-cubic", 0.01, 3);
    s.flows[0].bytes = Some(quinn_discern_harness::units::Bytes(3_000_000));
    let out = sim::run(&s).expect("noq-cubic runs");
    let f = &out.summary.flows[0];
    assert!(f.verified);
    assert_eq!(f.bytes_delivered, 3_000_000);
    assert!(f.completion_time_s.is_some());
    // Goodput, losses and congestion events come from noq's statistics ...
    assert!(f.goodput_bps > 0.0);
    assert!(f.lost_packets > 0 && f.congestion_events > 0, "{f:?}");
    // ... the window and RTT from its connection, every sample interval ...
    let samples = &out.series[0].samples;
    assert!(samples.len() > 10, "{} samples", samples.len());
    assert!(samples.iter().all(|x| x.cwnd_bytes > 0 && x.rtt_s > 0.0));
    // ... and noq's controller makes no loss decisions the harness could score.
    assert_eq!(f.verdicts.random + f.verdicts.congestion, 0);
}

#[test]
fn noq_cubic_is_deterministic_same_seed_same_summary() {
    let s = lossy("noq-cubic", 0.01, 7);
    assert_eq!(json(&s), json(&s));
}

#[test]
fn noq_and_quinn_flows_share_a_link() {
    let s = scenario(
        "mixed",
        5.0,
        5,
        vec![link(
            "l",
            MBIT,
            RTT_MS / 2,
            bdp_packets(MBIT, RTT_MS),
            LossModel::None,
        )],
        vec![
            flow("noq-bbr3", 0, None),
            flow("newreno", 0, None),
            flow("noq-cubic", 0, None),
        ],
    );
    let out = run(&s);
    let total: f64 = out.flows.iter().map(|f| f.goodput_bps).sum();
    assert!(
        out.flows
            .iter()
            .all(|f| f.verified && f.goodput_bps > 0.5e6),
        "{:?}",
        out.flows
    );
    assert!(total > 0.8 * MBIT * 1e6, "{total}");
}

#[test]
fn noq_endpoints_write_their_own_qlog_traces() {
    let dir = tempfile::tempdir().unwrap();
    let qlog = quinn_discern_harness::transport::Qlog {
        dir: dir.path().join("qlog"),
    };
    let mut s = lossy("noq-bbr3", 0.0, 2);
    s.duration = std::time::Duration::from_secs(1);
    sim::run_with_qlog(&s, sim::PacketProtection::Null, Some(&qlog)).expect("noq-bbr3 runs");
    for role in ["sender", "receiver"] {
        let trace = std::fs::read_to_string(qlog.file(0, role)).unwrap();
        // JSON-SEQ: a header record, then one per event, packets sent and received among them.
        assert!(
            trace.contains("noq-bbr3"),
            "{role}: {}",
            &trace[..200.min(trace.len())]
        );
        assert!(
            trace.contains("packet_sent") && trace.contains("packet_received"),
            "{role}"
        );
    }
}
