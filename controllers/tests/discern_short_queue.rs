//! `discern`'s default, the short-queue design, on synthetic ACK and loss sequences: a loss with
//! the queue short keeps the window, a loss above the guard takes out the queue it met, a queue
//! that does not answer the flow's own shrinking is another flow's and gets NewReno's manners,
//! and the flow shrinks a queue of its own without any loss.

mod common;

use std::time::{Duration, Instant};

use common::{Path, MSS, RTT};
use quinn_discern::event::{Ack, AckBatch, CongestionEvent, Decision, RttSample, State, Verdict};
use quinn_discern::{
    Algorithm, DiscernAlgorithm, DiscernConfig, NoisyFloor, NoisyStart, Overshoot, QueueOwner,
    ShortQueueAlgorithm, START_MAX_SSTHRESH_PACKETS,
};

const MS: Duration = Duration::from_millis(1);
const US: Duration = Duration::from_micros(1);

fn short_queue(algorithm: DiscernAlgorithm) -> ShortQueueAlgorithm {
    match algorithm {
        DiscernAlgorithm::ShortQueue(a) => a,
        DiscernAlgorithm::FullQueue(_) => panic!("the default is the short-queue design"),
    }
}

/// Past slow start (which a 10 ms queue ended), a window of a hundred packets or more, no queue
/// now. (The synthetic path acknowledges a whole window at once, so the algorithm's round trips
/// span two of its rounds.)
fn settled() -> Path<ShortQueueAlgorithm> {
    let path = settled_after(4);
    assert!(path.window().ssthresh() < u64::MAX, "slow start is over");
    path
}

/// Rounds in which the path queues `queueing` on top of the base RTT.
fn queue_for(path: &mut Path<ShortQueueAlgorithm>, queueing: Duration, rounds: usize) {
    path.rtt.latest = RTT + queueing;
    path.rounds(rounds);
}

/// `decision`'s verdict is `verdict`; the message says why it was not.
fn expect_verdict(decision: &Decision, verdict: Verdict) {
    assert_eq!(decision.verdict, verdict, "{}", decision.evidence.reason);
}

/// One packet lost now, judged `verdict`, and the window kept as it was.
fn lose_one_keeping_the_window(path: &mut Path<ShortQueueAlgorithm>, verdict: Verdict) {
    let before = path.cwnd();
    let decision = path.lose(1);
    expect_verdict(&decision, verdict);
    assert!(!decision.reduced);
    assert_eq!(path.cwnd(), before);
}

#[test]
fn the_first_slow_start_doubles_up_to_its_limit_then_adds_about_half_the_limit_a_round() {
    // A pipe of many thousand packets and no queue. Past the limit, a doubling round that
    // crosses the pipe would send a whole pipe more before its queue is read, and a buffer
    // shorter than that drops one packet in two: more gaps than a quinn receiver holds.
    let mut path = Path::new(short_queue(DiscernConfig::default().algorithm(MSS)));
    let limit = START_MAX_SSTHRESH_PACKETS as f64;
    while path.cwnd_packets() < limit {
        let before = path.cwnd_packets();
        path.round();
        assert!(path.window().in_slow_start());
        if 2.0 * before <= limit {
            assert_eq!(path.cwnd_packets(), 2.0 * before);
        }
    }
    for _ in 0..4 {
        let before = path.cwnd_packets();
        path.round();
        let grown = path.cwnd_packets() - before;
        assert!(
            (0.49 * limit..0.75 * limit).contains(&grown),
            "grew {grown} packets from {before}"
        );
    }
}

#[test]
fn a_loss_with_the_queue_short_keeps_the_window() {
    let mut path = settled();
    assert!(path.cwnd_packets() > 100.0, "{}", path.cwnd_packets());
    for _ in 0..3 {
        lose_one_keeping_the_window(&mut path, Verdict::Random);
        path.rounds(2);
    }
}

#[test]
fn a_loss_above_the_guard_takes_out_the_queue_it_met() {
    let mut path = settled();
    queue_for(&mut path, 25 * MS, 1);
    let before = path.cwnd() as f64;
    let decision = path.lose(1);
    expect_verdict(&decision, Verdict::Congestion);
    assert!(decision.reduced);
    // The window without the 25 ms the lost packet met: 100 / 125 of it, not half.
    let kept = path.cwnd() as f64 / before;
    assert!((kept - 0.8).abs() < 0.02, "kept {kept}");
    // One reduction per window: a second loss from the same flight does not cut again.
    let again = path.lose(1);
    assert!(!again.reduced);
}

#[test]
fn the_flow_shrinks_a_queue_of_its_own_without_a_loss() {
    let mut path = settled();
    let before = path.cwnd();
    // A standing queue of a fifth of the RTT that follows the window down: FAST's update takes
    // the window halfway to the one that leaves the target queued, each round.
    queue_for(&mut path, 20 * MS, 2);
    assert!(path.cwnd() < before, "{} then {}", before, path.cwnd());
    assert!(matches!(path.algorithm.owner(), QueueOwner::Own { .. }));
}

#[test]
fn a_queue_that_does_not_answer_the_flow_s_shrinking_is_shared_and_gets_newreno_s_manners() {
    // The queue that ended slow start drained: the delay read it right, and slow start stays
    // over when another flow's queue comes.
    let mut path = settled();
    // Another flow keeps 20 ms queued whatever this one does: as deep as an AQM (PIE) keeps one.
    queue_for(&mut path, 20 * MS, 12);
    assert!(
        matches!(path.algorithm.owner(), QueueOwner::Shared { .. }),
        "{:?}",
        path.algorithm.owner()
    );
    // Sharing, it grows as NewReno does, and a loss at that queue halves the window.
    let grown = path.cwnd();
    queue_for(&mut path, 20 * MS, 3);
    assert!(path.cwnd() > grown);
    assert_eq!(path.window().state(), State::Avoidance);
    let before = path.cwnd();
    let decision = path.lose(1);
    assert_eq!(decision.verdict, Verdict::Congestion);
    assert_eq!(path.cwnd(), before / 2);
    // Once the queue has stayed short for a few rounds, it is the flow's own again.
    queue_for(&mut path, Duration::ZERO, 10);
    assert!(matches!(path.algorithm.owner(), QueueOwner::Own { .. }));
}

/// Four rounds of slow start, the delivery rate doubling in each, then `queue` ends it, and
/// stands whatever the window does (another flow's, or a jittered path's offset) until the flow
/// reads it as shared.
fn shared_after_a_delay_exit(queue: Duration) -> Path<ShortQueueAlgorithm> {
    let mut path = Path::new(short_queue(DiscernConfig::default().algorithm(MSS)));
    path.rounds(4);
    queue_for(&mut path, queue, 1);
    assert!(!path.window().in_slow_start(), "the delay ended slow start");
    let mut rounds = 0;
    while !matches!(path.algorithm.owner(), QueueOwner::Shared { .. }) {
        assert!(
            rounds < 12,
            "the queue stood for 12 rounds and is still the flow's own"
        );
        queue_for(&mut path, queue, 1);
        rounds += 1;
    }
    path
}

#[test]
fn a_queue_that_ended_slow_start_and_never_drained_gives_back_newreno_s_slow_start() {
    let mut path = shared_after_a_delay_exit(20 * MS);
    // Sharing, it keeps NewReno's manners, whose slow start only a loss ends: the window
    // doubles again, where Reno's growth would add a packet a round.
    assert!(path.window().in_slow_start());
    let shared_from = path.cwnd();
    queue_for(&mut path, 20 * MS, 2);
    assert!(
        path.cwnd() > 2 * shared_from,
        "{shared_from} then {}",
        path.cwnd()
    );
    // A loss at that queue ends it, halving the window, as NewReno's.
    let before = path.cwnd();
    let decision = path.lose(1);
    expect_verdict(&decision, Verdict::Congestion);
    assert_eq!(path.cwnd(), before / 2);
    assert!(!path.window().in_slow_start());
}

#[test]
fn a_contest_met_in_newreno_s_slow_start_taken_up_again_leaves_it_to_its_loss() {
    // As above, but the queue that ended slow start and stands is deeper than an AQM keeps one,
    // so the flow also competes for it (order-keeping jitter at a high rate reads this way).
    // The slow start already under way goes on: its delivery rate still doubles with the
    // window, and the contest's reach (a few windows that carry the rate reached so far) would
    // end it there, short of the loss that ends NewReno's.
    let queue = 40 * MS;
    let mut path = shared_after_a_delay_exit(queue);
    let reach = ShortQueueAlgorithm::DEFAULT_CONTEST_REACH * path.cwnd() as f64;
    queue_for(&mut path, queue, 4);
    assert!(path.window().in_slow_start());
    assert!(
        path.cwnd() as f64 > 2.0 * reach,
        "stopped at {} bytes, {reach:.0} being the reach from where it began",
        path.cwnd()
    );
    let decision = path.lose(1);
    expect_verdict(&decision, Verdict::Congestion);
    assert!(!path.window().in_slow_start(), "a loss ends it");
}

/// The target queue of `path`'s flow.
fn target(path: &Path<ShortQueueAlgorithm>) -> Duration {
    path.algorithm.classifier().path().target()
}

