//! The user-space link engine: one scenario link between two TUN devices, the head router's and
//! the tail router's, run in real time through the simulator's own link model (drop-tail queue,
//! serialisation at the rate, propagation delay, the seeded loss model of each direction).
//!
//! Per direction, a reader thread takes each packet the router sends into its TUN device, offers
//! it to the model at the current time, and passes the survivors with their due time to a writer
//! thread, which writes them into the other TUN device when due. Due times of one direction never
//! decrease (a FIFO queue, a fixed delay), so a channel in arrival order is the whole timer.

use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::anyhow;

use super::tun;
use crate::scenario::Link;
use crate::sim::link::{DirStats, LinkDir, Outcome, IP_UDP_OVERHEAD};
use crate::sim::loss::{link_rng, Direction, LossState};

/// How often idle threads look at the stop flag.
const POLL: Duration = Duration::from_millis(20);

/// What one direction saw.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DirReport {
    pub stats: DirStats,
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
        for (dir, from, to, loss) in [
            (Direction::Forward, &head, &tail, &link.loss),
            (Direction::Reverse, &tail, &head, &link.reverse_loss),
        ] {
            let model = LinkDir::new(link, LossState::new(loss, link_rng(seed, index, dir)));
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
    let mut report = DirReport::default();
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
            match model.offer(now_ns, len) {
                Outcome::Arrives(at) => {
                    report.last_s = Some(at.saturating_sub(delay_ns) as f64 / 1e9);
                    let due = epoch + Duration::from_nanos(at);
                    if tx.send((due, buf[..n].to_vec())).is_err() {
                        return finish(report, model);
                    }
                }
                Outcome::ChannelDrop(at) => report.last_s = Some(at as f64 / 1e9),
                Outcome::QueueDrop => {}
            }
        }
    }
    finish(report, model)
}

fn finish(mut report: DirReport, model: LinkDir) -> DirReport {
    report.stats = model.stats;
    report
}

fn writer(to: &File, rx: mpsc::Receiver<(Instant, Vec<u8>)>, stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        let (due, packet) = match rx.recv_timeout(POLL) {
            Ok(p) => p,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        };
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        // A full device queue drops the packet, as a NIC would.
        let _ = (&*to).write(&packet);
    }
}
