//! Ground truth: every datagram the simulator dropped, and why, against which controller verdicts
//! are scored; and the ACK delay and forward one-way delay behind every ACK frame, against which
//! the controllers' recovered ACK delays and one-way-delay hints are scored.

use std::collections::BTreeMap;

use super::clock::VTime;
use super::loss::Direction;
use crate::capture::FrameDelay;
pub use crate::capture::Verdict;
use crate::report::{DelaySignals, Drops, VerdictAccuracy};

/// Which endpoint of a flow sent a datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The client, which sends the flow's data.
    Sender,
    /// The server, which receives the data and sends ACKs.
    Receiver,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// Drop-tail queue overflow.
    Queue,
    /// The link's loss model.
    Channel,
}

/// One dropped datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DropRecord {
    pub flow: usize,
    pub side: Side,
    /// When quinn produced the datagram (the `now` given to `poll_transmit`).
    pub sent: VTime,
    pub link: usize,
    pub direction: Direction,
    pub cause: Cause,
    /// When it was dropped.
    pub at: VTime,
}

/// A controller's classification of a loss.
#[derive(Default)]
pub struct GroundTruth {
    records: Vec<DropRecord>,
    /// Sender-side drops by (flow, send time): (queue drops, channel drops).
    by_send: BTreeMap<(usize, VTime), (u32, u32)>,
}

impl GroundTruth {
    pub fn record(&mut self, r: DropRecord) {
        if r.side == Side::Sender {
            let e = self.by_send.entry((r.flow, r.sent)).or_default();
            match r.cause {
                Cause::Queue => e.0 += 1,
                Cause::Channel => e.1 += 1,
            }
        }
        self.records.push(r);
    }

    /// Flow `flow`'s data packets that a queue (drop-tail, AQM or policer) dropped.
    pub fn queue_drops_of(&self, flow: usize) -> u64 {
        let of_flow = |r: &&DropRecord| r.flow == flow && r.side == Side::Sender;
        let queue = |r: &&DropRecord| r.cause == Cause::Queue;
        self.records.iter().filter(of_flow).filter(queue).count() as u64
    }

    pub fn drops(&self) -> Drops {
        let mut d = Drops::default();
        for r in &self.records {
            match r.cause {
                Cause::Queue => d.queue += 1,
                Cause::Channel => d.channel += 1,
            }
        }
        d
    }

    /// The cause of the drop of flow `flow`'s sender-side datagram sent in `from..=to`, if one was
    /// dropped. If several were (datagrams produced at one instant), the majority cause wins and a
    /// tie counts as queue.
    pub fn cause_of(&self, flow: usize, from: VTime, to: VTime) -> Option<Cause> {
        let (mut q, mut c) = (0, 0);
        for (_, &(dq, dc)) in self.by_send.range((flow, from)..=(flow, to)) {
            q += dq;
            c += dc;
        }
        match (q, c) {
            (0, 0) => None,
            (q, c) if c > q => Some(Cause::Channel),
            _ => Some(Cause::Queue),
        }
    }

