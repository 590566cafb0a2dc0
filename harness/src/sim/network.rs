//! The network: link directions, each flow's routes across them, the event queue, and the ground
//! truth of drops. A datagram from a flow's sender crosses the forward direction of each link of
//! its path in order; the receiver's datagrams cross the reverse directions in reverse order.

use std::collections::HashMap;

use bytes::BytesMut;
use quinn_proto::EcnCodepoint;

use super::clock::{from_duration, Clock, EventQueue, QuinnTime, TimerWake, VTime};
use super::liar::Liar;
use super::link::{queue_delay, LinkDir, Outcome};
use super::loss::Direction;
use super::truth::{Cause, DelayTruth, DropRecord, GroundTruth, Side};
use crate::report::QueueDelay;
use crate::scenario::Scenario;

/// A datagram in flight.
pub struct Packet {
    pub flow: u32,
    pub from: Side,
    /// Index of the next hop on its route; the route's length means "at the destination".
    pub hop: u16,
    /// When quinn produced it.
    pub sent: VTime,
    /// A receiver datagram: `(arrival, sent)` of the latest sender datagram to have reached the
    /// receiver when it was sent, i.e. the newest packet its ACK frame acknowledges.
    pub newest: Option<(VTime, VTime)>,
    pub ecn: Option<EcnCodepoint>,
    /// Time it has waited in queues so far on its route.
    pub queued: VTime,
    pub data: BytesMut,
}

pub enum Event {
    /// A flow's sender opens its connection.
    Start(usize),
    /// A connection's timer; stale if `gen` is not the connection's current generation.
    Timer { flow: usize, side: Side, gen: u64 },
    /// A datagram reaches hop `packet.hop` of its route (or its destination).
    Packet(Packet),
    /// Periodic time-series sample of every active flow.
    Tick,
    /// A link direction that holds packets (FQ-CoDel) takes its next one.
    Service(usize),
}

/// Routes of one flow, as indices into `Net::links`.
struct Route {
    forward: Vec<usize>,
    reverse: Vec<usize>,
}

/// Size of the buffers datagrams are carved from; one allocation serves many datagrams.
const POOL_CHUNK: usize = 256 * 1024;

pub struct Net {
    pub clock: Clock,
    pub queue: EventQueue<Event>,
    /// Link directions: `2 * link` forward, `2 * link + 1` reverse.
    pub links: Vec<LinkDir>,
    routes: Vec<Route>,
    pub truth: GroundTruth,
    pub delays: DelayTruth,
    pool: BytesMut,
    /// Scratch buffer for `poll_transmit` and endpoint responses.
    pub scratch: Vec<u8>,
    /// Wall time spent inside quinn-proto calls.
    pub quinn: QuinnTime,
    /// Packets held by link directions that schedule (FQ-CoDel), by token, with the direction.
    held: HashMap<u64, (Packet, usize)>,
    next_token: u64,
    /// Per direction, whether a `Service` event is pending.
    service_pending: Vec<bool>,
    /// Per flow, the time each of its data packets that reached the receiver waited in queues
    /// on the way, in microseconds.
    queued_us: Vec<Vec<u32>>,
    /// Per flow, its receiver's lie, if it lies (`receiver_lies`).
    pub liars: Vec<Option<Liar>>,
    /// When the endpoints wake for their timers (`timer_granularity`).
    pub timers: TimerWake,
}

pub fn dir_index(link: usize, dir: Direction) -> usize {
    2 * link
        + match dir {
            Direction::Forward => 0,
            Direction::Reverse => 1,
        }
}

impl Net {
    /// `paths[i]` is flow `i`'s path (link indices, sender to receiver), already validated.
    pub fn new(scenario: &Scenario, paths: &[Vec<usize>], clock: Clock) -> Self {
        let mut links = Vec::with_capacity(2 * scenario.links.len());
        for (i, link) in scenario.links.iter().enumerate() {
            for dir in [Direction::Forward, Direction::Reverse] {
                links.push(LinkDir::new(link, scenario.seed, i, dir));
            }
        }
        let routes = paths
            .iter()
            .map(|p| Route {
                forward: p
                    .iter()
                    .map(|&l| dir_index(l, Direction::Forward))
                    .collect(),
                reverse: p
                    .iter()
                    .rev()
                    .map(|&l| dir_index(l, Direction::Reverse))
                    .collect(),
            })
            .collect();
        Self {
            clock,
            queue: EventQueue::until(from_duration(scenario.duration)),
            links,
            routes,
            truth: GroundTruth::default(),
            delays: DelayTruth::default(),
            pool: BytesMut::new(),
            scratch: Vec::with_capacity(2048),
            quinn: QuinnTime::default(),
            held: HashMap::new(),
            next_token: 0,
            service_pending: vec![false; 2 * scenario.links.len()],
            queued_us: vec![Vec::new(); paths.len()],
            liars: vec![None; paths.len()],
            timers: TimerWake::new(scenario.timer_granularity),
        }
    }

