//! The user-space link engine: one scenario link between two TUN devices, the head router's and
//! the tail router's, run in real time through the link model the simulator uses
//! ([`crate::link`]: rate or capacity trace, policer, drop-tail, CoDel, PIE or FQ-CoDel queue,
//! ECN marking, channel loss, jitter and reordering, each direction seeded as in the simulator).
//!
//! Per direction, a reader thread takes each packet the router sends into its TUN device and
//! offers it to the model at the current time (with its IP header's ECN field). With a FIFO
//! queue the model decides the packet's whole fate at once. FQ-CoDel (RFC 8290) decides at
//! service times instead, as a new flow's packet may go ahead of a backlog (section 4.2): the
//! reader holds the packet's bytes under a token, enqueues it under its 5-tuple's flow key
//! (section 4.1.1), and serves the scheduler when the link's server is next free, waiting on the
//! device no longer than that, as the simulator's service events do in virtual time. Either way
//! the reader marks CE in the header when the model says so and passes the survivors with their
//! due time to a writer thread, which writes them into the other TUN device when due (earliest
//! first: reordering lets a later packet be due sooner).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::anyhow;

use super::tun;
use crate::link::loss::Direction;
use crate::link::{nanos, DirObserved, DirStats, LinkDir, Nanos, Outcome, IP_UDP_OVERHEAD};
use crate::report::QueueDelay;
use crate::scenario::Link;

/// How often idle threads look at the stop flag.
const POLL: Duration = Duration::from_millis(20);

/// What one direction saw.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DirReport {
    pub stats: DirStats,
    pub queue_delay: Option<QueueDelay>,
    /// When the engine started: time 0 of its model (and of a capacity trace).
    pub epoch: Option<Instant>,
    /// Seconds since the engine started of the first packet offered and of the last departure.
    pub first_s: Option<f64>,
    pub last_s: Option<f64>,
}

impl DirReport {
    /// Bytes (IP) per second over the time the direction carried packets.
    pub fn rate_bps(&self) -> f64 {
        match (self.first_s, self.last_s) {
            (Some(a), Some(b)) if b > a => self.stats.departed_bytes as f64 * 8.0 / (b - a),
            _ => 0.0,
        }
    }

    pub fn observed(&self) -> DirObserved {
        DirObserved {
            stats: self.stats,
            queue_delay: self.queue_delay,
        }
    }

    /// Channel losses per packet that crossed.
    pub fn loss_rate(&self) -> f64 {
        if self.stats.departed_packets == 0 {
            0.0
        } else {
            self.stats.channel_drops as f64 / self.stats.departed_packets as f64
        }
    }
}

/// Both directions of one running link. Dropping it stops the threads and closes the devices.
pub struct UserLink {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<Option<DirReport>>>,
    reports: Option<[DirReport; 2]>,
}

impl UserLink {
    /// Starts link `index` of a run seeded `seed` between `head` and `tail` (TUN devices).
    pub fn start(
        index: usize,
        link: &Link,
        seed: u64,
        head: File,
        tail: File,
    ) -> anyhow::Result<Self> {
        let head = Arc::new(head);
        let tail = Arc::new(tail);
        let stop = Arc::new(AtomicBool::new(false));
        let epoch = Instant::now();
        let delay_ns = link.delay.as_nanos() as u64;
        let mut threads = Vec::new();
        for (dir, from, to) in [
            (Direction::Forward, &head, &tail),
            (Direction::Reverse, &tail, &head),
        ] {
            let model = LinkDir::new(link, seed, index, dir);
            let (tx, rx) = mpsc::channel::<(Instant, Vec<u8>)>();
            let (from, to) = (from.clone(), to.clone());
            let (s1, s2) = (stop.clone(), stop.clone());
            let name = format!("link{index}-{dir:?}");
            threads.push(
                std::thread::Builder::new()
                    .name(format!("{name}-in"))
                    .spawn(move || Some(reader(model, &from, tx, epoch, delay_ns, &s1)))
                    .map_err(|e| anyhow!("starting a link thread: {e}"))?,
            );
            threads.push(
                std::thread::Builder::new()
                    .name(format!("{name}-out"))
                    .spawn(move || {
                        writer(&to, rx, &s2);
                        None
                    })
                    .map_err(|e| anyhow!("starting a link thread: {e}"))?,
            );
        }
        Ok(Self {
            stop,
            threads,
            reports: None,
        })
    }

    /// Stops the link and returns what each direction saw (forward, reverse).
    pub fn finish(&mut self) -> [DirReport; 2] {
        if let Some(r) = self.reports {
            return r;
        }
        self.stop.store(true, Ordering::SeqCst);
        let mut got = Vec::new();
        for t in self.threads.drain(..) {
            if let Ok(Some(r)) = t.join() {
                got.push(r);
            }
        }
        let r = [
            got.first().copied().unwrap_or_default(),
            got.get(1).copied().unwrap_or_default(),
        ];
        self.reports = Some(r);
        r
    }
}

