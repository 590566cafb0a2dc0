//! The `tracing` contract: every window change and loss decision is an event a program can
//! decode ([`Record::decode`]), dated by the callback's own time.
//!
//! Every test in this file captures under a subscriber of its own, and tests that capture live
//! only here. `tracing` caches whether a call site is wanted once for the whole process: while a
//! single dispatcher exists, a thread without one that reaches a call site first caches "never"
//! for it, and the capturing thread then misses that site's events (tokio-rs/tracing#3611). A
//! test binary whose other tests drive controllers with no subscriber would fail at random.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{Path, MSS, RTT};
use quinn_discern::event::{State, Verdict};
use quinn_discern::registry;
use quinn_discern::trace::{LossRecord, Record, WindowRecord, TARGET};
use quinn_discern::{DiscernAlgorithm, DiscernConfig};
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

/// The `discern::round` events of `f`, as `(round, owner, queue_us)`.
fn round_events(f: impl FnOnce()) -> Vec<(u64, String, u64)> {
    use std::sync::{Arc, Mutex};
    use tracing::field::{Field, Visit};
    use tracing_subscriber::layer::{Context, SubscriberExt};
    use tracing_subscriber::Layer;

    #[derive(Default)]
    struct Fields(u64, String, u64);
    impl Visit for Fields {
        fn record_u64(&mut self, field: &Field, value: u64) {
            match field.name() {
                "round" => self.0 = value,
                "queue_us" => self.2 = value,
                _ => {}
            }
        }
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            if field.name() == "owner" {
                self.1 = format!("{value:?}");
            }
        }
    }
    #[derive(Clone, Default)]
    struct Rounds(Arc<Mutex<Vec<(u64, String, u64)>>>);
    impl<S: tracing::Subscriber> Layer<S> for Rounds {
        fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
            if event.metadata().target() == quinn_discern::trace::ROUND_TARGET {
                let mut fields = Fields::default();
                event.record(&mut fields);
                self.0.lock().unwrap().push((fields.0, fields.1, fields.2));
            }
        }
    }
    let rounds = Rounds::default();
    let subscriber = tracing_subscriber::registry().with(rounds.clone());
    tracing::subscriber::with_default(subscriber, f);
    let events = rounds.0.lock().unwrap().clone();
    events
}

#[test]
fn each_round_s_end_reports_the_queue_read_and_whose_it_is() {
    let events = round_events(|| {
        let DiscernAlgorithm::ShortQueue(algorithm) = DiscernConfig::default().algorithm(MSS)
        else {
            panic!("the default is the short-queue design")
        };
        let mut path = Path::new(algorithm);
        // A slow start that a 10 ms queue ends, four rounds without a queue, then two of 20 ms.
        path.rounds(4);
        for (queue_ms, rounds) in [(10, 1), (0, 4), (20, 2)] {
            path.rtt.latest = RTT + Duration::from_millis(queue_ms);
            path.rounds(rounds);
        }
    });
    assert!(events.len() >= 4, "{events:?}");
    assert!(
        events.windows(2).all(|w| w[1].0 > w[0].0),
        "one event a round: {events:?}"
    );
    let (_, owner, queue_us) = events.last().unwrap();
    assert!(owner.starts_with("Own"), "{owner}");
    // No queue while the path settled; then part of the 20 ms it queues, as the round's mean
    // (the synthetic path's rounds straddle the algorithm's) of a queue of the flow's own.
    assert_eq!(events[0].2, 0, "{events:?}");
    assert!((1..=20_000).contains(queue_us), "{queue_us} {events:?}");
}
