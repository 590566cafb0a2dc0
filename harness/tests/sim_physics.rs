//! The simulator against physics: a lossless flow fills its link, NewReno under random loss
//! follows the Mathis formula, and the ground truth tells channel loss from queue overflow.

mod sim_common;

use quinn_discern_harness::report::{RunOutput, Sample};
use quinn_discern_harness::scenario::LossModel;
use quinn_discern_harness::sim;
use sim_common::*;

/// Delivered bytes per second between `from` and the last sample.
fn steady_goodput_bps(samples: &[Sample], from: f64) -> f64 {
    let first = samples.iter().find(|s| s.t_s >= from).expect("samples");
    let last = samples.last().unwrap();
    (last.delivered_bytes - first.delivered_bytes) as f64 * 8.0 / (last.t_s - first.t_s)
}

fn mean_rtt(out: &RunOutput) -> f64 {
    let s = &out.series[0].samples;
    s.iter().map(|s| s.rtt_s).sum::<f64>() / s.len() as f64
}

#[test]
fn lossless_flow_fills_the_link() {
    let rate = 10e6;
    let s = scenario(
        "fill",
        8.0,
        1,
        vec![link("l", 10.0, 20, bdp_packets(10.0, 40), LossModel::None)],
        vec![flow("quinn-newreno", 0, None)],
    );
    let out = sim::run(&s).expect("run");
    let f = &out.summary.flows[0];
    let steady = steady_goodput_bps(&out.series[0].samples, 2.0);
    // Goodput counts application bytes only: each 1500-byte packet carries ~1440 of them.
    let payload_share = f.bytes_delivered as f64 / (f.packets_delivered as f64 * 1500.0);
    eprintln!(
        "steady goodput {:.3} Mbit/s = {:.1} % of the link, {:.1} % of its payload capacity",
        steady / 1e6,
        100.0 * steady / rate,
        100.0 * steady / (rate * payload_share)
    );
    assert!(steady >= 0.95 * rate * payload_share, "steady {steady}");
    assert!(steady >= 0.93 * rate, "steady {steady}");
    assert!(!f.flow_control_limited);
    assert_eq!(out.summary.drops.unwrap().channel, 0);
}

/// NewReno under Bernoulli loss p: goodput within a factor 1.5 of MSS/RTT * 1.22/sqrt(p).
#[test]
fn newreno_follows_mathis() {
    for (p, secs) in [(0.001, 60.0), (0.003, 40.0), (0.01, 30.0)] {
        // A fast, deep link that random loss, not the link, limits.
        let s = scenario(
            "mathis",
            secs,
            3,
            vec![link("l", 100.0, 10, 1000, LossModel::Bernoulli { rate: p })],
            vec![flow("quinn-newreno", 0, None)],
        );
        let out = sim::run(&s).expect("run");
        let f = &out.summary.flows[0];
        let mss = f.bytes_delivered as f64 / f.packets_delivered as f64;
        let rtt = mean_rtt(&out);
        let mathis = mss * 8.0 / rtt * 1.22 / p.sqrt();
        let ratio = f.goodput_bps / mathis;
        eprintln!(
            "p={p}: goodput {:.2} Mbit/s, Mathis {:.2} Mbit/s, ratio {ratio:.2}",
            f.goodput_bps / 1e6,
            mathis / 1e6
        );
        assert!((1.0 / 1.5..=1.5).contains(&ratio), "p={p}: ratio {ratio}");
        // Never overloaded: every drop is the channel's, and each decision scores as random loss
        // judged congestion (quinn's NewReno has no other verdict).
        let drops = out.summary.drops.unwrap();
        assert_eq!(drops.queue, 0);
        assert!(drops.channel > 50);
        let acc = out.summary.verdict_accuracy.unwrap();
        assert_eq!(
            acc.random_as_congestion,
            f.verdicts.congestion - acc.spurious
        );
        assert_eq!(f.verdicts.congestion, f.congestion_events);
        assert_eq!(acc.congestion_as_congestion + acc.random_as_random, 0);
        // The channel's loss rate is within statistical spread of p.
        let m = out.summary.links[0].measured.unwrap();
        let n = f.packets_delivered as f64;
        let sd = (p * (1.0 - p) / n).sqrt();
        assert!(
            (m.loss_rate - p).abs() < 4.0 * sd,
            "loss rate {}",
            m.loss_rate
        );
    }
}

