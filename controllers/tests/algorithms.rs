//! The behaviours that distinguish the algorithms, on synthetic ACK and loss sequences.

mod common;

use std::time::Duration;

use common::{Path, MSS, RTT};
use quinn_discern::classify::RECEIVER_GAP_BUDGET;
use quinn_discern::event::{State, Verdict};
use quinn_discern::{
    Algorithm, CompositeConfig, ModifiedSackConfig, ModifiedTahoeConfig, RenoConfig, SackFewConfig,
    SackNewRenoConfig, TahoeConfig, VenoConfig, WNewRenoConfig, WestwoodConfig,
    DEFAULT_INITIAL_WINDOW, MAX_SSTHRESH_PACKETS,
};

/// A path past slow start (one early loss set ssthresh) with a window of tens of packets.
fn settled<A: Algorithm>(algorithm: A) -> Path<A> {
    let mut path = Path::new(algorithm);
    path.rounds(3);
    path.persistent_congestion();
    path.rounds(12);
    path
}

fn keeps_window_on_isolated_loss<A: Algorithm>(algorithm: A) -> bool {
    let mut path = settled(algorithm);
    let before = path.cwnd();
    let decision = path.lose(1);
    assert_eq!(decision.evidence.losses_in_window, 1);
    path.cwnd() == before && !decision.reduced
}

#[test]
fn isolated_loss_with_flat_rtt_keeps_the_window_of_discriminating_controllers() {
    assert!(keeps_window_on_isolated_loss(
        ModifiedSackConfig::default().algorithm(MSS)
    ));
    assert!(keeps_window_on_isolated_loss(
        WNewRenoConfig::default().algorithm(MSS)
    ));
    assert!(keeps_window_on_isolated_loss(
        CompositeConfig::default().algorithm(MSS)
    ));
}

#[test]
fn isolated_loss_cuts_the_window_of_loss_based_controllers() {
    assert!(!keeps_window_on_isolated_loss(
        TahoeConfig::default().algorithm(MSS)
    ));
    assert!(!keeps_window_on_isolated_loss(
        RenoConfig::default().algorithm(MSS)
    ));
    assert!(!keeps_window_on_isolated_loss(
        SackNewRenoConfig::default().algorithm(MSS)
    ));
    assert!(!keeps_window_on_isolated_loss(
        SackFewConfig::default().algorithm(MSS)
    ));
}

#[test]
fn composite_cuts_on_a_second_loss_in_the_same_window() {
    let mut path = settled(CompositeConfig::default().algorithm(MSS));
    let before = path.cwnd();
    assert_eq!(path.lose(1).verdict, Verdict::Random);
    let second = path.lose(1);
    assert_eq!(second.verdict, Verdict::Congestion);
    assert_eq!(second.evidence.losses_in_window, 2);
    assert!(second.reduced);
    assert_eq!(path.cwnd(), before / 2);
    assert_eq!(path.window().state(), State::Recovery);
}

#[test]
fn composite_reads_a_burst_in_one_event_as_congestion() {
    let mut path = settled(CompositeConfig::default().algorithm(MSS));
    let before = path.cwnd();
    assert_eq!(path.lose(3).verdict, Verdict::Congestion);
    assert_eq!(path.cwnd(), before / 2);
}

#[test]
fn losses_in_different_windows_are_each_isolated() {
    let mut path = settled(CompositeConfig::default().algorithm(MSS));
    let before = path.cwnd();
    for _ in 0..5 {
        assert_eq!(path.lose(1).verdict, Verdict::Random);
        // A round later the next loss is of a packet sent after the previous detection.
        path.round();
    }
    assert!(path.cwnd() >= before);
}

#[test]
fn modified_sack_delays_fast_recovery_above_tolerance_and_runs_it_on_a_second_loss() {
    let mut path = settled(ModifiedSackConfig::default().algorithm(MSS));
    let before = path.cwnd();
    // 20 % above the average: beyond the 5 % tolerance.
    let high = RTT.mul_f64(1.2);
    let first = path.lose_with_rtt(1, high);
    assert_eq!(first.verdict, Verdict::Random, "{first:?}");
    assert!(first.evidence.reason.contains("S_M_LOSS"));
    assert_eq!(path.cwnd(), before);
    let second = path.lose_with_rtt(1, high);
    assert_eq!(second.verdict, Verdict::Congestion);
    assert_eq!(path.cwnd(), before / 2);
}