    /// Scores one loss decision: the controller said `verdict` about a packet whose drop had
    /// `cause` (`None`: it was not dropped, the loss was declared spuriously).
    pub fn score(acc: &mut VerdictAccuracy, verdict: Verdict, cause: Option<Cause>) {
        match (cause, verdict) {
            (None, _) => acc.spurious += 1,
            (Some(Cause::Channel), Verdict::Random) => acc.random_as_random += 1,
            (Some(Cause::Channel), Verdict::Congestion) => acc.random_as_congestion += 1,
            (Some(Cause::Queue), Verdict::Congestion) => acc.congestion_as_congestion += 1,
            (Some(Cause::Queue), Verdict::Random) => acc.congestion_as_random += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delay_truth_matches_frames_by_time_and_prunes_what_it_scored() {
        let us = 1000;
        let mut t = DelayTruth::default();
        // Packet sent at 1 ms arrives at 21 ms; the receiver acks it at 21.5 ms, the ACK arrives
        // at 41.5 ms; the controller recovers the delay when the next frame comes at 42 ms.
        t.at_receiver(0, 21_000 * us, 1_000 * us);
        let newest = t.latest_arrival(0);
        t.at_sender(0, 41_500 * us, 21_500 * us, newest);
        t.at_sender(0, 41_900 * us, 21_900 * us, newest);
        let frame = FrameDelay {
            frame_age_us: 500,
            sent_age_us: 41_000,
            rtt_us: 40_500,
            ack_delay_us: 480,
            owd_hint_us: 20_100,
        };
        t.score(0, 42_000 * us, &frame);
        // The same frame again (a filter and the controller behind it): scored once.
        t.score(0, 42_000 * us, &frame);
        // A frame no receiver datagram carried.
        t.score(
            0,
            43_000 * us,
            &FrameDelay {
                frame_age_us: 100,
                ..frame
            },
        );
        let s = t.summary().unwrap();
        assert_eq!((s.frames_checked, s.frames_unmatched), (1, 1));
        assert_eq!(s.ack_delay_within_100us, 1.0);
        assert_eq!(s.ack_delay_error_mean_us, 20.0);
        assert_eq!(s.owd_hint_bias_us, 100.0);
        assert_eq!(s.owd_hint_error_p95_us, 100);
    }

    #[test]
    fn histogram_quantiles_are_bin_floors() {
        let mut h = ErrorHistogram::default();
        for us in 0..100 {
            h.add(us * 50);
        }
        assert_eq!(h.quantile(0.5), 2400);
        assert_eq!(h.quantile(0.95), 4700);
        assert_eq!(h.quantile(1.0), 4900);
    }

    fn rec(flow: usize, sent: VTime, cause: Cause) -> DropRecord {
        DropRecord {
            flow,
            side: Side::Sender,
            sent,
            link: 0,
            direction: Direction::Forward,
            cause,
            at: sent + 5,
        }
    }

    #[test]
    fn looks_up_by_flow_and_send_time() {
        let mut t = GroundTruth::default();
        t.record(rec(0, 1000, Cause::Channel));
        t.record(rec(1, 1000, Cause::Queue));
        t.record(DropRecord {
            side: Side::Receiver,
            ..rec(0, 2000, Cause::Queue)
        });
        assert_eq!(t.cause_of(0, 1000, 1000), Some(Cause::Channel));
        assert_eq!(t.cause_of(1, 0, 1999), Some(Cause::Queue));
        assert_eq!(t.cause_of(0, 1001, 5000), None);
        assert_eq!(
            t.drops(),
            Drops {
                queue: 2,
                channel: 1
            }
        );
        let mut acc = VerdictAccuracy::default();
        GroundTruth::score(&mut acc, Verdict::Random, t.cause_of(0, 1000, 1000));
        GroundTruth::score(&mut acc, Verdict::Random, None);
        assert_eq!(acc.random_as_random, 1);
        assert_eq!(acc.spurious, 1);
    }
}

/// What the receiver knew when it sent one datagram that reached the sender: the datagram's ACK
/// frame acknowledges, as its newest packet, the last sender datagram to have arrived (links are
/// FIFO, so the newest arrival is the largest packet number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckTruth {
    /// When the receiver sent the datagram.
    pub ack_sent: VTime,
    /// When the newest sender datagram it acknowledges was sent, and when it reached the receiver.
    pub newest_sent: VTime,
    pub newest_arrival: VTime,
}

/// Receiver datagrams older than this at the sender are forgotten even if no controller event
/// ever asked for them (quinn's own controllers emit none).
const ACK_HORIZON: VTime = 10_000_000_000;

/// A recovered delay this close to the truth counts as recovered (microseconds).
const WITHIN: u64 = 100;

/// A frame the receiver held at least this long counts as delayed (microseconds).
const DELAYED: u64 = 500;

/// Errors in microseconds: 1 us bins up to 1 ms, then 100 us bins up to 101 ms, then one overflow
/// bin; memory stays fixed however long the run.
#[derive(Debug, Clone)]
struct ErrorHistogram {
    bins: Vec<u64>,
    count: u64,
    sum_us: u128,
}

impl Default for ErrorHistogram {
    fn default() -> Self {
        Self {
            bins: vec![0; 2002],
            count: 0,
            sum_us: 0,
        }
    }
}

impl ErrorHistogram {
    fn bin(us: u64) -> usize {
        if us < 1000 {
            us as usize
        } else {
            (1000 + (us - 1000) / 100).min(2001) as usize
        }
    }

    fn floor(bin: usize) -> u64 {
        if bin < 1000 {
            bin as u64
        } else {
            1000 + (bin as u64 - 1000) * 100
        }
    }

    fn add(&mut self, us: u64) {
        self.bins[Self::bin(us)] += 1;
        self.count += 1;
        self.sum_us += u128::from(us);
    }

    fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum_us as f64 / self.count as f64
        }
    }

    /// The lower edge of the bin holding the `q` quantile.
    fn quantile(&self, q: f64) -> u64 {
        let rank = (q * self.count as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (bin, &n) in self.bins.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return Self::floor(bin);
            }
        }
        0
    }
}

/// Per flow: the sender's datagrams as they reach the receiver, the receiver's as they reach the
/// sender, and the score of every `rtt` event matched against them.
#[derive(Debug, Default)]
pub struct DelayTruth {
    /// Per flow: (arrival, sent) of the latest sender datagram at the receiver.
    latest_arrival: Vec<Option<(VTime, VTime)>>,
    /// Per flow: receiver datagrams by their arrival at the sender.
    acks: Vec<BTreeMap<VTime, AckTruth>>,
    /// Per flow: arrival at the sender of the last frame scored.
    last_scored: Vec<Option<VTime>>,
    checked: u64,
    unmatched: u64,
    within: u64,
    delayed: u64,
    delayed_within: u64,
    ack_delay_error: ErrorHistogram,
    owd_error: ErrorHistogram,
    owd_signed_sum_us: i128,
}

