//! Per-ACK and per-loss cost of every controller beside quinn's own NewReno and CUBIC, in one
//! process so the figures compare (`scripts/bench-table.py` turns them into ratios).
//!
//! quinn's `on_ack` takes a `&RttEstimator`, which only quinn-proto can build. It is `Copy`, so
//! a probe controller captures a real one from a short loopback connection first.

#[path = "../tests/loopback/mod.rs"]
mod loopback;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use quinn_proto::congestion::Controller;
use quinn_proto::RttEstimator;

fn ids() -> Vec<String> {
    quinn_discern::registry::catalog()
        .iter()
        .filter(|c| c.id != "quinn-bbr")
        .map(|c| c.id.to_owned())
        .chain(["composite+quinn-cubic".to_owned()])
        .collect()
}

fn build(id: &str) -> Box<dyn Controller> {
    quinn_discern::registry::parse(id)
        .unwrap()
        .factory()
        .build(Instant::now(), 1200)
}

/// A QUIC receiver acknowledges every second packet: one frame end per two ACKs.
const PACKETS_PER_FRAME: u64 = 2;
const PACKET: u64 = 1200;
/// The bench's bottleneck holds this many packets in flight and as many again in its buffer.
const BDP_PACKETS: u64 = 100;

/// How the bench's path answers the window: the RTT sample of the next ACK, and how far apart
/// ACKs arrive.
#[derive(Clone, Copy)]
enum BenchPath {
    /// A bottleneck whose propagation RTT is the estimator's minimum (the loopback's, which every
    /// controller reads as the path's) and whose rate carries `BDP_PACKETS` in that time, with a
    /// buffer of one bandwidth-delay product: the window beyond the product queues there, so each
    /// controller runs in the state it keeps alone. The buffer never drops (the bench reports no
    /// loss), so a window past it reads a full buffer.
    Fluid { base: Duration, spacing: Duration },
    /// Every sample 50 ms, against the estimator's loopback minimum: a queue that no window
    /// change drains, which a delay-reading controller takes for a buffer-filler's.
    StandingQueue,
}

impl BenchPath {
    fn fluid(base: Duration) -> Self {
        Self::Fluid {
            base,
            spacing: base / BDP_PACKETS as u32,
        }
    }

    fn group(self) -> &'static str {
        match self {
            Self::Fluid { .. } => "per-ack",
            Self::StandingQueue => "per-ack-standing-queue",
        }
    }

    fn ack_spacing(self) -> Duration {
        match self {
            Self::Fluid { spacing, .. } => spacing,
            Self::StandingQueue => Duration::from_micros(10),
        }
    }

    fn rtt(self, window: u64) -> Duration {
        match self {
            Self::Fluid { base, spacing } => {
                let queued = (window / PACKET)
                    .saturating_sub(BDP_PACKETS)
                    .min(BDP_PACKETS);
                base + spacing * queued as u32
            }
            Self::StandingQueue => Duration::from_millis(50),
        }
    }
}

fn per_ack(c: &mut Criterion, rtt: &RttEstimator, path: BenchPath) {
    let mut group = c.benchmark_group(path.group());
    let spacing = path.ack_spacing();
    for id in ids() {
        let mut controller = build(&id);
        let mut now = Instant::now();
        let mut packet = 0u64;
        group.bench_function(&id, |b| {
            b.iter(|| {
                now += spacing;
                packet += 1;
                let window = controller.window();
                controller.on_ack(now, now - path.rtt(window), PACKET, false, black_box(rtt));
                if packet % PACKETS_PER_FRAME == 0 {
                    controller.on_end_acks(now, window, false, Some(packet));
                }
            })
        });
    }
    group.finish();
}

fn per_loss(c: &mut Criterion, rtt: &RttEstimator) {
    let mut group = c.benchmark_group("per-loss");
    for id in ids() {
        // A window grown past slow start, then one loss at a time on a fresh copy.
        let mut warm = build(&id);
        let start = Instant::now();
        for i in 0..2000u64 {
            let now = start + Duration::from_micros(100 * i);
            warm.on_ack(now, now - Duration::from_millis(50), 1200, false, rtt);
        }
        let now = start + Duration::from_secs(1);
        group.bench_function(&id, |b| {
            b.iter_batched(
                || warm.clone_box(),
                |mut controller| {
                    controller.on_congestion_event(
                        now,
                        now - Duration::from_millis(20),
                        false,
                        black_box(1200),
                    );
                    controller
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    let rtt = loopback::real_rtt_estimator();
    per_ack(c, &rtt, BenchPath::fluid(rtt.min()));
    per_ack(c, &rtt, BenchPath::StandingQueue);
    per_loss(c, &rtt);
}

criterion_group!(name = controllers; config = Criterion::default().warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1)); targets = benches);
criterion_main!(controllers);