impl Drop for UserLink {
    fn drop(&mut self) {
        self.finish();
    }
}

/// What one direction's reader thread carries between packets.
struct DirIn {
    model: LinkDir,
    tx: mpsc::Sender<(Instant, Vec<u8>)>,
    epoch: Instant,
    delay_ns: u64,
    report: DirReport,
    /// For a scheduled direction (FQ-CoDel), the packets it holds.
    held: Option<HeldPackets>,
}

/// The bytes of the packets a scheduled direction holds, by the token the model knows each by,
/// and the model time of its next service (as the simulator's pending `Service` event).
#[derive(Default)]
struct HeldPackets {
    bytes: HashMap<u64, Vec<u8>>,
    next_token: u64,
    service_at: Option<Nanos>,
}

/// The writer thread has gone: the link is stopping.
struct Closed;

fn reader(
    model: LinkDir,
    from: &File,
    tx: mpsc::Sender<(Instant, Vec<u8>)>,
    epoch: Instant,
    delay_ns: u64,
    stop: &AtomicBool,
) -> DirReport {
    let mut d = DirIn {
        held: model.is_scheduled().then(HeldPackets::default),
        model,
        tx,
        epoch,
        delay_ns,
        report: DirReport {
            epoch: Some(epoch),
            ..DirReport::default()
        },
    };
    let mut buf = vec![0u8; 65_536];
    while !stop.load(Ordering::Relaxed) {
        if d.serve_due(now_ns(epoch)).is_err() {
            break;
        }
        match tun::wait_readable(from, d.wait(epoch)) {
            Ok(true) => {}
            Ok(false) => continue,
            Err(_) => break,
        }
        // Drain what is there; each read is one IP packet.
        loop {
            let n = match (&*from).read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(_) => return d.finish(),
            };
            if d.arrive(&mut buf[..n]).is_err() {
                return d.finish();
            }
        }
    }
    d.finish()
}

fn now_ns(epoch: Instant) -> Nanos {
    nanos(epoch.elapsed())
}

impl DirIn {
    /// How long the reader may wait for a packet: until the next service is due, so service
    /// times are kept in real time within the timer's slack, and never past [`POLL`].
    fn wait(&self, epoch: Instant) -> Duration {
        match self.held.as_ref().and_then(|h| h.service_at) {
            Some(at) => Duration::from_nanos(at.saturating_sub(now_ns(epoch))).min(POLL),
            None => POLL,
        }
    }

    /// A packet came out of the router's TUN device: offered to the model now.
    fn arrive(&mut self, packet: &mut [u8]) -> Result<(), Closed> {
        let now = now_ns(self.epoch);
        self.report.first_s.get_or_insert(now as f64 / 1e9);
        // The model adds IPv4 + UDP headers to a payload length; hand it the IP packet's.
        let len = (packet.len() as u64).saturating_sub(IP_UDP_OVERHEAD) as usize;
        let ect = ecn_capable(packet);
        if self.held.is_none() {
            let outcome = self.model.offer(now, len, ect);
            return self.settle(packet, outcome);
        }
        // Services due before this arrival come first, as events in time order would.
        self.serve_due(now)?;
        let Some(held) = self.held.as_mut() else {
            return Ok(());
        };
        let token = held.next_token;
        held.next_token += 1;
        held.bytes.insert(token, packet.to_vec());
        let key = flow_key(packet);
        if let Some((token, outcome)) = self.model.enqueue(now, len, ect, key, token) {
            self.release(token, outcome)?;
        }
        self.schedule_service(now);
        Ok(())
    }

    /// Runs the services due at or before `now` at their own model times (RFC 8290 section
    /// 4.2's dequeue each), so a late wake-up delays no departure and shifts no sojourn.
    fn serve_due(&mut self, now: Nanos) -> Result<(), Closed> {
        while let Some(at) = self
            .held
            .as_ref()
            .and_then(|h| h.service_at)
            .filter(|&at| at <= now)
        {
            if let Some(h) = self.held.as_mut() {
                h.service_at = None;
            }
            for (token, outcome) in self.model.serve(at) {
                self.release(token, outcome)?;
            }
            self.schedule_service(at);
        }
        Ok(())
    }

    fn schedule_service(&mut self, now: Nanos) {
        if let Some(h) = self.held.as_mut() {
            if h.service_at.is_none() {
                h.service_at = self.model.next_service(now);
            }
        }
    }

    /// A held packet's fate is decided: its bytes go on or are forgotten.
    fn release(&mut self, token: u64, outcome: Outcome) -> Result<(), Closed> {
        match self.held.as_mut().and_then(|h| h.bytes.remove(&token)) {
            Some(mut packet) => self.settle(&mut packet, outcome),
            None => Ok(()),
        }
    }

