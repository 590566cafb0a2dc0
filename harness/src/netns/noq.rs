//! noq flows on real sockets (`noq-bbr3`, `noq-cubic`): a noq-proto client (the sender, one
//! unidirectional stream) on the flow's socket in the sender's namespace and a noq-proto server
//! (the receiver, which checks every byte) on the socket in the receiver's, each driven sans-IO
//! by a thread of its own in real time.
//!
//! The endpoints are the simulator's noq adapter ([`crate::sim::stack::noq::NoqEnd`]), so the
//! translation to noq's types is one piece of code in both runners; only the clock and the
//! datagrams' way differ. A thread waits on its socket until a datagram comes or its
//! connection's next timer (pacing included) is due, hands noq every datagram that arrived, then
//! lets the connection and the application react and sends what the connection has to send,
//! exactly the order of the simulator's `drive`. The sockets go through quinn's UDP layer
//! (`quinn::udp`), as the quinn flows' do, so a noq flow sets and reads the IP header's ECN bits
//! on the same terms, and datagrams the kernel coalesced (GRO) are split again before noq sees
//! them.

use std::io::{ErrorKind, IoSliceMut};
use std::net::{SocketAddr, UdpSocket};
use std::ops::ControlFlow;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context};
use bytes::{Bytes, BytesMut};
use noq_proto::{ClientConfig, StreamId};
use quinn::udp::{RecvMeta, Transmit, UdpSocketState};
use quinn_proto::EcnCodepoint;

use super::received::{Check, Received};
use super::result::FlowResult;
use crate::noq::{NoqConfigs, NoqPeer};
use crate::payload::Pattern;
use crate::report::record::{FlowOutcome, Reading, SenderCounts, SAMPLE_INTERVAL};
use crate::sim::stack::noq::NoqEnd;
use crate::sim::stack::{AppEvent, End, ReadStop};

/// Bytes handed to the sender's stream per write, as the quinn flows write.
const CHUNK: usize = 64 * 1024;
/// The longest a thread waits on its socket before it looks at the run's stop and its peer's
/// end again: what bounds a flow's end after either.
const WAIT_CAP: Duration = Duration::from_millis(20);
/// Datagrams read per wake-up before the connection reacts, so a burst cannot starve its timers.
const BATCH: usize = 64;
/// The longest a send waits for room in the socket's buffer before the datagram counts as lost.
const SEND_WAIT: Duration = Duration::from_millis(5);
/// A receive buffer: the most one read returns, a datagram or a GRO train of them (an IP
/// packet's length field bounds both).
const RECEIVE_BUFFER: usize = u16::MAX as usize;

/// Which flow, of which peer, when it starts and how much it sends: what its result names.
#[derive(Debug, Clone, Copy)]
pub struct Terms {
    pub index: usize,
    pub peer: NoqPeer,
    pub start: Duration,
    pub bytes: Option<u64>,
}

/// One noq flow, sockets bound in their namespaces and configurations made.
pub struct NoqFlow {
    pub terms: Terms,
    pub seed: u64,
    pub sender_socket: UdpSocket,
    pub receiver_socket: UdpSocket,
    pub receiver_addr: SocketAddr,
    pub configs: NoqConfigs,
}

/// What the flow's two threads share.
struct Shared<'a> {
    index: usize,
    /// Bytes the receiver has checked so far, for the sender's readings.
    delivered: Arc<AtomicU64>,
    /// Set by whichever side ends first: the other has nothing left to do.
    ended: AtomicBool,
    stop: &'a AtomicBool,
    epoch: Instant,
    deadline: Instant,
}

impl Shared<'_> {
    /// The flow has nothing left to do: a side ended it, the run stopped, or its time is up.
    fn over(&self) -> bool {
        self.ended.load(Ordering::Relaxed)
            || self.stop.load(Ordering::Relaxed)
            || Instant::now() >= self.deadline
    }
}

impl NoqFlow {
    /// Runs the flow on its own threads until it completes, `deadline` passes or `stop` is set.
    pub fn spawn(
        self,
        epoch: Instant,
        deadline: Instant,
        stop: Arc<AtomicBool>,
    ) -> anyhow::Result<JoinHandle<anyhow::Result<FlowResult>>> {
        std::thread::Builder::new()
            .name(format!("noq-flow-{}", self.terms.index))
            .spawn(move || self.run(epoch, deadline, &stop))
            .context("starting a noq flow thread")
    }

