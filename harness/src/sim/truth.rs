//! Ground truth: every datagram the simulator dropped, and why. Controller verdicts are scored
//! against it.

use std::collections::BTreeMap;

use super::clock::VTime;
use super::loss::Direction;
pub use crate::capture::Verdict;
use crate::report::{Drops, VerdictAccuracy};

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
