use super::*;
use crate::scenario::{Aqm, AqmKind, CapacityTrace, CoDel, EcnMarking, Pie};
use crate::units::BitRate;

const MS: Nanos = 1_000_000;

fn base(rate: u64, delay_ms: u64, queue: usize) -> Link {
    Link::new("l", BitRate(rate), Duration::from_millis(delay_ms), queue)
}

fn dir(link: &Link) -> LinkDir {
    LinkDir::new(link, 0, 0, Direction::Forward)
}

fn arrives(o: Outcome) -> Nanos {
    match o {
        Outcome::Arrives { at, .. } => at,
        other => panic!("expected an arrival, got {other:?}"),
    }
}

#[test]
fn serialises_then_delays() {
    // 1472 + 28 = 1500 bytes = 12000 bits at 12 Mbit/s = 1 ms.
    let mut l = dir(&base(12_000_000, 10, 10));
    assert_eq!(arrives(l.offer(0, 1472, false)), 11 * MS);
    // Back to back: waits for the first.
    assert_eq!(arrives(l.offer(0, 1472, false)), 12 * MS);
    // After the link drained: no wait.
    assert_eq!(arrives(l.offer(50 * MS, 1472, false)), 61 * MS);
    let d = l.queue_delay().unwrap();
    assert!(
        (d.mean_s - 0.001 / 3.0).abs() < 1e-9 && d.p95_s == 0.001,
        "{d:?}"
    );
}

#[test]
fn drop_tail_counts_waiting_packets() {
    let mut l = dir(&base(12_000_000, 0, 2));
    // One in service, two waiting, the fourth is dropped.
    for _ in 0..3 {
        arrives(l.offer(0, 1472, false));
    }
    assert_eq!(l.offer(0, 1472, false), Outcome::QueueDrop(0));
    // After the first left, there is room for one more.
    arrives(l.offer(MS, 1472, false));
    assert_eq!(l.offer(MS, 1472, false), Outcome::QueueDrop(MS));
    assert_eq!(l.stats.queue_drops, 2);
}

#[test]
fn ecn_marks_capable_packets_above_the_threshold_and_still_drops_when_full() {
    let mut link = base(12_000_000, 0, 4);
    link.ecn = Some(EcnMarking { threshold: 2 });
    let mut l = dir(&link);
    let ce: Vec<Option<bool>> = (0..6)
        .map(|i| match l.offer(0, 1472, i != 3) {
            Outcome::Arrives { ce, .. } => Some(ce),
            _ => None,
        })
        .collect();
    // Waiting on arrival: 0, 0, 1, 2 (not ECT: unmarked), 3 (marked), then full.
    assert_eq!(
        ce,
        [
            Some(false),
            Some(false),
            Some(false),
            Some(false),
            Some(true),
            None
        ]
    );
    assert_eq!((l.stats.ce_marks, l.stats.queue_drops), (1, 1));
}

fn trace_link(millis: &[u64]) -> Link {
    let trace = CapacityTrace {
        file: "t".into(),
        millis: Arc::new(millis.to_vec()),
    };
    let mut link = base(trace.mean_bps() as u64, 5, 100);
    link.trace = Some(trace);
    link
}

#[test]
fn a_trace_delivers_at_its_opportunities_only() {
    // Opportunities at 2, 2, 4 ms; period 4 ms.
    let mut l = dir(&trace_link(&[2, 2, 4]));
    // Two 1500-byte packets share the 3000-byte opportunity at 2 ms, the third leaves at 4 ms,
    // the fourth at 6 ms (next period).
    let at: Vec<Nanos> = (0..4).map(|_| arrives(l.offer(0, 1472, false))).collect();
    assert_eq!(at, [7 * MS, 7 * MS, 9 * MS, 11 * MS]);
    // Opportunities that pass while the queue is empty are lost: at 9 ms the next is 10 ms.
    assert_eq!(arrives(l.offer(9 * MS, 1472, false)), 15 * MS);
    assert_eq!(l.trace_capacity_bytes(10 * MS), Some(12_000));
}

#[test]
fn small_packets_share_an_opportunity_and_large_ones_span_two() {
    let mut l = dir(&trace_link(&[1, 2, 3]));
    // 700 + 28 = 728 bytes: two fit in one 1500-byte opportunity, the third spills to the next.
    let at: Vec<Nanos> = (0..3).map(|_| arrives(l.offer(0, 700, false))).collect();
    assert_eq!(at, [6 * MS, 6 * MS, 7 * MS]);
}