#[test]
fn a_queue_that_stands_below_two_targets_after_the_flow_yielded_all_of_it_is_shared() {
    let mut path = settled();
    // An AQM holds another flow's queue at one and a half of this flow's targets: too short for
    // the shrinking test, which reads queues above two targets, but FAST's update yields to it
    // round after round.
    let queue = target(&path).mul_f64(1.5);
    let before = path.cwnd();
    let mut rounds = 0;
    while matches!(path.algorithm.owner(), QueueOwner::Own { .. }) && rounds < 60 {
        queue_for(&mut path, queue, 1);
        rounds += 1;
    }
    assert!(
        matches!(path.algorithm.owner(), QueueOwner::Shared { .. }),
        "still the flow's own after {rounds} rounds, window {} -> {}",
        before,
        path.cwnd()
    );
}

/// The flow's own queue on a pipe of `pipe` packets: what its window holds beyond the pipe, a
/// packet time (the RTT over the pipe) each.
fn own_queue(path: &Path<ShortQueueAlgorithm>, pipe: f64) -> f64 {
    (path.cwnd_packets() - pipe).max(0.0) * RTT.as_secs_f64() / pipe
}

/// `rounds` rounds in which the path queues `queue(path, round)` seconds, the flow reading the
/// queue as its own in every one.
fn stays_its_own(
    path: &mut Path<ShortQueueAlgorithm>,
    rounds: usize,
    queue: impl Fn(&Path<ShortQueueAlgorithm>, usize) -> f64,
) {
    for round in 0..rounds {
        let queue = Duration::from_secs_f64(queue(path, round).max(0.0));
        queue_for(path, queue, 1);
        assert!(
            matches!(path.algorithm.owner(), QueueOwner::Own { .. }),
            "shared in round {round} at a queue of {queue:?} of its own"
        );
    }
}

#[test]
fn a_queue_of_the_flow_s_own_below_two_targets_stays_its_own_as_it_drains() {
    let mut path = settled();
    // A pipe of a hundred packets, and a window that starts three targets' worth above it.
    let pipe = 100.0;
    let start = target(&path).mul_f64(3.0).as_secs_f64() / (RTT.as_secs_f64() / pipe);
    path.algorithm
        .window_mut()
        .resize(((pipe + start) * MSS as f64) as u64);
    stays_its_own(&mut path, 60, |path, _| own_queue(path, pipe));
}

#[test]
fn a_queue_of_the_flow_s_own_that_wavers_above_the_target_stays_its_own() {
    let mut path = settled();
    // The capacity falls to three fifths of the rate the flow reached alone. Its own queue settles
    // a few milliseconds long, between one and two targets once the peak rate's memory has passed,
    // and wavers by three tenths of a target every round of the flow's (two of the path's): the
    // window goes down and up by turns, and what the update gives back is not taken out of
    // flight. Counted without it, the yielding would add up to the whole queue in 220 rounds.
    let pipe = 60.0;
    let wobble = target(&path).as_secs_f64() * 0.3;
    stays_its_own(&mut path, 400, |path, round| {
        let sign = if (round / 2) % 2 == 0 { 1.0 } else { -1.0 };
        own_queue(path, pipe) + sign * wobble
    });
}

#[test]
fn leaving_the_shared_mode_the_window_refills_only_to_the_rate_it_shared() {
    let mut path = settled();
    let alone = path.cwnd();
    // Another flow keeps an AQM's queue; two of the AQM's drops halve the window twice.
    queue_for(&mut path, 20 * MS, 12);
    assert!(matches!(path.algorithm.owner(), QueueOwner::Shared { .. }));
    for _ in 0..2 {
        path.lose(1);
        queue_for(&mut path, 20 * MS, 12);
    }
    let shared = path.cwnd();
    assert!(shared * 2 < alone, "{shared} of {alone}");
    // The AQM drains the queue for a few rounds, and the queue is the flow's own again. Its peak
    // rate is the link's, which it had alone; the refill goes back to the rate it shared.
    let mut rounds = 0;
    while matches!(path.algorithm.owner(), QueueOwner::Shared { .. }) && rounds < 20 {
        queue_for(&mut path, Duration::ZERO, 1);
        rounds += 1;
    }
    assert!(matches!(path.algorithm.owner(), QueueOwner::Own { .. }));
    queue_for(&mut path, Duration::ZERO, 8);
    assert!(
        path.cwnd() * 4 < alone * 3,
        "refilled to {} of the {alone} it had alone, from {shared}",
        path.cwnd()
    );
}

/// Settled, then a buffer-filler keeps 60 ms queued, far deeper than an AQM would, until the flow
/// competes for it.
fn contested() -> Path<ShortQueueAlgorithm> {
    let mut path = settled();
    queue_for(&mut path, 60 * MS, 12);
    assert!(
        matches!(path.algorithm.owner(), QueueOwner::Shared { .. }),
        "{:?}",
        path.algorithm.owner()
    );
    path
}

#[test]
fn against_a_buffer_filler_the_flow_slow_starts_then_backs_off_as_cubic_does() {
    let mut path = settled();
    let queue = 60 * MS;
    let held = path.cwnd() as f64 * (RTT + queue).as_secs_f64() / RTT.as_secs_f64();
    // It slow-starts from the window its yielding left, to claim a share of the full buffer:
    // above 512 packets by at most 256 a round (RFC 3742), since the buffer is already full,
    // and no further than twice the window that carried its rate (this path loses nothing).
    let mut reopened = false;
    for _ in 0..20 {
        let before = path.cwnd();
        queue_for(&mut path, queue, 1);
        if path.window().state() == State::SlowStart {
            reopened = true;
            let grown = (path.cwnd() - before) / MSS;
            assert!(grown <= 2 * 256, "grew {grown} packets");
        }
    }
    assert!(reopened, "no slow start against the buffer-filler");
    let reached = path.cwnd() as f64 / held;
    assert!(
        (1.0..=2.1).contains(&reached),
        "{reached:.2} of the window held"
    );
    // A loss at the full buffer ends it with CUBIC's cut (RFC 9438: beta = 0.7), not NewReno's.
    let before = path.cwnd() as f64;
    let decision = path.lose(1);
    expect_verdict(&decision, Verdict::Congestion);
    let kept = path.cwnd() as f64 / before;
    assert!((kept - 0.7).abs() < 0.01, "kept {kept}");
    // And it grows again while the other flow keeps the queue.
    let cut = path.cwnd();
    let grew = (0..8).any(|_| {
        queue_for(&mut path, 60 * MS, 1);
        path.cwnd() > cut
    });
    assert!(grew, "no growth from {cut} bytes");
}

/// Settled, then a buffer-filler keeps `queue` standing; the flow yields until it reads the queue
/// as shared and reopens slow start. Returns the path and the window that carries the rate the
/// flow had through a round trip `queue` longer, bytes.
fn reopened_against(queue: Duration) -> (Path<ShortQueueAlgorithm>, f64) {
    let mut path = settled();
    let held = path.cwnd() as f64 * (RTT + queue).as_secs_f64() / RTT.as_secs_f64();
    let mut rounds = 0;
    while path.window().state() != State::SlowStart && rounds < 20 {
        queue_for(&mut path, queue, 1);
        rounds += 1;
    }
    assert!(matches!(path.algorithm.owner(), QueueOwner::Shared { .. }));
    (path, held)
}

#[test]
fn losses_at_the_full_buffer_do_not_end_a_contest_s_slow_start_before_the_flow_has_its_share() {
    let queue = 60 * MS;
    let (mut path, held) = reopened_against(queue);
    // The buffer the other flow keeps full drops packets at once: the flow's share is not what
    // fills it, and slow start goes on.
    for _ in 0..2 {
        lose_one_keeping_the_window(&mut path, Verdict::Congestion);
        assert_eq!(path.window().state(), State::SlowStart);
    }
    let mut rounds = 0;
    while path.window().state() == State::SlowStart && (path.cwnd() as f64) < held && rounds < 20 {
        queue_for(&mut path, queue, 1);
        rounds += 1;
    }
    // Once it has its share back, a loss at the full buffer is CUBIC's (RFC 9438: beta = 0.7).
    let before = path.cwnd() as f64;
    assert!(
        before >= held,
        "slow start ended at {:.2} of the window held",
        before / held
    );
    path.lose(1);
    assert_ne!(path.window().state(), State::SlowStart);
    let kept = path.cwnd() as f64 / before;
    assert!((kept - 0.7).abs() < 0.01, "kept {kept}");
}

#[test]
fn a_ce_mark_or_more_losses_than_a_channel_s_still_end_a_contest_s_slow_start() {
    let queue = 60 * MS;
    let (mut path, _) = reopened_against(queue);
    // A loss at the full buffer is passed over; a CE mark after it is not, whatever queue that
    // loss met.
    assert!(!path.lose(1).reduced);
    path.clock += MS;
    let now = path.at(path.clock);
    let mark = CongestionEvent::new(now, now, false, 0, MSS, path.rtt);
    assert!(path.algorithm.on_congestion(&mark).reduced);
    assert_ne!(path.window().state(), State::SlowStart);
    let (mut path, _) = reopened_against(queue);
    let half = path.cwnd_packets() as u64 / 2 + 1;
    assert!(path.lose(half).reduced);
    assert_ne!(path.window().state(), State::SlowStart);
}