#[test]
fn modified_sack_within_tolerance_keeps_the_window_whatever_the_count() {
    let mut path = settled(ModifiedSackConfig::default().algorithm(MSS));
    let before = path.cwnd();
    let within = RTT.mul_f64(1.04);
    for _ in 0..4 {
        assert_eq!(path.lose_with_rtt(1, within).verdict, Verdict::Random);
    }
    assert_eq!(path.lose_with_rtt(3, within).verdict, Verdict::Random);
    assert_eq!(path.cwnd(), before);
}

#[test]
fn modified_sack_tolerance_is_the_boundary() {
    for tolerance in [0.0, 0.02, 0.05, 0.10, 0.20] {
        let mut config = ModifiedSackConfig::default();
        config.tolerance(tolerance).unwrap();
        let mut path = settled(config.algorithm(MSS));
        // Just above the tolerance (and above the 1 ms granularity): a burst is congestion.
        let above = RTT.mul_f64(1.0 + tolerance) + Duration::from_millis(2);
        assert_eq!(
            path.lose_with_rtt(2, above).verdict,
            Verdict::Congestion,
            "tolerance {tolerance}"
        );
        path.rounds(3);
        let within = RTT.mul_f64(1.0 + tolerance * 0.9);
        assert_eq!(
            path.lose_with_rtt(2, within).verdict,
            Verdict::Random,
            "tolerance {tolerance}"
        );
    }
}

#[test]
fn composite_cuts_when_rtt_exceeds_srtt() {
    let mut path = settled(CompositeConfig::default().algorithm(MSS));
    let before = path.cwnd();
    let decision = path.lose_with_rtt(1, RTT + Duration::from_millis(5));
    assert_eq!(decision.verdict, Verdict::Congestion);
    assert_eq!(decision.evidence.reason, "rtt above srtt");
    assert_eq!(path.cwnd(), before / 2);
}

#[test]
fn composite_ignores_jitter_below_granularity() {
    let mut path = settled(CompositeConfig::default().algorithm(MSS));
    let decision = path.lose_with_rtt(1, RTT + Duration::from_micros(300));
    assert_eq!(decision.verdict, Verdict::Random);
}

#[test]
fn wnewreno_cuts_when_the_one_way_delay_exceeds_its_threshold() {
    let mut path = settled(WNewRenoConfig::default().algorithm(MSS));
    let before = path.cwnd();
    // min OWD 50 ms, threshold 57.5 ms: 5 ms of queueing is below it, 10 ms above.
    assert_eq!(
        path.lose_with_rtt(1, RTT + Duration::from_millis(5))
            .verdict,
        Verdict::Random
    );
    assert_eq!(path.cwnd(), before);
    path.rounds(2);
    let decision = path.lose_with_rtt(1, RTT + Duration::from_millis(10));
    assert_eq!(decision.verdict, Verdict::Congestion);
    assert_eq!(
        decision.evidence.threshold,
        Some(Duration::from_micros(57_500))
    );
    assert!(path.cwnd() < before);
}

#[test]
fn wnewreno_margin_moves_the_threshold() {
    let mut config = WNewRenoConfig::default();
    config.margin(0.05).unwrap();
    let mut path = settled(config.algorithm(MSS));
    // 5 ms of queueing exceeds a 2.5 ms margin.
    assert_eq!(
        path.lose_with_rtt(1, RTT + Duration::from_millis(5))
            .verdict,
        Verdict::Congestion
    );
}

fn floor_after_persistent_congestion<A: Algorithm>(algorithm: A) -> u64 {
    let mut path = settled(algorithm);
    let decision = path.persistent_congestion();
    assert_eq!(decision.verdict, Verdict::Congestion);
    assert!(decision.reduced);
    assert_eq!(path.window().state(), State::Recovery);
    path.cwnd()
}

#[test]
fn persistent_congestion_drops_every_controller_to_its_minimum_window() {
    assert_eq!(
        floor_after_persistent_congestion(TahoeConfig::default().algorithm(MSS)),
        MSS
    );
    assert_eq!(
        floor_after_persistent_congestion(ModifiedTahoeConfig::default().algorithm(MSS)),
        3 * MSS
    );
    for floor in [
        floor_after_persistent_congestion(RenoConfig::default().algorithm(MSS)),
        floor_after_persistent_congestion(SackNewRenoConfig::default().algorithm(MSS)),
        floor_after_persistent_congestion(SackFewConfig::default().algorithm(MSS)),
        floor_after_persistent_congestion(ModifiedSackConfig::default().algorithm(MSS)),
        floor_after_persistent_congestion(WNewRenoConfig::default().algorithm(MSS)),
        floor_after_persistent_congestion(CompositeConfig::default().algorithm(MSS)),
    ] {
        assert_eq!(floor, 2 * MSS);
    }
}