    fn run(
        self,
        epoch: Instant,
        deadline: Instant,
        stop: &AtomicBool,
    ) -> anyhow::Result<FlowResult> {
        let terms = self.terms;
        let index = terms.index;
        let shared = Shared {
            index,
            delivered: Arc::new(AtomicU64::new(0)),
            ended: AtomicBool::new(false),
            stop,
            epoch,
            deadline,
        };
        let pattern = Pattern::new(self.seed, index);
        let check = Check::new(pattern, terms.bytes, shared.delivered.clone());
        let receiver = Socket::new(
            self.receiver_socket,
            NoqEnd::new(None, Some(self.configs.server)),
        )?;
        let sender = Socket::new(self.sender_socket, NoqEnd::new(None, None))?;
        let (sent, received) = std::thread::scope(|s| {
            let receiving = std::thread::Builder::new()
                .name(format!("noq-receiver-{index}"))
                .spawn_scoped(s, || receive(receiver, check, &shared))
                .context("starting a noq receiver thread")?;
            let sending = SenderApp::new(pattern, terms.bytes);
            let at = epoch + terms.start;
            let sent = send(
                sender,
                sending,
                self.configs.client,
                self.receiver_addr,
                at,
                &shared,
            );
            // Whatever ended the sender ends the receiver (on completion it has ended already).
            shared.ended.store(true, Ordering::Relaxed);
            let received = receiving
                .join()
                .map_err(|_| anyhow!("flow {index}: noq receiver thread panicked"))?;
            Ok::<_, anyhow::Error>((sent, received?))
        })?;
        let sent = sent.with_context(|| format!("flow {index}: noq sender"))?;
        if let (Some(lost), None) = (&sent.lost, &received.closed) {
            if received.completed_at.is_none() {
                return Err(anyhow!(
                    "flow {index}: the sender lost its connection: {lost}"
                ));
            }
        }
        Ok(terms.result(&shared, sent, received))
    }
}

impl Terms {
    /// The flow's result, from what both sides report at their end.
    fn result(self, shared: &Shared, sent: Sent, received: Received) -> FlowResult {
        let end = received
            .completed_at
            .unwrap_or_else(|| shared.deadline.min(Instant::now()));
        let delivered = shared.delivered.load(Ordering::Relaxed);
        // noq 1.4 keeps its minimum RTT to itself; the handshake's sample, taken on empty
        // queues, seeds the smoothed RTT, so the smallest smoothed reading is near the base.
        let min_rtt = sent.readings.iter().map(|r| r.rtt_s).reduce(f64::min);
        FlowResult {
            outcome: FlowOutcome {
                index: self.index,
                controller: self.peer.id().to_owned(),
                start: self.start,
                end: end.saturating_duration_since(shared.epoch),
                completed: received.completed_at.is_some(),
                handshake: sent.connected,
                asked: self.bytes,
                delivered,
                // The receiver counts a chunk only once it has checked it.
                checked: delivered,
                packets_delivered: received.packets,
                verified: received.verified,
                sender: sent.counts,
                // The engines' counters are per queue, not per flow.
                queue: None,
                receiver_closed: received.closed,
                receiver_acks: None,
            },
            min_rtt: min_rtt.filter(|&s| s > 0.0).map(Duration::from_secs_f64),
            readings: sent.readings,
            receiver_log: None,
        }
    }
}

/// One endpoint on its socket.
struct Socket {
    end: NoqEnd,
    socket: UdpSocket,
    /// quinn's UDP layer on `socket`: ECN codepoints and GRO.
    udp: UdpSocketState,
    /// Where the connection's datagrams go: the receiver's address for the sender, the sender's
    /// once its first datagram came for the receiver.
    remote: Option<SocketAddr>,
    buf: Vec<u8>,
    scratch: Vec<u8>,
    /// Datagrams that reached this endpoint.
    datagrams: u64,
}

