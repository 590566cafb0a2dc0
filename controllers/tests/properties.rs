//! Arbitrary callback sequences never panic or overflow, and the window never falls below the
//! algorithm's floor.

#[path = "loopback/mod.rs"]
mod loopback;

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use quinn_discern::event::{Ack, CongestionEvent, RttSample, Verdict};
use quinn_discern::{
    registry, Algorithm, CompositeConfig, DiscernConfig, DiscernGrowth, ModifiedSackConfig,
    ModifiedTahoeConfig, QueueAim, RenoConfig, SackFewConfig, SackNewRenoConfig, TahoeConfig,
    VenoConfig, WNewRenoConfig, WestwoodConfig,
};
use quinn_proto::RttEstimator;

#[derive(Debug, Clone)]
enum Op {
    Ack {
        advance_us: u64,
        /// Send time relative to now; positive values put it in the future (out of order).
        sent_offset_us: i64,
        bytes: u64,
        app_limited: bool,
        rtt_us: (u64, u64, u64),
    },
    Loss {
        advance_us: u64,
        sent_offset_us: i64,
        lost_bytes: u64,
        persistent: bool,
        rtt_us: (u64, u64, u64),
    },
    Mtu(u16),
}

fn op() -> impl Strategy<Value = Op> {
    let time = 0u64..2_000_000;
    let offset = -2_000_000i64..200_000;
    let rtt = (0u64..5_000_000, 0u64..5_000_000, 0u64..5_000_000);
    prop_oneof![
        6 => (time.clone(), offset.clone(), prop_oneof![0u64..3000, Just(u64::MAX), any::<u64>()], any::<bool>(), rtt.clone())
            .prop_map(|(advance_us, sent_offset_us, bytes, app_limited, rtt_us)| Op::Ack { advance_us, sent_offset_us, bytes, app_limited, rtt_us }),
        2 => (time, offset, prop_oneof![0u64..100_000, Just(u64::MAX), any::<u64>()], any::<bool>(), rtt)
            .prop_map(|(advance_us, sent_offset_us, lost_bytes, persistent, rtt_us)| Op::Loss { advance_us, sent_offset_us, lost_bytes, persistent, rtt_us }),
        1 => any::<u16>().prop_map(Op::Mtu),
    ]
}

fn rtt((latest, smoothed, min): (u64, u64, u64)) -> RttSample {
    RttSample::new(
        Duration::from_micros(latest),
        Duration::from_micros(smoothed),
        Duration::from_micros(min),
        Duration::ZERO,
    )
}

fn shift(at: Instant, offset_us: i64) -> Instant {
    if offset_us >= 0 {
        at + Duration::from_micros(offset_us as u64)
    } else {
        at.checked_sub(Duration::from_micros(offset_us.unsigned_abs()))
            .unwrap_or(at)
    }
}

fn run<A: Algorithm>(algorithm: A, ops: &[Op]) -> Result<(), TestCaseError> {
    check(algorithm, ops, true)
}

/// Runs `ops`; `random_keeps_window`: a random verdict never reduces (every algorithm but
/// Veno's, which takes a fifth off).
fn check<A: Algorithm>(
    mut algorithm: A,
    ops: &[Op],
    random_keeps_window: bool,
) -> Result<(), TestCaseError> {
    let epoch = Instant::now() + Duration::from_secs(10);
    let mut now = epoch;
    // A reduction sets ssthresh to at least 2 MSS of the MSS at that moment.
    let mut smallest_mss = algorithm.window().mss();
    for op in ops {
        match *op {
            Op::Ack {
                advance_us,
                sent_offset_us,
                bytes,
                app_limited,
                rtt_us,
            } => {
                now += Duration::from_micros(advance_us);
                algorithm.on_ack(&Ack::new(
                    now,
                    shift(now, sent_offset_us),
                    bytes,
                    app_limited,
                    rtt(rtt_us),
                ));
            }
            Op::Loss {
                advance_us,
                sent_offset_us,
                lost_bytes,
                persistent,
                rtt_us,
            } => {
                now += Duration::from_micros(advance_us);
                let mss = algorithm.window().mss();
                let event = CongestionEvent::new(
                    now,
                    shift(now, sent_offset_us),
                    persistent,
                    lost_bytes,
                    mss,
                    rtt(rtt_us),
                );
                let decision = algorithm.on_congestion(&event);
                if decision.verdict == Verdict::Random && random_keeps_window {
                    prop_assert!(!decision.reduced);
                }
                if persistent {
                    prop_assert_eq!(decision.verdict, Verdict::Congestion);
                    prop_assert_eq!(algorithm.window().cwnd(), algorithm.window().min_window());
                }
            }
            Op::Mtu(mtu) => algorithm.on_mss_update(u64::from(mtu)),
        }
        let window = algorithm.window();
        smallest_mss = smallest_mss.min(window.mss());
        prop_assert!(window.cwnd() >= window.min_window(), "{:?}", window);
        prop_assert!(window.ssthresh() >= 2 * smallest_mss, "{:?}", window);
    }
    Ok(())
}