    /// Puts the datagram `data` that `side` of `flow` produced at `now` on the network.
    pub fn send(
        &mut self,
        now: VTime,
        flow: usize,
        side: Side,
        data: &[u8],
        ecn: Option<EcnCodepoint>,
    ) {
        if self.pool.capacity() < data.len() {
            self.pool.reserve(POOL_CHUNK.max(data.len()));
        }
        self.pool.extend_from_slice(data);
        let mut data = self.pool.split_to(data.len());
        if let (Side::Receiver, Some(Some(liar))) = (side, self.liars.get_mut(flow)) {
            // Links are FIFO, so the newest arrival is the largest packet the ACK acknowledges.
            let queued_us = self.queued_us[flow].last().copied().unwrap_or(0);
            liar.rewrite(&mut data, u64::from(queued_us));
        }
        let packet = Packet {
            flow: flow as u32,
            from: side,
            hop: 0,
            sent: now,
            newest: match side {
                Side::Sender => None,
                Side::Receiver => self.delays.latest_arrival(flow),
            },
            ecn,
            queued: 0,
            data,
        };
        // A path without links: deliver as a separate event, never from inside a send.
        if let Some(p) = self.forward(now, packet) {
            self.queue.push(now, Event::Packet(p));
        }
    }

    /// The queueing delay flow `flow`'s data packets met on their way, if any arrived.
    pub fn flow_queue_delay(&self, flow: usize) -> Option<QueueDelay> {
        queue_delay(self.queued_us.get(flow)?)
    }

    /// The packet reached its destination at `now`: the ground truth of delays notes it.
    pub fn arrived(&mut self, now: VTime, packet: &Packet) {
        let flow = packet.flow as usize;
        match packet.from {
            Side::Sender => {
                self.delays.at_receiver(flow, now, packet.sent);
                self.queued_us[flow].push(u32::try_from(packet.queued / 1000).unwrap_or(u32::MAX));
            }
            Side::Receiver => self.delays.at_sender(flow, now, packet.sent, packet.newest),
        }
    }

    /// The packet reached hop `packet.hop` at `now`. Returns it if it is at its destination;
    /// otherwise offers it to the next link, which schedules its arrival or drops it.
    pub fn forward(&mut self, now: VTime, packet: Packet) -> Option<Packet> {
        let route = &self.routes[packet.flow as usize];
        let route = match packet.from {
            Side::Sender => &route.forward,
            Side::Receiver => &route.reverse,
        };
        let Some(&dir) = route.get(packet.hop as usize) else {
            return Some(packet);
        };
        let ect = matches!(packet.ecn, Some(EcnCodepoint::Ect0 | EcnCodepoint::Ect1));
        if self.links[dir].is_scheduled() {
            self.hold(now, dir, packet, ect);
            return None;
        }
        let outcome = self.links[dir].offer(now, packet.data.len(), ect);
        self.settle(dir, packet, outcome);
        None
    }

    /// Hands `packet` to scheduling direction `dir` to hold, and makes sure it will be served.
    fn hold(&mut self, now: VTime, dir: usize, packet: Packet, ect: bool) {
        let token = self.next_token;
        self.next_token += 1;
        // The scheduler's 5-tuple: each flow's endpoints have addresses of their own.
        let key = 2 * u64::from(packet.flow) + u64::from(packet.from == Side::Receiver);
        let len = packet.data.len();
        self.held.insert(token, (packet, dir));
        if let Some((token, outcome)) = self.links[dir].enqueue(now, len, ect, key, token) {
            self.release(token, outcome);
        }
        self.schedule_service(now, dir);
    }

    /// A `Service` event of direction `dir` at `now`.
    pub fn serve(&mut self, now: VTime, dir: usize) {
        self.service_pending[dir] = false;
        for (token, outcome) in self.links[dir].serve(now) {
            self.release(token, outcome);
        }
        self.schedule_service(now, dir);
    }

    fn schedule_service(&mut self, now: VTime, dir: usize) {
        if self.service_pending[dir] {
            return;
        }
        if let Some(at) = self.links[dir].next_service(now) {
            self.service_pending[dir] = true;
            self.queue.push(at, Event::Service(dir));
        }
    }

    /// A held packet's fate is decided.
    fn release(&mut self, token: u64, outcome: Outcome) {
        if let Some((packet, dir)) = self.held.remove(&token) {
            self.settle(dir, packet, outcome);
        }
    }

    /// Carries out `outcome` for `packet` at direction `dir`: on to the next hop, or into the
    /// ground truth as a drop.
    fn settle(&mut self, dir: usize, mut packet: Packet, outcome: Outcome) {
        let cause = match outcome {
            Outcome::Arrives { at, ce, queued } => {
                if ce {
                    packet.ecn = Some(EcnCodepoint::Ce);
                }
                packet.queued += queued;
                packet.hop += 1;
                self.queue.push_in_line(dir, at, Event::Packet(packet));
                return;
            }
            Outcome::QueueDrop(at) => (Cause::Queue, at),
            Outcome::ChannelDrop(at) => (Cause::Channel, at),
        };
        self.truth.record(DropRecord {
            flow: packet.flow as usize,
            side: packet.from,
            sent: packet.sent,
            link: dir / 2,
            direction: if dir.is_multiple_of(2) {
                Direction::Forward
            } else {
                Direction::Reverse
            },
            cause: cause.0,
            at: cause.1,
        });
    }
}