impl Socket {
    fn new(socket: UdpSocket, end: NoqEnd) -> anyhow::Result<Self> {
        // Read until empty after each wait (`turn`); waits are `ppoll`'s.
        socket
            .set_nonblocking(true)
            .context("non-blocking socket")?;
        let udp = UdpSocketState::new((&socket).into()).context("UDP socket options")?;
        Ok(Self {
            end,
            socket,
            udp,
            remote: None,
            buf: vec![0; RECEIVE_BUFFER],
            scratch: Vec::new(),
            datagrams: 0,
        })
    }

    /// Waits until a datagram arrives, the connection's timer is due or `until`, whichever is
    /// first; hands the endpoint every datagram that arrived (a batch of reads at most) and
    /// fires the timer if it is due.
    fn turn(&mut self, until: Instant, accept: bool) -> anyhow::Result<()> {
        let wake = self.end.poll_timeout().map_or(until, |t| t.min(until));
        wait(&self.socket, libc::POLLIN, wake).context("waiting on the socket")?;
        for _ in 0..BATCH {
            let Some((meta, mut data)) = self.recv().context("receiving a datagram")? else {
                break;
            };
            let ecn = meta.ecn.and_then(|e| EcnCodepoint::from_bits(e as u8));
            while !data.is_empty() {
                let datagram = data.split_to(meta.stride.clamp(1, data.len()));
                self.handle(meta.addr, ecn, datagram, accept)?;
            }
        }
        let now = Instant::now();
        if self.end.poll_timeout().is_some_and(|t| t <= now) {
            self.end.handle_timeout(now);
        }
        Ok(())
    }

