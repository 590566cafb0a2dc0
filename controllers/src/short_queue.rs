//! `discern`'s default algorithm: a short queue of its own when the flow has the bottleneck to
//! itself, NewReno's manners when another flow keeps a queue standing, and a loss response by
//! cause.
//!
//! Once per round trip, at the round's end, the algorithm reads the standing queue `q` (the
//! round's smallest queueing delay, [`PathModel`]) against the target (a couple of packet times,
//! [`PathModel::target`]) and picks its mode:
//!
//! * **Own queue** (the start, and whenever `q` falls below the target): grow (slow start, then
//!   Reno's one MSS per round trip) while `q` is below the target; hold while it is between one
//!   and two targets; above that, shed the excess: `cwnd *= (min RTT + target) / (min RTT + q)`,
//!   the window that leaves the target queued if the queue is the flow's own (Vegas, Brakmo and
//!   Peterson, JSAC 1995, section 3.2, with a queue in time rather than packets). Slow start ends
//!   as soon as `q` reaches the target.
//! * **Shared queue**: two sheds in a row that did not bring `q` down by a quarter say the queue
//!   is not the flow's own: a loss-based flow is filling the buffer, and yielding further would
//!   starve this one (Vegas against Reno). The flow then grows as NewReno does until `q` falls
//!   below the target again (Copa's competitive mode, Arun and Balakrishnan, NSDI 2018, section
//!   2.3, with the switch read from the shed's effect instead of an emptied queue).
//!
//! Losses ([`ShortQueue`]): a loss that met a queue above the guard (two targets, at least 3 ms)
//! is congestion and halves the window once per window, as NewReno; a loss with the window well
//! beyond what the path delivers and no queue (a policer) is congestion and brings the window
//! down to the delivery rate times the minimum RTT (Westwood+'s reduction, which keeps a policed
//! flow at the policed rate); other losses are random and keep the window. An ECN-CE mark
//! reduces by `ecn_beta` (RFC 8511); persistent congestion restarts slow start.

use std::time::Duration;

use crate::adapter::Algorithm;
use crate::classify::{Discriminator, LossCause, PathModel, ShortQueue};
use crate::event::{Ack, AckBatch, CongestionEvent, Decision, State, Verdict};
use crate::window::Window;

/// Rounds of shedding (a shed, then a round for it to take effect, twice) after which a queue
/// that did not shrink is taken to be another flow's.
const SHEDS_BEFORE_SHARED: u32 = 4;
/// The fraction of the standing queue two sheds must remove for the queue to count as the flow's
/// own.
const SHED_EFFECT: f64 = 0.25;
/// Rounds in a row with a short queue after which a shared queue is the flow's own again.
const SHARED_EXIT_ROUNDS: u32 = 4;

/// Whose queue the flow sees at the bottleneck.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum QueueOwner {
    /// The flow's own: it keeps it near the target.
    Own {
        /// Rounds of shedding in a row so far (a shed and the round after it count one each).
        sheds: u32,
        /// The standing queue before the first shed of the row.
        queue_before: Duration,
    },
    /// Another flow keeps it standing: grow as NewReno until it stays below the target.
    Shared {
        /// Rounds in a row the standing queue has been below the target.
        short_rounds: u32,
    },
}

/// What the last round's standing queue allows the window to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gate {
    Grow,
    Hold,
}

/// The state machine of [`crate::Discern`]'s default.
#[derive(Debug, Clone)]
pub struct ShortQueueAlgorithm {
    window: Window,
    discriminator: Discriminator<ShortQueue>,
    owner: QueueOwner,
    gate: Gate,
    rounds_seen: u64,
    beta: f64,
    ecn_beta: f64,
}

