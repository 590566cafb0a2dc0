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
use crate::bandwidth::BandwidthEstimate;
use crate::classify::{
    loss_based_evidence, Classification, Classifier, Discriminator, OwdThreshold, RttTolerance,
    SackGapAndRtt,
};
use crate::event::{Ack, AckBatch, CongestionEvent, Decision, Verdict};
use crate::growth::Growth;
use crate::hystart::HyStart;
use crate::window::{Window, MAX_SSTHRESH_PACKETS};

/// How a congestion verdict closes the window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reduction {
    /// Fast recovery: `cwnd = ssthresh = cwnd * beta`.
    Multiplicative {
        /// Factor the window is multiplied by, e.g. 0.5 for NewReno (RFC 6582).
        beta: f64,
    },
    /// Tahoe: `ssthresh = cwnd * ssthresh_factor`, slow start from `restart_packets` MSS.
    Restart {
        /// Factor the window is multiplied by to give `ssthresh`, e.g. 0.5.
        ssthresh_factor: f64,
        /// Window slow start restarts from, in MSS (1 in Tahoe, 3 by default in Modified Tahoe).
        restart_packets: u64,
    },
    /// Westwood+ (Grieco and Mascolo, CCR 2004, section 2; `tcp_westwood.c`): `cwnd = ssthresh =
    /// bandwidth estimate * minimum RTT`, the window that just fills the pipe, never more than
    /// the window was. Before the first estimate, halve.
    Bandwidth,
}

impl Reduction {
    /// The factor applied to ssthresh on persistent congestion.
    fn ssthresh_factor(self) -> f64 {
        match self {
            Reduction::Multiplicative { beta } => beta,
            Reduction::Restart {
                ssthresh_factor, ..
            } => ssthresh_factor,
            Reduction::Bandwidth => 0.5,
        }
    }
}

/// What a loss judged random does to the window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RandomResponse {
    /// Nothing: QUIC retransmits, the window stays.
    Keep,
    /// A milder cut than congestion's, once per window: Veno's `cwnd * 4/5`.
    Multiplicative {
        /// Factor the window is multiplied by, 0.8 in Veno.
        beta: f64,
    },
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
    random: RandomResponse,
    /// Reduce at most once per window (NewReno's recovery period); Reno reduces on every event.
    once_per_window: bool,
    /// Kept only for [`Reduction::Bandwidth`], the one rule that reads it.
    bandwidth: Option<BandwidthEstimate>,
    /// The factor for an ECN-CE mark, where it differs from a loss's (RFC 8511).
    ecn_beta: Option<f64>,
    /// Ends slow start on a delay rise, for algorithms that take it.
    hystart: Option<HyStart>,
}

impl<C: Classifier> WindowAlgorithm<C> {
    /// An algorithm that starts from `window`, asks `classifier` about every loss, grows by
    /// `growth` and closes by `reduction`; `once_per_window` makes it reduce at most once per
    /// window (NewReno's recovery period) instead of on every congestion event (Reno). Slow
    /// start is limited above [`MAX_SSTHRESH_PACKETS`] (RFC 3742), as TCP stacks do for large
    /// windows: the papers' windows never reach it; a gigabit path's do.
    pub fn new(
        window: Window,
        classifier: C,
        growth: Growth,
        reduction: Reduction,
        once_per_window: bool,
    ) -> Self {
        Self {
            window: window.with_limited_slow_start(MAX_SSTHRESH_PACKETS),
            discriminator: Discriminator::new(classifier),
            growth,
            reduction,
            random: RandomResponse::Keep,
            ecn_beta: None,
            hystart: None,
            once_per_window,
            bandwidth: (reduction == Reduction::Bandwidth).then(BandwidthEstimate::default),
        }
    }

    /// The same algorithm answering an ECN-CE mark with `cwnd = ssthresh = cwnd * beta` rather
    /// than its loss response: Alternative Backoff with ECN (RFC 8511, section 3). A mark comes
    /// from an AQM that keeps its queue short, before any loss, so the loss response's halving
    /// would leave the link idle; RFC 8511 recommends 0.7 to 0.85 for Reno.
    pub fn with_ecn_backoff(mut self, beta: f64) -> Self {
        self.ecn_beta = Some(beta);
        self
    }