/// quinn's estimator as a real connection left it; only quinn-proto can build one.
fn rtt_estimator() -> &'static RttEstimator {
    static ESTIMATOR: OnceLock<RttEstimator> = OnceLock::new();
    ESTIMATOR.get_or_init(loopback::real_rtt_estimator)
}

proptest! {
    // proptest's default persistence replays properties.proptest-regressions, beside this file,
    // before the new cases, and adds a new failure's seed to it.
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn pure_algorithms_survive_any_sequence(ops in prop::collection::vec(op(), 0..200)) {
        let mss = 1200;
        run(TahoeConfig::default().algorithm(mss), &ops)?;
        run(ModifiedTahoeConfig::default().algorithm(mss), &ops)?;
        run(RenoConfig::default().algorithm(mss), &ops)?;
        run(SackNewRenoConfig::default().algorithm(mss), &ops)?;
        run(SackFewConfig::default().algorithm(mss), &ops)?;
        let mut few = SackFewConfig::default();
        few.alpha(1.0).unwrap();
        run(few.algorithm(mss), &ops)?;
        run(ModifiedSackConfig::default().algorithm(mss), &ops)?;
        run(WNewRenoConfig::default().algorithm(mss), &ops)?;
        run(CompositeConfig::default().algorithm(mss), &ops)?;
        check(VenoConfig::default().algorithm(mss), &ops, false)?;
        run(WestwoodConfig::default().algorithm(mss), &ops)?;
        run(DiscernConfig::default().algorithm(mss), &ops)?;
        // The growth rule shapes the full-queue design only: fuzz that design with each rule.
        let mut full = DiscernConfig::default();
        full.queue(QueueAim::Full);
        run(full.algorithm(mss), &ops)?;
        run(full.growth(DiscernGrowth::Cubic).algorithm(mss), &ops)?;
    }

    /// The quinn-facing side (losses, MTU changes, sends) of every controller of this crate and of
    /// filters in front of quinn's controllers, including the path before any RTT sample exists.
    /// (quinn's own BBR is left out: quinn-proto 0.11.19 overflows on a `lost_bytes` near
    /// `u64::MAX`, which real connections never report.)
    #[test]
    fn quinn_callbacks_never_panic(ops in prop::collection::vec(op(), 0..100)) {
        let ids = registry::catalog().iter().filter(|c| !c.id.starts_with("quinn-")).map(|c| c.id.to_owned())
            .chain(["composite+quinn-cubic".to_owned(), "modified-sack+quinn-newreno".to_owned()]);
        for id in ids {
            let factory = registry::parse(&id).unwrap().factory();
            let mut controller = Arc::clone(&factory).build(Instant::now(), 1200);
            let mut now = Instant::now() + Duration::from_secs(10);
            for op in &ops {
                match *op {
                    Op::Ack { advance_us, sent_offset_us, bytes, app_limited, .. } => {
                        now += Duration::from_micros(advance_us);
                        controller.on_sent(now, bytes.min(1 << 20), advance_us);
                        // At most a 64 KiB datagram: quinn's CUBIC overflows on an ACK of
                        // `u64::MAX` bytes, which no connection reports.
                        let acked = bytes.min(1 << 16);
                        controller.on_ack(now, shift(now, sent_offset_us), acked, app_limited, rtt_estimator());
                        controller.on_end_acks(now, bytes, false, Some(advance_us));
                    }
                    Op::Loss { advance_us, sent_offset_us, lost_bytes, persistent, .. } => {
                        now += Duration::from_micros(advance_us);
                        controller.on_congestion_event(now, shift(now, sent_offset_us), persistent, lost_bytes);
                    }
                    Op::Mtu(mtu) => controller.on_mtu_update(mtu.max(1200)),
                }
                prop_assert!(controller.window() >= 1200, "{id}: {}", controller.window());
                prop_assert_eq!(controller.metrics().congestion_window, controller.window(), "{}: quinn's stats and qlog must agree", id);
            }
        }
    }
}