impl ShortQueueAlgorithm {
    /// An algorithm that starts from `window`, halves (`beta`) on a queue's congestion and
    /// multiplies by `ecn_beta` on a CE mark.
    pub fn new(window: Window, beta: f64, ecn_beta: f64) -> Self {
        Self {
            window,
            discriminator: Discriminator::new(ShortQueue::default()),
            owner: QueueOwner::Own {
                sheds: 0,
                queue_before: Duration::ZERO,
            },
            gate: Gate::Grow,
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

    /// The bytes the path delivers per minimum RTT: the largest window it has proven to carry
    /// without a queue.
    fn pipe(&self) -> u64 {
        (self.path().bottleneck_rate() * self.path().min_rtt().as_secs_f64()) as u64
    }

    fn path(&self) -> &PathModel {
        self.discriminator.classifier().path()
    }

    /// The end of a round: pick the mode and what the window may do next round.
    fn on_round_end(&mut self, batch: &AckBatch) {
        let Some(queue) = self.path().recent_queue() else {
            return;
        };
        let target = self.path().target();
        if queue < target {
            self.owner = match self.owner {
                // A buffer-filler's queue drains after each of its reductions: the queue is the
                // flow's own again only once it stays short for a few rounds.
                QueueOwner::Shared { short_rounds } if short_rounds + 1 < SHARED_EXIT_ROUNDS => {
                    QueueOwner::Shared {
                        short_rounds: short_rounds + 1,
                    }
                }
                _ => QueueOwner::Own {
                    sheds: 0,
                    queue_before: queue,
                },
            };
            self.gate = Gate::Grow;
            return;
        }
        let QueueOwner::Own {
            sheds,
            queue_before,
        } = self.owner
        else {
            self.owner = QueueOwner::Shared { short_rounds: 0 };
            self.gate = Gate::Grow;
            return;
        };
        if self.window.state() == State::SlowStart {
            self.window.end_slow_start();
        }
        if queue < 2 * target {
            self.owner = QueueOwner::Own {
                sheds: 0,
                queue_before: queue,
            };
            self.gate = Gate::Hold;
            return;
        }
        let before = if sheds == 0 { queue } else { queue_before };
        if sheds % 2 == 1 {
            // The packets of the round that shed were sent before it: its effect shows a round
            // later.
            self.owner = QueueOwner::Own {
                sheds: sheds + 1,
                queue_before: before,
            };
            self.gate = Gate::Hold;
            return;
        }
        if sheds >= SHEDS_BEFORE_SHARED
            && queue.as_secs_f64() > (1.0 - SHED_EFFECT) * before.as_secs_f64()
        {
            self.owner = QueueOwner::Shared { short_rounds: 0 };
            self.gate = Gate::Grow;
            return;
        }
        let min_rtt = self.path().min_rtt();
        let keep = (min_rtt + target).as_secs_f64() / (min_rtt + queue).as_secs_f64();
        let shed = (self.window.cwnd() as f64 * keep) as u64;
        if shed < self.window.cwnd() {
            self.window.reduce_to(batch.now, shed);
        }
        self.owner = QueueOwner::Own {
            sheds: sheds + 1,
            queue_before: before,
        };
        self.gate = Gate::Hold;
    }

    fn reduce(&mut self, event: &CongestionEvent) {
        if event.is_ecn() {
            self.window.reduce(event.now, self.ecn_beta);
            return;
        }
        let cwnd = self.window.cwnd();
        let pipe = self.pipe();
        match (self.classifier().last_cause(), self.owner) {
            // A policer: back to the rate it passes.
            (Some(LossCause::Rate), _) => self.window.reduce_to(event.now, pipe.min(cwnd)),
            // The flow's own queue overflowed (or met an AQM): drain it, keep the pipe full.
            (_, QueueOwner::Own { .. }) => {
                let floor = (cwnd as f64 * self.beta) as u64;
                self.window.reduce_to(event.now, pipe.clamp(floor, cwnd));
            }
            // A queue another flow keeps: NewReno's manners.
            (_, QueueOwner::Shared { .. }) => self.window.reduce(event.now, self.beta),
        }
    }
}

impl Algorithm for ShortQueueAlgorithm {
    fn on_ack(&mut self, ack: &Ack) {
        self.discriminator.on_ack(ack);
        if !self.window.admits_growth(ack) || self.gate != Gate::Grow {
            return;
        }
        // Below the window the path has delivered, with no queue in the way: back to it as fast
        // as slow start, the flow's queue being its own (ABBA's fast recovery while the RTT
        // shows no queue, draft-kazuho-ccwg-abba). Above it, or sharing a queue, Reno.
        let own = matches!(self.owner, QueueOwner::Own { .. });
        if own && self.window.cwnd() < self.pipe() {
            self.window.add(ack.bytes);
        } else {
            self.window.grow_reno(ack.bytes);
        }
    }

    fn on_ack_batch(&mut self, batch: &AckBatch) {
        self.discriminator.on_ack_batch(batch);
        let rounds = self.path().rounds();
        if rounds != self.rounds_seen {
            self.rounds_seen = rounds;
            self.on_round_end(batch);
        } else if self.window.state() == State::SlowStart
            && matches!(self.owner, QueueOwner::Own { .. })
            && self
                .path()
                .recent_queue()
                .is_some_and(|q| q >= 2 * self.path().target())
        {
            // A queue building in slow start shows within the round; a round later the window
            // would have doubled into it.
            self.window.end_slow_start();
            self.gate = Gate::Hold;
        }
    }

    fn on_congestion(&mut self, event: &CongestionEvent) -> Decision {
        let event = &CongestionEvent {
            window_packets: self.window.cwnd() / self.window.mss().max(1),
            in_slow_start: self.window.state() == State::SlowStart,
            ..*event
        };
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