    /// The same algorithm ending slow start when the delay rises ([`HyStart`]), not only on a
    /// congestion loss.
    pub fn with_hystart(mut self) -> Self {
        self.hystart = Some(HyStart::default());
        self
    }

    /// The same algorithm answering random verdicts with `random` instead of keeping the window.
    pub fn with_random_response(mut self, random: RandomResponse) -> Self {
        self.random = random;
        self
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

    /// The loss classifier, for reading its state (e.g. its smoothed RTT).
    pub fn classifier(&self) -> &C {
        self.discriminator.classifier()
    }

    /// The rule that grows the window.
    pub fn growth(&self) -> &Growth {
        &self.growth
    }

    /// The Westwood+ bandwidth estimate, kept by algorithms that reduce with
    /// [`Reduction::Bandwidth`].
    pub fn bandwidth(&self) -> Option<&BandwidthEstimate> {
        self.bandwidth.as_ref()
    }

    fn reduce(&mut self, event: &CongestionEvent, verdict: Verdict) {
        let before = self.window.cwnd();
        match (verdict, self.reduction) {
            (Verdict::Congestion, _) if event.is_ecn() && self.ecn_beta.is_some() => {
                let beta = self.ecn_beta.unwrap_or(0.5);
                self.window.reduce(event.now, beta)
            }
            (Verdict::Random, _) => match self.random {
                RandomResponse::Keep => return,
                RandomResponse::Multiplicative { beta } => self.window.reduce(event.now, beta),
            },
            (Verdict::Congestion, Reduction::Multiplicative { beta }) => {
                self.window.reduce(event.now, beta)
            }
            (
                Verdict::Congestion,
                Reduction::Restart {
                    ssthresh_factor,
                    restart_packets,
                },
            ) => self
                .window
                .restart(event.now, ssthresh_factor, restart_packets),
            (Verdict::Congestion, Reduction::Bandwidth) => {
                let pipe = self
                    .bandwidth
                    .as_ref()
                    .map_or(0, |bandwidth| bandwidth.window_for(event.rtt.min));
                if pipe == 0 {
                    self.window.reduce(event.now, 0.5);
                } else {
                    self.window.reduce_to(event.now, pipe.min(before));
                }
            }
        }
        self.growth.on_reduction(before, self.window.mss());
    }

    /// Whether `verdict` changes the window at all.
    fn acts_on(&self, verdict: Verdict) -> bool {
        verdict == Verdict::Congestion || self.random != RandomResponse::Keep
    }
}

impl<C: Classifier> Algorithm for WindowAlgorithm<C> {
    fn on_ack(&mut self, ack: &Ack) {
        self.discriminator.on_ack(ack);
        if self.window.admits_growth(ack) {
            if let Some(hystart) = &mut self.hystart {
                hystart.on_ack(&mut self.window, ack);
            }
            self.growth.on_ack(&mut self.window, ack);
        }
    }

    fn on_ack_batch(&mut self, batch: &AckBatch) {
        self.discriminator.on_ack_batch(batch);
        if let Some(bandwidth) = &mut self.bandwidth {
            bandwidth.on_ack_batch(batch);
        }
    }

    fn on_congestion(&mut self, event: &CongestionEvent) -> Decision {
        let event = &self.window.annotate(event);
        let (verdict, evidence) = self.discriminator.judge(event);
        let reduced = if event.persistent {
            let before = self.window.cwnd();
            self.window
                .collapse(event.now, self.reduction.ssthresh_factor());
            self.growth.on_reduction(before, self.window.mss());
            true
        } else if self.acts_on(verdict)
            && (!self.once_per_window || self.window.is_new_episode(event.sent))
        {
            self.reduce(event, verdict);
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
/// WNewReno's algorithm: losses classified by a one-way-delay threshold ([`OwdThreshold`]).
pub type WNewRenoAlgorithm = WindowAlgorithm<OwdThreshold>;
/// The composite algorithm: losses classified by SACK gaps and RTT ([`SackGapAndRtt`]).
pub type CompositeAlgorithm = WindowAlgorithm<SackGapAndRtt>;
/// Reno, NewReno, Tahoe and SACK with every loss taken as congestion ([`LossBased`]).
pub type LossBasedAlgorithm = WindowAlgorithm<LossBased>;
