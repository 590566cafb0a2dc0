//! FQ-CoDel, "The Flow Queue CoDel Packet Scheduler and Active Queue Management Algorithm"
//! (Hoeiland-Joergensen et al., RFC 8290; Linux `sch_fq_codel.c`): packets are hashed by flow
//! into queues, each with its own CoDel (RFC 8289) dropping at dequeue, served by deficit round
//! robin with a `quantum` of bytes, new flows ahead of old ones.
//!
//! The scheduler is RFC 8290 section 4: an arriving packet joins its flow's queue, and a queue
//! that was not active enters the *new* list with a quantum of credit (section 4.1). At the
//! limit, the packet at the head of the queue with the most bytes is dropped (section 4.1; Linux
//! drops a batch, the RFC one packet, as here). Dequeue (section 4.2) takes the first queue of
//! the new list, else of the old list; a queue whose credit is spent gets a quantum more and
//! moves to the end of the old list; a non-empty queue gives its head packet to CoDel, which may
//! drop (or, with ECN, mark) it; a queue that empties leaves the new list for the old one, and
//! the old list for good (section 4.2's rule that stops a flow from gaining priority by
//! emptying). A sparse flow, whose queue empties between its packets, is served from the new list
//! ahead of every backlogged flow.
//!
//! Packets are tokens to this scheduler: the link keeps their fate, the caller their bytes.

use std::collections::VecDeque;

use super::codel::CoDelState;
use super::Nanos;

/// Buckets flows hash into (RFC 8290 section 5.1's default, 1024).
pub const FLOWS: usize = 1024;

/// One packet waiting in a flow queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    /// The caller's name for the packet.
    pub token: u64,
    /// IP bytes.
    pub len: u64,
    pub enqueued: Nanos,
    /// ECN-capable: CoDel marks it instead of dropping, when the queue marks.
    pub ect: bool,
}

/// What one dequeue gave: the packet to send (with `ce` if CoDel marked it), and every packet
/// CoDel dropped on the way.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Dequeued {
    pub packet: Option<(Held, bool)>,
    pub dropped: Vec<Held>,
}

#[derive(Debug, Clone)]
struct FlowQueue {
    packets: VecDeque<Held>,
    bytes: u64,
    deficit: i64,
    codel: CoDelState,
    /// On the new or the old list.
    listed: bool,
}

/// The state of one FQ-CoDel queue.
#[derive(Debug, Clone)]
pub struct FqCoDelState {
    quantum: i64,
    limit: usize,
    ecn: bool,
    flows: Vec<FlowQueue>,
    new_flows: VecDeque<usize>,
    old_flows: VecDeque<usize>,
    packets: usize,
}

impl FqCoDelState {
    /// `limit` packets in all, DRR `quantum` bytes, each flow's CoDel at `target`/`interval`;
    /// `ecn`: mark ECN-capable packets where CoDel would drop them.
    pub fn new(limit: usize, quantum: u64, target: Nanos, interval: Nanos, ecn: bool) -> Self {
        let queue = FlowQueue {
            packets: VecDeque::new(),
            bytes: 0,
            deficit: 0,
            codel: CoDelState::new(target, interval),
            listed: false,
        };
        Self {
            quantum: i64::try_from(quantum).unwrap_or(i64::MAX),
            limit: limit.max(1),
            ecn,
            flows: vec![queue; FLOWS],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            packets: 0,
        }
    }

    /// Packets waiting.
    pub fn len(&self) -> usize {
        self.packets
    }

    /// `packet` of the flow `key` arrives; returns the packet dropped to stay within the limit,
    /// if any (the head of the fattest queue, which may be this packet's own).
    pub fn enqueue(&mut self, key: u64, packet: Held) -> Option<Held> {
        let index = bucket(key);
        let quantum = self.quantum;
        let flow = &mut self.flows[index];
        flow.packets.push_back(packet);
        flow.bytes += packet.len;
        self.packets += 1;
        if !flow.listed {
            flow.listed = true;
            flow.deficit = quantum;
            self.new_flows.push_back(index);
        }
        (self.packets > self.limit).then(|| self.drop_from_fattest())
    }

