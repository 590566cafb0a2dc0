//! `discern`'s earlier design (`queue = full`) and its classifier on synthetic ACK and loss
//! sequences: which losses it reads as a full queue, and what each verdict does to the window.
//! The default, the short-queue design, is in `discern_short_queue.rs`.

mod common;

use std::time::Duration;

use common::{Path, MSS, RTT};
use quinn_discern::classify::QueueFull;
use quinn_discern::event::{CongestionEvent, Verdict};
use quinn_discern::{Algorithm, DiscernConfig, DiscernGrowth, WindowAlgorithm};

/// Past slow start, a window of tens of packets, no queue so far.
fn settled(config: &DiscernConfig) -> Path<WindowAlgorithm<QueueFull>> {
    let mut path = Path::new(config.full_queue_algorithm(MSS));
    path.rounds(3);
    path.persistent_congestion();
    path.rounds(12);
    path
}

/// Rounds in which the path queues `queueing` on top of the base RTT.
fn queue_for(path: &mut Path<WindowAlgorithm<QueueFull>>, queueing: Duration, rounds: usize) {
    path.rtt.latest = RTT + queueing;
    path.rounds(rounds);
}

/// Loses `packets` now and checks they are read as congestion and halve the window.
fn expect_halved(path: &mut Path<WindowAlgorithm<QueueFull>>, packets: u64) {
    let before = path.cwnd();
    let decision = path.lose(packets);
    let reason = decision.evidence.reason;
    assert_eq!(decision.verdict, Verdict::Congestion, "{reason}");
    assert_eq!(path.cwnd(), before / 2, "{reason}");
}

/// Loses `packets` now and checks they are read as random and the window stays.
fn expect_kept(path: &mut Path<WindowAlgorithm<QueueFull>>, packets: u64) {
    let before = path.cwnd();
    let decision = path.lose(packets);
    let reason = decision.evidence.reason;
    assert_eq!(decision.verdict, Verdict::Random, "{reason}");
    assert_eq!(path.cwnd(), before, "{reason}");
}

#[test]
fn a_loss_with_an_empty_queue_keeps_the_window() {
    let mut path = settled(&DiscernConfig::default());
    let before = path.cwnd();
    let decision = path.lose(1);
    assert_eq!(decision.verdict, Verdict::Random);
    assert!(!decision.reduced);
    assert_eq!(path.cwnd(), before);
}

#[test]
fn a_loss_at_the_full_queue_halves_the_window() {
    let mut path = settled(&DiscernConfig::default());
    // The queue grows to 60 ms (more than half the base RTT, as a 1-BDP buffer overflows at one
    // base RTT) and the loss comes while it is there.
    queue_for(&mut path, Duration::from_millis(30), 1);
    queue_for(&mut path, Duration::from_millis(60), 2);
    expect_halved(&mut path, 1);
}

#[test]
fn once_the_full_level_is_known_a_loss_well_below_it_is_random() {
    let mut path = settled(&DiscernConfig::default());
    queue_for(&mut path, Duration::from_millis(60), 2);
    assert_eq!(path.lose(1).verdict, Verdict::Congestion);
    // The flow drained the queue after its cut; a loss now met a queue of 10 ms.
    queue_for(&mut path, Duration::from_millis(10), 3);
    expect_kept(&mut path, 1);
    // Back at the full level, congestion again.
    queue_for(&mut path, Duration::from_millis(59), 2);
    assert_eq!(path.lose(1).verdict, Verdict::Congestion);
}

#[test]
fn before_any_congestion_a_small_standing_queue_is_not_the_full_level() {
    // The largest queue so far is the current one while a buffer still fills: a loss at 20 ms of
    // queueing on a 100 ms path cannot be an overflow of a buffer of one BDP.
    let mut path = settled(&DiscernConfig::default());
    queue_for(&mut path, Duration::from_millis(20), 3);
    assert_eq!(path.lose(1).verdict, Verdict::Random);
}

#[test]
fn a_burst_of_losses_confirms_a_shallow_buffer_overflowing() {
    // A buffer of 20 ms on a 100 ms path never reaches half the base RTT: a burst of losses at
    // its full level is what shows the overflow.
    let mut path = settled(&DiscernConfig::default());
    queue_for(&mut path, Duration::from_millis(20), 3);
    let burst = (path.cwnd() / MSS / 8).max(4) + 1;
    expect_halved(&mut path, burst);
}

#[test]
fn a_burst_of_losses_with_room_in_the_queue_is_a_channel_burst() {
    // Gilbert-Elliott channels lose packets in bursts; the queue they met says it was not full.
    let mut path = settled(&DiscernConfig::default());
    queue_for(&mut path, Duration::from_millis(60), 2);
    assert_eq!(path.lose(1).verdict, Verdict::Congestion);
    queue_for(&mut path, Duration::from_millis(10), 3);
    let burst = (path.cwnd() / MSS / 8).max(4) + 1;
    expect_kept(&mut path, burst);
}

