//! `discern`'s default algorithm: a short queue of its own when the flow has the bottleneck to
//! itself, NewReno's manners when another flow keeps a queue standing, and a loss response by
//! cause.
//!
//! Once per round trip, at the round's end, the algorithm reads the standing queue `q`
//! ([`PathModel::standing_queue`]) against the target `t` (a couple of packet times,
//! [`PathModel::target`]):
//!
//! * **Own queue** (the start, and once `q` has stayed below the target for a few rounds): after
//!   slow start (which ends when the queue of the last few frames reaches twice the target),
//!   the window follows FAST TCP's update (Wei, Jin, Low and Hegde, ToN 2006, equation 1, with
//!   `gamma = 1/2`): `w <- w + (w * minRTT / (minRTT + q) + alpha - w) / 2`, at most doubling,
//!   where `alpha = t x peak rate` is the target queue in bytes. It converges to the window that
//!   keeps `t` queued, shrinks the queue the flow built, and regrows within a few rounds after a
//!   loss response, where Reno's one MSS per round trip would take seconds on a long path.
//! * **Shared queue**: a queue that stays above two targets for four rounds without the update
//!   bringing it down by a quarter is not the flow's own: a loss-based flow is filling the
//!   buffer, and yielding further would starve this one (Vegas and FAST against Reno). The flow
//!   then grows as NewReno does until the queue stays below the target for four rounds (Copa's
//!   competitive mode, Arun and Balakrishnan, NSDI 2018, section 2.3, with the switch read from
//!   the update's effect instead of an emptied queue).
//!
//! Where a rate limit has been found (see below), the window rises above it by at most a target's
//! worth of bytes a round, however empty the queue: a policer has none to show.
//!
//! Losses ([`ShortQueue`]): a loss that met a queue above the guard (three targets, at least
//! 3 ms) is congestion. Sharing a queue, it halves the window once per window, as NewReno; with
//! the queue its own, it takes out the queue the lost packet met, `cwnd *= min RTT / (min RTT +
//! queue)`, never below half, which drains the queue and keeps the pipe full. A loss share beyond
//! a channel's with no queue is a rate limit (a policer), remembered for 16 rounds, during which
//! every loss with the queue short is its: each halves the window once per window, as NewReno
//! answers a queue, since a policer is a limit the flow shares like one. Other losses are random
//! and keep the window. An ECN-CE mark reduces by `ecn_beta` (RFC 8511); persistent congestion
//! restarts slow start.

use std::time::Duration;

use crate::adapter::Algorithm;
use crate::classify::{Discriminator, LossCause, PathModel, ShortQueue};
use crate::event::{Ack, AckBatch, CongestionEvent, Decision, State, Verdict};
use crate::window::Window;

/// Rounds the queue must stay above two targets, with the window shrinking, before it counts
/// as another flow's.
const ROUNDS_BEFORE_SHARED: u32 = 4;
/// The fraction of the standing queue those rounds must remove for the queue to count as the
/// flow's own.
const SHRINK_EFFECT: f64 = 0.25;
/// The window's growth per round while it refills a pipe the path has carried.
const REFILL_GROWTH: f64 = 1.25;
/// Rounds in a row with a short queue after which a shared queue is the flow's own again.
const SHARED_EXIT_ROUNDS: u32 = 4;

/// Whose queue the flow sees at the bottleneck.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum QueueOwner {
    /// The flow's own: it keeps it near the target.
    Own {
        /// Rounds in a row the standing queue has been above two targets.
        long_rounds: u32,
        /// The standing queue at the first of those rounds.
        queue_before: Duration,
    },
    /// Another flow keeps it standing: grow as NewReno until it stays below the target.
    Shared {
        /// Rounds in a row the standing queue has been below the target.
        short_rounds: u32,
    },
}

impl QueueOwner {
    const OWN: QueueOwner = QueueOwner::Own {
        long_rounds: 0,
        queue_before: Duration::ZERO,
    };
}

/// The state machine of [`crate::Discern`]'s default.
#[derive(Debug, Clone)]
pub struct ShortQueueAlgorithm {
    window: Window,
    discriminator: Discriminator<ShortQueue>,
    owner: QueueOwner,
    rounds_seen: u64,
    beta: f64,
    ecn_beta: f64,
}

impl ShortQueueAlgorithm {
    /// An algorithm that starts from `window`, halves (`beta`) on a shared queue's congestion
    /// and multiplies by `ecn_beta` on a CE mark.
    pub fn new(window: Window, beta: f64, ecn_beta: f64) -> Self {
        Self {
            window,
            discriminator: Discriminator::new(ShortQueue::default()),
            owner: QueueOwner::OWN,
            rounds_seen: 0,
            beta,
            ecn_beta,
        }
    }

    /// The loss classifier and the path model it keeps.
    pub fn classifier(&self) -> &ShortQueue {
        self.discriminator.classifier()
    }

    /// Whose queue the flow takes the standing queue to be.
    pub fn owner(&self) -> QueueOwner {
        self.owner
    }

    fn path(&self) -> &PathModel {
        self.discriminator.classifier().path()
    }

    /// The end of a round: whose queue it is, and, when it is the flow's own and slow start is
    /// over, FAST's window update.
    fn on_round_end(&mut self) {
        let Some(queue) = self.path().standing_queue() else {
            return;
        };
        let target = self.path().target();
        self.owner = self.next_owner(queue, target);
        let own = matches!(self.owner, QueueOwner::Own { .. });
        if own && self.window.state() != State::SlowStart {
            self.fast_update(queue, target);
        }
    }