    fn drop_from_fattest(&mut self) -> Held {
        let fattest = (0..self.flows.len())
            .max_by_key(|&i| self.flows[i].bytes)
            .unwrap_or(0);
        let flow = &mut self.flows[fattest];
        let dropped = flow
            .packets
            .pop_front()
            .expect("the fattest queue holds a packet");
        flow.bytes -= dropped.len;
        self.packets -= 1;
        dropped
    }

    /// RFC 8290 section 4.2: the next packet to send at `now`.
    pub fn dequeue(&mut self, now: Nanos) -> Dequeued {
        let mut out = Dequeued::default();
        loop {
            let (index, from_new) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (i, true),
                (None, Some(&i)) => (i, false),
                (None, None) => return out,
            };
            let quantum = self.quantum;
            let flow = &mut self.flows[index];
            if flow.deficit <= 0 {
                flow.deficit += quantum;
                self.pop_list(from_new);
                self.old_flows.push_back(index);
                continue;
            }
            match self.codel_dequeue(index, now, &mut out.dropped) {
                Some((packet, ce)) => {
                    self.flows[index].deficit -= i64::try_from(packet.len).unwrap_or(i64::MAX);
                    out.packet = Some((packet, ce));
                    return out;
                }
                None => {
                    self.pop_list(from_new);
                    if from_new {
                        self.old_flows.push_back(index);
                    } else {
                        self.flows[index].listed = false;
                    }
                }
            }
        }
    }

    /// The flow's head packet past its CoDel: those CoDel drops go to `dropped`; one it marks
    /// comes back with `ce`.
    fn codel_dequeue(
        &mut self,
        index: usize,
        now: Nanos,
        dropped: &mut Vec<Held>,
    ) -> Option<(Held, bool)> {
        let ecn = self.ecn;
        let flow = &mut self.flows[index];
        while let Some(packet) = flow.packets.pop_front() {
            flow.bytes -= packet.len;
            self.packets -= 1;
            let sojourn = now.saturating_sub(packet.enqueued);
            if !flow.codel.drop_at_dequeue(now, sojourn) {
                return Some((packet, false));
            }
            if ecn && packet.ect {
                return Some((packet, true));
            }
            dropped.push(packet);
        }
        None
    }

    fn pop_list(&mut self, from_new: bool) {
        if from_new {
            self.new_flows.pop_front();
        } else {
            self.old_flows.pop_front();
        }
    }
}