#[test]
fn tahoe_restarts_at_one_mss_with_half_the_window_as_ssthresh() {
    let mut path = settled(TahoeConfig::default().algorithm(MSS));
    let before = path.cwnd();
    assert!(path.lose(1).reduced);
    assert_eq!(path.cwnd(), MSS);
    assert_eq!(path.window().ssthresh(), before / 2);
}

#[test]
fn modified_tahoe_restarts_at_three_mss_with_three_quarters_as_ssthresh() {
    let mut path = settled(ModifiedTahoeConfig::default().algorithm(MSS));
    let before = path.cwnd();
    assert!(path.lose(1).reduced);
    assert_eq!(path.cwnd(), 3 * MSS);
    assert_eq!(path.window().ssthresh(), before * 3 / 4);
}

#[test]
fn modified_tahoe_recovers_its_window_sooner_than_tahoe() {
    fn rounds_to_recover<A: Algorithm>(algorithm: A) -> usize {
        let mut path = settled(algorithm);
        let before = path.cwnd();
        path.lose(1);
        (1..=200)
            .find(|_| {
                path.round();
                path.cwnd() >= before
            })
            .expect("recovers within 200 rounds")
    }
    let tahoe = rounds_to_recover(TahoeConfig::default().algorithm(MSS));
    let modified = rounds_to_recover(ModifiedTahoeConfig::default().algorithm(MSS));
    assert!(modified < tahoe, "modified {modified} vs tahoe {tahoe}");
}

#[test]
fn tahoe_ignores_further_losses_of_the_window_it_restarted_for() {
    let mut path = settled(TahoeConfig::default().algorithm(MSS));
    path.lose(1);
    let ssthresh = path.window().ssthresh();
    assert!(!path.lose(1).reduced);
    assert_eq!(path.cwnd(), MSS);
    assert_eq!(path.window().ssthresh(), ssthresh);
}

#[test]
fn reno_halves_twice_for_two_losses_in_one_window_where_newreno_halves_once() {
    let mut reno = settled(RenoConfig::default().algorithm(MSS));
    let mut newreno = settled(SackNewRenoConfig::default().algorithm(MSS));
    let before = reno.cwnd();
    assert_eq!(newreno.cwnd(), before);
    for path in [&mut reno, &mut newreno] {
        path.lose(1);
        path.lose(1);
    }
    assert_eq!(reno.cwnd(), before / 4);
    assert_eq!(newreno.cwnd(), before / 2);
}

#[test]
fn sack_few_grows_about_alpha_mss_per_rtt_without_an_exponential_phase() {
    for alpha in [0.01, 0.1, 1.0] {
        let mut config = SackFewConfig::default();
        config.alpha(alpha).unwrap();
        let mut path = Path::new(config.algorithm(MSS));
        assert_eq!(path.window().state(), State::SlowStart);
        let start = path.cwnd_packets();
        let rounds = 50;
        path.rounds(rounds);
        let grown = path.cwnd_packets() - start;
        let expected = alpha * rounds as f64;
        // One increment of alpha per window, give or take rounding of whole packets per round.
        assert!(
            (grown - expected).abs() <= expected * 0.15 + 0.01,
            "alpha {alpha}: grew {grown} packets in {rounds} RTTs, expected about {expected}"
        );
    }
}

#[test]
fn sack_few_grows_past_ssthresh_after_a_reduction() {
    // Paper 003 step 4 (cwnd = min(cwnd, ssthresh)) is the exit from fast recovery, not a cap on
    // every ACK: after a halving the window must keep growing by alpha MSS per window, or every
    // loss would ratchet it down to the floor for good.
    for alpha in [0.01, 0.1, 1.0] {
        let mut config = SackFewConfig::default();
        config.alpha(alpha).unwrap();
        let mut path = settled(config.algorithm(MSS));
        path.lose(1);
        path.round(); // ends recovery
        let ssthresh = path.window().ssthresh();
        let start = path.cwnd_packets();
        let rounds = 100;
        path.rounds(rounds);
        let grown = path.cwnd_packets() - start;
        let expected = alpha * rounds as f64;
        assert!(
            path.cwnd() > ssthresh,
            "alpha {alpha}: cwnd {} stayed at ssthresh {ssthresh}",
            path.cwnd()
        );
        // A round acknowledges whole packets only, floor(cwnd) of cwnd: up to ~20 % less growth.
        assert!(
            (grown - expected).abs() <= expected * 0.25 + 0.01,
            "alpha {alpha}: grew {grown} packets in {rounds} RTTs after a reduction, expected about {expected}"
        );
    }
}

