//! Kernel TCP flows as peers (`tcp-cubic`, `tcp-reno`, `tcp-bbr`, or any congestion control the
//! kernel offers): a TCP connection from the sender's namespace to the receiver's with
//! `TCP_CONGESTION` set, the same payload and byte check as a QUIC flow, and the figures from the
//! sender's `TCP_INFO`, sampled every 10 ms.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context};
use socket2::{Domain, Protocol, Socket, Type};

use super::result::FlowResult;
use super::sys;
use crate::payload::Pattern;
use crate::report::record::{FlowOutcome, Reading, SenderCounts, SAMPLE_INTERVAL};
use crate::scenario::KernelTcp;

const AVAILABLE: &str = "/proc/sys/net/ipv4/tcp_available_congestion_control";
const CHUNK: usize = 64 * 1024;
const IO_TIMEOUT: Duration = Duration::from_millis(20);

/// Whether the kernel offers `tcp`'s congestion control: set on a socket that is never
/// connected. The error names the id and what the kernel has.
pub fn check(tcp: &KernelTcp) -> anyhow::Result<()> {
    let (id, name) = (tcp.id(), tcp.name());
    let available = std::fs::read_to_string(AVAILABLE).unwrap_or_default();
    let fail = |why: String| {
        anyhow!(
            "controller `{id}`: this kernel has no TCP congestion control `{name}` ({why}); \
             it offers: {} (from {AVAILABLE})",
            available.trim()
        )
    };
    if name.len() > 15 || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(fail("not a valid name".into()));
    }
    let s = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP))?;
    s.set_tcp_congestion(name.as_bytes())
        .map_err(|e| fail(e.to_string()))
}

/// The part of Linux's `struct tcp_info` the runner reads (the kernel fills what fits).
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct TcpInfo {
    pub state: u8,
    pub ca_state: u8,
    pub retransmits: u8,
    pub probes: u8,
    pub backoff: u8,
    pub options: u8,
    pub wscale: u8,
    pub flags: u8,
    pub rto: u32,
    pub ato: u32,
    pub snd_mss: u32,
    pub rcv_mss: u32,
    pub unacked: u32,
    pub sacked: u32,
    pub lost: u32,
    pub retrans: u32,
    pub fackets: u32,
    pub last_data_sent: u32,
    pub last_ack_sent: u32,
    pub last_data_recv: u32,
    pub last_ack_recv: u32,
    pub pmtu: u32,
    pub rcv_ssthresh: u32,
    pub rtt: u32,
    pub rttvar: u32,
    pub snd_ssthresh: u32,
    pub snd_cwnd: u32,
    pub advmss: u32,
    pub reordering: u32,
    pub rcv_rtt: u32,
    pub rcv_space: u32,
    pub total_retrans: u32,
    pub pacing_rate: u64,
    pub max_pacing_rate: u64,
    pub bytes_acked: u64,
    pub bytes_received: u64,
    pub segs_out: u32,
    pub segs_in: u32,
    pub notsent_bytes: u32,
    pub min_rtt: u32,
    pub data_segs_in: u32,
    pub data_segs_out: u32,
}

/// `TCP_CA_CWR`: from here up (CWR, Recovery, Loss) the sender has reacted to congestion.
const CA_CWR: u8 = 2;
const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

pub fn tcp_info(fd: &impl AsRawFd) -> std::io::Result<TcpInfo> {
    let mut info = TcpInfo::default();
    let mut len = std::mem::size_of::<TcpInfo>() as libc::socklen_t;
    // SAFETY: `info` is a plain C struct of `len` bytes; the kernel writes at most `len`.
    let r = unsafe {
        libc::getsockopt(
            fd.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut TcpInfo).cast(),
            &mut len,
        )
    };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(info)
}

