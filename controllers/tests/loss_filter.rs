//! A classifier in front of quinn's own controllers: random losses never reach them.

use std::sync::Arc;
use std::time::{Duration, Instant};

use quinn_discern::classify::SackGapAndRtt;
use quinn_discern::{registry, LossFilterConfig};
use quinn_proto::congestion::{ControllerFactory, CubicConfig, NewRenoConfig};

const MTU: u16 = 1200;

fn filtered(
    inner: Arc<dyn ControllerFactory + Send + Sync>,
) -> Box<dyn quinn_proto::congestion::Controller> {
    Arc::new(LossFilterConfig::new(
        "composite+inner",
        SackGapAndRtt::default(),
        inner,
    ))
    .build(Instant::now(), MTU)
}

#[test]
fn an_isolated_loss_never_reaches_the_inner_controller() {
    for inner in [
        Arc::new(NewRenoConfig::default()) as Arc<dyn ControllerFactory + Send + Sync>,
        Arc::new(CubicConfig::default()),
    ] {
        let mut controller = filtered(inner);
        let start = Instant::now();
        let before = controller.window();
        // One packet lost, in a window of its own: random.
        let now = start + Duration::from_millis(200);
        controller.on_congestion_event(now, now - Duration::from_millis(50), false, u64::from(MTU));
        assert_eq!(controller.window(), before);
        // A second loss of a packet from the same window: congestion, passed on.
        let later = now + Duration::from_millis(1);
        controller.on_congestion_event(
            later,
            now - Duration::from_millis(10),
            false,
            u64::from(MTU),
        );
        assert!(controller.window() < before);
    }
}

#[test]
fn persistent_congestion_always_reaches_the_inner_controller() {
    let mut controller = filtered(Arc::new(NewRenoConfig::default()));
    let now = Instant::now() + Duration::from_secs(1);
    controller.on_congestion_event(now, now, true, u64::from(MTU));
    assert_eq!(controller.window(), 2 * u64::from(MTU));
}

#[test]
fn a_clone_keeps_the_inner_state() {
    let mut controller = filtered(Arc::new(NewRenoConfig::default()));
    let now = Instant::now() + Duration::from_secs(1);
    controller.on_congestion_event(now, now, false, 3 * u64::from(MTU));
    let clone = controller.clone_box();
    assert_eq!(clone.window(), controller.window());
    assert_eq!(clone.metrics().ssthresh, controller.metrics().ssthresh);
}

/// Half a window lost in one window is congestion whatever a classifier reads (`classify/mod.rs`,
/// `half_window_lost`): every classifier of the registry passes it on, even with a flat RTT that
/// shows no queue at all.
#[test]
fn half_a_window_lost_reaches_the_inner_controller_behind_every_classifier() {
    let classifiers = registry::catalog().iter().filter(|c| c.classifier);
    let mut checked = 0;
    for classifier in classifiers {
        let id = format!("{}+quinn-newreno", classifier.id);
        let factory = registry::parse(&id).unwrap().factory();
        let start = Instant::now();
        let mut controller = factory.build(start, MTU);
        let before = controller.window();
        let window_packets = before / u64::from(MTU);
        let lost = u64::from(MTU) * (window_packets / 2 + 1);
        let now = start + Duration::from_millis(200);
        controller.on_congestion_event(now, now - Duration::from_millis(50), false, lost);
        assert!(
            controller.window() < before,
            "{id}: {} of {window_packets} packets lost, and the window stayed at {before}",
            window_packets / 2 + 1,
        );
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} classifiers in the registry");
}