#[test]
fn codel_drops_a_standing_queue_and_counts_it_as_a_queue_drop() {
    let drop_tail = base(12_000_000, 0, 10_000);
    let mut link = drop_tail.clone();
    link.aqm = Some(Aqm {
        kind: AqmKind::CoDel(CoDel {
            target: Duration::from_millis(5),
            interval: Duration::from_millis(100),
        }),
        ecn: false,
    });
    // A packet every 0.9 ms into a link that sends one per millisecond: under drop-tail the
    // queue grows for the whole run; CoDel drops more and more often until it stops growing.
    let run = |link: &Link| {
        let mut l = dir(link);
        for i in 0..4000u64 {
            l.offer(i * 9 * MS / 10, 1472, false);
        }
        (l.queue_delay().unwrap(), l.stats)
    };
    let (tail, tail_stats) = run(&drop_tail);
    let (codel, stats) = run(&link);
    assert_eq!(tail_stats.queue_drops, 0);
    assert!(stats.codel_drops > 0 && stats.codel_drops == stats.queue_drops);
    assert!(codel.p95_s < tail.p95_s / 2.0, "{codel:?} vs {tail:?}");
}

#[test]
fn jitter_keeps_order_and_is_reproducible() {
    let mut link = base(120_000_000, 10, 1000);
    link.jitter = Some(Jitter::Exponential {
        mean: Duration::from_millis(3),
    });
    let run = |seed| {
        let mut l = LinkDir::new(&link, seed, 0, Direction::Forward);
        (0..500)
            .map(|i| arrives(l.offer(i * MS / 10, 1472, false)))
            .collect::<Vec<_>>()
    };
    let a = run(1);
    assert!(a.windows(2).all(|w| w[0] <= w[1]));
    assert!(a
        .iter()
        .enumerate()
        .any(|(i, &t)| t > i as u64 * MS / 10 + 12 * MS));
    assert_eq!(a, run(1));
    assert_ne!(a, run(2));
}

/// Order-keeping jitter delays a packet by the largest of the draws of the packets up to it, each
/// less the time since it left: for exponential draws of mean `m` every `g` apart (`g` far below
/// `m`), that maximum is Gumbel-distributed with mean `m * (ln(m / g) + 0.577)`. So the delay the
/// jitter adds grows with the packet rate, and a flow reads more of it as a queue the faster it
/// sends, though no queue stands.
#[test]
fn order_keeping_jitter_adds_more_delay_the_faster_packets_come() {
    let mean = Duration::from_millis(3);
    let mut link = base(10_000_000_000, 10, 100_000);
    link.jitter = Some(Jitter::Exponential { mean });
    let mean_extra_ms = |gap: Nanos, packets: u64| {
        let mut l = dir(&link);
        let extra: Nanos = (0..packets)
            .map(|i| arrives(l.offer(i * gap, 1472, false)) - i * gap - 10 * MS)
            .sum();
        extra as f64 / packets as f64 / MS as f64
    };
    let sparse = mean_extra_ms(20 * MS, 2_000);
    let dense = mean_extra_ms(MS / 20, 20_000);
    let m = mean.as_secs_f64() * 1e3;
    let gumbel = m * ((m / 0.05).ln() + 0.577);
    assert!((0.8 * m..1.25 * m).contains(&sparse), "{sparse} ms");
    assert!(
        (0.8 * gumbel..1.2 * gumbel).contains(&dense),
        "{dense} ms, expected about {gumbel}"
    );
}

#[test]
fn reordering_holds_packets_back_reproducibly() {
    let mut link = base(120_000_000, 10, 1000);
    link.reorder = Some(Reorder {
        probability: 0.1,
        displacement: Duration::from_millis(2),
    });
    let run = |seed| {
        let mut l = LinkDir::new(&link, seed, 0, Direction::Forward);
        let at: Vec<Nanos> = (0..1000)
            .map(|i| arrives(l.offer(i * MS / 10, 1472, false)))
            .collect();
        (at, l.stats.reordered)
    };
    let (a, held) = run(3);
    let overtaken = a.windows(2).filter(|w| w[0] > w[1]).count() as u64;
    assert!((50..=150).contains(&held), "{held}");
    assert!(overtaken > 0 && overtaken <= held);
    assert_eq!(run(3), (a, held));
}

#[test]
fn pie_reads_an_idle_spell_as_an_empty_queue_and_drops_nothing_after_it() {
    let mut link = base(12_000_000, 0, 10_000);
    link.aqm = Some(Aqm {
        kind: AqmKind::Pie(Pie {
            target: Duration::from_millis(15),
            tupdate: Duration::from_millis(15),
        }),
        ecn: false,
    });
    let mut l = dir(&link);
    // One packet, a second with nothing queued (about 66 of PIE's updates, replayed at the next
    // arrival), then a burst of 40 packets: 40 ms of queue at the end, and PIE's probability
    // starts from zero, since the queue was empty through the whole idle second.
    l.offer(0, 1472, false);
    for i in 0..40u64 {
        l.offer(1_000 * MS + i * 1_000, 1472, false);
    }
    assert_eq!(l.stats.pie_drops, 0, "{:?}", l.stats);
    // Packets twice as fast as the link sends them, for a second: the queue PIE watches grows to
    // about a second, and it drops, so the assertion above can fail.
    let mut busy = dir(&link);
    for i in 0..2_000u64 {
        busy.offer(i * MS / 2, 1472, false);
    }
    assert!(busy.stats.pie_drops > 0, "{:?}", busy.stats);
}
