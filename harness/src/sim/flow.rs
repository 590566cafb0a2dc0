//! One flow: a QUIC client (the sender: one unidirectional stream carrying the flow's bytes) and a
//! QUIC server (the receiver: reads and checks every byte), driven sans-IO in virtual time, on
//! either stack behind the seam of [`super::stack`].

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::ops::ControlFlow;

use bytes::{Bytes, BytesMut};

use super::clock::{ticks, QuinnTime, VTime};
use super::network::{Event as NetEvent, Net, Packet};
use super::stack::{AppEvent, End, ReadStop};
use super::truth::Side;
use super::SimError;
use crate::payload::Pattern;
use crate::report::record::SenderCounts;

/// Bytes handed to the sender's stream per `write` call.
const WRITE_CHUNK: usize = 64 * 1024;

/// A fake address of one side of flow `index`: 10.<i/256>.<i%256>.1 (sender) or .2 (receiver).
pub fn address(index: usize, side: Side) -> SocketAddr {
    let host = match side {
        Side::Sender => 1,
        Side::Receiver => 2,
    };
    let ip = Ipv4Addr::new(10, (index / 256) as u8, (index % 256) as u8, host);
    SocketAddr::V4(SocketAddrV4::new(ip, 4433))
}

/// The RNG seed of one endpoint, so connection IDs and packet-number skips are reproducible.
pub fn endpoint_seed(seed: u64, index: usize, side: Side) -> [u8; 32] {
    let mut s = [0u8; 32];
    s[..8].copy_from_slice(&seed.to_le_bytes());
    s[8..16].copy_from_slice(&(index as u64).to_le_bytes());
    s[16] = match side {
        Side::Sender => 1,
        Side::Receiver => 2,
    };
    s[24..].copy_from_slice(b"sim-quic");
    s
}

/// One QUIC endpoint with (at most) one connection, and its timer.
struct Peer<E> {
    end: E,
    addr: SocketAddr,
    /// The connection's pending timeout and its generation (older timer events are stale).
    timer: Option<VTime>,
    timer_gen: u64,
}

impl<E> Peer<E> {
    fn new(end: E, addr: SocketAddr) -> Self {
        Self {
            end,
            addr,
            timer: None,
            timer_gen: 0,
        }
    }

    /// Makes `next` the connection's pending timeout; an event for an older one goes stale.
    fn set_timer(&mut self, next: Option<VTime>, flow: usize, side: Side, net: &mut Net) {
        if next == self.timer {
            return;
        }
        self.timer = next;
        self.timer_gen += 1;
        let gen = self.timer_gen;
        let key = 2 * flow + usize::from(side == Side::Receiver);
        net.queue
            .set_timer(key, next, NetEvent::Timer { flow, side, gen });
    }
}

/// The application on the sending side.
struct Sender<S> {
    /// The handshake completed (the stack's `Connected`).
    connected: bool,
    stream: Option<S>,
    writable: bool,
    /// Total bytes to send; `u64::MAX` for an unbounded flow.
    total: u64,
    /// Bytes accepted by the stream so far.
    written: u64,
    /// Generated but not yet accepted bytes, at offset `written`. Handed to the stack as `Bytes`,
    /// which it keeps without copying (`write` would copy every byte once more).
    chunk: Bytes,
    finished: bool,
}

/// The application on the receiving side.
struct Receiver<S> {
    stream: Option<S>,
    ended: bool,
}

/// What the simulator knows of a flow whichever its stack.
pub struct FlowInfo {
    pub index: usize,
    pub controller: String,
    pub start: VTime,
    pub bytes: Option<u64>,
    pub completion: Option<VTime>,
    pub started: bool,
    /// Why the receiver closed the connection before the flow ended.
    pub receiver_closed: Option<String>,
    /// Application bytes the receiver checked, and datagrams that reached it.
    pub delivered: u64,
    pub packets_delivered: u64,
    /// The sender's handshake completed.
    pub handshake: bool,
}

impl FlowInfo {
    /// The finished flow completed, or the flow is still to be driven.
    pub fn done(&self) -> bool {
        self.completion.is_some()
    }
}

/// Everything the simulator tracks about one flow whose endpoints are `E`s.
pub struct FlowState<E: End> {
    pub info: FlowInfo,
    pattern: Pattern,
    client: Peer<E>,
    server: Peer<E>,
    client_config: E::Client,
    sender: Sender<E::Stream>,
    receiver: Receiver<E::Stream>,
    span: tracing::Span,
}

