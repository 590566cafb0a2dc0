//! The ACK delay the controllers recover from quinn's estimator, checked against the simulator's
//! ground truth of when the receiver held each ACK.

mod sim_common;

use std::time::Duration;

use quinn_discern_harness::report::DelaySignals;
use quinn_discern_harness::scenario::LossModel;
use quinn_discern_harness::sim;
use quinn_discern_harness::units::Bytes;
use sim_common::{flow, link, scenario};

/// One `newreno` flow for 4 s over 20 Mbit/s, 40 ms RTT, a queue of about one BDP, 0.5 % random
/// loss. The receiver's window of 20 kB makes the sender send in flights of an odd number of
/// packets now and then, whose last packet's ACK the receiver holds until its timer fires.
fn delays(max_ack_delay: Option<Duration>) -> DelaySignals {
    delays_with(max_ack_delay, None, Some(Bytes(20_000)))
}

fn delays_with(
    max_ack_delay: Option<Duration>,
    ack_every: Option<u32>,
    receive_window: Option<Bytes>,
) -> DelaySignals {
    let mut f = flow("newreno", 0, None);
    f.max_ack_delay = max_ack_delay;
    f.ack_every = ack_every;
    f.receive_window = receive_window;
    let s = scenario(
        "ack-delay-recovery",
        4.0,
        3,
        vec![link(
            "l",
            20.0,
            20,
            67,
            LossModel::Bernoulli { rate: 0.005 },
        )],
        vec![f],
    );
    let out = sim::run(&s).unwrap();
    out.summary
        .delay_signals
        .expect("a discern controller reports recovered ACK delays")
}

fn check(d: &DelaySignals) {
    assert!(d.frames_checked >= 500, "{d:?}");
    assert!(
        d.frames_unmatched * 20 <= d.frames_checked,
        "most frames find their receiver datagram: {d:?}"
    );
    assert!(d.ack_delay_within_100us >= 0.95, "{d:?}");
    // The receiver held some ACKs, and most of those delays were recovered too.
    assert!(d.frames_delayed >= 10, "{d:?}");
    assert!(d.delayed_within_100us >= 0.75, "{d:?}");
}

#[test]
fn recovered_ack_delays_match_the_truth_under_quinns_default_acks() {
    let d = delays(None);
    check(&d);
    // With the delays removed, the hint is within a few packet times of the forward delay.
    assert!(d.owd_hint_error_p95_us < 5_000, "{d:?}");
}

#[test]
fn recovered_ack_delays_match_the_truth_with_a_1ms_max_ack_delay() {
    let d = delays(Some(Duration::from_millis(1)));
    check(&d);
}

#[test]
fn a_receiver_asked_to_decimate_sends_fewer_acks_whose_delays_are_still_recovered() {
    // No receive window here: flights long enough for ten packets per ACK.
    let usual = delays_with(None, None, None);
    let decimated = delays_with(None, Some(10), None);
    // Every tenth packet instead of every second: several times fewer frames.
    assert!(
        decimated.frames_checked * 3 < usual.frames_checked,
        "{decimated:?} vs {usual:?}"
    );
    assert!(decimated.frames_checked >= 50, "{decimated:?}");
    assert!(decimated.ack_delay_within_100us >= 0.95, "{decimated:?}");
}
