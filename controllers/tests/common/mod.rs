//! A synthetic path for driving the pure algorithms: whole windows sent together and
//! acknowledged one RTT later, and losses declared at chosen moments.

#![allow(dead_code)]

use std::time::{Duration, Instant};

use quinn_discern::event::{Ack, AckBatch, CongestionEvent, Decision, RttSample};
use quinn_discern::{Algorithm, Window};

pub const MSS: u64 = 1200;
pub const RTT: Duration = Duration::from_millis(100);

pub struct Path<A> {
    pub algorithm: A,
    epoch: Instant,
    /// Virtual time since `epoch`.
    pub clock: Duration,
    pub rtt: RttSample,
}

impl<A: Algorithm> Path<A> {
    pub fn new(algorithm: A) -> Self {
        Self {
            algorithm,
            epoch: Instant::now(),
            clock: Duration::ZERO,
            rtt: RttSample::flat(RTT),
        }
    }

    pub fn at(&self, offset: Duration) -> Instant {
        self.epoch + offset
    }

    pub fn window(&self) -> &Window {
        self.algorithm.window()
    }

    pub fn cwnd(&self) -> u64 {
        self.window().cwnd()
    }

    pub fn cwnd_packets(&self) -> f64 {
        self.cwnd() as f64 / MSS as f64
    }

    /// Sends a full window now and receives its ACKs one RTT later, one ACK frame for every
    /// two packets (a QUIC receiver's default).
    pub fn round(&mut self) {
        let sent = self.at(self.clock);
        self.clock += self.rtt.latest;
        let now = self.at(self.clock);
        let packets = (self.cwnd() / MSS).max(1);
        for packet in 0..packets {
            self.algorithm
                .on_ack(&Ack::new(now, sent, MSS, false, self.rtt));
            if packet % 2 == 1 || packet + 1 == packets {
                self.algorithm.on_ack_batch(&AckBatch::new(
                    now,
                    self.rtt,
                    MSS * (1 + packet % 2),
                    1 + packet % 2,
                    (packets - packet - 1) * MSS,
                    false,
                    Some(self.rtt),
                ));
            }
        }
    }

    pub fn rounds(&mut self, n: usize) {
        for _ in 0..n {
            self.round();
        }
    }

    /// Leaves slow start: one loss, then enough rounds to be in avoidance with a large window.
    pub fn settle(&mut self, rounds: usize) {
        self.rounds(rounds);
    }

    /// Declares `packets` lost now; they were sent half an RTT ago (inside the current window).
    pub fn lose(&mut self, packets: u64) -> Decision {
        self.lose_with_rtt(packets, self.rtt.latest)
    }

    /// As `lose`, with the ACK that revealed the loss measuring `latest`.
    pub fn lose_with_rtt(&mut self, packets: u64, latest: Duration) -> Decision {
        self.clock += Duration::from_millis(1);
        let now = self.at(self.clock);
        let sent = self.at(self.clock.saturating_sub(self.rtt.latest / 2));
        let event = CongestionEvent::loss(now, sent, packets, MSS, self.rtt.with_latest(latest));
        self.algorithm.on_congestion(&event)
    }

    /// Persistent congestion declared now.
    pub fn persistent_congestion(&mut self) -> Decision {
        self.clock += Duration::from_millis(1);
        let now = self.at(self.clock);
        let mut event = CongestionEvent::loss(now, now, 10, MSS, self.rtt);
        event.persistent = true;
        self.algorithm.on_congestion(&event)
    }
}
