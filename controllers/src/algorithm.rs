//! One window machine for every controller of this crate: a classifier decides what a loss
//! means, a growth rule opens the window on ACKs, a reduction rule closes it on congestion.
//!
//! | controller | classifier | growth | reduction |
//! |---|---|---|---|
//! | `tahoe` | [`LossBased`] | Reno | restart at 1 MSS, ssthresh 1/2 |
//! | `modified-tahoe` | [`LossBased`] | Reno | restart at 3 MSS, ssthresh 3/4 |
//! | `reno` | [`LossBased`] | Reno | halve on every loss event |
//! | `newreno` | [`LossBased`] | Reno | halve once per window |
//! | `sack-few` | [`LossBased`] | fractional | halve once per window |
//! | `modified-sack` | [`RttTolerance`] | Reno | halve once per window |
//! | `wnewreno` | [`OwdThreshold`] | Reno | halve once per window |
//! | `composite` | [`SackGapAndRtt`] | Reno | halve once per window |

use crate::adapter::Algorithm;
use crate::classify::{
    loss_based_evidence, Classification, Classifier, Discriminator, OwdThreshold, RttTolerance,
    SackGapAndRtt,
};
use crate::event::{Ack, AckBatch, CongestionEvent, Decision, Verdict};
use crate::window::Window;

/// How ACKs open the window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Growth {
    /// Slow start below ssthresh, one MSS per window above it (RFC 5681 with RFC 3465 byte
    /// counting).
    Reno,
    /// Paper 003's fractional increment: `cwnd += alpha * MSS * acked / cwnd` in every phase.
    /// ssthresh does not cap it: the reduction already leaves `cwnd = ssthresh` (see [`SackFew`]).
    ///
    /// [`SackFew`]: crate::SackFew
    Fractional { alpha: f64 },
}

/// How a congestion verdict closes the window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reduction {
    /// Fast recovery: `cwnd = ssthresh = cwnd * beta`.
    Multiplicative { beta: f64 },
    /// Tahoe: `ssthresh = cwnd * ssthresh_factor`, slow start from `restart_packets` MSS.
    Restart {
        ssthresh_factor: f64,
        restart_packets: u64,
    },
}

impl Reduction {
    /// The factor applied to ssthresh on persistent congestion.
    fn ssthresh_factor(self) -> f64 {
        match self {
            Reduction::Multiplicative { beta } => beta,
            Reduction::Restart {
                ssthresh_factor, ..
            } => ssthresh_factor,
        }
    }
}

/// The classic reading: every loss is congestion.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LossBased;

impl Classifier for LossBased {
    fn classify(&mut self, event: &CongestionEvent, losses_in_window: u64) -> Classification {
        let evidence = loss_based_evidence(event.rtt, losses_in_window);
        Classification {
            verdict: Verdict::Congestion,
            threshold: evidence.threshold,
            reason: evidence.reason,
        }
    }
}

/// A window, a loss discriminator, and the rules that tie them together.
#[derive(Debug, Clone)]
pub struct WindowAlgorithm<C> {
    window: Window,
    discriminator: Discriminator<C>,
    growth: Growth,
    reduction: Reduction,
    /// Reduce at most once per window (NewReno's recovery period); Reno reduces on every event.
    once_per_window: bool,
    /// Fractional growth below one byte, carried to the next ACK.
    growth_carry: f64,
}

impl<C: Classifier> WindowAlgorithm<C> {
    pub fn new(
        window: Window,
        classifier: C,
        growth: Growth,
        reduction: Reduction,
        once_per_window: bool,
    ) -> Self {
        Self {
            window,
            discriminator: Discriminator::new(classifier),
            growth,
            reduction,
            once_per_window,
            growth_carry: 0.0,
        }
    }

    /// SACK TCP's window (NewReno's response with QUIC's ACK ranges): Reno growth, halve once per
    /// window, a floor of 2 MSS, with `classifier` deciding which losses count.
    pub fn sack(initial_window: u64, mss: u64, classifier: C) -> Self {
        Self::new(
            Window::new(initial_window, mss, 2),
            classifier,
            Growth::Reno,
            Reduction::Multiplicative { beta: 0.5 },
            true,
        )
    }

    pub fn classifier(&self) -> &C {
        self.discriminator.classifier()
    }

    fn grow(&mut self, acked: u64) {
        match self.growth {
            Growth::Reno => self.window.grow_reno(acked),
            Growth::Fractional { alpha } => {
                let mss = self.window.mss() as f64;
                let increment =
                    alpha * mss * acked as f64 / self.window.cwnd() as f64 + self.growth_carry;
                let whole = increment.floor();
                self.growth_carry = increment - whole;
                self.window.add(whole as u64);
            }
        }
    }

    fn reduce(&mut self, event: &CongestionEvent) {
        match self.reduction {
            Reduction::Multiplicative { beta } => self.window.reduce(event.now, beta),
            Reduction::Restart {
                ssthresh_factor,
                restart_packets,
            } => self
                .window
                .restart(event.now, ssthresh_factor, restart_packets),
        }
        self.growth_carry = 0.0;
    }
}

impl<C: Classifier> Algorithm for WindowAlgorithm<C> {
    fn on_ack(&mut self, ack: &Ack) {
        self.discriminator.on_ack(ack);
        if self.window.admits_growth(ack) {
            self.grow(ack.bytes);
        }
    }

    fn on_ack_batch(&mut self, batch: &AckBatch) {
        self.discriminator.on_ack_batch(batch);
    }

    fn on_congestion(&mut self, event: &CongestionEvent) -> Decision {
        let (verdict, evidence) = self.discriminator.judge(event);
        let reduced = if event.persistent {
            self.window
                .collapse(event.now, self.reduction.ssthresh_factor());
            self.growth_carry = 0.0;
            true
        } else if verdict == Verdict::Congestion
            && (!self.once_per_window || self.window.is_new_episode(event.sent))
        {
            self.reduce(event);
            true
        } else {
            false
        };
        Decision {
            verdict,
            reduced,
            evidence,
        }
    }

    fn window(&self) -> &Window {
        &self.window
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.window
    }
}

/// The classifiers of the papers that have one, for the type aliases of the public controllers.
pub type ModifiedSackAlgorithm = WindowAlgorithm<RttTolerance>;
pub type WNewRenoAlgorithm = WindowAlgorithm<OwdThreshold>;
pub type CompositeAlgorithm = WindowAlgorithm<SackGapAndRtt>;
pub type LossBasedAlgorithm = WindowAlgorithm<LossBased>;