pub struct FlowSetup<E: End> {
    pub index: usize,
    pub controller: String,
    pub start: VTime,
    pub bytes: Option<u64>,
    pub seed: u64,
    /// The sender's endpoint, and the configuration it connects with.
    pub client: E,
    pub client_config: E::Client,
    /// The receiver's endpoint, which accepts the connection.
    pub server: E,
}

impl<E: End> FlowState<E> {
    pub fn new(s: FlowSetup<E>) -> Self {
        Self {
            info: FlowInfo {
                index: s.index,
                controller: s.controller,
                start: s.start,
                bytes: s.bytes,
                completion: None,
                started: false,
                receiver_closed: None,
                delivered: 0,
                packets_delivered: 0,
                handshake: false,
            },
            pattern: Pattern::new(s.seed, s.index),
            client: Peer::new(s.client, address(s.index, Side::Sender)),
            server: Peer::new(s.server, address(s.index, Side::Receiver)),
            client_config: s.client_config,
            sender: Sender {
                stream: None,
                connected: false,
                writable: false,
                total: s.bytes.unwrap_or(u64::MAX),
                written: 0,
                chunk: Bytes::new(),
                finished: false,
            },
            receiver: Receiver {
                stream: None,
                ended: false,
            },
            span: tracing::info_span!(
                crate::capture::SPAN,
                index = s.index as u64,
                role = "sender"
            ),
        }
    }

    /// The sender's congestion window and smoothed RTT, once it has a connection.
    pub fn window_and_rtt(&self) -> Option<(u64, std::time::Duration)> {
        self.client.end.window_and_rtt()
    }

    /// The sender's counters, once it has a connection.
    pub fn sender_counts(&mut self) -> Option<SenderCounts> {
        self.client.end.counts()
    }

    /// Opens the connection at `now`.
    pub fn start(&mut self, now: VTime, net: &mut Net) -> Result<(), SimError> {
        self.info.started = true;
        let t = net.clock.instant(now);
        let _g = self.span.enter();
        let remote = self.server.addr;
        let config = self.client_config.clone();
        let client = &mut self.client.end;
        net.quinn
            .timed(|| client.connect(t, config, remote))
            .map_err(|reason| SimError::Connect {
                flow: self.info.index,
                reason,
            })?;
        drop(_g);
        self.drive(Side::Sender, now, net)
    }

    /// A datagram reached `packet.from`'s peer at `now`.
    pub fn receive(&mut self, now: VTime, packet: Packet, net: &mut Net) -> Result<(), SimError> {
        let to = match packet.from {
            Side::Sender => Side::Receiver,
            Side::Receiver => Side::Sender,
        };
        let _g = (to == Side::Sender).then(|| self.span.enter());
        let (peer, remote) = match to {
            Side::Sender => (&mut self.client, self.server.addr),
            Side::Receiver => {
                self.info.packets_delivered += 1;
                (&mut self.server, self.client.addr)
            }
        };
        let t = net.clock.instant(now);
        net.scratch.clear();
        let scratch = &mut net.scratch;
        let accept = to == Side::Receiver;
        let end = &mut peer.end;
        let handled = net
            .quinn
            .timed(|| end.handle(t, remote, packet.ecn, packet.data, scratch, accept));
        match handled {
            Ok(None) => {}
            Ok(Some(tx)) => {
                let data = std::mem::take(&mut net.scratch);
                net.send(now, self.info.index, to, &data[..tx.size], tx.ecn);
                net.scratch = data;
            }
            Err(reason) => {
                return Err(SimError::Connect {
                    flow: self.info.index,
                    reason,
                })
            }
        }
        drop(_g);
        self.drive(to, now, net)
    }

    /// A timer event of `side` fired at `now` with generation `gen`.
    pub fn timeout(
        &mut self,
        side: Side,
        gen: u64,
        now: VTime,
        net: &mut Net,
    ) -> Result<(), SimError> {
        let peer = match side {
            Side::Sender => &mut self.client,
            Side::Receiver => &mut self.server,
        };
        if peer.timer_gen != gen {
            return Ok(());
        }
        peer.timer = None;
        if peer.end.has_connection() {
            let _g = (side == Side::Sender).then(|| self.span.enter());
            let t = net.clock.instant(now);
            let end = &mut peer.end;
            net.quinn.timed(|| end.handle_timeout(t));
        }
        self.drive(side, now, net)
    }