/// One TCP flow, sockets made in their namespaces.
pub struct TcpFlow {
    pub index: usize,
    pub controller: String,
    pub start: Duration,
    pub bytes: Option<u64>,
    pub seed: u64,
    listener: TcpListener,
    sender: Socket,
    addr: SocketAddr,
}

impl TcpFlow {
    /// Binds the listener in `receiver_ns` at `addr` and makes the sender's socket in
    /// `sender_ns` with the congestion control of `controller`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        index: usize,
        tcp: &KernelTcp,
        start: Duration,
        bytes: Option<u64>,
        seed: u64,
        sender_ns: &str,
        receiver_ns: &str,
        addr: SocketAddr,
    ) -> anyhow::Result<Self> {
        let controller = tcp.id();
        let listener = sys::in_netns(receiver_ns, || {
            let l = TcpListener::bind(addr).with_context(|| format!("binding {addr}"))?;
            l.set_nonblocking(true)?;
            Ok(l)
        })?;
        let sender = sys::in_netns(sender_ns, || {
            let s = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP))?;
            s.set_tcp_congestion(tcp.name().as_bytes())
                .map_err(|e| anyhow!("controller `{controller}`: {e}"))?;
            Ok(s)
        })?;
        Ok(Self {
            index,
            controller: controller.to_owned(),
            start,
            bytes,
            seed,
            listener,
            sender,
            addr,
        })
    }

    /// Runs the flow on its own threads until it completes, `deadline` passes or `stop` is set.
    pub fn spawn(
        self,
        epoch: Instant,
        deadline: Instant,
        stop: Arc<AtomicBool>,
    ) -> anyhow::Result<JoinHandle<anyhow::Result<FlowResult>>> {
        std::thread::Builder::new()
            .name(format!("tcp-flow-{}", self.index))
            .spawn(move || self.run(epoch, deadline, &stop))
            .context("starting a TCP flow thread")
    }

    fn run(
        self,
        epoch: Instant,
        deadline: Instant,
        stop: &Arc<AtomicBool>,
    ) -> anyhow::Result<FlowResult> {
        let index = self.index;
        let shared = Shared {
            pattern: Pattern::new(self.seed, index),
            delivered: Arc::new(AtomicU64::new(0)),
            done: Arc::new(AtomicBool::new(false)),
            stop: stop.clone(),
            epoch,
            deadline,
        };
        let receiver = shared.receive(self.listener, self.bytes);
        shared.wait_until(epoch + self.start);
        let stream = connect(self.sender, self.addr, deadline)
            .with_context(|| format!("flow {index}: TCP connect to {}", self.addr))?;
        stream.set_write_timeout(Some(IO_TIMEOUT))?;
        let sampler = shared.sample(stream.try_clone()?);
        let send_error = shared.send(&stream, self.bytes);
        // Wait for the receiver (it ends on completion or at the deadline).
        let received = receiver
            .join()
            .map_err(|_| anyhow!("flow {index}: receiver thread panicked"))??;
        shared.done.store(true, Ordering::Relaxed);
        let sampled = sampler
            .join()
            .map_err(|_| anyhow!("flow {index}: sampler thread panicked"))?;
        if let (Some(e), false) = (send_error, received.completed_at.is_some()) {
            return Err(anyhow!("flow {index}: TCP send: {e}"));
        }
        let end = received
            .completed_at
            .unwrap_or_else(|| deadline.min(Instant::now()));
        Ok(FlowResult {
            outcome: FlowOutcome {
                index,
                controller: self.controller,
                start: self.start,
                end: end.saturating_duration_since(epoch),
                completed: received.completed_at.is_some(),
                // The sender connected before it sent: a failed handshake ends the run with an error.
                handshake: true,
                asked: self.bytes,
                delivered: shared.delivered.load(Ordering::Relaxed),
                // The receiver counts a chunk only once it has checked it.
                checked: shared.delivered.load(Ordering::Relaxed),
                packets_delivered: received.segments,
                verified: received.verified,
                sender: SenderCounts {
                    lost_packets: sampled.retrans,
                    congestion_events: sampled.congestion_events,
                    flow_control_limited: false,
                },
                // The kernel's counters are per qdisc, not per flow.
                queue: None,
                receiver_closed: None,
                receiver_acks: None,
            },
            min_rtt: sampled.min_rtt,
            readings: sampled.readings,
            receiver_log: None,
        })
    }
}