#[test]
fn overloaded_bottleneck_drops_are_mostly_queue() {
    let mut f = flow("quinn-newreno", 0, None);
    f.count = 4;
    let s = scenario(
        "overload",
        5.0,
        2,
        vec![link(
            "l",
            10.0,
            20,
            20,
            LossModel::Bernoulli { rate: 0.0005 },
        )],
        vec![f],
    );
    let out = sim::run(&s).expect("run");
    let d = out.summary.drops.unwrap();
    eprintln!("drops {d:?}");
    assert!(d.queue > 20);
    assert!(d.queue as f64 > 0.8 * (d.queue + d.channel) as f64, "{d:?}");
    let acc = out.summary.verdict_accuracy.unwrap();
    assert!(acc.congestion_as_congestion > acc.random_as_congestion);
    let total: f64 = out.summary.flows.iter().map(|f| f.goodput_bps).sum();
    assert!(total > 8.5e6, "total goodput {total}");
}

/// The scoreboard's class where a quinn-cubic flow arrives, fills a 5 BDP buffer beside the
/// controller, and leaves: a delay-aware controller gives the buffer back within the settling
/// time, where a loss-based one keeps it full until its next loss.
#[test]
fn once_a_buffer_filler_leaves_discern_gives_the_buffer_back_and_cubic_does_not() {
    use quinn_discern_harness::score::classes::AFTER_VISIT_SETTLE_S;
    use quinn_discern_harness::score::paths::Measures;
    use quinn_discern_harness::score::{queue_budget_s, Job};
    let job = |controller: &str| Job {
        class: "visit-5bdp-vs-cubic".into(),
        controller: controller.into(),
        lossless: false,
        seed: 1,
    };
    let budget = queue_budget_s(job("discern").class().unwrap());
    let queue_after = |controller: &str| {
        let out = sim::run(&job(controller).scenario().expect("no trace needed")).expect("run");
        assert_eq!(
            out.summary.flows[1].outcome,
            quinn_discern_harness::report::Outcome::Completed,
            "the peer leaves"
        );
        let m = Measures::of(&out, AFTER_VISIT_SETTLE_S);
        m.queue_after_peer_p95_s.expect("samples after the peer")
    };
    let (discern, cubic) = (queue_after("discern"), queue_after("quinn-cubic"));
    eprintln!("p95 queue after the peer: discern {discern:.4} s, quinn-cubic {cubic:.4} s");
    assert!(
        discern <= budget,
        "discern kept {discern} s, budget {budget} s"
    );
    // The buffer holds 200 ms at the link's rate: CUBIC alone keeps most of it.
    assert!(cubic >= 5.0 * budget, "quinn-cubic kept only {cubic} s");
}

/// `discern:ramp=ease` grows its slow start by a quarter a round once the window holds the pipe
/// that its ACK frames' spacing shows: the delay reads the queue a round trip after the packets
/// that built it, so a doubling window has sent up to a pipe past the pipe by then, and a deep
/// buffer holds that for rounds; an eased one has sent a quarter of a pipe past it. The same
/// bytes get through either way.
#[test]
fn an_eased_slow_start_queues_a_fraction_of_what_a_doubling_one_does() {
    let run = |controller: &str| {
        let s = scenario(
            "ramp",
            5.0,
            1,
            vec![link(
                "l",
                15.0,
                56,
                2 * bdp_packets(15.0, 112),
                LossModel::None,
            )],
            vec![flow(controller, 0, None)],
        );
        let out = sim::run(&s).expect("run");
        let f = &out.summary.flows[0];
        assert!(f.verified, "every byte checked");
        (
            f.goodput_bps,
            out.summary.links[0].queue_delay.unwrap().p95_s,
        )
    };
    let (doubled, doubled_queue) = run("discern");
    let (eased, eased_queue) = run("discern:ramp=ease");
    eprintln!(
        "p95 queue {doubled_queue:.4} s doubling, {eased_queue:.4} s eased; goodput {doubled:.0} \
         and {eased:.0} bit/s"
    );
    // A pipe is 112 ms: the doubling start leaves most of one queued for a few rounds.
    assert!(
        doubled_queue >= 0.05,
        "the doubling start queued {doubled_queue} s"
    );
    assert!(
        eased_queue <= 0.5 * doubled_queue,
        "eased {eased_queue} s against {doubled_queue} s"
    );
    assert!(eased >= 0.95 * doubled, "{eased} against {doubled} bit/s");
}