    /// Lets `side` react to whatever happened: endpoint events, application I/O, transmissions,
    /// and its next timeout.
    pub fn drive(&mut self, side: Side, now: VTime, net: &mut Net) -> Result<(), SimError> {
        let _g = (side == Side::Sender).then(|| self.span.enter());
        let index = self.info.index;
        let peer = match side {
            Side::Sender => &mut self.client,
            Side::Receiver => &mut self.server,
        };
        if !peer.end.has_connection() {
            return Ok(());
        }
        let end = &mut peer.end;
        let mut quinn = std::mem::take(&mut net.quinn);
        quinn.timed(|| end.drain_endpoint_events());
        let result = loop {
            let info = &mut self.info;
            let ended = Ended {
                completed: info.completion.is_some(),
                receiver_closed: &mut info.receiver_closed,
            };
            let (sender, receiver) = (&mut self.sender, &mut self.receiver);
            if let Err(e) = app_events(side, end, sender, receiver, ended, &mut quinn, index) {
                net.quinn = quinn;
                return Err(e);
            }
            self.info.handshake |= self.sender.connected;
            // Application I/O, while the receiver has not closed the connection; the closing
            // connection still sends its CONNECTION_CLOSE below.
            let io = match side {
                _ if self.info.receiver_closed.is_some() => Ok(()),
                Side::Sender => write(&mut self.sender, &self.pattern, end, &mut quinn, index),
                Side::Receiver => read(
                    &mut self.receiver,
                    &mut self.info.delivered,
                    &self.pattern,
                    end,
                    &mut quinn,
                    index,
                    self.info.bytes,
                )
                .map(|ended| {
                    if ended && self.info.completion.is_none() {
                        self.info.completion = Some(now);
                    }
                }),
            };
            if let Err(e) = io {
                break Err(e);
            }
            transmit(end, now, net, &mut quinn, index, side);
            if quinn.timed(|| end.drain_endpoint_events()) == 0 {
                break Ok(());
            }
        };
        let next = quinn
            .timed(|| end.poll_timeout())
            .map(|i| net.timers.fires_at(net.clock.vtime(i), now));
        net.quinn = quinn;
        peer.set_timer(next, index, side, net);
        result
    }
}

/// How far a flow got, as its connection's events are handed out.
struct Ended<'a> {
    completed: bool,
    receiver_closed: &'a mut Option<String>,
}

/// Hands `side`'s application the connection's events: the sender's stream opens or becomes
/// writable, the receiver's stream arrives. A lost connection is an error unless the flow had
/// completed, or the receiver closed it: the receiver's own close (a stock quinn receiver gives
/// up on a stream with more than 1024 holes) is the flow's outcome, and the sender then loses
/// its connection as a consequence.
fn app_events<E: End>(
    side: Side,
    end: &mut E,
    sender: &mut Sender<E::Stream>,
    receiver: &mut Receiver<E::Stream>,
    ended: Ended<'_>,
    quinn: &mut QuinnTime,
    flow: usize,
) -> Result<(), SimError> {
    let completed = ended.completed;
    while let Some(ev) = quinn.timed(|| end.poll()) {
        match ev {
            AppEvent::Connected if side == Side::Sender => {
                sender.connected = true;
                sender.stream = quinn.timed(|| end.open_uni());
                sender.writable = sender.stream.is_some();
            }
            AppEvent::UniOpened if side == Side::Receiver && receiver.stream.is_none() => {
                receiver.stream = quinn.timed(|| end.accept_uni());
            }
            AppEvent::Writable if side == Side::Sender => {
                sender.writable = true;
            }
            AppEvent::Lost(reason) if !completed => {
                if side == Side::Receiver {
                    *ended.receiver_closed = Some(reason.clone());
                }
                if ended.receiver_closed.is_some() {
                    return Ok(());
                }
                return Err(SimError::Connection {
                    flow,
                    side: format!("{side:?}").to_lowercase(),
                    reason,
                });
            }
            _ => {}
        }
    }
    Ok(())
}

/// Puts every datagram `side`'s connection has to send at `now` on the network.
fn transmit<E: End>(
    end: &mut E,
    now: VTime,
    net: &mut Net,
    quinn: &mut QuinnTime,
    flow: usize,
    side: Side,
) {
    let t = net.clock.instant(now);
    loop {
        net.scratch.clear();
        let scratch = &mut net.scratch;
        let Some(tx) = quinn.timed(|| end.poll_transmit(t, scratch)) else {
            break;
        };
        let data = std::mem::take(&mut net.scratch);
        net.send(now, flow, side, &data[..tx.size], tx.ecn);
        net.scratch = data;
    }
}

