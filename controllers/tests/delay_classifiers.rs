//! Spike, ZigZag and Trend (Cen et al., ToN 2003, section III; Hsiao et al., ICASSP 2005) as
//! `spike`, `zigzag` and `trend` run them: SACK's window behind each classifier. A loss on a
//! path whose delay is flat keeps the window; a loss while the delay climbs (a queue building)
//! cuts it. Their classifiers' own verdicts are tested in the crate; these are the windows.

mod common;

use std::time::Duration;

use common::{Path, MSS};
use quinn_discern::classify::{Classifier, Spike, Trend, ZigZag};
use quinn_discern::event::{Ack, AckBatch};
use quinn_discern::{Algorithm, DiscriminatingSackConfig};

/// A path past slow start (one early loss set ssthresh) with a window of tens of packets, its
/// RTT flat.
fn settled<A: Algorithm>(algorithm: A) -> Path<A> {
    let mut path = Path::new(algorithm);
    path.rounds(3);
    path.persistent_congestion();
    path.rounds(12);
    path
}

/// Rounds whose RTT climbs by `step` each, ACK by ACK, as a queue that builds does: every ACK
/// frame measures a little more than the one before.
fn climbing<A: Algorithm>(path: &mut Path<A>, rounds: u32, step: Duration) {
    for _ in 0..rounds {
        let sent = path.at(path.clock);
        path.clock += path.rtt.latest;
        let now = path.at(path.clock);
        let packets = (path.cwnd() / MSS).max(2);
        for packet in 0..packets {
            path.rtt.latest += step / packets as u32;
            path.rtt.smoothed = path.rtt.latest;
            let rtt = path.rtt;
            path.algorithm.on_ack(&Ack::new(now, sent, MSS, false, rtt));
            if packet % 2 == 1 {
                let left = (packets - packet - 1) * MSS;
                let batch = AckBatch::new(now, rtt, 2 * MSS, 2, left, false, Some(rtt));
                path.algorithm.on_ack_batch(&batch);
            }
        }
    }
}

fn random_keeps_and_congestion_cuts<C: Classifier>(id: &str, classifier: C) {
    let config = DiscriminatingSackConfig::new(id.to_owned(), classifier);
    let mut path = settled(config.algorithm(MSS));
    let before = path.cwnd();
    let decision = path.lose(1);
    assert!(
        !decision.reduced && path.cwnd() == before,
        "{id}: a loss on a flat path cut the window ({before} -> {})",
        path.cwnd()
    );

    let mut path = settled(config.algorithm(MSS));
    climbing(&mut path, 6, Duration::from_millis(15));
    let before = path.cwnd();
    let latest = path.rtt.latest;
    let decision = path.lose_with_rtt(1, latest);
    assert!(
        decision.reduced && path.cwnd() < before,
        "{id}: a loss while the delay climbs kept the window ({before} -> {})",
        path.cwnd()
    );
}

#[test]
fn spike_keeps_its_window_on_a_random_loss_and_cuts_it_on_congestion() {
    random_keeps_and_congestion_cuts("spike", Spike::default());
}

#[test]
fn zigzag_keeps_its_window_on_a_random_loss_and_cuts_it_on_congestion() {
    random_keeps_and_congestion_cuts("zigzag", ZigZag::default());
}

#[test]
fn trend_keeps_its_window_on_a_random_loss_and_cuts_it_on_congestion() {
    random_keeps_and_congestion_cuts("trend", Trend::default());
}