#[test]
fn newreno_doubles_per_rtt_in_slow_start_and_adds_one_mss_in_avoidance() {
    let mut path = Path::new(SackNewRenoConfig::default().algorithm(MSS));
    assert_eq!(path.cwnd(), DEFAULT_INITIAL_WINDOW);
    path.round();
    assert_eq!(path.cwnd(), 2 * DEFAULT_INITIAL_WINDOW);
    path.lose(1);
    path.round(); // ends recovery: the packets of this round were sent after the reduction
    let avoidance = path.cwnd();
    path.rounds(5);
    assert_eq!(path.cwnd(), avoidance + 5 * MSS);
    assert_eq!(path.window().state(), State::Avoidance);
}

#[test]
fn slow_start_above_max_ssthresh_adds_at_most_half_of_it_a_round() {
    // RFC 3742: a gigabit slow start must not add thousands of packets in one round, or its
    // overshoot leaves the receiver more gaps than quinn's 1024 spans.
    let mut path = Path::new(SackNewRenoConfig::default().algorithm(MSS));
    while 2.0 * path.cwnd_packets() <= MAX_SSTHRESH_PACKETS as f64 {
        let before = path.cwnd();
        path.round();
        assert_eq!(
            path.cwnd(),
            2 * before,
            "below max_ssthresh slow start doubles"
        );
    }
    path.round(); // crosses max_ssthresh
    for _ in 0..10 {
        let before = path.cwnd_packets();
        path.round();
        let added = path.cwnd_packets() - before;
        assert_eq!(path.window().state(), State::SlowStart);
        assert!(
            added > 0.0 && added <= (MAX_SSTHRESH_PACKETS / 2) as f64,
            "added {added} MSS in a round at {before} MSS"
        );
    }
}

#[test]
fn half_the_window_lost_is_congestion_even_where_the_rtt_is_flat() {
    // A policer drops without a queue, so the RTT never rises: modified-sack reads each drop
    // as random, until more than half the window is gone in one window.
    let mut path = settled(ModifiedSackConfig::default().algorithm(MSS));
    let before = path.cwnd();
    let half = before / MSS / 2;
    let decision = path.lose(half);
    assert_eq!(decision.verdict, Verdict::Random, "{decision:?}");
    assert_eq!(path.cwnd(), before);
    let decision = path.lose(1);
    assert_eq!(decision.verdict, Verdict::Congestion, "{decision:?}");
    assert_eq!(decision.evidence.reason, "half the window lost");
    assert_eq!(path.cwnd(), before / 2);
}

#[test]
fn more_losses_in_a_window_than_a_receiver_holds_gaps_for_are_congestion() {
    // A gigabit window half of which is thousands of packets: a classifier that reads the
    // drops as random would leave a quinn receiver more gaps than it holds.
    let mut path = Path::new(ModifiedSackConfig::default().algorithm(MSS));
    path.rounds(9);
    assert!(path.cwnd_packets() > 4.0 * RECEIVER_GAP_BUDGET as f64);
    let before = path.cwnd();
    let decision = path.lose(RECEIVER_GAP_BUDGET);
    assert_eq!(decision.verdict, Verdict::Random, "{decision:?}");
    let decision = path.lose(1);
    assert_eq!(decision.verdict, Verdict::Congestion, "{decision:?}");
    assert!(decision.evidence.reason.contains("gaps"), "{decision:?}");
    assert_eq!(path.cwnd(), before / 2);
}

#[test]
fn acks_of_packets_sent_before_a_reduction_do_not_grow_the_window() {
    let mut path = settled(SackNewRenoConfig::default().algorithm(MSS));
    // Packets of the current window are in flight; then a loss reduces.
    let sent_before = path.at(path.clock);
    path.lose(1);
    let reduced = path.cwnd();
    let now = path.at(path.clock + RTT);
    for _ in 0..50 {
        path.algorithm.on_ack(&quinn_discern::event::Ack::new(
            now,
            sent_before,
            MSS,
            false,
            path.rtt,
        ));
    }
    assert_eq!(path.cwnd(), reduced);
    assert_eq!(path.window().state(), State::Recovery);
}

