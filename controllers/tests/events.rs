//! The `tracing` contract of DESIGN 2.4: readable fields on every window change and loss decision.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use discern::registry;
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::Layer;

type Fields = BTreeMap<String, String>;

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<Fields>>>);

struct FieldVisitor<'a>(&'a mut Fields);

impl Visit for FieldVisitor<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S: tracing::Subscriber> Layer<S> for Capture {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        if event.metadata().target() == discern::trace::TARGET {
            let mut fields = Fields::new();
            event.record(&mut FieldVisitor(&mut fields));
            self.0.lock().unwrap().push(fields);
        }
    }
}

fn capture(f: impl FnOnce()) -> Vec<Fields> {
    let capture = Capture::default();
    let subscriber = tracing_subscriber::registry().with(capture.clone());
    tracing::subscriber::with_default(subscriber, f);
    let events = capture.0.lock().unwrap().clone();
    events
}

#[test]
fn loss_decisions_carry_verdict_and_evidence() {
    let events = capture(|| {
        let mut controller = registry::parse("composite")
            .unwrap()
            .factory()
            .build(Instant::now(), 1200);
        let now = Instant::now() + Duration::from_millis(500);
        controller.on_congestion_event(now, now - Duration::from_millis(40), false, 1200);
        controller.on_congestion_event(now, now - Duration::from_millis(30), false, 1200);
    });
    let losses: Vec<&Fields> = events.iter().filter(|e| e["event"] == "loss").collect();
    assert_eq!(losses.len(), 2);
    assert_eq!(losses[0]["verdict"], "random");
    assert_eq!(losses[0]["reduced"], "false");
    assert_eq!(losses[0]["losses_in_window"], "1");
    assert_eq!(losses[0]["sent_age_us"], "40000");
    assert_eq!(losses[0]["controller"], "composite");
    assert_eq!(losses[1]["verdict"], "congestion");
    assert_eq!(losses[1]["reduced"], "true");
    assert_eq!(losses[1]["state"], "recovery");
    assert_eq!(losses[1]["cwnd"], "6000");
    assert_eq!(losses[1]["ssthresh"], "6000");
    for key in [
        "flow",
        "rtt_us",
        "srtt_us",
        "min_rtt_us",
        "threshold_us",
        "reason",
        "lost_packets",
        "lost_bytes",
    ] {
        assert!(losses[1].contains_key(key), "missing {key}");
    }
    // The reduction is also a window event.
    let windows: Vec<&Fields> = events.iter().filter(|e| e["event"] == "window").collect();
    assert_eq!(windows.len(), 1);
    assert_eq!(windows[0]["cwnd"], "6000");
    assert_eq!(windows[0]["flow"], losses[0]["flow"]);
}

#[test]
fn each_controller_instance_has_its_own_flow_id() {
    let events = capture(|| {
        for _ in 0..2 {
            let mut controller = registry::parse("wnewreno+quinn-cubic")
                .unwrap()
                .factory()
                .build(Instant::now(), 1200);
            let now = Instant::now() + Duration::from_secs(1);
            controller.on_congestion_event(now, now, true, 1200);
        }
    });
    let flows: Vec<&String> = events
        .iter()
        .filter(|e| e["event"] == "loss")
        .map(|e| &e["flow"])
        .collect();
    assert_eq!(flows.len(), 2);
    assert_ne!(flows[0], flows[1]);
    assert!(events
        .iter()
        .all(|e| e["controller"] == "wnewreno+quinn-cubic"));
}
