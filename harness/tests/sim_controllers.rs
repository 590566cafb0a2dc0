//! Every controller of the registry runs in the simulator, its loss decisions are counted and
//! scored against the ground truth, and unknown ids are refused.

mod sim_common;

use quinn_discern_harness::scenario::{FlowController, LossModel};
use quinn_discern_harness::sim::{self, SimError};
use quinn_discern_harness::transport::TransportError;
use sim_common::*;

fn lossy(controller: &str) -> quinn_discern_harness::scenario::Scenario {
    scenario(
        "lossy",
        3.0,
        9,
        vec![link(
            "l",
            20.0,
            20,
            bdp_packets(20.0, 40),
            LossModel::Bernoulli { rate: 0.005 },
        )],
        vec![flow(controller, 0, None)],
    )
}

#[test]
fn unknown_controllers_stop_at_loading_and_kernel_tcp_at_the_simulator() {
    let e = FlowController::parse("no-such-controller").unwrap_err();
    assert!(e.to_string().contains("no-such-controller"), "{e}");
    let mut s = lossy("newreno");
    s.set_tested_controller(&"tcp-cubic".parse().unwrap());
    let err = sim::run(&s).unwrap_err();
    assert!(
        matches!(err, SimError::Transport(TransportError::KernelTcp(_))),
        "{err}"
    );
    assert!(err.to_string().contains("--link netns"), "{err}");
}

#[test]
fn every_registry_controller_runs_and_is_scored() {
    let mut ids: Vec<String> = quinn_discern::registry::catalog()
        .iter()
        .map(|c| c.id.to_string())
        .collect();
    ids.push("composite+quinn-cubic".into());
    for id in ids {
        let out = sim::run(&lossy(&id)).unwrap_or_else(|e| panic!("{id}: {e}"));
        let f = &out.summary.flows[0];
        let acc = out.summary.verdict_accuracy.unwrap();
        let scored = acc.random_as_random
            + acc.random_as_congestion
            + acc.congestion_as_congestion
            + acc.congestion_as_random
            + acc.spurious;
        eprintln!(
            "{id:>24}: {:6.2} Mbit/s, {} congestion events, verdicts {:?}, {acc:?}",
            f.goodput_bps / 1e6,
            f.congestion_events,
            f.verdicts
        );
        assert!(f.verified, "{id}");
        // No controller may stall (a window quinn cannot send into, for one).
        assert!(f.goodput_bps > 0.3e6, "{id}: {} bit/s", f.goodput_bps);
        assert!(f.congestion_events > 0, "{id}");
        assert_eq!(scored, f.verdicts.random + f.verdicts.congestion, "{id}");
        assert!(scored > 0, "{id}");
        // Controllers that back off on every loss never overflow this queue: all they see is
        // channel loss. (Those that ignore random losses, and BBR, may fill it.)
        if f.verdicts.random == 0 && id != "quinn-bbr" {
            assert_eq!(out.summary.drops.unwrap().queue, 0, "{id}");
            assert_eq!(acc.random_as_congestion, scored - acc.spurious, "{id}");
        }
        // Window samples carry ssthresh once the controller reports one.
        if !id.starts_with("quinn-") {
            assert!(
                out.series[0]
                    .samples
                    .iter()
                    .any(|s| s.ssthresh_bytes.is_some()),
                "{id}"
            );
        }
    }
}

/// A stock quinn receiver holds at most 1024 separate spans of a stream and closes the
/// connection when a frame needs more. Slow start's overshoot into a one-BDP queue at 1 Gbit/s
/// leaves that many holes: the run ends normally and reports the close as the flow's outcome.
#[test]
fn a_receiver_that_closes_is_the_flows_outcome_not_a_failed_run() {
    let s = scenario(
        "gigabit",
        2.0,
        1,
        vec![link(
            "l",
            1000.0,
            20,
            bdp_packets(1000.0, 40),
            LossModel::None,
        )],
        vec![flow("quinn-newreno", 0, None)],
    );
    let out = sim::run(&s).expect("a receiver's close is an outcome, not an error");
    let f = &out.summary.flows[0];
    let why = f.receiver_closed.as_deref().expect("the receiver closed");
    assert!(why.contains("too many gaps"), "{why}");
    assert!(f.verified && f.completion_time_s.is_none(), "{f:?}");
    let json = serde_json::to_value(&out.summary).unwrap();
    assert_eq!(json["flows"][0]["receiver_closed"], why);
}
