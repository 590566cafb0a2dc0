//! The `tracing` contract: every window change and loss decision is an event a program can
//! decode ([`Record::decode`]), dated by the callback's own time.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use quinn_discern::event::{State, Verdict};
use quinn_discern::registry;
use quinn_discern::trace::{LossRecord, Record, WindowRecord, TARGET};
use tracing::Level;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::Layer;

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<(Level, Record)>>>);

impl<S: tracing::Subscriber> Layer<S> for Capture {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        if let Some(record) = Record::decode(event) {
            let level = *event.metadata().level();
            self.0.lock().unwrap().push((level, record));
        }
    }
}

fn capture(f: impl FnOnce()) -> Vec<(Level, Record)> {
    let capture = Capture::default();
    let subscriber = tracing_subscriber::registry().with(capture.clone());
    tracing::subscriber::with_default(subscriber, f);
    let events = capture.0.lock().unwrap().clone();
    events
}

fn losses(events: &[(Level, Record)]) -> Vec<&LossRecord> {
    events
        .iter()
        .filter_map(|(_, r)| match r {
            Record::Loss(loss) => Some(loss),
            _ => None,
        })
        .collect()
}

fn windows(events: &[(Level, Record)]) -> Vec<&WindowRecord> {
    events
        .iter()
        .filter_map(|(_, r)| match r {
            Record::Window(window) => Some(window),
            _ => None,
        })
        .collect()
}

#[test]
fn loss_decisions_carry_verdict_evidence_and_the_callback_time() {
    let built = Instant::now();
    let events = capture(|| {
        let mut controller = registry::parse("composite")
            .unwrap()
            .factory()
            .build(built, 1200);
        let now = built + Duration::from_millis(500);
        controller.on_congestion_event(now, now - Duration::from_millis(40), false, 1200);
        controller.on_congestion_event(now, now - Duration::from_millis(30), false, 1200);
    });
    let losses = losses(&events);
    assert_eq!(losses.len(), 2);
    let (first, second) = (losses[0], losses[1]);
    assert_eq!(first.verdict, Verdict::Random);
    assert!(!first.reduced);
    assert_eq!(first.losses_in_window, 1);
    assert_eq!(first.sent_age_us, 40_000);
    assert_eq!(first.window.origin.controller, "composite");
    assert_eq!(
        first.window.origin.t_us, 500_000,
        "time since the controller was built"
    );
    assert_eq!(second.verdict, Verdict::Congestion);
    assert!(second.reduced);
    assert_eq!(second.window.state, State::Recovery);
    assert_eq!(second.window.cwnd, 6000);
    assert_eq!(second.window.ssthresh, Some(6000));
    assert_eq!(second.lost_packets, 1);
    assert!(!second.reason.is_empty());
    // The reduction is also a window event of the same flow.
    let windows = windows(&events);
    assert_eq!(windows.len(), 1);
    assert_eq!(windows[0].cwnd, 6000);
    assert_eq!(windows[0].origin.flow, first.window.origin.flow);
}

#[test]
fn window_events_are_trace_and_loss_decisions_debug() {
    let built = Instant::now();
    let events = capture(|| {
        let mut controller = registry::parse("newreno")
            .unwrap()
            .factory()
            .build(built, 1200);
        let now = built + Duration::from_millis(100);
        controller.on_sent(now, 1200, 1);
        controller.on_congestion_event(now, now - Duration::from_millis(10), false, 1200);
    });
    assert!(!events.is_empty());
    for (level, record) in &events {
        let expected = match record {
            Record::Window(_) => Level::TRACE,
            Record::Loss(_) => Level::DEBUG,
            other => panic!("unexpected {other:?}"),
        };
        assert_eq!(*level, expected, "{record:?}");
    }
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
    let losses = losses(&events);
    assert_eq!(losses.len(), 2);
    assert_ne!(losses[0].window.origin.flow, losses[1].window.origin.flow);
    assert!(losses
        .iter()
        .all(|l| l.window.origin.controller == "wnewreno+quinn-cubic"));
}

#[test]
fn events_of_other_targets_decode_to_nothing() {
    #[derive(Clone, Default)]
    struct Count(Arc<Mutex<(usize, usize)>>);
    impl<S: tracing::Subscriber> Layer<S> for Count {
        fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
            let mut count = self.0.lock().unwrap();
            count.0 += 1;
            count.1 += usize::from(Record::decode(event).is_some());
        }
    }
    let count = Count::default();
    let subscriber = tracing_subscriber::registry().with(count.clone());
    tracing::subscriber::with_default(subscriber, || {
        tracing::info!(target: "elsewhere", event = "loss", cwnd = 1u64);
        // The right target but a field missing: not a record.
        tracing::debug!(target: TARGET, event = "window", cwnd = 1u64);
    });
    assert_eq!(*count.0.lock().unwrap(), (2, 0));
}