    /// Carries out a packet's `outcome`: to the writer with its due time (marked CE if the
    /// model says so), or nowhere.
    fn settle(&mut self, packet: &mut [u8], outcome: Outcome) -> Result<(), Closed> {
        match outcome {
            Outcome::Arrives { at, ce, .. } => {
                self.report.last_s = Some(at.saturating_sub(self.delay_ns) as f64 / 1e9);
                if ce {
                    mark_ce(packet);
                }
                let due = self.epoch + Duration::from_nanos(at);
                self.tx.send((due, packet.to_vec())).map_err(|_| Closed)
            }
            Outcome::ChannelDrop(at) => {
                self.report.last_s = Some(at as f64 / 1e9);
                Ok(())
            }
            Outcome::QueueDrop(_) => Ok(()),
        }
    }

    fn finish(self) -> DirReport {
        let mut report = self.report;
        report.stats = self.model.stats;
        report.queue_delay = self.model.queue_delay();
        report
    }
}

fn writer(to: &File, rx: mpsc::Receiver<(Instant, Vec<u8>)>, stop: &AtomicBool) {
    // Packets waiting for their due time, earliest first; the sequence number keeps packets due
    // at the same instant in the order they came.
    let mut pending: BinaryHeap<Reverse<(Instant, u64, Vec<u8>)>> = BinaryHeap::new();
    let mut seq = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        while pending
            .peek()
            .is_some_and(|Reverse((due, _, _))| *due <= now)
        {
            if let Some(Reverse((_, _, packet))) = pending.pop() {
                // A full device queue drops the packet, as a NIC would.
                let _ = (&*to).write(&packet);
            }
        }
        let wait = pending
            .peek()
            .map_or(POLL, |Reverse((due, _, _))| {
                due.saturating_duration_since(now)
            })
            .min(POLL);
        match rx.recv_timeout(wait) {
            Ok((due, packet)) => {
                pending.push(Reverse((due, seq, packet)));
                seq += 1;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) if pending.is_empty() => return,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                if let Some(Reverse((due, _, _))) = pending.peek() {
                    std::thread::sleep(due.saturating_duration_since(Instant::now()));
                }
            }
        }
    }
}