impl DelayTruth {
    fn flow(&mut self, flow: usize) {
        if self.acks.len() <= flow {
            self.acks.resize_with(flow + 1, BTreeMap::new);
            self.latest_arrival.resize(flow + 1, None);
            self.last_scored.resize(flow + 1, None);
        }
    }

    /// What the receiver of `flow` knows when it sends a datagram: the latest sender datagram to
    /// have reached it, as `(arrival, sent)`.
    pub fn latest_arrival(&self, flow: usize) -> Option<(VTime, VTime)> {
        self.latest_arrival.get(flow).copied().flatten()
    }

    /// A sender datagram sent at `sent` reached the receiver of `flow` at `now`.
    pub fn at_receiver(&mut self, flow: usize, now: VTime, sent: VTime) {
        self.flow(flow);
        self.latest_arrival[flow] = Some((now, sent));
    }

    /// A receiver datagram sent at `ack_sent`, when the receiver's latest arrival was `newest`,
    /// reached the sender of `flow` at `now`.
    pub fn at_sender(
        &mut self,
        flow: usize,
        now: VTime,
        ack_sent: VTime,
        newest: Option<(VTime, VTime)>,
    ) {
        let Some((newest_arrival, newest_sent)) = newest else {
            return;
        };
        self.flow(flow);
        let acks = &mut self.acks[flow];
        acks.insert(
            now,
            AckTruth {
                ack_sent,
                newest_sent,
                newest_arrival,
            },
        );
        while acks
            .first_key_value()
            .is_some_and(|(&at, _)| at + ACK_HORIZON < now)
        {
            acks.pop_first();
        }
    }

    /// Scores one `rtt` event of `flow` emitted at `now`: finds the receiver datagram that
    /// arrived when the frame was processed (the event's ages are whole microseconds, so within
    /// one microsecond) and whose newest packet was sent when the frame's newest packet was.
    pub fn score(&mut self, flow: usize, now: VTime, frame: &FrameDelay) {
        self.flow(flow);
        let window = |age_us: u64| {
            let to = now.saturating_sub(age_us.saturating_mul(1000));
            (now.saturating_sub((age_us + 1).saturating_mul(1000)) + 1).min(to)..=to
        };
        let (frames, sends) = (window(frame.frame_age_us), window(frame.sent_age_us));
        // A classifier in front of one of this crate's controllers (`composite+newreno`) and
        // the controller behind it both report each frame: score it once.
        if self.last_scored[flow].is_some_and(|at| frames.contains(&at)) {
            return;
        }
        let acks = &mut self.acks[flow];
        let mut candidates = acks.range(frames.clone());
        let matched = match (candidates.next(), candidates.next()) {
            (Some((&at, &truth)), None) if sends.contains(&truth.newest_sent) => Some((at, truth)),
            _ => None,
        };
        // Later events belong to later frames: nothing up to this one will be asked for again.
        let keep = acks.split_off(&frames.end().saturating_add(1));
        *acks = keep;
        let Some((at, truth)) = matched else {
            self.unmatched += 1;
            return;
        };
        self.last_scored[flow] = Some(at);
        let true_delay_us = truth.ack_sent.saturating_sub(truth.newest_arrival) / 1000;
        let true_owd_us = truth.newest_arrival.saturating_sub(truth.newest_sent) / 1000;
        let ack_error = frame.ack_delay_us.abs_diff(true_delay_us);
        self.checked += 1;
        if ack_error <= WITHIN {
            self.within += 1;
        }
        if true_delay_us >= DELAYED {
            self.delayed += 1;
            if ack_error <= WITHIN {
                self.delayed_within += 1;
            }
        }
        self.ack_delay_error.add(ack_error);
        self.owd_error.add(frame.owd_hint_us.abs_diff(true_owd_us));
        self.owd_signed_sum_us += i128::from(frame.owd_hint_us) - i128::from(true_owd_us);
    }

    /// The run's figures, or `None` if no controller reported a recovered delay.
    pub fn summary(&self) -> Option<DelaySignals> {
        if self.checked + self.unmatched == 0 {
            return None;
        }
        let n = self.checked.max(1) as f64;
        Some(DelaySignals {
            frames_checked: self.checked,
            frames_unmatched: self.unmatched,
            ack_delay_within_100us: self.within as f64 / n,
            frames_delayed: self.delayed,
            delayed_within_100us: self.delayed_within as f64 / self.delayed.max(1) as f64,
            ack_delay_error_mean_us: self.ack_delay_error.mean(),
            ack_delay_error_p95_us: self.ack_delay_error.quantile(0.95),
            owd_hint_bias_us: self.owd_signed_sum_us as f64 / n,
            owd_hint_error_mean_us: self.owd_error.mean(),
            owd_hint_error_p95_us: self.owd_error.quantile(0.95),
        })
    }
}
