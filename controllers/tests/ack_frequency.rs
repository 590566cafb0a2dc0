//! A sender that negotiated ACK frequency tells its controller the Ack-Eliciting Threshold it
//! asked for (`ControllerSpec::with_ack_eliciting_threshold`), and the controller credits the ACK
//! Delay of the frames the receiver could hold for its timer, and none of a frame it owed at once
//! (`rtt.rs`, "What is credited"), whichever way the registry built it: a controller of the
//! crate, a classifier's own SACK controller, or a classifier in front of quinn's.
//!
//! quinn's estimator is a real one, frozen, so each frame's recovered ACK Delay is what its
//! sample shows above the estimator (as in `adversarial_acks.rs`): the frame's claim where the
//! estimator's own latest sample lies below its average, a few microseconds where it lies above
//! (the recovery then reads quinn's `latest`, which a frozen estimator never updates). Either
//! way the claim is not zero, and the `rtt` events report it beside what was credited.

#[path = "loopback/mod.rs"]
mod loopback;

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use quinn_discern::registry;
use quinn_discern::trace::{Record, RttRecord};
use quinn_discern::AckElicitingThreshold;
use quinn_proto::RttEstimator;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::Layer;

/// What every frame claims it held the ACK for: less than the 40 ms between frames, so an
/// honest receiver's timer could have held it that long.
const CLAIMED: Duration = Duration::from_millis(20);
const FRAME_INTERVAL: Duration = Duration::from_millis(40);
const FRAMES: u64 = 12;
const MTU: u16 = 1200;

fn rtt_estimator() -> &'static RttEstimator {
    static ESTIMATOR: OnceLock<RttEstimator> = OnceLock::new();
    ESTIMATOR.get_or_init(loopback::real_rtt_estimator)
}

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<RttRecord>>>);

impl<S: tracing::Subscriber> Layer<S> for Capture {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        if let Some(Record::Rtt(rtt)) = Record::decode(event) {
            self.0.lock().unwrap().push(rtt);
        }
    }
}

/// The `rtt` events of controller `id` for a sender that asked for `threshold` (`None`: asked
/// nothing), whose receiver acknowledges `per_frame` packets a frame, each frame claiming
/// [`CLAIMED`].
fn frames(id: &str, threshold: Option<u64>, per_frame: u64) -> Vec<RttRecord> {
    let mut spec = registry::parse(id).unwrap();
    if let Some(t) = threshold {
        spec = spec.with_ack_eliciting_threshold(AckElicitingThreshold::new(t));
        assert_eq!(
            spec.ack_eliciting_threshold(),
            AckElicitingThreshold::new(t)
        );
    }
    let capture = Capture::default();
    let subscriber = tracing_subscriber::registry().with(capture.clone());
    tracing::subscriber::with_default(subscriber, || {
        let built = Instant::now();
        let mut controller = spec.factory().build(built, MTU);
        let estimator = rtt_estimator();
        let mut number = 0;
        for frame in 0..FRAMES {
            let start = built + FRAME_INTERVAL * frame as u32;
            let sent: Vec<Instant> = (0..per_frame)
                .map(|i| start + Duration::from_micros(100 * i))
                .collect();
            for at in &sent {
                controller.on_sent(*at, u64::from(MTU), number);
                number += 1;
            }
            let now = sent[sent.len() - 1] + estimator.get() + CLAIMED;
            for at in &sent {
                controller.on_ack(now, *at, u64::from(MTU), false, estimator);
            }
            controller.on_end_acks(now, 0, false, Some(number - 1));
        }
    });
    let events = capture.0.lock().unwrap().clone();
    assert!(
        events.len() as u64 >= FRAMES - 2,
        "{id}: {} rtt events",
        events.len()
    );
    events
}

/// The frames after quinn's first sample, which it takes with no ACK Delay.
fn after_the_first(events: &[RttRecord]) -> &[RttRecord] {
    &events[1..]
}

const IDS: [&str; 3] = ["discern", "spike", "composite+quinn-cubic"];

/// The claims the frames made, in microseconds: not zero, so a credit of zero is a refusal.
fn claimed_us(id: &str, events: &[RttRecord]) -> u64 {
    let claimed: u64 = events.iter().map(|e| e.ack_delay_us).sum();
    assert!(claimed > 0, "{id}: no frame claimed a delay: {events:?}");
    claimed
}

#[test]
fn a_frame_the_receiver_could_hold_for_its_timer_is_credited_its_delay() {
    // Asked for an ACK every tenth packet, a receiver may hold five for its timer.
    for id in IDS {
        let events = frames(id, Some(9), 5);
        let events = after_the_first(&events);
        claimed_us(id, events);
        for e in events {
            assert!(
                Duration::from_micros(e.ack_delay_us) <= CLAIMED + Duration::from_millis(1),
                "{id}: {e:?}"
            );
            assert_eq!(e.credited_us, e.ack_delay_us, "{id}: {e:?}");
        }
    }
}

#[test]
fn a_frame_the_receiver_owed_at_once_is_credited_nothing() {
    // RFC 9000's receiver owes an ACK on the second packet; one asked for every tenth, on the
    // tenth: what the frame claims is recovered, and none of it credited.
    for (threshold, per_frame) in [(None, 5), (Some(9), 10), (Some(0), 1)] {
        for id in IDS {
            let events = frames(id, threshold, per_frame);
            let events = after_the_first(&events);
            claimed_us(id, events);
            for e in events {
                assert_eq!(e.credited_us, 0, "{id} {threshold:?} {per_frame}: {e:?}");
            }
        }
    }
}