/// The bucket of a flow key: a 64-bit mix (splitmix64's finaliser), deterministic across runs.
fn bucket(key: u64) -> usize {
    let mut z = key.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) % FLOWS as u64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = 1_000_000;
    /// 1500-byte packets at 12 Mbit/s: one a millisecond.
    const LEN: u64 = 1500;

    fn fq(limit: usize) -> FqCoDelState {
        FqCoDelState::new(limit, 1514, 5 * MS, 100 * MS, false)
    }

    /// A link serving one `LEN`-byte packet a millisecond; `arrivals(t)` lists the flow keys
    /// arriving in millisecond `t`. Returns, per flow key, the waits of its packets (ms).
    fn serve(
        state: &mut FqCoDelState,
        millis: u64,
        arrivals: impl Fn(u64) -> Vec<u64>,
    ) -> std::collections::HashMap<u64, Vec<u64>> {
        let mut token = 0;
        let mut keys = std::collections::HashMap::new();
        let mut waits: std::collections::HashMap<u64, Vec<u64>> = Default::default();
        for t in 0..millis {
            for key in arrivals(t) {
                token += 1;
                keys.insert(token, key);
                let held = Held {
                    token,
                    len: LEN,
                    enqueued: t * MS,
                    ect: false,
                };
                state.enqueue(key, held);
            }
            if let Some((p, _)) = state.dequeue(t * MS).packet {
                waits
                    .entry(keys[&p.token])
                    .or_default()
                    .push(t - p.enqueued / MS);
            }
        }
        waits
    }

    #[test]
    fn a_sparse_flow_is_isolated_from_a_bulk_flow() {
        let mut state = fq(10_000);
        // The bulk flow sends two packets a millisecond into a link that serves one: its queue
        // (and CoDel's drops) grow. The sparse flow sends one packet every 20 ms.
        let waits = serve(&mut state, 2000, |t| {
            let mut a = vec![1, 1];
            if t % 20 == 0 {
                a.push(2);
            }
            a
        });
        let sparse = &waits[&2];
        let bulk = &waits[&1];
        // At most the packet in service and one quantum of the other flow's ahead of it.
        assert!(sparse.iter().all(|&w| w <= 2), "sparse waits {sparse:?}");
        let late_bulk = &bulk[bulk.len() / 2..];
        assert!(
            late_bulk.iter().all(|&w| w >= 5),
            "bulk waits {:?}",
            &late_bulk[..20]
        );
    }

    #[test]
    fn deficit_round_robin_shares_bytes_equally_between_two_bulk_flows() {
        let mut state = FqCoDelState::new(100_000, 1514, 5_000 * MS, 100_000 * MS, false);
        // Flow 1 sends 1500-byte packets, flow 2 500-byte ones; both always backlogged.
        for i in 0..3000 {
            let big = Held {
                token: i,
                len: 1500,
                enqueued: 0,
                ect: false,
            };
            state.enqueue(1, big);
            for j in 0..3 {
                let small = Held {
                    token: 100_000 + 3 * i + j,
                    len: 500,
                    enqueued: 0,
                    ect: false,
                };
                state.enqueue(2, small);
            }
        }
        let (mut big, mut small) = (0u64, 0u64);
        for _ in 0..2000 {
            let (p, _) = state.dequeue(0).packet.expect("backlogged");
            if p.token < 100_000 {
                big += p.len;
            } else {
                small += p.len;
            }
        }
        let share = big as f64 / (big + small) as f64;
        assert!((share - 0.5).abs() < 0.02, "{big} vs {small}");
    }

    #[test]
    fn the_limit_drops_from_the_fattest_flow() {
        let mut state = fq(10);
        for i in 0..8 {
            assert_eq!(
                state.enqueue(
                    1,
                    Held {
                        token: i,
                        len: LEN,
                        enqueued: 0,
                        ect: false
                    }
                ),
                None
            );
        }
        for i in 8..10 {
            state.enqueue(
                2,
                Held {
                    token: i,
                    len: LEN,
                    enqueued: 0,
                    ect: false,
                },
            );
        }
        // An eleventh packet of the thin flow: the head of the fat one goes.
        let dropped = state.enqueue(
            2,
            Held {
                token: 10,
                len: LEN,
                enqueued: 0,
                ect: false,
            },
        );
        assert_eq!(dropped.map(|p| p.token), Some(0));
        assert_eq!(state.len(), 10);
    }

    #[test]
    fn with_ecn_codel_marks_capable_packets_instead_of_dropping_them() {
        let mut state = FqCoDelState::new(10_000, 1514, 5 * MS, 100 * MS, true);
        let mut marks = 0;
        for t in 0..2000u64 {
            for k in 0..2 {
                let held = Held {
                    token: 2 * t + k,
                    len: LEN,
                    enqueued: t * MS,
                    ect: true,
                };
                state.enqueue(1, held);
            }
            let out = state.dequeue(t * MS);
            assert!(out.dropped.is_empty());
            marks += usize::from(out.packet.is_some_and(|(_, ce)| ce));
        }
        assert!(marks > 0);
    }
}