    /// The next read from the socket, if anything has arrived.
    fn recv(&mut self) -> std::io::Result<Option<(RecvMeta, BytesMut)>> {
        let mut meta = [RecvMeta::default()];
        loop {
            let mut bufs = [IoSliceMut::new(&mut self.buf)];
            match self.udp.recv((&self.socket).into(), &mut bufs, &mut meta) {
                Ok(0) => return Ok(None),
                Ok(_) => break,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(None),
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        let data = BytesMut::from(&self.buf[..meta[0].len]);
        Ok(Some((meta[0], data)))
    }

    /// Hands the endpoint `datagram` from `from`, and sends its answer, if any.
    fn handle(
        &mut self,
        from: SocketAddr,
        ecn: Option<EcnCodepoint>,
        datagram: BytesMut,
        accept: bool,
    ) -> anyhow::Result<()> {
        self.datagrams += 1;
        self.scratch.clear();
        let answer = self
            .end
            .handle(
                Instant::now(),
                from,
                ecn,
                datagram,
                &mut self.scratch,
                accept,
            )
            .map_err(|e| anyhow!("accepting the connection: {e}"))?;
        if self.remote.is_none() && self.end.has_connection() {
            self.remote = Some(from);
        }
        if let Some(tx) = answer {
            self.send(tx.size, tx.ecn, from);
        }
        Ok(())
    }

    /// Lets the connection and the application (`app`: its events and its I/O) react until the
    /// connection has nothing more for its endpoint, sending whatever it has to send.
    fn drive(
        &mut self,
        mut app: impl FnMut(&mut NoqEnd) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        if !self.end.has_connection() {
            return Ok(());
        }
        self.end.drain_endpoint_events();
        loop {
            app(&mut self.end)?;
            self.transmit();
            if self.end.drain_endpoint_events() == 0 {
                return Ok(());
            }
        }
    }

    /// Sends every datagram the connection has to send now.
    fn transmit(&mut self) {
        let Some(remote) = self.remote else { return };
        let now = Instant::now();
        loop {
            self.scratch.clear();
            let Some(tx) = self.end.poll_transmit(now, &mut self.scratch) else {
                return;
            };
            self.send(tx.size, tx.ecn, remote);
        }
    }

    /// Sends the first `size` bytes of the scratch buffer to `to` with `ecn`, waiting a little
    /// for room in the socket's buffer; a datagram that still finds none is a loss the
    /// connection recovers from like any other (quinn's UDP layer logs other errors and drops
    /// the datagram, for the same reason).
    fn send(&self, size: usize, ecn: Option<EcnCodepoint>, to: SocketAddr) {
        let transmit = Transmit {
            destination: to,
            ecn: ecn.and_then(|e| quinn::udp::EcnCodepoint::from_bits(e as u8)),
            contents: &self.scratch[..size],
            segment_size: None,
            src_ip: None,
        };
        let give_up = Instant::now() + SEND_WAIT;
        while let Err(e) = self.udp.send((&self.socket).into(), &transmit) {
            if e.kind() != ErrorKind::WouldBlock || Instant::now() >= give_up {
                return;
            }
            let _ = wait(&self.socket, libc::POLLOUT, give_up);
        }
    }
}

/// Blocks until `socket` is ready for `events` or `until` passes (at nanosecond resolution, for
/// pacing timers well under a millisecond apart).
fn wait(socket: &UdpSocket, events: libc::c_short, until: Instant) -> std::io::Result<()> {
    let left = until.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Ok(());
    }
    let mut fd = libc::pollfd {
        fd: socket.as_raw_fd(),
        events,
        revents: 0,
    };
    let timeout = libc::timespec {
        tv_sec: left.as_secs() as libc::time_t,
        tv_nsec: left.subsec_nanos() as libc::c_long,
    };
    // SAFETY: one valid `pollfd` and a valid `timespec`, both alive for the call; no signal mask.
    let r = unsafe { libc::ppoll(&mut fd, 1, &timeout, std::ptr::null()) };
    match r {
        r if r >= 0 => Ok(()),
        _ => match std::io::Error::last_os_error() {
            e if e.kind() == ErrorKind::Interrupted => Ok(()),
            e => Err(e),
        },
    }
}

/// What the sender's side reports at its end.
struct Sent {
    connected: bool,
    /// Why the connection was lost, if it was.
    lost: Option<String>,
    counts: SenderCounts,
    readings: Vec<Reading>,
}

/// The application on the sending side: one stream, topped up with the flow's bytes.
struct SenderApp {
    pattern: Pattern,
    connected: bool,
    stream: Option<StreamId>,
    writable: bool,
    /// Total bytes to send; `u64::MAX` for a flow that sends until the run ends.
    total: u64,
    written: u64,
    /// Made but not yet taken bytes, at offset `written`; noq keeps `Bytes` without a copy.
    chunk: Bytes,
    finished: bool,
    lost: Option<String>,
}

impl SenderApp {
    fn new(pattern: Pattern, bytes: Option<u64>) -> Self {
        Self {
            pattern,
            connected: false,
            stream: None,
            writable: false,
            total: bytes.unwrap_or(u64::MAX),
            written: 0,
            chunk: Bytes::new(),
            finished: false,
            lost: None,
        }
    }

    /// Takes the connection's events, then writes what the stream takes.
    fn react(&mut self, end: &mut NoqEnd) -> anyhow::Result<()> {
        while let Some(ev) = end.poll() {
            match ev {
                AppEvent::Connected => {
                    self.connected = true;
                    self.stream = end.open_uni();
                    self.writable = self.stream.is_some();
                }
                AppEvent::Writable => self.writable = true,
                AppEvent::Lost(reason) => self.lost = Some(reason),
                AppEvent::UniOpened => {}
            }
        }
        match self.lost {
            None => self.write(end),
            Some(_) => Ok(()),
        }
    }