#[test]
fn a_loss_at_a_queue_still_deepening_ends_a_contest_s_slow_start_where_a_wobbling_one_does_not() {
    // Under fair queueing, a flow the scheduler halved reads its own sub-queue as shared, and
    // its reopened slow start deepens that sub-queue round after round until the AQM drops from
    // it: no full buffer, whose depth is a ceiling.
    let queue = 400 * MS;
    let (mut path, held) = reopened_against(queue);
    queue_for(&mut path, queue * 3, 2);
    assert_eq!(path.window().state(), State::SlowStart);
    assert!((path.cwnd() as f64) < held, "the flow has its share back");
    let decision = path.lose(1);
    assert!(decision.reduced, "{}", decision.evidence.reason);
    assert_ne!(path.window().state(), State::SlowStart);
    // A full buffer's reading moves by a quarter from round to round as the flows' bursts come
    // and go: the same loss then is the full buffer's.
    let (mut path, _) = reopened_against(queue);
    queue_for(&mut path, queue.mul_f64(1.25), 2);
    lose_one_keeping_the_window(&mut path, Verdict::Congestion);
    assert_eq!(path.window().state(), State::SlowStart);
}

/// A contest's slow start, reopened against a buffer-filler's `queue`, ended by an AQM's drop: a
/// loss that met a queue a third shorter than the deepest. Returns the path and the window held.
fn ended_by_a_drop_short_of_the_full_buffer(queue: Duration) -> (Path<ShortQueueAlgorithm>, f64) {
    let (mut path, held) = reopened_against(queue);
    queue_for(&mut path, queue.mul_f64(2.0 / 3.0), 1);
    let decision = path.lose(1);
    assert!(decision.reduced, "{}", decision.evidence.reason);
    assert_ne!(path.window().state(), State::SlowStart);
    (path, held)
}

#[test]
fn a_loss_short_of_the_full_buffer_ends_a_contest_s_slow_start_aiming_at_the_share_held() {
    let queue = 150 * MS;
    let (mut path, held) = ended_by_a_drop_short_of_the_full_buffer(queue);
    // CUBIC's concave growth heads for the window the flow held (K = cbrt((W_max - cwnd) / C)
    // seconds, in packets), where from W_max = the cut window over beta it would plateau there.
    let cut = path.cwnd();
    queue_for(&mut path, queue, 30);
    let regained = (path.cwnd() - cut) as f64 / (held - cut as f64);
    assert!(regained > 0.75, "regained {regained:.2} of the window held");
}

#[test]
fn losses_before_the_flow_has_regained_its_share_keep_cubic_aiming_at_it() {
    let queue = 150 * MS;
    let (mut path, held) = ended_by_a_drop_short_of_the_full_buffer(queue);
    // A second drop a round trip later (two of the synthetic path's rounds), before the window
    // is back at the share.
    queue_for(&mut path, queue, 2);
    let short = path.cwnd() as f64 / held;
    assert!(short < 0.8, "{short:.2} of the window held");
    path.lose(1);
    // Past the plateau a W_max reset to this loss's window (the cut one over beta) would hold.
    let plateau = path.cwnd() as f64 / 0.7;
    queue_for(&mut path, queue, 30);
    let beyond = path.cwnd() as f64 / plateau;
    assert!(beyond > 1.15, "{beyond:.2} of the plateau");
    // Once it has, a loss is CUBIC's again: W_max is the window of the moment, where it plateaus.
    let mut rounds = 0;
    while (path.cwnd() as f64) < held && rounds < 60 {
        queue_for(&mut path, queue, 1);
        rounds += 1;
    }
    let before = path.cwnd();
    assert!(
        before as f64 >= held,
        "still short of the share after {rounds} rounds"
    );
    path.lose(1);
    queue_for(&mut path, queue, 30);
    let beyond = path.cwnd() as f64 / before as f64;
    assert!(
        beyond < 1.1,
        "grew to {beyond:.2} of the window before the loss"
    );
}

#[test]
fn a_drain_probe_finds_the_buffer_filler_gone_and_the_flow_keeps_a_short_queue_again() {
    let mut path = contested();
    path.lose(1);
    // The other flow stays: each probe drains the flow's window, finds the queue standing, and
    // gives the window back.
    // The buffer overflows every eighth round, as the two flows' sawtooth fills it.
    let mut probed = 0;
    for round in 0..2 * quinn_discern::drain_probe::DRAIN_INTERVAL_ROUNDS {
        let before = path.cwnd();
        queue_for(&mut path, 60 * MS, 1);
        if path.cwnd() * 3 < before {
            probed += 1;
        }
        if round % 8 == 7 {
            path.lose(1);
        }
    }
    assert!(probed >= 1, "no drain probe in two intervals");
    assert!(matches!(path.algorithm.owner(), QueueOwner::Shared { .. }));
    // The other flow leaves, and the queue is all this flow's: a link whose pipe holds a
    // hundred packets queues the rest of the window, up to a buffer of two pipes, until a probe
    // drains it.
    let pipe = 100.0;
    let mut rounds = 0;
    while matches!(path.algorithm.owner(), QueueOwner::Shared { .. }) && rounds < 200 {
        let excess = (path.cwnd_packets() / pipe - 1.0).clamp(0.0, 2.0);
        queue_for(&mut path, RTT.mul_f64(excess), 1);
        if excess >= 2.0 {
            path.lose(1);
        }
        rounds += 1;
    }
    assert!(
        matches!(path.algorithm.owner(), QueueOwner::Own { .. }),
        "still sharing after {rounds} rounds"
    );
}

#[test]
fn on_a_jittered_path_start_rate_ends_slow_start_where_the_rate_stops_growing() {
    // A pipe of a thousand packets, and 6 or 16 ms of jitter on every frame.
    let capacity = 1000.0 * MSS as f64 / RTT.as_secs_f64();
    let slow_start_ends_at = |start| {
        let mut config = DiscernConfig::default();
        config.start(start);
        let mut path = Path::new(short_queue(config.algorithm(MSS)));
        let mut rounds = 0;
        let own = |path: &Path<ShortQueueAlgorithm>| {
            matches!(path.algorithm.owner(), QueueOwner::Own { .. })
        };
        while path.window().ssthresh() == u64::MAX && own(&path) && rounds < 40 {
            jittered_round(&mut path, Some(capacity));
            rounds += 1;
        }
        path.cwnd_packets()
    };
    // Read past the noise's spread (20 ms here), the queue that ends slow start by delay holds
    // 200 packets more than a quiet path's: the rate's exit holds no more than its three rounds
    // of confirmation put there.
    let by_delay = slow_start_ends_at(NoisyStart::Delay);
    let by_rate = slow_start_ends_at(NoisyStart::Rate);
    assert!(
        by_delay >= 500.0,
        "slow start ended at {by_delay} packets, short of the pipe"
    );
    assert!(
        by_rate >= 500.0,
        "slow start ended at {by_rate} packets, short of the pipe"
    );
}

#[test]
fn slow_start_reads_its_exit_queue_past_delay_noise_that_is_not_its_own_bursts() {
    // A pipe of a thousand packets, and every other frame 2.5 ms late: a spread (about 5 ms)
    // within slow start's exit threshold (HyStart's 6.25 ms at a 100 ms RTT, while the first
    // rounds' rate sets a long target). From 64 packets on, order-keeping jitter, which grows
    // with the rate (a late packet holds back those behind it), offsets every sample by 7 ms
    // more, beyond the threshold: read as a queue, it ended slow start at 92 packets. Read past
    // the spread, the offset is no queue.
    let capacity = 1000.0 * MSS as f64 / RTT.as_secs_f64();
    let mut path = Path::new(short_queue(DiscernConfig::default().algorithm(MSS)));
    let mut rounds = 0;
    while path.window().ssthresh() == u64::MAX && rounds < 40 {
        let offset = if path.cwnd_packets() < 64.0 {
            Duration::ZERO
        } else {
            7 * MS
        };
        jittered_round_between(&mut path, Some(capacity), (offset, offset + 2500 * US));
        rounds += 1;
    }
    let packets = path.cwnd_packets();
    assert!(
        packets >= 500.0,
        "slow start ended at {packets} packets, the pipe is 1000"
    );
}

/// A flow that ends slow start by delay alone (`start=delay`), after three rounds whose frames
/// read 0 or 10 ms by turns (a spread of about 20 ms once averaged, beyond the exit threshold),
/// then one round at 30 or 40 ms: past the spread, a queue above the threshold, which slow start
/// holds on rather than ending.
fn jittered_start_reaching_the_exit() -> Path<ShortQueueAlgorithm> {
    let mut config = DiscernConfig::default();
    config.start(NoisyStart::Delay);
    let mut path = Path::new(short_queue(config.algorithm(MSS)));
    for _ in 0..3 {
        jittered_round_between(&mut path, None, (Duration::ZERO, 10 * MS));
    }
    jittered_round_between(&mut path, None, (30 * MS, 40 * MS));
    assert_eq!(
        path.window().ssthresh(),
        u64::MAX,
        "slow start ended at once"
    );
    path
}

#[test]
fn a_delay_exit_the_jitter_can_explain_waits_a_round_and_slow_start_goes_on_when_it_falls() {
    let mut path = jittered_start_reaching_the_exit();
    let held = path.cwnd();
    // The offset was the jitter's: the next round's frames read 0 or 10 ms again.
    for _ in 0..2 {
        jittered_round_between(&mut path, None, (Duration::ZERO, 10 * MS));
    }
    assert_eq!(path.window().ssthresh(), u64::MAX, "slow start ended");
    jittered_round_between(&mut path, None, (Duration::ZERO, 10 * MS));
    assert!(
        path.cwnd() as f64 > 1.5 * held as f64,
        "held at {held}, then {}",
        path.cwnd()
    );
}

