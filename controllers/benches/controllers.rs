//! Per-ACK and per-loss cost of every controller beside quinn's own NewReno and CUBIC, in one
//! process so the figures compare (`scripts/bench-table.py` turns them into ratios).
//!
//! quinn's `on_ack` takes a `&RttEstimator`, which only quinn-proto can build. It is `Copy`, so
//! a probe controller captures a real one from a short loopback connection first.

#[path = "../tests/loopback/mod.rs"]
mod loopback;

use std::any::Any;
use std::hint::black_box;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use quinn::TransportConfig;
use quinn_proto::congestion::{Controller, ControllerFactory, NewRenoConfig};
use quinn_proto::RttEstimator;

type Captured = Arc<Mutex<Option<RttEstimator>>>;

/// quinn's NewReno that keeps a copy of the RTT estimator it is handed.
struct Probe {
    inner: Box<dyn Controller>,
    captured: Captured,
}

impl Controller for Probe {
    fn on_ack(
        &mut self,
        now: Instant,
        sent: Instant,
        bytes: u64,
        app_limited: bool,
        rtt: &RttEstimator,
    ) {
        *self.captured.lock().unwrap() = Some(*rtt);
        self.inner.on_ack(now, sent, bytes, app_limited, rtt);
    }
    fn on_congestion_event(
        &mut self,
        now: Instant,
        sent: Instant,
        persistent: bool,
        lost_bytes: u64,
    ) {
        self.inner
            .on_congestion_event(now, sent, persistent, lost_bytes);
    }
    fn on_mtu_update(&mut self, new_mtu: u16) {
        self.inner.on_mtu_update(new_mtu);
    }
    fn window(&self) -> u64 {
        self.inner.window()
    }
    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(Probe {
            inner: self.inner.clone_box(),
            captured: self.captured.clone(),
        })
    }
    fn initial_window(&self) -> u64 {
        self.inner.initial_window()
    }
    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

struct ProbeFactory(Captured);

impl ControllerFactory for ProbeFactory {
    fn build(self: Arc<Self>, now: Instant, mtu: u16) -> Box<dyn Controller> {
        Box::new(Probe {
            inner: Arc::new(NewRenoConfig::default()).build(now, mtu),
            captured: self.0.clone(),
        })
    }
}

/// A real `RttEstimator` from a loopback connection that moved 1 MB.
fn real_rtt_estimator() -> RttEstimator {
    let captured = Captured::default();
    let mut transport = TransportConfig::default();
    transport.congestion_controller_factory(Arc::new(ProbeFactory(captured.clone())));
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(loopback::upload(transport, Arc::new(vec![7u8; 1 << 20])));
    let estimator = captured.lock().unwrap().take();
    estimator.expect("the probe saw an ACK")
}

fn ids() -> Vec<String> {
    discern::registry::catalog()
        .iter()
        .filter(|c| c.id != "quinn-bbr")
        .map(|c| c.id.to_owned())
        .chain(["composite+quinn-cubic".to_owned()])
        .collect()
}

fn build(id: &str) -> Box<dyn Controller> {
    discern::registry::parse(id)
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
    let rtt = real_rtt_estimator();
    per_ack(c, &rtt);
    per_loss(c, &rtt);
}

criterion_group!(name = controllers; config = Criterion::default().warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1)); targets = benches);
criterion_main!(controllers);