    fn next_owner(&self, queue: Duration, target: Duration) -> QueueOwner {
        match self.owner {
            QueueOwner::Shared { short_rounds } if queue < target => {
                if short_rounds + 1 >= SHARED_EXIT_ROUNDS {
                    QueueOwner::OWN
                } else {
                    QueueOwner::Shared {
                        short_rounds: short_rounds + 1,
                    }
                }
            }
            QueueOwner::Shared { .. } => QueueOwner::Shared { short_rounds: 0 },
            QueueOwner::Own { .. } if queue < target.saturating_mul(2) => QueueOwner::OWN,
            QueueOwner::Own {
                long_rounds,
                queue_before,
            } => {
                let before = if long_rounds == 0 {
                    queue
                } else {
                    queue_before
                };
                let shrunk = queue.as_secs_f64() <= (1.0 - SHRINK_EFFECT) * before.as_secs_f64();
                if long_rounds + 1 >= ROUNDS_BEFORE_SHARED && !shrunk {
                    QueueOwner::Shared { short_rounds: 0 }
                } else {
                    QueueOwner::Own {
                        long_rounds: long_rounds + 1,
                        queue_before: before,
                    }
                }
            }
        }
    }

    /// FAST TCP's update with `gamma = 1/2`: halfway to the window that would leave `target`
    /// queued, at most doubling.
    fn fast_update(&mut self, queue: Duration, target: Duration) {
        let cwnd = self.window.cwnd() as f64;
        let min_rtt = self.path().min_rtt().as_secs_f64();
        if min_rtt <= 0.0 {
            return;
        }
        let alpha = target.as_secs_f64() * self.path().peak_rate();
        let aim = cwnd * min_rtt / (min_rtt + queue.as_secs_f64()) + alpha;
        let mut next = (cwnd + (aim - cwnd) / 2.0).min(2.0 * cwnd);
        // Where a rate limit has been found, the window probes above it by a target a round at
        // most, however empty the queue (the policer has none).
        let limit = self.classifier().rate_limit().map(|l| l as f64);
        let peak_pipe = self.path().peak_rate() * min_rtt;
        if queue < target && cwnd < peak_pipe {
            // Below a window the path has carried without a queue: FAST would add only alpha a
            // round, which takes seconds to refill a long pipe after a loss response. Go back
            // by a quarter a round, never past it.
            next = next.max((cwnd * REFILL_GROWTH).min(peak_pipe));
        }
        if let Some(limit) = limit {
            next = next.min(limit.max(cwnd));
        }
        self.window.resize(next as u64);
    }

    fn reduce(&mut self, event: &CongestionEvent) {
        if event.is_ecn() {
            self.window.reduce(event.now, self.ecn_beta);
            return;
        }
        let cwnd = self.window.cwnd();
        match (self.classifier().last_cause(), self.owner) {
            // A policer: a limit shared with other flows, answered as NewReno answers a queue.
            (Some(LossCause::Rate), _) => self.window.reduce(event.now, self.beta),
            // The flow's own queue overflowed (or met an AQM): take out the queue the lost
            // packet met, which keeps the pipe full (never below NewReno's cut).
            (_, QueueOwner::Own { .. }) => {
                let min_rtt = self.path().min_rtt().as_secs_f64();
                let queue = self.classifier().last_queue_met().as_secs_f64();
                let drained = if min_rtt > 0.0 {
                    (cwnd as f64 * min_rtt / (min_rtt + queue)) as u64
                } else {
                    cwnd
                };
                let floor = (cwnd as f64 * self.beta) as u64;
                self.window.reduce_to(event.now, drained.clamp(floor, cwnd));
            }
            // A queue another flow keeps: NewReno's manners.
            (_, QueueOwner::Shared { .. }) => self.window.reduce(event.now, self.beta),
        }
    }
}

impl Algorithm for ShortQueueAlgorithm {
    fn on_ack(&mut self, ack: &Ack) {
        self.discriminator.on_ack(ack);
        if !self.window.admits_growth(ack) {
            return;
        }
        // With the queue its own, the flow grows per ACK only in slow start; FAST's update moves
        // the window once a round after that.
        match self.owner {
            QueueOwner::Own { .. } if self.window.state() != State::SlowStart => {}
            _ => self.window.grow_reno(ack.bytes),
        }
    }

    fn on_ack_batch(&mut self, batch: &AckBatch) {
        self.discriminator.on_ack_batch(batch);
        let rounds = self.path().rounds();
        if rounds != self.rounds_seen {
            self.rounds_seen = rounds;
            self.on_round_end();
        } else if self.window.state() == State::SlowStart
            && matches!(self.owner, QueueOwner::Own { .. })
            && self
                .path()
                .recent_queue()
                .is_some_and(|q| q >= self.path().slow_start_exit())
        {
            self.window.end_slow_start();
        }
    }

    fn on_congestion(&mut self, event: &CongestionEvent) -> Decision {
        let event = &self.window.annotate(event);
        let (verdict, evidence) = self.discriminator.judge(event);
        let reduced = if event.persistent {
            self.window.collapse(event.now, self.beta);
            true
        } else if verdict == Verdict::Congestion && self.window.is_new_episode(event.sent) {
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