#[test]
fn a_delay_exit_the_jitter_can_explain_ends_slow_start_when_the_queue_stands_for_a_round() {
    let mut path = jittered_start_reaching_the_exit();
    let held = path.cwnd();
    for _ in 0..3 {
        jittered_round_between(&mut path, None, (30 * MS, 40 * MS));
    }
    assert!(path.window().ssthresh() < u64::MAX, "slow start went on");
    assert!(path.cwnd() <= held, "held at {held}, then {}", path.cwnd());
}

#[test]
fn persistent_congestion_starts_the_full_pipe_check_afresh() {
    // A pipe of a thousand packets whose rate has stopped growing: the check reads it full. The
    // slow start after a collapse begins from two packets, and must not read the old best rate
    // as a full pipe from its first round.
    let capacity = 1000.0 * MSS as f64 / RTT.as_secs_f64();
    let mut path = Path::new(short_queue(DiscernConfig::default().algorithm(MSS)));
    let filled =
        |path: &Path<ShortQueueAlgorithm>| path.algorithm.classifier().path().pipe_filled();
    let mut rounds = 0;
    while !filled(&path) && rounds < 40 {
        jittered_round(&mut path, Some(capacity));
        rounds += 1;
    }
    assert!(
        filled(&path),
        "the rate never stopped growing in {rounds} rounds"
    );
    path.persistent_congestion();
    assert!(
        !filled(&path),
        "the collapse kept the old slow start's full pipe"
    );
}

#[test]
fn the_default_s_word_knobs_are_refused_with_queue_full_and_name_their_words() {
    for (knob, value, bad, words) in [
        ("start", "delay", "hystart", "delay or rate"),
        ("overshoot", "drain", "halve", "fast or drain"),
        ("noise", "clumps", "jitter", "spread or clumps"),
        ("loss", "placement", "median", "guard or placement"),
    ] {
        let parse = |id: String| quinn_discern::registry::parse(&id);
        parse(format!("discern:{knob}={value}")).expect("a knob of the default");
        let err = parse(format!("discern:queue=full,{knob}={value}"))
            .expect_err("refused with queue=full");
        assert!(err.to_string().contains(knob), "{err}");
        let err = parse(format!("discern:{knob}={bad}")).expect_err("a bad word");
        assert!(err.to_string().contains(words), "{err}");
    }
}

#[test]
fn a_contest_s_slow_start_reaches_as_far_as_the_reach_knob_says() {
    // The same contest (a queue of 60 ms another flow keeps standing) with two reaches: the
    // reopened slow start ends at that many windows that carry the flow's peak rate.
    let reopened_to = |reach: f64| {
        let mut config = DiscernConfig::default();
        config.reach(reach).expect("a reach of at least 1");
        let mut path = Path::new(short_queue(config.algorithm(MSS)));
        path.rounds(4);
        queue_for(&mut path, 10 * MS, 1);
        queue_for(&mut path, Duration::ZERO, 4);
        queue_for(&mut path, 60 * MS, 12);
        assert!(matches!(path.algorithm.owner(), QueueOwner::Shared { .. }));
        path.window().ssthresh() as f64
    };
    let ratio = reopened_to(2.0) / reopened_to(1.0);
    assert!((ratio - 2.0).abs() < 0.1, "{ratio}");
    let err = quinn_discern::registry::parse("discern:reach=0.5").expect_err("below 1");
    assert!(err.to_string().contains("at least 1"), "{err}");
    let err = quinn_discern::registry::parse("discern:queue=full,reach=2")
        .expect_err("reach with queue=full is refused");
    assert!(err.to_string().contains("reach"), "{err}");
}

#[test]
fn competing_by_reno_s_rules_is_a_parameter() {
    let mut config = DiscernConfig::default();
    config.competing(quinn_discern::Competing::Reno);
    let mut path = Path::new(short_queue(config.algorithm(MSS)));
    path.rounds(4);
    queue_for(&mut path, 10 * MS, 1);
    queue_for(&mut path, Duration::ZERO, 4);
    queue_for(&mut path, 60 * MS, 12);
    path.lose(1);
    let before = path.cwnd();
    path.rounds(1);
    let decision = path.lose(1);
    assert_eq!(decision.verdict, Verdict::Congestion);
    assert!(
        path.cwnd() <= before / 2 + MSS,
        "{before} then {}",
        path.cwnd()
    );
}

/// A round on a jittered path: each pair of frames reads 6 ms or 16 ms more than the minimum RTT,
/// whatever the window, on top of the queue a link of `capacity` bytes a second (none: a pipe
/// never full) builds behind a window above its pipe. The round lasts the base RTT plus that
/// queue, so the delivery rate follows the window below the pipe and stays at `capacity` above.
fn jittered_round(path: &mut Path<ShortQueueAlgorithm>, capacity: Option<f64>) {
    jittered_round_between(path, capacity, (6 * MS, 16 * MS));
}

/// As [`jittered_round`], each pair of frames reading `noise.0` or `noise.1` by turns.
fn jittered_round_between(
    path: &mut Path<ShortQueueAlgorithm>,
    capacity: Option<f64>,
    noise: (Duration, Duration),
) {
    let cwnd = path.cwnd();
    let queue = capacity.map_or(0.0, |c| (cwnd as f64 / c - RTT.as_secs_f64()).max(0.0));
    let span = RTT + Duration::from_secs_f64(queue);
    let sent = path.at(path.clock);
    path.clock += span;
    let packets = (cwnd / MSS).max(1);
    acknowledge(path, sent, packets, 2, |packet| {
        span + if (packet / 2) % 2 == 0 {
            noise.0
        } else {
            noise.1
        }
    });
}

/// Acknowledges, now, `packets` packets sent at `sent`, in frames of `per_frame` packets, the
/// packet numbered `i` reading `latest(i)`.
fn acknowledge(
    path: &mut Path<ShortQueueAlgorithm>,
    sent: Instant,
    packets: u64,
    per_frame: u64,
    latest: impl Fn(u64) -> Duration,
) {
    acknowledge_samples(path, sent, packets, per_frame, true, |packet| {
        RttSample::flat(RTT).with_latest(latest(packet))
    });
}

/// As [`acknowledge`], the packet numbered `i` carrying the whole sample `sample(i)`; each frame
/// resolves its own ACK Delay where `resolved` (a receiver's honest timer), or none.
fn acknowledge_samples(
    path: &mut Path<ShortQueueAlgorithm>,
    sent: Instant,
    packets: u64,
    per_frame: u64,
    resolved: bool,
    sample: impl Fn(u64) -> RttSample,
) {
    let now = path.at(path.clock);
    for packet in 0..packets {
        let rtt = sample(packet);
        path.algorithm.on_ack(&Ack::new(now, sent, MSS, false, rtt));
        if packet % per_frame == per_frame - 1 || packet + 1 == packets {
            let acked = packet % per_frame + 1;
            let in_flight = (packets - packet - 1) * MSS;
            let resolved = resolved.then_some(rtt);
            let batch = AckBatch::new(now, rtt, MSS * acked, acked, in_flight, false, resolved);
            path.algorithm.on_ack_batch(&batch);
        }
    }
}

#[test]
fn on_a_jittered_path_delay_that_the_rate_shows_to_be_noise_does_not_shrink_the_window() {
    let mut path = settled();
    let before = path.cwnd();
    for _ in 0..40 {
        jittered_round(&mut path, None);
    }
    let path_model = path.algorithm.classifier().path();
    assert!(path_model.is_noisy());
    // A standing queue of 6 ms, above the target: FAST's update alone takes the window down a
    // few hundredths a round. The probes show the rate following the window: it is noise.
    assert!(
        path_model.noise_floor() >= 5 * MS,
        "{:?}",
        path_model.noise_floor()
    );
    assert!(path.cwnd() >= before, "{} then {}", before, path.cwnd());
}

#[test]
fn rounds_around_a_buffer_s_overflow_teach_no_noise_floor() {
    // The jittered rounds of the test above, which teach a noise floor of 6 ms, with a window
    // that loses a fifth of itself (five packets at least) every fourth round: a buffer's
    // overflow, whose rounds read no pipe (another flow backing off from the same overflow frees
    // the rate this one gains).
    let mut path = settled();
    for round in 0..40 {
        jittered_round(&mut path, None);
        if round % 4 == 3 {
            let decision = path.lose((path.cwnd() / MSS / 5 + 1).max(5));
            expect_verdict(&decision, Verdict::Congestion);
        }
    }
    let path_model = path.algorithm.classifier().path();
    assert!(path_model.is_noisy());
    assert_eq!(path_model.noise_floor(), Duration::ZERO);
}

/// A path that has shown noise: 40 jittered rounds of a pipe never full.
fn noisy() -> Path<ShortQueueAlgorithm> {
    noisy_with(NoisyFloor::default())
}

/// As [`noisy`], the window floor kept by `floor`'s rule.
fn noisy_with(floor: NoisyFloor) -> Path<ShortQueueAlgorithm> {
    let algorithm = short_queue(DiscernConfig::default().algorithm(MSS)).with_noisy_floor(floor);
    let mut path = settled_from(algorithm, 4);
    assert!(path.window().ssthresh() < u64::MAX, "slow start is over");
    for _ in 0..40 {
        jittered_round(&mut path, None);
    }
    assert!(path.algorithm.classifier().path().shows_noise());
    path
}