/// Keeps the sender's stream topped up; finishes it once a finite flow's bytes are all written.
fn write<E: End>(
    s: &mut Sender<E::Stream>,
    pattern: &Pattern,
    end: &mut E,
    quinn: &mut QuinnTime,
    flow: usize,
) -> Result<(), SimError> {
    let Some(id) = s.stream else { return Ok(()) };
    let failed = |reason: String| SimError::Connection {
        flow,
        side: "sender".into(),
        reason,
    };
    while s.writable && !s.finished {
        if s.chunk.is_empty() {
            let left = s.total - s.written;
            if left == 0 {
                quinn.timed(|| end.finish(id)).map_err(failed)?;
                s.finished = true;
                break;
            }
            let mut chunk = BytesMut::zeroed(left.min(WRITE_CHUNK as u64) as usize);
            pattern.fill(s.written, &mut chunk);
            s.chunk = chunk.freeze();
        }
        let chunks = std::slice::from_mut(&mut s.chunk);
        match quinn
            .timed(|| end.write_chunks(id, chunks))
            .map_err(failed)?
        {
            0 => s.writable = false,
            bytes => s.written += bytes as u64,
        }
    }
    Ok(())
}

/// Checks one chunk read in order and counts it; when `check` is given, the ticks the check
/// took go to it. Returns whether it was the last byte of a finite flow.
fn accept(
    received: &mut u64,
    pattern: &Pattern,
    offset: u64,
    bytes: &Bytes,
    expected: Option<u64>,
    flow: usize,
    check: Option<&mut u64>,
) -> Result<bool, SimError> {
    let c0 = check.is_some().then(ticks);
    let ok = offset == *received && pattern.check(offset, bytes);
    if let (Some(check), Some(c0)) = (check, c0) {
        *check += ticks().saturating_sub(c0);
    }
    if !ok {
        return Err(SimError::Corrupt { flow, offset });
    }
    *received += bytes.len() as u64;
    if expected.is_some_and(|e| *received > e) {
        return Err(SimError::ByteCheck {
            flow,
            detail: format!("received {} bytes, more than sent", *received),
        });
    }
    Ok(expected == Some(*received))
}

/// The stream ended after `received` bytes: the flow completed if that is all it had to send
/// (also an empty transfer, whose only news is its end).
fn stream_end(received: u64, expected: Option<u64>, flow: usize) -> Result<bool, SimError> {
    if expected == Some(received) {
        return Ok(true);
    }
    Err(SimError::ByteCheck {
        flow,
        detail: format!("stream ended after {received} bytes, expected {expected:?}"),
    })
}

/// Reads and checks whatever arrived in order. Returns whether this call received the last byte of
/// a finite flow.
fn read<E: End>(
    r: &mut Receiver<E::Stream>,
    received: &mut u64,
    pattern: &Pattern,
    end: &mut E,
    quinn: &mut QuinnTime,
    flow: usize,
    expected: Option<u64>,
) -> Result<bool, SimError> {
    let Some(id) = r.stream else { return Ok(false) };
    if r.ended {
        return Ok(false);
    }
    // Timed as one call into the stack, less the checks, when drawn.
    let t0 = quinn.draw().then(ticks);
    let mut check = 0;
    let mut outcome = Ok(false);
    let stop = end.read(id, |offset, bytes| {
        let check = t0.is_some().then_some(&mut check);
        match accept(received, pattern, offset, bytes, expected, flow, check) {
            Ok(true) => outcome = Ok(true),
            Ok(false) => {}
            Err(e) => {
                outcome = Err(e);
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    match stop {
        Ok(ReadStop::Closed) => outcome = Ok(false),
        Ok(ReadStop::Finished) => {
            r.ended = true;
            outcome = stream_end(*received, expected, flow);
        }
        Ok(ReadStop::Blocked | ReadStop::Stopped) => {}
        Err(reason) => {
            outcome = Err(SimError::Connection {
                flow,
                side: "receiver".into(),
                reason,
            })
        }
    }
    if let Some(t0) = t0 {
        quinn.add_sampled(ticks().saturating_sub(t0).saturating_sub(check));
    }
    outcome
}
