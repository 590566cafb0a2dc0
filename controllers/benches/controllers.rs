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

fn per_ack(c: &mut Criterion, rtt: &RttEstimator) {
    let mut group = c.benchmark_group("per-ack");
    for id in ids() {
        let mut controller = build(&id);
        let mut now = Instant::now();
        let mut packet = 0u64;
        group.bench_function(&id, |b| {
            b.iter(|| {
                now += Duration::from_micros(10);
                packet += 1;
                controller.on_ack(
                    now,
                    now - Duration::from_millis(50),
                    1200,
                    false,
                    black_box(rtt),
                );
                // A QUIC receiver acknowledges every second packet: one frame end per two ACKs.
                if packet % 2 == 0 {
                    controller.on_end_acks(now, 60_000, false, Some(packet));
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
    per_ack(c, &rtt);
    per_loss(c, &rtt);
}

criterion_group!(name = controllers; config = Criterion::default().warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1)); targets = benches);
criterion_main!(controllers);