#[test]
fn once_a_rise_reads_the_pipe_full_the_read_floor_is_one_pipe_where_the_default_keeps_two() {
    // A path that has shown noise, then a link whose pipe is the window of the moment: the floor
    // lifts the window to twice the pipe, a round trip's queue stands, and a rise of the data in
    // flight that the rate does not follow reads the pipe full. The default's floor stays twice
    // the pipe; `floor = read`'s falls to one, and FAST's update takes out the queue above it.
    let after_full = |floor| {
        let mut path = noisy_with(floor);
        let pipe = path.cwnd() as f64;
        let capacity = pipe / RTT.as_secs_f64();
        let mut windows = Vec::new();
        for _ in 0..30 {
            jittered_round(&mut path, Some(capacity));
            if path.algorithm.classifier().path().last_pipe_read_full() {
                windows.push(path.cwnd() as f64 / pipe);
            }
        }
        assert!(
            windows.len() >= 8,
            "{floor:?}: read full in {} rounds",
            windows.len()
        );
        windows
    };
    let twice = after_full(NoisyFloor::Twice);
    assert!(twice.iter().all(|&w| w >= 1.9), "{twice:?}");
    let read = after_full(NoisyFloor::Read);
    assert!(read.iter().any(|&w| w < 1.3), "{read:?}");
    assert!(
        read.iter().all(|&w| w >= 0.95),
        "the pipe still a floor: {read:?}"
    );
}

#[test]
fn on_a_noisy_path_no_rate_probe_raises_a_window_in_a_loss_episode_s_recovery() {
    // A link as fast as the settled window's rate, its queue read through jitter: FAST's update
    // holds or shrinks the window, and every few rounds a rate probe raises it by a quarter. From
    // round 16 on, a twentieth of every window is lost, as an AQM that holds the queue above its
    // target drops more and more of it: a probe's quarter would be dropped too, each drop a gap
    // the receiver holds until its retransmission arrives.
    let mut path = settled();
    let capacity = path.cwnd() as f64 / RTT.as_secs_f64();
    let mut rounds_in_recovery = 0;
    for round in 0..40 {
        if round >= 16 {
            path.lose_with_rtt(path.cwnd() / MSS / 20 + 1, 4 * RTT);
        }
        let before = path.cwnd();
        jittered_round(&mut path, Some(capacity));
        if path.window().state() == State::Recovery {
            rounds_in_recovery += 1;
            assert!(
                (path.cwnd() as f64) < 1.2 * before as f64,
                "round {round}: rose from {before} to {} in recovery",
                path.cwnd()
            );
        }
    }
    assert!(
        rounds_in_recovery >= 3,
        "{rounds_in_recovery} rounds in recovery"
    );
}

#[test]
fn on_a_noisy_path_no_rate_probe_lifts_the_window_past_the_cap_a_lost_half_left() {
    // A path that has shown noise, on a link as fast as its window's rate. Half the window lost
    // caps the floor at the half left, and the cap grows back by an eighth a round (BBRv3's
    // inflight_hi). FAST's update holds the window over the jitter's queue, so a rate probe
    // comes due while the window climbs back: it may raise the window to the cap, not a quarter
    // past it (an AQM whose drops set the cap would drop the probe's quarter too).
    let mut path = noisy();
    let capacity = path.cwnd() as f64 / RTT.as_secs_f64();
    for _ in 0..16 {
        jittered_round(&mut path, Some(capacity));
    }
    let before = path.cwnd();
    let decision = path.lose(before / MSS / 2 + 1);
    expect_verdict(&decision, Verdict::Congestion);
    assert!(path.cwnd() <= before / 2 + MSS, "cut to {}", path.cwnd());
    let mut highest = 0;
    for round in 0..24 {
        let last = path.cwnd();
        jittered_round(&mut path, Some(capacity));
        if last < before {
            assert!(
                path.cwnd() as f64 <= 1.13 * last as f64,
                "round {round}: from {last} to {} below the {before} before the loss",
                path.cwnd()
            );
        }
        highest = highest.max(path.cwnd());
    }
    // The cap holds the climb back, not the window down.
    assert!(
        highest >= before,
        "{before}: the window came back to {highest}"
    );
}

#[test]
fn on_a_path_that_has_shown_noise_a_loss_beyond_a_channel_s_caps_the_floor() {
    let mut path = noisy();
    let before = path.cwnd();
    // Half the window lost (more than BBRv3's 2 %): the floor may not undo the cut at once; its
    // cap grows back by an eighth a round, to twice the pipe the delivery rate shows (BBR's
    // cwnd_gain x BtlBw x RTprop), above the window before: the pipe was never full.
    let decision = path.lose(before / MSS / 2 + 1);
    expect_verdict(&decision, Verdict::Congestion);
    let cut = path.cwnd();
    assert!(cut < before);
    for _ in 0..2 {
        jittered_round(&mut path, None);
    }
    assert!(path.cwnd() < before, "{before} then {}", path.cwnd());
    for _ in 0..20 {
        jittered_round(&mut path, None);
    }
    assert!(
        path.cwnd() >= before,
        "{before}: the cap grows back, now {}",
        path.cwnd()
    );
}

#[test]
fn on_a_path_that_has_shown_noise_losses_that_run_on_after_the_cut_cap_the_floor() {
    let mut path = noisy();
    let before = path.cwnd();
    assert!(before / MSS >= 50, "a window of {} packets", before / MSS);
    // A round whose frames read 120 ms more than the jitter alone: a queue deeper than the one
    // the floor keeps, so its first loss, a lone one, is congestion and cuts the window.
    let sent = path.at(path.clock);
    path.clock += RTT + 120 * MS;
    acknowledge(&mut path, sent, before / MSS, 2, |_| RTT + 130 * MS);
    let decision = path.lose(1);
    expect_verdict(&decision, Verdict::Congestion);
    assert!(decision.reduced);
    let cut = path.cwnd();
    // The episode's losses run on: a tenth of the window, beyond BBRv3's 2 %. The window is not
    // cut again within the episode, but the floor may not lift it back to twice the pipe.
    let decision = path.lose(before / MSS / 10);
    expect_verdict(&decision, Verdict::Congestion);
    assert!(!decision.reduced);
    for _ in 0..2 {
        jittered_round(&mut path, None);
    }
    assert!(
        path.cwnd() < before,
        "cut from {before} to {cut}, then {}",
        path.cwnd()
    );
}

#[test]
fn on_a_path_that_has_shown_noise_a_sparse_loss_at_the_floor_s_queue_keeps_the_window() {
    let mut path = noisy();
    // A round whose frames read 30 ms more than the jitter alone: above the guard, but within
    // the queue the window floor keeps (a minimum RTT).
    let cwnd = path.cwnd();
    let sent = path.at(path.clock);
    path.clock += RTT + 30 * MS;
    acknowledge(&mut path, sent, cwnd / MSS, 2, |packet| {
        RTT + 30 * MS
            + if (packet / 2) % 2 == 0 {
                6 * MS
            } else {
                16 * MS
            }
    });
    let before = path.cwnd();
    // One packet lost: within BBRv3's 2 % of the window, a channel's loss.
    let decision = path.lose(1);
    expect_verdict(&decision, Verdict::Random);
    assert!(
        decision.evidence.reason.contains("window floor"),
        "{}",
        decision.evidence.reason
    );
    assert!(!decision.reduced);
    assert_eq!(path.cwnd(), before);
    // Three in a hundred of the window lost at the same queue: a buffer the floor overflows.
    let decision = path.lose(before / MSS * 3 / 100 + 1);
    expect_verdict(&decision, Verdict::Congestion);
    assert!(
        decision.reduced && path.cwnd() < before,
        "{before} then {}",
        path.cwnd()
    );
}

#[test]
fn a_receiver_that_claims_its_queue_as_ack_delay_turns_on_no_rate_floor() {
    let mut path = settled();
    // Every raw sample reads 20 ms above the minimum RTT (a standing queue); the receiver claims
    // 4 or 14 ms of it as ACK Delay by turns, so the corrected samples jump as a jittered
    // path's do while the raw ones stand still.
    for _ in 0..40 {
        let cwnd = path.cwnd();
        let sent = path.at(path.clock);
        path.clock += RTT + 20 * MS;
        acknowledge_samples(&mut path, sent, (cwnd / MSS).max(1), 2, false, |packet| {
            let claimed = if (packet / 2) % 2 == 0 {
                4 * MS
            } else {
                14 * MS
            };
            RttSample::new(RTT + 20 * MS, RTT, RTT, claimed)
        });
    }
    let path_model = path.algorithm.classifier().path();
    assert!(
        path_model.is_noisy(),
        "the corrected samples look noisy: {:?} against {:?}",
        path_model.jitter(),
        path_model.target()
    );
    assert!(
        !path_model.shows_noise(),
        "the raw samples show a queue, not noise"
    );
}

#[test]
fn on_a_jittered_path_a_real_standing_queue_still_shrinks_the_window() {
    let mut path = settled();
    let before = path.cwnd() as f64;
    // The pipe holds four fifths of the window: the rest stands queued (25 ms), and the rate does
    // not follow the probes.
    let capacity = 0.8 * before / RTT.as_secs_f64();
    for _ in 0..40 {
        jittered_round(&mut path, Some(capacity));
    }
    assert!(path.algorithm.classifier().path().is_noisy());
    let pipe = 0.8 * before;
    let after = path.cwnd() as f64;
    assert!(after < 0.95 * before, "{before} then {after}");
    assert!(after < 1.15 * pipe, "{after} against a pipe of {pipe}");
}

#[test]
fn half_the_window_lost_is_congestion_whatever_the_queue() {
    let mut path = settled();
    let packets = path.cwnd() / MSS;
    let decision = path.lose(packets / 2 + 2);
    assert_eq!(decision.verdict, Verdict::Congestion);
    assert!(decision.reduced);
}

