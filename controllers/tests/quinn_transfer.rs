//! Every controller id, and a filter, through a real quinn transfer on loopback: the bytes
//! arrive intact and the controller's own `tracing` events are seen.

mod loopback;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use quinn::TransportConfig;
use quinn_discern::registry;
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::Layer;

const TRANSFER: usize = 4 << 20;

/// Counts `discern::cwnd` events by their `controller` field.
#[derive(Clone, Default)]
struct EventCounts(Arc<Mutex<BTreeMap<String, usize>>>);

struct ControllerField(Option<String>);

impl Visit for ControllerField {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "controller" {
            self.0 = Some(value.to_owned());
        }
    }
    fn record_debug(&mut self, _: &Field, _: &dyn std::fmt::Debug) {}
}

impl<S: tracing::Subscriber> Layer<S> for EventCounts {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() == quinn_discern::trace::TARGET {
            let mut controller = ControllerField(None);
            event.record(&mut controller);
            if let Some(id) = controller.0 {
                *self.0.lock().unwrap().entry(id).or_default() += 1;
            }
        }
    }
}

fn payload(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i.wrapping_mul(31) ^ (i >> 8)) as u8)
        .collect()
}

#[test]
fn every_controller_transfers_intact_bytes_over_real_quinn() {
    let events = EventCounts::default();
    let subscriber = tracing_subscriber::registry().with(events.clone());
    let ids: Vec<String> = registry::catalog()
        .iter()
        .map(|c| c.id.to_owned())
        .chain(["composite+quinn-cubic".to_owned()])
        .collect();
    let data = Arc::new(payload(TRANSFER));

    tracing::subscriber::with_default(subscriber, || {
        // One thread: quinn's driver tasks run under this thread's subscriber.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        for id in &ids {
            eprintln!("transfer with {id}");
            let received = runtime.block_on(async {
                let mut transport = TransportConfig::default();
                registry::parse(id).unwrap().apply(&mut transport);
                tokio::time::timeout(
                    Duration::from_secs(60),
                    loopback::upload(transport, data.clone()),
                )
                .await
                .unwrap_or_else(|_| panic!("{id}: transfer timed out"))
            });
            assert_eq!(received.len(), data.len(), "{id}");
            assert!(
                received == *data,
                "{id}: received bytes differ from sent bytes"
            );
        }
    });

    let events = events.0.lock().unwrap();
    for id in ids.iter().filter(|id| !id.starts_with("quinn-")) {
        let seen = events.get(id.as_str()).copied().unwrap_or(0);
        assert!(seen > 0, "no tracing events from {id}: {events:?}");
    }
    assert!(!events.keys().any(|id| id.starts_with("quinn-")));
}