#[test]
fn losing_half_the_window_is_congestion_whatever_the_queue() {
    let mut path = settled(&DiscernConfig::default());
    queue_for(&mut path, Duration::from_millis(60), 2);
    path.lose(1);
    queue_for(&mut path, Duration::ZERO, 3);
    let half = path.cwnd() / MSS / 2 + 1;
    let decision = path.lose(half);
    assert_eq!(decision.verdict, Verdict::Congestion);
    assert_eq!(decision.evidence.reason, "half the window lost");
}

#[test]
fn a_single_delayed_ack_does_not_raise_the_full_level() {
    let mut path = settled(&DiscernConfig::default());
    queue_for(&mut path, Duration::from_millis(60), 2);
    path.lose(1);
    queue_for(&mut path, Duration::ZERO, 2);
    let full = path.algorithm.classifier().full_queue_delay();
    // One frame for one packet, held 80 ms by the receiver (its ACK delay is not known): a
    // receiver sends such a frame late, so it says nothing about the queue.
    let now = path.at(path.clock);
    path.algorithm
        .on_ack_batch(&quinn_discern::event::AckBatch::new(
            now,
            path.rtt.with_latest(RTT + Duration::from_millis(80)),
            MSS,
            1,
            0,
            false,
            None,
        ));
    assert_eq!(path.algorithm.classifier().full_queue_delay(), full);
}

#[test]
fn on_a_marking_path_marks_reduce_gently_and_losses_are_random_even_at_a_full_queue() {
    let mut path = settled(&DiscernConfig::default());
    let now = path.at(path.clock);
    let before = path.cwnd();
    let mark = CongestionEvent::loss(now, now, 0, MSS, path.rtt);
    let decision = path.algorithm.on_congestion(&mark);
    assert_eq!(
        decision.verdict,
        Verdict::Congestion,
        "a CE mark always reduces"
    );
    assert_eq!(decision.evidence.reason, "ECN congestion mark");
    // RFC 8511's alternative backoff: 0.8, not the loss response's 0.5.
    assert_eq!(path.cwnd(), (before as f64 * 0.8) as u64);
    // The path marks before its queue fills: a loss, even right after a mark, at the largest
    // queue seen, is random.
    assert_eq!(path.lose(1).verdict, Verdict::Random);
    queue_for(&mut path, Duration::from_millis(60), 3);
    expect_kept(&mut path, 1);
    // Losing half the window is congestion even there.
    queue_for(&mut path, Duration::ZERO, 2);
    let half = path.cwnd() / MSS / 2 + 1;
    assert_eq!(path.lose(half).verdict, Verdict::Congestion);
}

#[test]
fn cubic_growth_regains_the_window_it_lost_in_about_k_seconds() {
    let mut config = DiscernConfig::default();
    config.growth(DiscernGrowth::Cubic);
    let mut path = settled(&config);
    path.rounds(30);
    queue_for(&mut path, Duration::from_millis(60), 2);
    path.rtt.latest = RTT;
    let w_max = path.cwnd_packets();
    path.lose(1);
    let cut = path.cwnd_packets();
    assert!((cut - w_max / 2.0).abs() < 1.0, "{cut} after {w_max}");
    // RFC 9438: W(t) = C (t - K)^3 + W_max with K = cbrt((W_max - cwnd) / C) seconds.
    let k = ((w_max - cut) / 0.4).cbrt();
    let rounds = (k / RTT.as_secs_f64()).ceil() as usize;
    path.rounds(rounds);
    let regained = path.cwnd_packets();
    assert!(
        regained > 0.85 * w_max && regained < 1.15 * w_max,
        "{regained} packets after {rounds} rounds, W_max {w_max}"
    );
}

#[test]
fn bad_parameters_are_errors_naming_the_parameter() {
    let mut config = DiscernConfig::default();
    for beta in [0.0, 1.0, 2.0, -0.5, f64::NAN] {
        let error = config.beta(beta).unwrap_err().to_string();
        assert!(error.contains("beta"), "{error}");
    }
    for tolerance in [-0.1, 1.5, f64::NAN] {
        assert!(config.tolerance(tolerance).is_err());
    }
    assert!(config.memory(Duration::ZERO).is_err());
    assert!(config.beta(0.7).is_ok());
}

#[test]
fn with_a_delay_exit_a_rising_rtt_ends_slow_start_without_a_loss() {
    use quinn_discern::SlowStartExit;
    let slow_start_after_queueing = |config: &DiscernConfig| {
        let mut path = Path::new(config.full_queue_algorithm(MSS));
        path.rounds(3);
        queue_for(&mut path, RTT / 2, 2);
        path.window().cwnd() < path.window().ssthresh()
    };
    assert!(slow_start_after_queueing(&DiscernConfig::default()));
    assert!(!slow_start_after_queueing(
        DiscernConfig::default().slow_start(SlowStartExit::Delay)
    ));
}