#[test]
fn losing_the_first_flight_cuts_the_window_but_does_not_end_slow_start() {
    // The whole initial window lost before any ACK: what a lost handshake packet does to a
    // client that drops the 1-RTT packets it cannot yet decrypt.
    let mut path = Path::new(short_queue(DiscernConfig::default().algorithm(MSS)));
    let first_flight = path.cwnd() / MSS;
    let decision = path.lose(first_flight);
    assert!(decision.reduced, "the loss is answered");
    assert!(path.cwnd() < first_flight * MSS);
    assert_eq!(path.window().ssthresh(), u64::MAX, "slow start goes on");
    // Once the path has answered, half a window lost ends slow start.
    path.rounds(2);
    let decision = path.lose(path.cwnd() / MSS / 2 + 1);
    expect_verdict(&decision, Verdict::Congestion);
    assert!(decision.reduced);
    assert!(path.window().ssthresh() < u64::MAX, "slow start is over");
}

#[test]
fn a_round_that_ends_in_the_first_flight_s_recovery_keeps_slow_start_going() {
    let mut path = Path::new(short_queue(DiscernConfig::default().algorithm(MSS)));
    let first_flight = path.cwnd() / MSS;
    // The first ACK frames begin a round; the losses of the first flight are found a moment
    // later, when the cut begins its recovery period.
    path.clock = RTT;
    for _ in 0..6 {
        ack_sent_at(&mut path, Duration::ZERO, 1, RTT);
    }
    assert!(path.lose(first_flight).reduced);
    let cut_at = path.clock;
    // A packet sent between the two ends the round, and the recovery period lasts: the round's
    // end must not read the cut as the end of slow start.
    path.clock += RTT;
    ack_sent_at(&mut path, cut_at - MS / 2, 2, RTT);
    assert_eq!(path.window().state(), State::Recovery);
    assert_eq!(path.window().ssthresh(), u64::MAX, "slow start goes on");
}

#[test]
fn on_an_ecn_path_marks_reduce_by_ecn_beta_and_losses_are_random() {
    use quinn_discern::Algorithm;
    let mut path = settled();
    let before = path.cwnd();
    let now = path.at(path.clock);
    let mark = CongestionEvent::new(now, now, false, 0, MSS, path.rtt);
    let decision = path.algorithm.on_congestion(&mark);
    assert_eq!(decision.verdict, Verdict::Congestion);
    assert_eq!(path.cwnd(), (before as f64 * 0.8) as u64);
    path.rounds(3);
    // Even at a queue above the guard: on a marking path, the marks carry congestion.
    queue_for(&mut path, 25 * MS, 1);
    assert_eq!(path.lose(1).verdict, Verdict::Random);
}

#[test]
fn the_earlier_design_s_knobs_need_queue_full() {
    let mut config = DiscernConfig::default();
    assert_eq!(config.full_queue_knob_changed(), None);
    config.aqm(true);
    assert_eq!(config.full_queue_knob_changed(), Some("aqm"));
}

#[test]
fn a_queue_that_peaks_after_slow_start_and_then_falls_is_the_flow_s_own() {
    let mut path = settled();
    // The last doubling of slow start shows in the queue a round or two after the window has
    // begun to shrink: the standing queue reads 3 ms, 15 ms, then peaks near 30 ms, then falls to
    // about 21 ms, by more than a quarter of the peak though not of the first long round's. It
    // answers the flow's shrinking: its own queue. (Each step is one of the algorithm's rounds.)
    for queueing in [6, 25, 35, 5, 5] {
        queue_for(&mut path, queueing * MS, 2);
        assert!(
            matches!(path.algorithm.owner(), QueueOwner::Own { .. }),
            "at {queueing} ms: {:?}",
            path.algorithm.owner()
        );
    }
}

#[test]
fn a_queue_the_flow_s_last_flight_built_stays_its_own_while_the_window_that_answers_it_is_cut() {
    let mut path = settled();
    // The flow's own overshoot: the queue climbs to 320 ms, three times the pipe, and falls as
    // FAST's update cuts the window. By the round that reads 60 ms, the window is below half the
    // bytes 60 ms stands for; but that round acknowledges packets sent under the window before
    // the cut, and those in flight hold more than half of them. (Each step is one of the
    // algorithm's rounds, two to a window.)
    for queueing in [40, 160, 320, 320, 200, 120, 80, 60, 40] {
        queue_for(&mut path, queueing * MS, 1);
        assert!(
            matches!(path.algorithm.owner(), QueueOwner::Own { .. }),
            "at {queueing} ms: {:?} at {} packets",
            path.algorithm.owner(),
            path.cwnd_packets()
        );
    }
}

#[test]
fn a_queue_that_falls_from_another_flow_s_peak_but_outgrows_the_window_is_shared() {
    let mut path = settled();
    // Another flow's start-up queues 120 ms and drains to the 55 ms it keeps (BBR's drain): down
    // by more than a quarter of the peak, as an own queue would answer the flow's shrinking. But
    // the window FAST's update leaves holds too few bytes for 55 ms at the rate the flow has
    // carried, so most of the queue is not its own.
    queue_for(&mut path, 120 * MS, 2);
    queue_for(&mut path, 55 * MS, 16);
    assert!(
        matches!(path.algorithm.owner(), QueueOwner::Shared { .. }),
        "{:?} at {} packets",
        path.algorithm.owner(),
        path.cwnd_packets()
    );
}

/// A frame that acknowledges `packets` packets sent at `sent` (before the last loss response),
/// reading `latest`.
fn ack_sent_at(
    path: &mut Path<ShortQueueAlgorithm>,
    sent: Duration,
    packets: u64,
    latest: Duration,
) {
    let now = path.at(path.clock);
    let rtt = path.rtt.with_latest(latest);
    let sent = path.at(sent);
    for _ in 0..packets {
        path.algorithm.on_ack(&Ack::new(now, sent, MSS, false, rtt));
    }
    let batch = AckBatch::new(now, rtt, MSS * packets, packets, 0, false, Some(rtt));
    path.algorithm.on_ack_batch(&batch);
}

#[test]
fn a_round_that_ends_in_recovery_does_not_take_out_the_queue_a_second_time() {
    let mut path = settled();
    queue_for(&mut path, 25 * MS, 1);
    let before_loss = path.clock;
    assert!(path.lose(1).reduced);
    let cut = path.cwnd();
    // The rest of the flight sent before the cut arrives, still queued 25 ms behind the window
    // that built the queue, and ends a round: the loss response already took that queue out.
    for _ in 0..4 {
        path.clock += RTT / 2;
        ack_sent_at(&mut path, before_loss, 40, RTT + 25 * MS);
    }
    assert_eq!(path.window().state(), State::Recovery);
    assert!(path.cwnd() >= cut, "{cut} then {}", path.cwnd());
}

#[test]
fn a_loss_takes_out_the_queue_it_met_from_the_window_it_was_sent_under() {
    let mut path = settled();
    let built_it = path.cwnd() as f64;
    let sent = path.clock;
    // The queue shows a round later; FAST's update has shrunk the window since the packet left.
    queue_for(&mut path, 25 * MS, 2);
    let shrunk = path.cwnd() as f64;
    assert!(shrunk < 0.97 * built_it, "{built_it} then {shrunk}");
    path.clock += MS;
    let now = path.at(path.clock);
    let rtt = path.rtt.with_latest(RTT + 25 * MS);
    let event = CongestionEvent::loss(now, path.at(sent + MS), 1, MSS, rtt);
    let decision = path.algorithm.on_congestion(&event);
    assert!(decision.reduced, "{}", decision.evidence.reason);
    // The window that built the 25 ms queue, without it: 100 / 125 of it. Taken from the window
    // of the moment, the queue would come out twice.
    let expected = (0.8 * built_it).min(shrunk);
    let after = path.cwnd() as f64;
    assert!(
        (after - expected).abs() < 0.02 * built_it,
        "{after} against {expected}"
    );
}

/// Slow start from the first window for four rounds, then one round at `queueing`: the window
/// before that round and after it.
fn slow_start_ending_on(queueing: Duration) -> (u64, u64) {
    let mut path = Path::new(short_queue(DiscernConfig::default().algorithm(MSS)));
    path.rounds(4);
    let before = path.cwnd();
    queue_for(&mut path, queueing, 1);
    assert!(path.window().ssthresh() < u64::MAX, "slow start is over");
    (before, path.cwnd())
}

#[test]
fn slow_start_that_ends_on_a_queue_of_many_packets_halves_the_window_that_built_it() {
    // 60 ms at the peak rate the path model has seen (some 500 packets a second): 30 packets.
    let (before, after) = slow_start_ending_on(60 * MS);
    assert!(after < before * 6 / 10, "{before} then {after}");
    assert!(after > before * 4 / 10, "{before} then {after}");
}

#[test]
fn slow_start_that_ends_on_a_burst_s_queue_keeps_the_window() {
    // 8 ms, above the exit threshold, at the same rate: four packets, which a burst queues
    // before the pipe is full.
    let (before, after) = slow_start_ending_on(8 * MS);
    assert!(after >= before, "{before} then {after}");
}

/// A round behind a receiver that acknowledges every tenth packet: one frame per ten packets,
/// the newest of each ten read `burst` later than the first (it waited behind the others), on
/// alternate frames, on top of `queueing`.
fn decimated_round(path: &mut Path<ShortQueueAlgorithm>, queueing: Duration, burst: Duration) {
    let cwnd = path.cwnd();
    let sent = path.at(path.clock);
    path.clock += RTT + queueing;
    let packets = (cwnd / MSS).max(10);
    acknowledge(path, sent, packets, 10, |packet| {
        let late = if (packet / 10) % 2 == 0 {
            burst
        } else {
            Duration::ZERO
        };
        RTT + queueing + late
    });
}