#[test]
fn app_limited_acks_do_not_grow_the_window() {
    let mut path = Path::new(SackNewRenoConfig::default().algorithm(MSS));
    let before = path.cwnd();
    let sent = path.at(path.clock);
    let now = path.at(path.clock + RTT);
    path.algorithm.on_ack(&quinn_discern::event::Ack::new(
        now, sent, MSS, true, path.rtt,
    ));
    assert_eq!(path.cwnd(), before);
}

#[test]
fn ecn_marks_are_congestion_for_every_classifier() {
    let mut path = settled(CompositeConfig::default().algorithm(MSS));
    let before = path.cwnd();
    let now = path.at(path.clock);
    let mut event = quinn_discern::event::CongestionEvent::loss(now, now, 0, MSS, path.rtt);
    event.lost_bytes = 0;
    let decision = path.algorithm.on_congestion(&event);
    assert_eq!(decision.verdict, Verdict::Congestion);
    assert_eq!(decision.evidence.reason, "ECN congestion mark");
    assert_eq!(path.cwnd(), before / 2);
}

#[test]
fn modified_sack_sees_a_queue_building_up_against_its_per_rtt_average() {
    let mut path = settled(ModifiedSackConfig::default().algorithm(MSS));
    // A queue growing by 3 % of the base RTT per round trip, as Reno's additive increase fills a
    // bottleneck buffer. A per-ACK average would follow it; the per-RTT one lags behind.
    for _ in 0..6 {
        path.rtt.latest += RTT.mul_f64(0.03);
        path.round();
    }
    let average = path.algorithm.classifier().average().unwrap();
    assert!(
        average < path.rtt.latest.mul_f64(0.95),
        "{average:?} vs {:?}",
        path.rtt.latest
    );
    let latest = path.rtt.latest;
    let before = path.cwnd();
    assert_eq!(
        path.lose_with_rtt(1, latest).verdict,
        Verdict::Random,
        "S_M_LOSS first"
    );
    assert_eq!(path.lose_with_rtt(1, latest).verdict, Verdict::Congestion);
    assert_eq!(path.cwnd(), before / 2);
}

#[test]
fn veno_takes_a_fifth_off_for_a_loss_with_little_backlog_and_halves_with_a_backlog() {
    let mut path = settled(VenoConfig::default().algorithm(MSS));
    let before = path.cwnd();
    let decision = path.lose(1);
    assert_eq!(decision.verdict, Verdict::Random);
    assert!(decision.reduced, "Veno cuts for random losses too, by less");
    assert_eq!(path.cwnd(), before * 4 / 5);

    // A queue of a third of the RTT: the flow's own backlog is a quarter of its window, far above
    // Veno's 3 packets.
    path.rounds(3);
    path.rtt.latest = RTT + RTT / 3;
    path.rounds(2);
    let before = path.cwnd();
    let decision = path.lose(1);
    assert_eq!(decision.verdict, Verdict::Congestion);
    assert_eq!(path.cwnd(), before / 2);
}

#[test]
fn veno_slows_its_increase_once_its_backlog_passes_beta() {
    let grown = |queueing: Duration| {
        let mut path = settled(VenoConfig::default().algorithm(MSS));
        path.rtt.latest = RTT + queueing;
        let before = path.cwnd_packets();
        path.rounds(8);
        path.cwnd_packets() - before
    };
    let free = grown(Duration::ZERO);
    let backlogged = grown(RTT / 2);
    assert!((free - 8.0).abs() < 1.0, "Reno's one MSS per round: {free}");
    assert!(
        (backlogged - 4.0).abs() < 1.0,
        "one MSS every other round: {backlogged}"
    );
}

#[test]
fn westwood_keeps_the_window_that_fills_the_pipe_and_drops_the_queue() {
    // No queue: the bandwidth estimate times the minimum RTT is the window itself.
    let mut path = settled(WestwoodConfig::default().algorithm(MSS));
    path.rounds(40);
    let before = path.cwnd();
    assert!(path.lose(1).reduced);
    // Two 7/8 filters lag a Reno window that grows every round by about 14 rounds.
    let kept = path.cwnd() as f64 / before as f64;
    assert!(kept > 0.75, "{kept}");

    // A standing queue as long as the base RTT: the pipe holds half the window.
    let mut path = settled(WestwoodConfig::default().algorithm(MSS));
    path.rtt.latest = 2 * RTT;
    path.rounds(40);
    let before = path.cwnd();
    path.lose(1);
    let kept = path.cwnd() as f64 / before as f64;
    assert!((0.35..0.55).contains(&kept), "{kept}");
}
