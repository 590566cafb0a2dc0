//! The simulator end to end: transfers complete and verify, runs are deterministic, flows start
//! when told, and the loss models drop what they say.

mod sim_common;

use std::time::Duration;

use quinn_discern_harness::scenario::LossModel;
use quinn_discern_harness::sim;
use sim_common::*;

#[test]
fn finite_transfers_complete_and_verify() {
    let mut two = flow("quinn-cubic", 0, Some(300_000));
    two.count = 2;
    let s = scenario(
        "finite",
        10.0,
        1,
        vec![link("l", 10.0, 20, bdp_packets(10.0, 40), LossModel::None)],
        vec![
            flow("quinn-newreno", 0, Some(1_000_000)),
            two,
            flow("newreno", 0, Some(0)),
        ],
    );
    let out = sim::run(&s).expect("run");
    let flows = &out.summary.flows;
    assert_eq!(flows.len(), 4);
    let empty = &flows[3];
    assert_eq!(empty.bytes_delivered, 0);
    assert!(empty.completion_time_s.expect("empty transfer completes") < 0.2);
    for (f, bytes) in flows.iter().zip([1_000_000, 300_000, 300_000]) {
        assert_eq!(f.bytes_delivered, bytes);
        assert!(f.verified);
        let ct = f.completion_time_s.expect("completed");
        // At most 10 Mbit/s shared: at least bytes*8/1e7 s; well within the run.
        assert!(ct > bytes as f64 * 8.0 / 1e7 && ct < 5.0, "completion {ct}");
    }
    // The run stops once every finite flow is done.
    assert!(out.summary.duration_s < 5.0);
    assert_eq!(out.summary.link.kind, "sim");
}

#[test]
fn same_seed_same_summary() {
    let ge = LossModel::GilbertElliott {
        p: 0.01,
        r: 0.3,
        h: 0.0,
        k: 1.0,
    };
    let mut l = link("l", 20.0, 15, 30, ge);
    l.reverse_loss = LossModel::Bernoulli { rate: 0.01 };
    let s = scenario(
        "determinism",
        3.0,
        42,
        vec![l],
        vec![
            flow("quinn-newreno", 0, None),
            flow("quinn-cubic", 300, Some(2_000_000)),
            flow("composite", 100, None),
        ],
    );
    let a = sim::run(&s).expect("first run");
    let b = sim::run(&s).expect("second run");
    assert_eq!(a.summary, b.summary);
    assert_eq!(a.series, b.series);
    assert!(a.summary.drops.unwrap().channel > 0);
    let mut other = s.clone();
    other.seed = 43;
    let c = sim::run(&other).expect("other seed");
    assert_ne!(a.summary.flows, c.summary.flows);
}

#[test]
fn later_flow_starts_later() {
    let s = scenario(
        "late",
        2.0,
        1,
        vec![link("l", 10.0, 10, 20, LossModel::None)],
        vec![
            flow("quinn-newreno", 0, None),
            flow("quinn-newreno", 1000, None),
        ],
    );
    let out = sim::run(&s).expect("run");
    let late = &out.series[1].samples;
    assert!(late.first().unwrap().t_s >= 1.0);
    let early = &out.series[0].samples;
    assert!(early.first().unwrap().t_s < 0.05);
    assert_eq!(out.summary.flows[1].start_s, 1.0);
    assert!(out.summary.flows[1].bytes_delivered > 0);
    // Goodput is over the flow's own lifetime.
    let f = &out.summary.flows[1];
    let expect = f.bytes_delivered as f64 * 8.0 / 1.0;
    assert!((f.goodput_bps - expect).abs() < 1e-6 * expect);
}

#[test]
fn burst_loss_drops_exactly_its_packets() {
    let burst = LossModel::Burst {
        every: Duration::from_millis(500),
        drops: 4,
        start: Duration::from_millis(700),
        count: Some(3),
    };
    let s = scenario(
        "burst",
        3.0,
        1,
        vec![link("l", 10.0, 20, bdp_packets(10.0, 40), burst)],
        vec![flow("quinn-newreno", 0, None)],
    );
    let out = sim::run(&s).expect("run");
    let d = out.summary.drops.unwrap();
    assert_eq!(d.channel, 12);
}

#[test]
fn gilbert_elliott_link_loses_its_mean_rate() {
    let (p, r, h, k) = (0.005, 0.2, 0.1, 0.999);
    let s = scenario(
        "ge",
        20.0,
        5,
        vec![link(
            "l",
            100.0,
            5,
            1000,
            LossModel::GilbertElliott { p, r, h, k },
        )],
        vec![flow("quinn-cubic", 0, None)],
    );
    let out = sim::run(&s).expect("run");
    let m = out.summary.links[0].measured.unwrap();
    let expect = p * (1.0 - h) / (p + r) + r * (1.0 - k) / (p + r);
    eprintln!("measured {} expected {expect}", m.loss_rate);
    assert!(
        (m.loss_rate - expect).abs() < 0.3 * expect,
        "{} vs {expect}",
        m.loss_rate
    );
}

#[test]
fn ack_path_loss_is_recorded_on_the_reverse_direction() {
    let mut l = link("l", 10.0, 20, bdp_packets(10.0, 40), LossModel::None);
    l.reverse_loss = LossModel::Bernoulli { rate: 0.05 };
    let s = scenario(
        "ack-loss",
        3.0,
        4,
        vec![l],
        vec![flow("quinn-newreno", 0, None)],
    );
    let out = sim::run(&s).expect("run");
    let d = out.summary.drops.unwrap();
    assert!(d.channel > 20, "{d:?}");
    // The forward direction lost nothing, and the data direction's measured loss says so.
    assert_eq!(out.summary.links[0].measured.unwrap().loss_rate, 0.0);
    assert!(out.summary.flows[0].goodput_bps > 8e6);
}

#[test]
fn multi_link_paths_share_the_named_links() {
    let s = scenario(
        "paths",
        4.0,
        6,
        vec![
            link("access", 100.0, 5, 100, LossModel::None),
            link("bottleneck", 10.0, 15, 40, LossModel::None),
        ],
        vec![
            quinn_discern_harness::scenario::Flow {
                path: vec![0, 1],
                ..flow("quinn-newreno", 0, None)
            },
            quinn_discern_harness::scenario::Flow {
                path: vec![1],
                ..flow("quinn-newreno", 0, None)
            },
        ],
    );
    let out = sim::run(&s).expect("run");
    let [a, b] = [&out.summary.flows[0], &out.summary.flows[1]];
    let total = a.goodput_bps + b.goodput_bps;
    assert!(total > 8.5e6 && total < 10e6, "total {total}");
    assert!(a.goodput_bps > 2e6 && b.goodput_bps > 2e6, "{a:?} {b:?}");
    // Only the first flow crosses the access link: its wire rate is that flow's goodput plus
    // headers and retransmissions.
    let access = out.summary.links[0].measured.unwrap().rate_bps;
    assert!(
        access > a.goodput_bps && access < 1.15 * a.goodput_bps,
        "access carried {access}, flow 0 got {}",
        a.goodput_bps
    );
    // The two-link flow sees the longer RTT.
    let rtt = |i: usize| out.series[i].samples.last().unwrap().rtt_s;
    assert!(rtt(0) > rtt(1));
}