#[test]
fn behind_a_decimating_receiver_the_guard_counts_its_bursts_once() {
    let mut path = settled();
    for _ in 0..20 {
        decimated_round(&mut path, Duration::ZERO, 9 * MS);
    }
    let model = path.algorithm.classifier().path();
    let (burst, jitter, guard) = (model.burst(), model.jitter(), model.guard());
    assert!(burst > 2 * MS && jitter > 2 * MS, "{burst:?} {jitter:?}");
    // The bursts are what the jitter measures here: the guard holds the larger of the two (the
    // jitter beyond a target), not their sum, which would leave a full queue's drops below it.
    let beyond = jitter.saturating_sub(model.target());
    assert!(guard >= beyond.max(2 * burst), "{guard:?}");
    assert!(guard < beyond + 2 * burst, "{guard:?} {beyond:?} {burst:?}");
}

/// Past a slow start of `rounds` rounds that a 10 ms queue ended, with no queue now: the fewer
/// the rounds, the smaller the window and the longer a packet time.
fn settled_after(rounds: usize) -> Path<ShortQueueAlgorithm> {
    settled_from(short_queue(DiscernConfig::default().algorithm(MSS)), rounds)
}

/// As [`settled_after`], for `algorithm`.
fn settled_from(algorithm: ShortQueueAlgorithm, rounds: usize) -> Path<ShortQueueAlgorithm> {
    let mut path = Path::new(algorithm);
    path.rounds(rounds);
    queue_for(&mut path, 10 * MS, 1);
    queue_for(&mut path, Duration::ZERO, 4);
    path
}

#[test]
fn a_loss_that_met_a_queue_above_codel_s_target_is_congestion() {
    // A smaller window than `settled`'s, so that a packet time is over a millisecond.
    let mut path = settled_after(3);
    // CoDel drops packets that waited more than 5 ms. Three of this path's targets would be more
    // than that; the guard stays below it, so the drop's 6 ms read as congestion.
    let target = path.algorithm.classifier().path().target();
    assert!(3 * target > 6 * MS, "{target:?}");
    queue_for(&mut path, 6 * MS, 1);
    let decision = path.lose(1);
    expect_verdict(&decision, Verdict::Congestion);
}

#[test]
fn on_a_slow_link_the_guard_stands_a_packet_time_above_the_target() {
    // A small window, so that the target (two packet times) is a few milliseconds, as on a link
    // of a few Mbit/s.
    let mut path = settled_after(2);
    let target = target(&path);
    assert!(target * 3 / 2 > 4 * MS, "{target:?}");
    // The flow keeps a target queued, and its queue moves by a packet as flows interleave: a
    // loss at a quarter of a target above it (half a packet time) is random, one at three
    // quarters (a packet and a half) is congestion, short of two targets.
    queue_for(&mut path, target * 5 / 4, 1);
    expect_verdict(&path.lose(1), Verdict::Random);
    queue_for(&mut path, target * 7 / 4, 1);
    expect_verdict(&path.lose(1), Verdict::Congestion);
}

/// `packets` lost in one window as a rate limit drops them: a few at a time, revealed by
/// `packets / 2` ACKs with delivered packets between, not in one run. Returns the last decision.
fn lose_interleaved(path: &mut Path<ShortQueueAlgorithm>, packets: u64) -> Decision {
    let mut last = path.lose(2);
    for _ in 1..packets / 2 {
        last = path.lose(2);
    }
    last
}

/// A rate limit (a policer's drops: a fifth of the window lost with no queue) is remembered,
/// and lone losses meanwhile are its; but only losses that show a limit again renew it, so on a
/// lossy path a limit read once (a slow start's overshoot into a shallow buffer) lapses, and a
/// lone random loss keeps the window again.
#[test]
fn lone_losses_do_not_keep_a_rate_limit_alive() {
    let mut path = settled();
    let window = path.cwnd_packets() as u64;
    let burst = lose_interleaved(&mut path, window / 4);
    assert_eq!(burst.evidence.reason, "loss rate beyond a channel's");
    path.rounds(2);
    let remembered = path.lose(1);
    expect_verdict(&remembered, Verdict::Congestion);
    let mut verdicts = Vec::new();
    for _ in 0..40 {
        path.rounds(2);
        verdicts.push(path.lose(1).verdict);
    }
    // A cut or two, and the window is below the one the limit's cut leaves: lone losses keep it.
    let cuts = verdicts
        .iter()
        .filter(|v| **v == Verdict::Congestion)
        .count();
    assert!(
        cuts <= 2,
        "lone losses kept cutting the window: {verdicts:?}"
    );
    assert_eq!(verdicts.last(), Some(&Verdict::Random), "{verdicts:?}");
    // And the limit lapses once the window would have grown back to it.
    let lapsed = (0..200).any(|_| {
        path.rounds(2);
        path.algorithm.classifier().rate_limit().is_none()
    });
    assert!(lapsed, "the limit outlived 400 round trips");
    lose_one_keeping_the_window(&mut path, Verdict::Random);
}

/// Behind a rate limit the flow answers as an AIMD flow that takes Reno's share (RFC 9438
/// section 4.3): a cut to 0.7, then half a segment a round or so, however empty the queue (a
/// policer keeps none), where FAST's refill would take back a quarter of the window a round.
#[test]
fn behind_a_rate_limit_the_window_grows_as_reno_s_equal() {
    let mut path = settled();
    let window = path.cwnd_packets() as u64;
    let before = path.cwnd() as f64;
    let limit = lose_interleaved(&mut path, window / 4);
    assert_eq!(limit.evidence.reason, "loss rate beyond a channel's");
    let cut = path.cwnd() as f64;
    assert!(
        (cut - 0.7 * before).abs() <= MSS as f64,
        "{before} -> {cut}"
    );
    let rounds = 10;
    path.rounds(rounds);
    let grown = (path.cwnd() as f64 - cut) / MSS as f64;
    // 3 (1 - 0.7) / (1 + 0.7) = 0.53 segments a round: Reno's share at CUBIC's cut. The
    // synthetic path's round trips are half the algorithm's rounds, so that is 2.6 segments in
    // ten; Reno's one segment a round would be 5, and FAST's refill a quarter of the window a
    // round.
    assert!(
        (0.2 * rounds as f64..=0.4 * rounds as f64).contains(&grown),
        "{grown:.1} segments in {rounds} rounds"
    );
}

/// The same share lost from packets a slow start sent: a doubling window loses its excess at
/// whatever the bottleneck is, and where the jitter hides a buffer's queue that looks like a
/// policer. The limit still judges the losses that reach it, but the window refills below it as
/// after any cut, not as Reno's equal, and the limit lapses after the rounds of its base memory.
#[test]
fn a_rate_limit_found_by_a_slow_start_s_overshoot_judges_losses_but_does_not_slow_the_refill() {
    let mut path = Path::new(short_queue(DiscernConfig::default().algorithm(MSS)));
    path.rounds(5);
    assert_eq!(path.window().ssthresh(), u64::MAX, "still in slow start");
    let window = path.cwnd_packets() as u64;
    let overshoot = lose_interleaved(&mut path, window / 4);
    assert_eq!(overshoot.evidence.reason, "loss rate beyond a channel's");
    assert!(path.algorithm.classifier().rate_limit_is_overshoot());
    let cut = path.cwnd() as f64;
    let rounds = 10;
    path.rounds(rounds);
    let grown = (path.cwnd() as f64 - cut) / MSS as f64;
    // Reno's equal would add 2.6 segments in these rounds, at most 4 (the test above); below
    // this limit the window grows as FAST's update (and a refill, where the path has carried
    // more) has it.
    assert!(
        grown > 0.4 * rounds as f64,
        "{grown:.1} segments in {rounds} rounds"
    );
    let reached = path.lose(2);
    expect_verdict(&reached, Verdict::Congestion);
    assert!(reached.reduced);
    assert_eq!(reached.evidence.reason, "a rate limit this path has shown");
    path.rounds(2 * 16 + 2);
    assert_eq!(path.algorithm.classifier().rate_limit(), None);
}

/// A fifth of the window lost in one run of consecutive packets (a Gilbert-Elliott channel's
/// fade), which the ACKs after it reveal in three loss events, on a quiet path with no queue: a
/// buffer's overflow would have shown as a queue, and a rate limit would have passed packets
/// between its drops, so the run is the channel's. It keeps the window, and leaves no rate limit
/// that would make the next lone loss congestion. The same share revealed by a fourth ACK is not
/// one run: a limit's.
#[test]
fn a_run_of_losses_with_no_queue_on_a_quiet_path_is_a_fade_not_a_rate_limit() {
    let mut path = settled();
    let window = path.cwnd_packets() as u64;
    let before = path.cwnd();
    // The first ACK after the run reveals all of it but its last two packets, the next two one
    // each: three loss events.
    path.lose(window / 4 - 2);
    path.lose(1);
    let fade = path.lose(1);
    expect_verdict(&fade, Verdict::Random);
    assert_eq!(path.cwnd(), before);
    assert_eq!(path.algorithm.classifier().rate_limit(), None);
    path.rounds(2);
    lose_one_keeping_the_window(&mut path, Verdict::Random);
    path.rounds(2);
    path.lose(window / 4 - 3);
    path.lose(1);
    path.lose(1);
    let limit = path.lose(1);
    expect_verdict(&limit, Verdict::Congestion);
    assert_eq!(limit.evidence.reason, "loss rate beyond a channel's");
}

