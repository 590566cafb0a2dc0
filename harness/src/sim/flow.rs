//! One flow: a QUIC client (the sender: one unidirectional stream carrying the flow's bytes) and a
//! QUIC server (the receiver: reads and checks every byte), driven sans-IO in virtual time.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use quinn_proto::{
    ClientConfig, Connection, ConnectionHandle, DatagramEvent, Dir, Endpoint, EndpointConfig,
    Event, ReadError, ReadableError, ServerConfig, StreamEvent, StreamId, WriteError, Written,
};

use super::clock::{ticks, QuinnTime, VTime};
use super::network::{Event as NetEvent, Net, Packet};
use super::truth::Side;
use super::SimError;
use crate::payload::Pattern;

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
fn endpoint_seed(seed: u64, index: usize, side: Side) -> [u8; 32] {
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

/// One QUIC endpoint with (at most) one connection.
struct Peer {
    endpoint: Endpoint,
    addr: SocketAddr,
    conn: Option<(ConnectionHandle, Connection)>,
    /// The connection's pending timeout and its generation (older timer events are stale).
    timer: Option<VTime>,
    timer_gen: u64,
}

impl Peer {
    fn new(endpoint: Endpoint, addr: SocketAddr) -> Self {
        Self {
            endpoint,
            addr,
            conn: None,
            timer: None,
            timer_gen: 0,
        }
    }
}

impl Peer {
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
struct Sender {
    /// The handshake completed (quinn's `Connected`).
    connected: bool,
    stream: Option<StreamId>,
    writable: bool,
    /// Total bytes to send; `u64::MAX` for an unbounded flow.
    total: u64,
    /// Bytes accepted by the stream so far.
    written: u64,
    /// Generated but not yet accepted bytes, at offset `written`. Handed to quinn as `Bytes`,
    /// which it keeps without copying (`write` would copy every byte once more).
    chunk: Bytes,
    finished: bool,
}

/// The application on the receiving side.
struct Receiver {
    stream: Option<StreamId>,
    received: u64,
    packets: u64,
    ended: bool,
}

/// Everything the simulator tracks about one flow.
pub struct FlowState {
    pub index: usize,
    pub controller: String,
    pub start: VTime,
    pub bytes: Option<u64>,
    pattern: Pattern,
    client: Peer,
    server: Peer,
    client_config: ClientConfig,
    sender: Sender,
    receiver: Receiver,
    span: tracing::Span,
    pub completion: Option<VTime>,
    pub started: bool,
    /// Why the receiver closed the connection before the flow ended.
    pub receiver_closed: Option<String>,
}

pub struct FlowSetup {
    pub index: usize,
    pub controller: String,
    pub start: VTime,
    pub bytes: Option<u64>,
    pub seed: u64,
    pub client_config: ClientConfig,
    pub server_config: Arc<ServerConfig>,
}

impl FlowState {
    pub fn new(s: FlowSetup) -> Self {
        let ep_config = Arc::new(EndpointConfig::default());
        let client = Endpoint::new(
            ep_config.clone(),
            None,
            false,
            Some(endpoint_seed(s.seed, s.index, Side::Sender)),
        );
        let server = Endpoint::new(
            ep_config,
            Some(s.server_config),
            false,
            Some(endpoint_seed(s.seed, s.index, Side::Receiver)),
        );
        Self {
            index: s.index,
            controller: s.controller,
            start: s.start,
            bytes: s.bytes,
            pattern: Pattern::new(s.seed, s.index),
            client: Peer::new(client, address(s.index, Side::Sender)),
            server: Peer::new(server, address(s.index, Side::Receiver)),
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
                received: 0,
                packets: 0,
                ended: false,
            },
            span: tracing::info_span!(
                crate::capture::SPAN,
                index = s.index as u64,
                role = "sender"
            ),
            completion: None,
            started: false,
            receiver_closed: None,
        }
    }

    pub fn delivered(&self) -> u64 {
        self.receiver.received
    }

    /// The sender's handshake completed.
    pub fn handshake_done(&self) -> bool {
        self.sender.connected
    }

    pub fn packets_delivered(&self) -> u64 {
        self.receiver.packets
    }

    /// The finished flow completed, or the flow is still to be driven.
    pub fn done(&self) -> bool {
        self.completion.is_some()
    }

    /// The sender's connection, once it exists.
    pub fn sender_conn(&self) -> Option<&Connection> {
        self.client.conn.as_ref().map(|(_, c)| c)
    }

    /// Opens the connection at `now`.
    pub fn start(&mut self, now: VTime, net: &mut Net) -> Result<(), SimError> {
        self.started = true;
        let t = net.clock.instant(now);
        let _g = self.span.enter();
        let remote = self.server.addr;
        let config = self.client_config.clone();
        let r = net.quinn.timed(|| {
            self.client
                .endpoint
                .connect(t, config, remote, crate::tls::SERVER_NAME)
        });
        let (ch, conn) = r.map_err(|e| SimError::Connect {
            flow: self.index,
            reason: e.to_string(),
        })?;
        self.client.conn = Some((ch, conn));
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
                self.receiver.packets += 1;
                (&mut self.server, self.client.addr)
            }
        };
        let t = net.clock.instant(now);
        net.scratch.clear();
        let scratch = &mut net.scratch;
        let event = net.quinn.timed(|| {
            peer.endpoint
                .handle(t, remote, None, packet.ecn, packet.data, scratch)
        });
        match event {
            None => {}
            Some(DatagramEvent::ConnectionEvent(ch, ev)) => {
                if let Some((own, conn)) = peer.conn.as_mut() {
                    if *own == ch {
                        net.quinn.timed(|| conn.handle_event(ev));
                    }
                }
            }
            Some(DatagramEvent::NewConnection(incoming)) => {
                if to == Side::Receiver && peer.conn.is_none() {
                    net.scratch.clear();
                    let scratch = &mut net.scratch;
                    let r = net.quinn.timed(|| {
                        peer.endpoint
                            .accept(incoming, t, scratch, None)
                            .map_err(|e| e.cause)
                    });
                    match r {
                        Ok(c) => peer.conn = Some(c),
                        Err(e) => {
                            return Err(SimError::Connect {
                                flow: self.index,
                                reason: e.to_string(),
                            })
                        }
                    }
                } else {
                    peer.endpoint.ignore(incoming);
                }
            }
            Some(DatagramEvent::Response(tx)) => {
                let data = std::mem::take(&mut net.scratch);
                net.send(now, self.index, to, &data[..tx.size], tx.ecn);
                net.scratch = data;
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
        if let Some((_, conn)) = peer.conn.as_mut() {
            let _g = (side == Side::Sender).then(|| self.span.enter());
            let t = net.clock.instant(now);
            net.quinn.timed(|| conn.handle_timeout(t));
        }
        self.drive(side, now, net)
    }

    /// Lets `side` react to whatever happened: endpoint events, application I/O, transmissions,
    /// and its next timeout.
    pub fn drive(&mut self, side: Side, now: VTime, net: &mut Net) -> Result<(), SimError> {
        let _g = (side == Side::Sender).then(|| self.span.enter());
        let index = self.index;
        let peer = match side {
            Side::Sender => &mut self.client,
            Side::Receiver => &mut self.server,
        };
        let Some((ch, conn)) = peer.conn.as_mut() else {
            return Ok(());
        };
        let ch = *ch;
        let endpoint = &mut peer.endpoint;
        let mut quinn = std::mem::take(&mut net.quinn);
        let mut drain = |conn: &mut Connection, quinn: &mut QuinnTime| {
            quinn.timed(|| {
                let mut n = 0;
                while let Some(ev) = conn.poll_endpoint_events() {
                    n += 1;
                    if let Some(ev) = endpoint.handle_event(ch, ev) {
                        conn.handle_event(ev);
                    }
                }
                n
            })
        };
        drain(conn, &mut quinn);
        let result = loop {
            let ended = Ended {
                completed: self.completion.is_some(),
                receiver_closed: &mut self.receiver_closed,
            };
            let (sender, receiver) = (&mut self.sender, &mut self.receiver);
            if let Err(e) = app_events(side, conn, sender, receiver, ended, &mut quinn, index) {
                net.quinn = quinn;
                return Err(e);
            }
            // Application I/O, while the receiver has not closed the connection; the closing
            // connection still sends its CONNECTION_CLOSE below.
            let io = match side {
                _ if self.receiver_closed.is_some() => Ok(()),
                Side::Sender => write(&mut self.sender, &self.pattern, conn, &mut quinn, index),
                Side::Receiver => read(
                    &mut self.receiver,
                    &self.pattern,
                    conn,
                    &mut quinn,
                    index,
                    self.bytes,
                )
                .map(|ended| {
                    if ended && self.completion.is_none() {
                        self.completion = Some(now);
                    }
                }),
            };
            if let Err(e) = io {
                break Err(e);
            }
            transmit(conn, now, net, &mut quinn, index, side);
            if drain(conn, &mut quinn) == 0 {
                break Ok(());
            }
        };
        let next = quinn
            .timed(|| conn.poll_timeout())
            .map(|i| net.clock.vtime(i).max(now));
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
fn app_events(
    side: Side,
    conn: &mut Connection,
    sender: &mut Sender,
    receiver: &mut Receiver,
    ended: Ended<'_>,
    quinn: &mut QuinnTime,
    flow: usize,
) -> Result<(), SimError> {
    let completed = ended.completed;
    while let Some(ev) = quinn.timed(|| conn.poll()) {
        match ev {
            Event::Connected if side == Side::Sender => {
                sender.connected = true;
                sender.stream = quinn.timed(|| conn.streams().open(Dir::Uni));
                sender.writable = sender.stream.is_some();
            }
            Event::Stream(StreamEvent::Opened { dir: Dir::Uni })
                if side == Side::Receiver && receiver.stream.is_none() =>
            {
                receiver.stream = quinn.timed(|| conn.streams().accept(Dir::Uni));
            }
            Event::Stream(StreamEvent::Writable { .. }) if side == Side::Sender => {
                sender.writable = true;
            }
            Event::ConnectionLost { reason } if !completed => {
                if side == Side::Receiver {
                    *ended.receiver_closed = Some(reason.to_string());
                }
                if ended.receiver_closed.is_some() {
                    return Ok(());
                }
                return Err(SimError::Connection {
                    flow,
                    side: format!("{side:?}").to_lowercase(),
                    reason: reason.to_string(),
                });
            }
            _ => {}
        }
    }
    Ok(())
}

/// Puts every datagram `side`'s connection has to send at `now` on the network.
fn transmit(
    conn: &mut Connection,
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
        let Some(tx) = quinn.timed(|| conn.poll_transmit(t, 1, scratch)) else {
            break;
        };
        let data = std::mem::take(&mut net.scratch);
        net.send(now, flow, side, &data[..tx.size], tx.ecn);
        net.scratch = data;
    }
}

/// Keeps the sender's stream topped up; finishes it once a finite flow's bytes are all written.
fn write(
    s: &mut Sender,
    pattern: &Pattern,
    conn: &mut Connection,
    quinn: &mut QuinnTime,
    flow: usize,
) -> Result<(), SimError> {
    let Some(id) = s.stream else { return Ok(()) };
    while s.writable && !s.finished {
        if s.chunk.is_empty() {
            let left = s.total - s.written;
            if left == 0 {
                quinn.timed(|| conn.send_stream(id).finish()).map_err(|e| {
                    SimError::Connection {
                        flow,
                        side: "sender".into(),
                        reason: e.to_string(),
                    }
                })?;
                s.finished = true;
                break;
            }
            let mut chunk = BytesMut::zeroed(left.min(WRITE_CHUNK as u64) as usize);
            pattern.fill(s.written, &mut chunk);
            s.chunk = chunk.freeze();
        }
        let chunks = std::slice::from_mut(&mut s.chunk);
        match quinn.timed(|| conn.send_stream(id).write_chunks(chunks)) {
            Ok(Written { bytes: 0, .. }) | Err(WriteError::Blocked) => s.writable = false,
            Ok(Written { bytes, .. }) => s.written += bytes as u64,
            Err(e) => {
                return Err(SimError::Connection {
                    flow,
                    side: "sender".into(),
                    reason: e.to_string(),
                })
            }
        }
    }
    Ok(())
}

/// Checks one chunk read in order and counts it; when `check` is given, the ticks the check
/// took go to it. Returns whether it was the last byte of a finite flow.
fn accept(
    r: &mut Receiver,
    pattern: &Pattern,
    chunk: &quinn_proto::Chunk,
    expected: Option<u64>,
    flow: usize,
    check: Option<&mut u64>,
) -> Result<bool, SimError> {
    let c0 = check.is_some().then(ticks);
    let ok = chunk.offset == r.received && pattern.check(chunk.offset, &chunk.bytes);
    if let (Some(check), Some(c0)) = (check, c0) {
        *check += ticks().saturating_sub(c0);
    }
    if !ok {
        return Err(SimError::Corrupt {
            flow,
            offset: chunk.offset,
        });
    }
    r.received += chunk.bytes.len() as u64;
    if expected.is_some_and(|e| r.received > e) {
        return Err(SimError::ByteCheck {
            flow,
            detail: format!("received {} bytes, more than sent", r.received),
        });
    }
    Ok(expected == Some(r.received))
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
fn read(
    r: &mut Receiver,
    pattern: &Pattern,
    conn: &mut Connection,
    quinn: &mut QuinnTime,
    flow: usize,
    expected: Option<u64>,
) -> Result<bool, SimError> {
    let Some(id) = r.stream else { return Ok(false) };
    if r.ended {
        return Ok(false);
    }
    // Timed as one quinn call, less the checks, when drawn.
    let t0 = quinn.draw().then(ticks);
    let mut stream = conn.recv_stream(id);
    let mut chunks = match stream.read(true) {
        Ok(c) => c,
        Err(ReadableError::ClosedStream) => return Ok(false),
        Err(e) => {
            return Err(SimError::Connection {
                flow,
                side: "receiver".into(),
                reason: e.to_string(),
            })
        }
    };
    let mut check = 0;
    let mut outcome = Ok(false);
    loop {
        match chunks.next(usize::MAX) {
            Ok(Some(chunk)) => match accept(
                r,
                pattern,
                &chunk,
                expected,
                flow,
                t0.is_some().then_some(&mut check),
            ) {
                Ok(true) => outcome = Ok(true),
                Ok(false) => {}
                Err(e) => {
                    outcome = Err(e);
                    break;
                }
            },
            Ok(None) => {
                r.ended = true;
                outcome = stream_end(r.received, expected, flow);
                break;
            }
            Err(ReadError::Blocked) => break,
            Err(e) => {
                outcome = Err(SimError::Connection {
                    flow,
                    side: "receiver".into(),
                    reason: e.to_string(),
                });
                break;
            }
        }
    }
    let _ = chunks.finalize();
    if let Some(t0) = t0 {
        quinn.add_sampled(ticks().saturating_sub(t0).saturating_sub(check));
    }
    outcome
}