    /// Keeps the stream topped up; finishes it once a finite flow's bytes are all written.
    fn write(&mut self, end: &mut NoqEnd) -> anyhow::Result<()> {
        let Some(id) = self.stream else { return Ok(()) };
        while self.writable && !self.finished {
            if self.chunk.is_empty() {
                let left = self.total - self.written;
                if left == 0 {
                    end.finish(id)
                        .map_err(|e| anyhow!("finishing the stream: {e}"))?;
                    self.finished = true;
                    break;
                }
                let mut chunk = BytesMut::zeroed(left.min(CHUNK as u64) as usize);
                self.pattern.fill(self.written, &mut chunk);
                self.chunk = chunk.freeze();
            }
            let chunks = std::slice::from_mut(&mut self.chunk);
            match end
                .write_chunks(id, chunks)
                .map_err(|e| anyhow!("writing: {e}"))?
            {
                0 => self.writable = false,
                n => self.written += n as u64,
            }
        }
        Ok(())
    }
}

/// The sender's side: connects to `remote` at `at` (unless the run is over by then), then
/// sends and reads the connection every sample interval until the flow is over.
fn send(
    mut socket: Socket,
    mut app: SenderApp,
    config: ClientConfig,
    remote: SocketAddr,
    at: Instant,
    shared: &Shared,
) -> anyhow::Result<Sent> {
    while Instant::now() < at && !shared.over() {
        std::thread::sleep(at.saturating_duration_since(Instant::now()).min(WAIT_CAP));
    }
    let mut readings = Vec::new();
    if !shared.over() {
        socket
            .end
            .connect(Instant::now(), config, remote)
            .map_err(|e| anyhow!("connect: {e}"))?;
        socket.remote = Some(remote);
    }
    let mut next_sample = Instant::now();
    while !shared.over() && app.lost.is_none() {
        socket.drive(|end| app.react(end))?;
        let now = Instant::now();
        if now >= next_sample {
            if let Some((cwnd, rtt)) = socket.end.window_and_rtt() {
                readings.push(Reading {
                    at: now.saturating_duration_since(shared.epoch),
                    cwnd_bytes: cwnd,
                    ssthresh_bytes: None,
                    rtt_s: rtt.as_secs_f64(),
                    delivered_bytes: shared.delivered.load(Ordering::Relaxed),
                });
            }
            next_sample += SAMPLE_INTERVAL;
            if next_sample <= now {
                // Late (a long wait or a busy machine): the next reading is a full interval on.
                next_sample = now + SAMPLE_INTERVAL;
            }
        }
        let until = next_sample.min(now + WAIT_CAP).min(shared.deadline);
        socket.turn(until, false)?;
    }
    Ok(Sent {
        connected: app.connected,
        lost: app.lost,
        counts: socket.end.counts().unwrap_or_default(),
        readings,
    })
}

/// The application on the receiving side: accepts the stream and checks every byte in order.
struct ReceiverApp {
    check: Check,
    out: Received,
    stream: Option<StreamId>,
    /// The stream ended, the bytes are all in, or one was wrong: nothing more to read.
    done: bool,
}

impl ReceiverApp {
    /// Takes the connection's events, then reads and checks what arrived in order.
    fn react(&mut self, end: &mut NoqEnd) -> anyhow::Result<()> {
        while let Some(ev) = end.poll() {
            match ev {
                AppEvent::UniOpened if self.stream.is_none() => self.stream = end.accept_uni(),
                // The receiver's endpoint closed the connection itself: the flow's outcome.
                AppEvent::Lost(reason) => self.out.closed = Some(reason),
                _ => {}
            }
        }
        // A closed connection has nothing more to read.
        let reading = !self.done && self.out.closed.is_none();
        let Some(id) = self.stream.filter(|_| reading) else {
            return Ok(());
        };
        let (check, out) = (&mut self.check, &mut self.out);
        let stop = end
            .read(id, |offset, bytes| match check.at(offset, bytes, out) {
                true => ControlFlow::Break(()),
                false => ControlFlow::Continue(()),
            })
            .map_err(|e| anyhow!("receiving: {e}"))?;
        self.done = matches!(stop, ReadStop::Finished | ReadStop::Stopped);
        Ok(())
    }
}

/// The receiver's side: accepts the connection and checks every byte until the flow is over.
fn receive(mut socket: Socket, check: Check, shared: &Shared) -> anyhow::Result<Received> {
    let mut app = ReceiverApp {
        check,
        out: Received::new(),
        stream: None,
        done: false,
    };
    let index = shared.index;
    while !shared.over() {
        socket
            .drive(|end| app.react(end))
            .with_context(|| format!("flow {index}: noq receiver"))?;
        if app.done || app.out.closed.is_some() {
            shared.ended.store(true, Ordering::Relaxed);
            break;
        }
        let until = (Instant::now() + WAIT_CAP).min(shared.deadline);
        socket
            .turn(until, true)
            .with_context(|| format!("flow {index}: noq receiver"))?;
    }
    app.out.packets = socket.datagrams;
    Ok(app.out)
}