/// A buffer's overflow whose first losses met the queue, and whose later ones (packets sent
/// as the loss response drained it) met none: the window lost is a queue's, however much of it
/// was lost. Read as a rate limit, it would hold the flow to Reno's growth and make lone random
/// losses cuts for the limit's memory, on a path with no policer.
#[test]
fn an_overflow_whose_first_losses_met_the_queue_shows_no_rate_limit_when_it_drains() {
    let mut path = settled();
    let window = path.cwnd_packets() as u64;
    let full = RTT + 20 * MS;
    queue_for(&mut path, 20 * MS, 1);
    let overflowed_at = path.clock;
    let first = path.lose_with_rtt(2, full);
    assert_eq!(first.evidence.reason, "queue above the guard");
    // A round later the queue has drained; the episode's later losses were sent just after the
    // first ones, before the loss response, and the ACKs around them show no queue.
    queue_for(&mut path, Duration::ZERO, 1);
    let sent = path.at(overflowed_at + US);
    let mut last = first;
    for _ in 1..window / 4 {
        path.clock += MS;
        let event = CongestionEvent::loss(path.at(path.clock), sent, 2, MSS, path.rtt);
        last = path.algorithm.on_congestion(&event);
    }
    assert_ne!(last.evidence.reason, "loss rate beyond a channel's");
    assert_eq!(path.algorithm.classifier().rate_limit(), None);
}

/// On a path whose delay is noisy, the delay cannot show a shallow buffer's overflow (a
/// cellular trace's outage fills it and drops a run), so a fifth of the window lost in one run
/// with the queue short still shows a limit.
#[test]
fn on_a_noisy_path_a_run_of_losses_still_shows_a_rate_limit() {
    let mut path = noisy();
    assert!(path.algorithm.classifier().path().is_noisy());
    let window = path.cwnd_packets() as u64;
    let run = path.lose_with_rtt(window / 4, RTT);
    expect_verdict(&run, Verdict::Congestion);
    assert_eq!(run.evidence.reason, "loss rate beyond a channel's");
}

#[test]
fn delay_noise_within_a_target_leaves_the_guard_at_its_base() {
    let mut path = settled();
    let target = path.algorithm.classifier().path().target();
    // Frames that step by two fifths of a target, both ways (a shared queue's packets
    // interleaving), on top of a queue a step above three targets.
    let step = target * 2 / 5;
    let met = 3 * target + step;
    for _ in 0..6 {
        jittered_round_between(&mut path, None, (met, met + step));
    }
    let model = path.algorithm.classifier().path();
    let (jitter, guard) = (model.jitter(), model.guard());
    assert!(
        !model.is_noisy() && jitter > target / 2,
        "{jitter:?} {target:?}"
    );
    // The guard stays at its base (at most three targets), below the queue the loss met, which
    // a guard that added the whole spread would have stood above.
    assert!(guard <= 3 * target && guard < met, "{guard:?} {met:?}");
    assert!(met < 3 * target + jitter, "{met:?} {jitter:?}");
    let decision = path.lose(1);
    expect_verdict(&decision, Verdict::Congestion);
}

/// A path that has shown noise, where a buffer-filler came (a queue deeper than the window
/// floor keeps, which the flow contested) and went, and then an offset of `offset` on top of the
/// jitter stands whatever the flow does, on a link the flow's window fills: read, with a
/// buffer-filler met lately, as another flow's queue. Returns the path once the flow shares it,
/// with no loss since the contest, and the link's capacity (bytes a second).
fn shared_beside_a_jitter_offset(offset: Duration) -> (Path<ShortQueueAlgorithm>, f64) {
    let mut path = noisy();
    let capacity = path.cwnd() as f64 / RTT.as_secs_f64();
    let shared = |path: &Path<ShortQueueAlgorithm>| {
        matches!(path.algorithm.owner(), QueueOwner::Shared { .. })
    };
    let mut until = |what: &str, extra: Duration, rounds: usize, shares: bool| {
        let noise = (6 * MS + extra, 16 * MS + extra);
        let reached = (0..rounds).any(|_| {
            jittered_round_between(&mut path, Some(capacity), noise);
            shared(&path) == shares
        });
        assert!(reached, "{what}: not reached in {rounds} round trips");
    };
    until("a 150 ms queue read as shared", 150 * MS, 20, true);
    // The buffer-filler has gone: a drain probe finds the queue the flow's own.
    until("the queue the flow's own again", Duration::ZERO, 80, false);
    until("the offset read as shared", offset, 20, true);
    (path, capacity)
}

#[test]
fn a_shared_queue_that_no_loss_comes_from_on_a_noisy_path_gives_back_newreno_s_slow_start() {
    let (mut path, capacity) = shared_beside_a_jitter_offset(40 * MS);
    assert!(!path.window().in_slow_start());
    // No AQM keeps a queue standing without dropping, and a buffer-filler's grows: it is the
    // jitter's offset, and NewReno there would still be in slow start, which a loss ends. (The
    // synthetic path's round trips span two of the algorithm's rounds: 80 of them are 40 rounds.)
    let mut rounds = 0;
    while !path.window().in_slow_start() {
        assert!(
            rounds < 80,
            "80 round trips without a loss and no slow start"
        );
        jittered_round_between(&mut path, Some(capacity), (46 * MS, 56 * MS));
        rounds += 1;
    }
    // Limited slow start (RFC 3742) on a window this large: 256 packets a round, where
    // NewReno's avoidance adds one.
    let from = path.cwnd();
    for _ in 0..4 {
        jittered_round_between(&mut path, Some(capacity), (46 * MS, 56 * MS));
    }
    let grown = (path.cwnd() - from) / MSS;
    assert!(grown >= 256, "grew {grown} packets");
    let decision = path.lose(1);
    expect_verdict(&decision, Verdict::Congestion);
    assert!(!path.window().in_slow_start());
}

#[test]
fn a_shared_queue_an_aqm_drops_from_keeps_newreno_s_growth() {
    let (mut path, capacity) = shared_beside_a_jitter_offset(40 * MS);
    // A loss every eight of the algorithm's rounds, as an AQM drops from a queue it keeps. Eight
    // of them halve the synthetic window from thousands of packets to about a hundred; a few
    // more take it to a few dozen, where a round's jittered frames read the offset short and the
    // guard widens (so on the code before the drain probe's whole-link sign too, from about the
    // twelfth drop).
    for round in 0..128 {
        jittered_round_between(&mut path, Some(capacity), (46 * MS, 56 * MS));
        assert!(
            !path.window().in_slow_start(),
            "slow start in round trip {round}"
        );
        if round % 16 == 15 {
            expect_verdict(&path.lose(1), Verdict::Congestion);
        }
    }
    assert!(matches!(path.algorithm.owner(), QueueOwner::Shared { .. }));
}

/// A round of a quiet link whose pipe holds `pipe` packets: the window sent at the round's start
/// comes back in frames of two packets, and each packet beyond the pipe reads the queue of the
/// packets ahead of it (one packet time each), as a slow start's second half does when it sends
/// two packets for each one acknowledged. The round lasts the base RTT plus the last packet's
/// queue.
fn overshooting_round(path: &mut Path<ShortQueueAlgorithm>, pipe: u64) {
    let packets = (path.cwnd() / MSS).max(1);
    let packet_time = RTT / pipe as u32;
    let queue = |packet: u64| packet_time * packet.saturating_sub(pipe) as u32;
    let sent = path.at(path.clock);
    path.clock += RTT + queue(packets);
    acknowledge(path, sent, packets, 2, |packet| RTT + queue(packet));
}

#[test]
fn overshoot_drain_takes_out_a_slow_start_s_last_doubling_in_the_round_it_shows() {
    // A pipe of 400 packets: slow start reads its exit queue a few packets into the round that
    // first overshoots it, when the acknowledgements have already grown the window well past
    // the pipe, and the bytes beyond it queue for most of a round trip.
    let pipe = 400;
    let capacity = (pipe * MSS) as f64 / RTT.as_secs_f64();
    // The window at the exit, and a round trip later (two of the algorithm's rounds on this
    // synthetic path).
    let after_exit = |overshoot| {
        let mut config = DiscernConfig::default();
        config.overshoot(overshoot);
        let mut path = Path::new(short_queue(config.algorithm(MSS)));
        let mut rounds = 0;
        while path.window().in_slow_start() && rounds < 40 {
            overshooting_round(&mut path, pipe);
            rounds += 1;
        }
        let exit = path.cwnd_packets();
        for _ in 0..2 {
            jittered_round_between(&mut path, Some(capacity), (Duration::ZERO, Duration::ZERO));
        }
        (exit, path.cwnd_packets())
    };
    let (exit, drained) = after_exit(Overshoot::Drain);
    assert!(
        exit > 1.5 * pipe as f64,
        "slow start ended at {exit} packets, the pipe is {pipe}"
    );
    // The drain goes back to the window that built the queue, never below the pipe; FAST's
    // halfway step (the default) to about three quarters of the exit's window.
    assert!(
        drained <= 0.55 * exit && drained >= pipe as f64,
        "{drained} packets a round after a slow start that ended at {exit}, the pipe {pipe}"
    );
    let (_, fast) = after_exit(Overshoot::Fast);
    assert!(
        fast > 0.6 * exit,
        "{fast} packets by FAST's update, from {exit}"
    );
}