/// FQ-CoDel's flow key of an IP packet: a hash of its 5-tuple (RFC 8290 section 4.1.1), the
/// addresses and protocol from the IPv4 header and the ports from the UDP or TCP header after
/// it (its options skipped). A later fragment carries no ports, and hashes with them zero. A
/// packet that is not IPv4, or too short for its header, is key 0: its own flow. The hash is
/// FNV-1a, fixed and seedless, so a run's buckets are the same every time.
pub fn flow_key(packet: &[u8]) -> u64 {
    const TCP: u8 = 6;
    const UDP: u8 = 17;
    let Some(&first) = packet.first() else {
        return 0;
    };
    let ihl = usize::from(first & 0x0f) * 4;
    if first >> 4 != 4 || ihl < 20 || packet.len() < ihl {
        return 0;
    }
    let protocol = packet[9];
    let later_fragment = u16::from_be_bytes([packet[6], packet[7]]) & 0x1fff != 0;
    let ports = match packet.get(ihl..ihl + 4) {
        Some(p) if matches!(protocol, TCP | UDP) && !later_fragment => p,
        _ => &[0; 4],
    };
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in packet[12..20].iter().chain([protocol].iter()).chain(ports) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// Whether an IP packet carries ECT(0) or ECT(1) in its ECN field (RFC 3168 section 5).
pub fn ecn_capable(packet: &[u8]) -> bool {
    matches!(ecn_field(packet), Some(0b01 | 0b10))
}

fn ecn_field(packet: &[u8]) -> Option<u8> {
    match packet.first()? >> 4 {
        4 => Some(packet.get(1)? & 0b11),
        6 => Some((packet.get(1)? >> 4) & 0b11),
        _ => None,
    }
}

/// Sets the ECN field of an IPv4 or IPv6 packet to CE (0b11); for IPv4 the header checksum is
/// updated incrementally (RFC 1624, eqn. 3) so the receiver's kernel accepts the packet.
pub fn mark_ce(packet: &mut [u8]) {
    match packet.first().map(|b| b >> 4) {
        Some(4) if packet.len() >= 20 => {
            let old = u16::from_be_bytes([packet[0], packet[1]]);
            packet[1] |= 0b11;
            let new = u16::from_be_bytes([packet[0], packet[1]]);
            let sum = u16::from_be_bytes([packet[10], packet[11]]);
            // HC' = ~(~HC + ~m + m')
            let mut acc = u32::from(!sum) + u32::from(!old) + u32::from(new);
            while acc > 0xffff {
                acc = (acc & 0xffff) + (acc >> 16);
            }
            packet[10..12].copy_from_slice(&(!(acc as u16)).to_be_bytes());
        }
        Some(6) if packet.len() >= 40 => packet[1] |= 0b11 << 4,
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The IPv4 header checksum (RFC 791): the ones' complement of the ones' complement sum.
    fn checksum(header: &[u8]) -> u16 {
        let mut acc: u32 = header
            .chunks(2)
            .map(|c| u32::from(u16::from_be_bytes([c[0], c[1]])))
            .sum();
        while acc > 0xffff {
            acc = (acc & 0xffff) + (acc >> 16);
        }
        !(acc as u16)
    }

    fn ipv4(tos: u8) -> Vec<u8> {
        let mut h = vec![
            0x45, tos, 0x05, 0xdc, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11, 0, 0, 10, 0, 0, 1, 10, 0, 1,
            2,
        ];
        let c = checksum(&h);
        h[10..12].copy_from_slice(&c.to_be_bytes());
        h
    }

    /// An IPv4 packet of `protocol` from `src`:`sport` to `dst`:`dport`, with `options` 32-bit
    /// words of IP options.
    fn packet(
        protocol: u8,
        src: [u8; 4],
        sport: u16,
        dst: [u8; 4],
        dport: u16,
        options: u8,
    ) -> Vec<u8> {
        let mut p = vec![0x45 + options, 0, 0, 0, 0, 0, 0x40, 0, 64, protocol, 0, 0];
        p.extend(src);
        p.extend(dst);
        p.resize(p.len() + 4 * usize::from(options), 1);
        p.extend(sport.to_be_bytes());
        p.extend(dport.to_be_bytes());
        p.extend([0; 8]);
        p
    }

    const A: [u8; 4] = [10, 0, 0, 1];
    const B: [u8; 4] = [10, 0, 1, 2];

    #[test]
    fn the_flow_key_is_the_5_tuple() {
        let k = flow_key(&packet(17, A, 4433, B, 5000, 0));
        assert_ne!(k, 0);
        // The payload and the header's other fields are not part of it.
        let mut other = packet(17, A, 4433, B, 5000, 0);
        other[1] = 0x02;
        other[8] = 12;
        other.extend([9; 100]);
        assert_eq!(flow_key(&other), k);
        for different in [
            packet(17, A, 4434, B, 5000, 0),
            packet(17, A, 4433, B, 5001, 0),
            packet(17, B, 4433, A, 5000, 0),
            packet(17, A, 4433, [10, 0, 1, 3], 5000, 0),
            packet(6, A, 4433, B, 5000, 0),
        ] {
            assert_ne!(flow_key(&different), k, "{different:?}");
        }
    }

    #[test]
    fn the_flow_key_skips_ip_options() {
        // The ports come after the options: the same 5-tuple with and without them.
        let plain = flow_key(&packet(6, A, 80, B, 40_000, 0));
        assert_eq!(flow_key(&packet(6, A, 80, B, 40_000, 2)), plain);
        assert_ne!(flow_key(&packet(6, A, 81, B, 40_000, 2)), plain);
    }

    #[test]
    fn short_and_non_ipv4_packets_are_key_0() {
        let p = packet(17, A, 4433, B, 5000, 0);
        assert_eq!(flow_key(&[]), 0);
        assert_eq!(flow_key(&p[..19]), 0);
        // An IHL below the minimum header, or beyond the packet.
        let mut bad = p.clone();
        bad[0] = 0x44;
        assert_eq!(flow_key(&bad), 0);
        assert_eq!(flow_key(&packet(17, A, 4433, B, 5000, 3)[..30]), 0);
        let mut v6 = vec![0x60; 60];
        v6[1] = 0;
        assert_eq!(flow_key(&v6), 0);
        // A header without room for the ports: the addresses and protocol still count.
        assert_ne!(flow_key(&p[..20]), 0);
        assert_eq!(flow_key(&p[..22]), flow_key(&p[..20]));
    }

    #[test]
    fn marks_ce_and_keeps_the_ipv4_checksum_valid() {
        for tos in [0x01, 0x02, 0xb9, 0xfe] {
            let mut p = ipv4(tos);
            assert!(ecn_capable(&p));
            mark_ce(&mut p);
            assert_eq!(p[1], tos | 0b11);
            assert!(!ecn_capable(&p));
            // A valid header sums to 0xffff, so its checksum over all of it is 0.
            assert_eq!(checksum(&p), 0, "tos {tos:#x}");
        }
        assert!(!ecn_capable(&ipv4(0x00)));
        let mut v6 = vec![0x60, 0x20, 0, 0];
        v6.resize(40, 0);
        assert!(ecn_capable(&v6));
        mark_ce(&mut v6);
        assert_eq!(v6[1], 0x30);
    }
}