/// Connects `sender` to `addr`, waiting at most until `deadline` (and at least a millisecond).
fn connect(sender: Socket, addr: SocketAddr, deadline: Instant) -> anyhow::Result<TcpStream> {
    let wait = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(1));
    sender.connect_timeout(&addr.into(), wait)?;
    Ok(sender.into())
}

/// What the flow's sender, receiver and sampler threads share.
struct Shared {
    pattern: Pattern,
    /// Bytes the receiver has checked so far.
    delivered: Arc<AtomicU64>,
    /// Set by the receiver when it ends, and once the sender has joined it.
    done: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    epoch: Instant,
    deadline: Instant,
}

/// What the sampler saw of the sender over the flow.
#[derive(Default)]
struct Sampled {
    readings: Vec<Reading>,
    /// Entries into CWR, Recovery or Loss.
    congestion_events: u64,
    retrans: u64,
    min_rtt: Option<Duration>,
}

impl Shared {
    fn ended(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
            || self.done.load(Ordering::Relaxed)
            || Instant::now() >= self.deadline
    }

    /// Sleeps until `at`, or until the flow has ended.
    fn wait_until(&self, at: Instant) {
        while Instant::now() < at && !self.ended() {
            std::thread::sleep((at - Instant::now()).min(Duration::from_millis(50)));
        }
    }

    /// Accepts the connection on `listener` and checks what arrives, on a thread of its own.
    fn receive(
        &self,
        listener: TcpListener,
        bytes: Option<u64>,
    ) -> JoinHandle<anyhow::Result<Received>> {
        let (pattern, deadline) = (self.pattern, self.deadline);
        let (delivered, done, stop) =
            (self.delivered.clone(), self.done.clone(), self.stop.clone());
        std::thread::spawn(move || {
            receive(listener, pattern, bytes, &delivered, deadline, &stop, &done)
        })
    }

    /// Reads the sender's `TCP_INFO` through `probe` every sample interval until the flow ends,
    /// on a thread of its own.
    fn sample(&self, probe: TcpStream) -> JoinHandle<Sampled> {
        let (epoch, deadline) = (self.epoch, self.deadline);
        let (delivered, done, stop) =
            (self.delivered.clone(), self.done.clone(), self.stop.clone());
        std::thread::spawn(move || {
            let mut out = Sampled::default();
            let mut last = TcpInfo::default();
            let mut min_rtt = u32::MAX;
            let mut next = Instant::now();
            while !(stop.load(Ordering::Relaxed) || done.load(Ordering::Relaxed))
                && Instant::now() < deadline
            {
                if let Ok(i) = tcp_info(&probe) {
                    if i.ca_state >= CA_CWR && last.ca_state < CA_CWR {
                        out.congestion_events += 1;
                    }
                    if i.min_rtt > 0 {
                        min_rtt = min_rtt.min(i.min_rtt);
                    }
                    out.readings.push(reading(&i, epoch.elapsed(), &delivered));
                    last = i;
                }
                next += SAMPLE_INTERVAL;
                std::thread::sleep(next.saturating_duration_since(Instant::now()));
            }
            let fin = tcp_info(&probe).unwrap_or(last);
            if fin.min_rtt > 0 {
                min_rtt = min_rtt.min(fin.min_rtt);
            }
            out.retrans = fin.total_retrans as u64;
            out.min_rtt = (min_rtt != u32::MAX).then(|| Duration::from_micros(min_rtt as u64));
            out
        })
    }

