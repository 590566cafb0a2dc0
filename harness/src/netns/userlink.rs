//! The user-space link engine: one scenario link between two TUN devices, the head router's and
//! the tail router's, run in real time through the link model the simulator uses
//! ([`crate::link`]: rate or capacity trace, drop-tail or CoDel queue, ECN step marking, channel
//! loss, jitter and reordering, each direction seeded as in the simulator).
//!
//! Per direction, a reader thread takes each packet the router sends into its TUN device, offers
//! it to the model at the current time (with its IP header's ECN field), marks CE in the header
//! when the model says so, and passes the survivors with their due time to a writer thread, which
//! writes them into the other TUN device when due (earliest first: reordering lets a later packet
//! be due sooner).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
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
use crate::link::{DirObserved, DirStats, LinkDir, Outcome, IP_UDP_OVERHEAD};
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

fn reader(
    mut model: LinkDir,
    from: &File,
    tx: mpsc::Sender<(Instant, Vec<u8>)>,
    epoch: Instant,
    delay_ns: u64,
    stop: &AtomicBool,
) -> DirReport {
    let mut report = DirReport {
        epoch: Some(epoch),
        ..DirReport::default()
    };
    let mut buf = vec![0u8; 65_536];
    while !stop.load(Ordering::Relaxed) {
        match tun::wait_readable(from, POLL) {
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
                Err(_) => return report,
            };
            let now = epoch.elapsed();
            let now_ns = now.as_nanos() as u64;
            report.first_s.get_or_insert(now.as_secs_f64());
            // The model adds IPv4 + UDP headers to a payload length; hand it the IP packet's.
            let len = (n as u64).saturating_sub(IP_UDP_OVERHEAD) as usize;
            let ect = ecn_capable(&buf[..n]);
            match model.offer(now_ns, len, ect) {
                Outcome::Arrives { at, ce, .. } => {
                    report.last_s = Some(at.saturating_sub(delay_ns) as f64 / 1e9);
                    if ce {
                        mark_ce(&mut buf[..n]);
                    }
                    let due = epoch + Duration::from_nanos(at);
                    if tx.send((due, buf[..n].to_vec())).is_err() {
                        return finish(report, model);
                    }
                }
                Outcome::ChannelDrop(at) => report.last_s = Some(at as f64 / 1e9),
                Outcome::QueueDrop(_) => {}
            }
        }
    }
    finish(report, model)
}

fn finish(mut report: DirReport, model: LinkDir) -> DirReport {
    report.stats = model.stats;
    report.queue_delay = model.queue_delay();
    report
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