    /// Writes the flow's bytes until they are all written or the flow ends; a write error that
    /// is not the run's end.
    fn send(&self, stream: &TcpStream, bytes: Option<u64>) -> Option<std::io::Error> {
        let mut buf = vec![0u8; CHUNK];
        let mut offset = 0u64;
        let mut writer = stream;
        while !self.ended() {
            let n = match bytes {
                Some(total) => (total - offset).min(CHUNK as u64) as usize,
                None => CHUNK,
            };
            if n == 0 {
                let _ = stream.shutdown(Shutdown::Write);
                break;
            }
            self.pattern.fill(offset, &mut buf[..n]);
            let mut sent = 0;
            while sent < n {
                if self.ended() {
                    return None;
                }
                match writer.write(&buf[sent..n]) {
                    Ok(k) => sent += k,
                    Err(e)
                        if matches!(
                            e.kind(),
                            ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                        ) => {}
                    // The receiver ends at the deadline and closes its socket, so a write
                    // racing with that fails (broken pipe, reset): the run's end, not an error.
                    Err(_) if self.ended() => return None,
                    Err(e) => return Some(e),
                }
            }
            offset += n as u64;
        }
        None
    }
}

/// A sample of the sender's `TCP_INFO`: its window and ssthresh are in segments.
fn reading(i: &TcpInfo, at: Duration, delivered: &AtomicU64) -> Reading {
    let mss = i.snd_mss.max(1) as u64;
    Reading {
        at,
        cwnd_bytes: i.snd_cwnd as u64 * mss,
        ssthresh_bytes: (i.snd_ssthresh < INFINITE_SSTHRESH).then_some(i.snd_ssthresh as u64 * mss),
        rtt_s: i.rtt as f64 / 1e6,
        delivered_bytes: delivered.load(Ordering::Relaxed),
    }
}

struct Received {
    verified: bool,
    completed_at: Option<Instant>,
    segments: u64,
}

fn receive(
    listener: TcpListener,
    pattern: Pattern,
    bytes: Option<u64>,
    delivered: &AtomicU64,
    deadline: Instant,
    stop: &AtomicBool,
    done: &AtomicBool,
) -> anyhow::Result<Received> {
    let mut out = Received {
        verified: true,
        completed_at: None,
        segments: 0,
    };
    let ended = || stop.load(Ordering::Relaxed) || Instant::now() >= deadline;
    let mut stream = loop {
        if ended() {
            return Ok(out);
        }
        match listener.accept() {
            Ok((s, _)) => break s,
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(2))
            }
            Err(e) => return Err(anyhow!("TCP accept: {e}")),
        }
    };
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(IO_TIMEOUT))?;
    let mut buf = vec![0u8; CHUNK];
    let mut offset = 0u64;
    while !ended() {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if !pattern.check(offset, &buf[..n]) {
                    out.verified = false;
                    break;
                }
                offset += n as u64;
                delivered.store(offset, Ordering::Relaxed);
                if bytes == Some(offset) {
                    out.completed_at = Some(Instant::now());
                    break;
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(anyhow!("TCP receive: {e}")),
        }
    }
    out.segments = tcp_info(&stream).map_or(0, |i| i.data_segs_in as u64);
    done.store(true, Ordering::Relaxed);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_info_layout_matches_the_kernel() {
        // Offsets of linux/tcp.h.
        assert_eq!(std::mem::offset_of!(TcpInfo, rto), 8);
        assert_eq!(std::mem::offset_of!(TcpInfo, snd_cwnd), 80);
        assert_eq!(std::mem::offset_of!(TcpInfo, total_retrans), 100);
        assert_eq!(std::mem::offset_of!(TcpInfo, pacing_rate), 104);
        assert_eq!(std::mem::offset_of!(TcpInfo, min_rtt), 148);
        assert_eq!(std::mem::offset_of!(TcpInfo, data_segs_in), 152);
    }
}
