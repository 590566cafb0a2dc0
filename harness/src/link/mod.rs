//! The link model both runners share: the simulator drives it in virtual time, the netns
//! runner's user-space engine in real time between two TUN devices.
//!
//! One direction of a link is a FIFO queue in front of a server, then a propagation delay:
//!
//! * **Service**: a fixed rate (serialisation of the IP packet) or a recorded capacity trace
//!   (`trace`, mahimahi's delivery opportunities).
//! * **Policer** (`police`): a token bucket in front of the queue drops what exceeds it
//!   (`police.rs`); nothing waits for it.
//! * **Queue**: drop-tail at `queue` packets waiting besides the one being sent, optionally with
//!   an AQM: CoDel (RFC 8289, `codel.rs`) dropping at dequeue, or PIE (RFC 8033, `pie.rs`)
//!   dropping on arrival, either marking ECN-capable packets CE instead where it would drop
//!   (`ecn = true`). Policer, drop-tail and AQM drops all count as queue drops, each also under
//!   its own name.
//! * **ECN** (`ecn`): step marking; an ECN-capable packet arriving to find at least `threshold`
//!   packets waiting is marked CE instead (a full queue still drops).
//! * **Channel loss** (`loss`), decided as a packet leaves the server, in departure order.
//! * **Delay variation**: per-packet jitter that keeps packets in order, and reordering (a packet
//!   held back so later ones overtake it).
//!
//! The queue is FIFO and the service schedule depends only on the packets ahead, so a packet's
//! whole fate is known the moment it arrives: a hop costs one event (the arrival at the next
//! hop). FQ-CoDel (RFC 8290, `fq_codel.rs`) is the exception: which packet leaves next depends
//! on packets still to come (a new flow's packet goes ahead of a backlog), so its links hold
//! packets as tokens and release them at service times (`enqueue`, `next_service`, `serve`). Each direction draws its loss and its delay variation from RNG streams of its own,
//! seeded by the scenario seed, the link and the direction.

mod codel;
mod fq_codel;
pub mod loss;
mod pie;
mod police;
pub mod trace;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::report::{LinkSummary, MeasuredLink, QueueDelay, QueueDrops, TraceUse};
use crate::scenario::{AqmKind, Jitter, Link, Reorder};
use codel::CoDelState;
use fq_codel::{FqCoDelState, Held};
use loss::{aqm_rng, link_rng, variation_rng, Direction, LossState};
use pie::{PieState, PieVerdict};
use police::PoliceState;
use trace::Schedule;

pub use crate::units::{IP_UDP_OVERHEAD, QUIC_MIN_DATAGRAM};

/// Nanoseconds since the start of a run (virtual in the simulator, real in namespaces).
pub type Nanos = u64;

pub const NANOS_PER_SEC: u64 = 1_000_000_000;

pub fn nanos(d: Duration) -> Nanos {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// What became of a packet offered to a link direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It reaches the far end of the link at `at` after waiting `queued` in its queue; `ce`:
    /// the link marked it Congestion Experienced.
    Arrives { at: Nanos, ce: bool, queued: Nanos },
    /// The queue dropped it at this time: drop-tail on arrival, or CoDel at dequeue.
    QueueDrop(Nanos),
    /// The channel lost it as it left the link at this time.
    ChannelDrop(Nanos),
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DirStats {
    pub offered: u64,
    /// Packets admitted and scheduled to leave (those still queued when a run ends included).
    pub departed_packets: u64,
    /// Their IP bytes.
    pub departed_bytes: u64,
    /// Policer, drop-tail and AQM drops.
    pub queue_drops: u64,
    /// The part of `queue_drops` CoDel took.
    pub codel_drops: u64,
    /// The part of `queue_drops` PIE took.
    pub pie_drops: u64,
    /// The part of `queue_drops` the policer took.
    pub police_drops: u64,
    /// The part of `queue_drops` FQ-CoDel took (its flows' CoDel and its limit).
    pub fq_codel_drops: u64,
    pub channel_drops: u64,
    pub ce_marks: u64,
    /// Packets held back by the reordering model.
    pub reordered: u64,
}

/// The AQM in front of a queue, with its state.
enum AqmState {
    CoDel(CoDelState),
    // Boxed: PIE carries its RNG, several times CoDel's size, and links are few.
    Pie(Box<PieState>),
}

/// What serves the queue.
enum Service {
    Rate(u64),
    Trace(Arc<Schedule>),
}

/// Where the service stands: a fixed rate is busy until a time; a trace is at an opportunity
/// with some bytes left in it.
#[derive(Debug, Clone, Copy, Default)]
struct Cursor {
    busy_until: Nanos,
    opportunity: u64,
    left: u64,
}

pub struct LinkDir {
    service: Service,
    cursor: Cursor,
    delay: Nanos,
    queue: usize,
    /// Departure times of the packets in the system (waiting or being sent), oldest first.
    departures: VecDeque<Nanos>,
    aqm: Option<AqmState>,
    /// The AQM marks ECN-capable packets instead of dropping them.
    aqm_ecn: bool,
    /// A scheduler that holds packets (FQ-CoDel), and when its server is next free.
    scheduled: Option<FqCoDelState>,
    server_free_at: Nanos,
    police: Option<PoliceState>,
    ecn_threshold: Option<usize>,
    jitter: Option<Jitter>,
    reorder: Option<Reorder>,
    /// Arrival time of the last packet that was not held back: jitter never lets a packet
    /// overtake it.
    last_arrival: Nanos,
    loss: LossState,
    variation: ChaCha8Rng,
    /// Sojourn time (arrival to dequeue) of every packet that left the queue, in microseconds.
    sojourn_us: Vec<u32>,
    pub stats: DirStats,
}

impl LinkDir {
    /// Direction `dir` of link `index` of `link` in a run seeded `seed`.
    pub fn new(link: &Link, seed: u64, index: usize, dir: Direction) -> Self {
        let model = match dir {
            Direction::Forward => &link.loss,
            Direction::Reverse => &link.reverse_loss,
        };
        let service = match &link.trace {
            // The parser has built the schedule once already, so this cannot fail; a fixed rate
            // is the fallback that keeps a link running should it ever.
            Some(t) => {
                Schedule::new(t).map_or(Service::Rate(link.rate.0), |s| Service::Trace(Arc::new(s)))
            }
            None => Service::Rate(link.rate.0),
        };
        let cursor = match &service {
            Service::Trace(s) => Cursor {
                left: s.bytes(0),
                ..Cursor::default()
            },
            Service::Rate(_) => Cursor::default(),
        };
        Self {
            service,
            cursor,
            delay: nanos(link.delay),
            queue: link.queue,
            departures: VecDeque::with_capacity(link.queue.min(100_000) + 1),
            aqm: link.aqm.and_then(|aqm| match aqm.kind {
                AqmKind::CoDel(c) => Some(AqmState::CoDel(CoDelState::new(
                    nanos(c.target),
                    nanos(c.interval),
                ))),
                AqmKind::Pie(p) => Some(AqmState::Pie(Box::new(PieState::new(
                    nanos(p.target),
                    nanos(p.tupdate),
                    aqm_rng(seed, index, dir),
                )))),
                AqmKind::FqCoDel(_) => None,
            }),
            aqm_ecn: link.aqm.is_some_and(|a| a.ecn),
            scheduled: link.aqm.and_then(|aqm| match aqm.kind {
                AqmKind::FqCoDel(f) => Some(FqCoDelState::new(
                    link.queue,
                    f.quantum,
                    nanos(f.codel.target),
                    nanos(f.codel.interval),
                    aqm.ecn,
                )),
                _ => None,
            }),
            server_free_at: 0,
            police: link.police.map(|p| PoliceState::new(p.rate.0, p.burst.0)),
            ecn_threshold: link.ecn.map(|e| e.threshold),
            jitter: link.jitter,
            reorder: link.reorder,
            last_arrival: 0,
            loss: LossState::new(model, link_rng(seed, index, dir)),
            variation: variation_rng(seed, index, dir),
            sojourn_us: Vec::new(),
            stats: DirStats::default(),
        }
    }

    /// Serialisation time of an IP packet of `ip_len` bytes at a fixed rate.
    fn serialisation(&self, ip_len: u64) -> Nanos {
        match self.service {
            Service::Rate(rate) if rate > 0 => {
                let bits = ip_len * 8;
                // Round up so that a link never runs faster than its rate.
                (bits as u128 * NANOS_PER_SEC as u128).div_ceil(rate as u128) as Nanos
            }
            _ => 0,
        }
    }

    /// When a packet of `ip_len` bytes arriving at `now` would leave the queue (dequeue) and
    /// the server (depart), and where the service would stand after it.
    fn plan(&self, now: Nanos, ip_len: u64) -> (Nanos, Nanos, Cursor) {
        let mut c = self.cursor;
        match &self.service {
            Service::Rate(_) => {
                let dequeue = c.busy_until.max(now);
                let depart = dequeue + self.serialisation(ip_len);
                c.busy_until = depart;
                (dequeue, depart, c)
            }
            Service::Trace(s) => {
                if c.left == 0 {
                    c.opportunity += 1;
                    c.left = s.bytes(c.opportunity);
                }
                // An opportunity that passed while the queue was empty is lost, as in mahimahi.
                if s.time(c.opportunity) < now {
                    c.opportunity = s.first_at_or_after(now);
                    c.left = s.bytes(c.opportunity);
                }
                // A packet larger than what is left of an opportunity takes the next ones too.
                let mut need = ip_len;
                while need > c.left {
                    need -= c.left;
                    c.opportunity += 1;
                    c.left = s.bytes(c.opportunity);
                }
                c.left -= need;
                let depart = s.time(c.opportunity);
                (depart, depart, c)
            }
        }
    }

    /// Offers a datagram of `len` bytes (UDP payload; IP/UDP headers are added) arriving at
    /// `now` (non-decreasing across calls); `ect`: it carries an ECN-capable codepoint.
    pub fn offer(&mut self, now: Nanos, len: usize, ect: bool) -> Outcome {
        self.stats.offered += 1;
        // When the last packet in the system leaves, read before the ones gone by `now` are
        // dropped from the schedule: PIE's updates that fell due since the last arrival read
        // their queueing delay from it, and one that fell after it found the queue empty.
        let backlog_until = self.departures.back().copied().unwrap_or(0);
        while self.departures.front().is_some_and(|&d| d <= now) {
            self.departures.pop_front();
        }
        let ip_len = len as u64 + IP_UDP_OVERHEAD;
        if self.police.as_mut().is_some_and(|p| !p.admit(now, ip_len)) {
            self.stats.queue_drops += 1;
            self.stats.police_drops += 1;
            return Outcome::QueueDrop(now);
        }
        // The oldest packet still in the system is being sent; the rest wait.
        let waiting = self.departures.len().saturating_sub(1);
        if !self.departures.is_empty() && waiting >= self.queue {
            self.stats.queue_drops += 1;
            return Outcome::QueueDrop(now);
        }
        let mut ce = ect && self.ecn_threshold.is_some_and(|n| waiting >= n);
        if let Some(AqmState::Pie(pie)) = &mut self.aqm {
            pie.catch_up(now, backlog_until);
            match pie.on_arrival(waiting, ect && self.aqm_ecn) {
                PieVerdict::Enqueue => {}
                PieVerdict::Mark => ce = true,
                PieVerdict::Drop => {
                    self.stats.queue_drops += 1;
                    self.stats.pie_drops += 1;
                    return Outcome::QueueDrop(now);
                }
            }
        }
        let (dequeue, depart, cursor) = self.plan(now, ip_len);
        let sojourn = dequeue - now;
        if let Some(AqmState::CoDel(codel)) = &mut self.aqm {
            if codel.drop_at_dequeue(dequeue, sojourn) {
                if ect && self.aqm_ecn {
                    ce = true;
                } else {
                    self.stats.queue_drops += 1;
                    self.stats.codel_drops += 1;
                    return Outcome::QueueDrop(dequeue);
                }
            }
        }
        self.cursor = cursor;
        self.departures.push_back(depart);
        self.depart(sojourn, depart, ip_len, ce)
    }

    /// Whether this direction holds packets and releases them at service times (FQ-CoDel):
    /// offer them with [`LinkDir::enqueue`], not [`LinkDir::offer`].
    pub fn is_scheduled(&self) -> bool {
        self.scheduled.is_some()
    }

    /// A datagram of `len` bytes of flow `key` (the scheduler's 5-tuple), the caller's `token`,
    /// arrives at `now` at a scheduled direction. Returns the fates decided now: this packet's
    /// if the policer drops it, or the packet the limit drops (this one or another's).
    pub fn enqueue(
        &mut self,
        now: Nanos,
        len: usize,
        ect: bool,
        key: u64,
        token: u64,
    ) -> Option<(u64, Outcome)> {
        self.stats.offered += 1;
        let ip_len = len as u64 + IP_UDP_OVERHEAD;
        if self.police.as_mut().is_some_and(|p| !p.admit(now, ip_len)) {
            self.stats.queue_drops += 1;
            self.stats.police_drops += 1;
            return Some((token, Outcome::QueueDrop(now)));
        }
        let fq = self.scheduled.as_mut()?;
        let held = Held {
            token,
            len: ip_len,
            enqueued: now,
            ect,
        };
        let dropped = fq.enqueue(key, held)?;
        self.stats.queue_drops += 1;
        self.stats.fq_codel_drops += 1;
        Some((dropped.token, Outcome::QueueDrop(now)))
    }

    /// When the server takes the next held packet, if any is held: `serve` then.
    pub fn next_service(&self, now: Nanos) -> Option<Nanos> {
        let fq = self.scheduled.as_ref()?;
        (fq.len() > 0).then_some(self.server_free_at.max(now))
    }

    /// The server takes the scheduler's next packet at `now`: its fate, and those of the
    /// packets the flows' CoDel dropped on the way.
    pub fn serve(&mut self, now: Nanos) -> Vec<(u64, Outcome)> {
        let Some(fq) = self.scheduled.as_mut() else {
            return Vec::new();
        };
        let out = fq.dequeue(now);
        let mut fates: Vec<(u64, Outcome)> = out
            .dropped
            .iter()
            .map(|d| (d.token, Outcome::QueueDrop(now)))
            .collect();
        self.stats.queue_drops += fates.len() as u64;
        self.stats.fq_codel_drops += fates.len() as u64;
        if let Some((held, ce)) = out.packet {
            let (dequeue, depart, cursor) = self.plan(now, held.len);
            self.cursor = cursor;
            self.server_free_at = depart;
            fates.push((
                held.token,
                self.depart(dequeue - held.enqueued, depart, held.len, ce),
            ));
        }
        fates
    }

    /// A packet leaves the queue after `sojourn` and the server at `depart`: its statistics,
    /// the channel's loss, and its arrival at the far end.
    fn depart(&mut self, sojourn: Nanos, depart: Nanos, ip_len: u64, ce: bool) -> Outcome {
        self.sojourn_us
            .push(u32::try_from(sojourn / 1000).unwrap_or(u32::MAX));
        self.stats.departed_packets += 1;
        self.stats.departed_bytes += ip_len;
        if ce {
            self.stats.ce_marks += 1;
        }
        if self.loss.lose(depart) {
            self.stats.channel_drops += 1;
            return Outcome::ChannelDrop(depart);
        }
        Outcome::Arrives {
            at: self.arrival(depart + self.delay),
            ce,
            queued: sojourn,
        }
    }

    /// The arrival time at the far end of a packet due at `due` without delay variation.
    fn arrival(&mut self, due: Nanos) -> Nanos {
        let mut at = due;
        if let Some(jitter) = self.jitter {
            let u: f64 = self.variation.gen();
            let extra = match jitter {
                Jitter::Uniform { max } => u * max.as_nanos() as f64,
                Jitter::Exponential { mean } => -(1.0 - u).ln() * mean.as_nanos() as f64,
            };
            at += extra as Nanos;
        }
        // Jitter keeps order: no packet arrives before one that left ahead of it.
        at = at.max(self.last_arrival);
        self.last_arrival = at;
        if let Some(r) = self.reorder {
            if self.variation.gen::<f64>() < r.probability {
                self.stats.reordered += 1;
                at += nanos(r.displacement);
            }
        }
        at
    }

    /// Mean and 95th percentile of the sojourn time of the packets that left the queue.
    pub fn queue_delay(&self) -> Option<QueueDelay> {
        queue_delay(&self.sojourn_us)
    }

    /// IP bytes the link's trace could deliver in `[0, end]`, for a link that replays one.
    pub fn trace_capacity_bytes(&self, end: Nanos) -> Option<u64> {
        match &self.service {
            Service::Trace(s) => Some(s.capacity_bytes(end)),
            Service::Rate(_) => None,
        }
    }
}

/// What a runner observed of one direction of a link.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DirObserved {
    pub stats: DirStats,
    pub queue_delay: Option<QueueDelay>,
}

impl DirStats {
    /// The queue drops by who dropped them.
    pub fn queue_drops_by(&self) -> QueueDrops {
        let named = self.codel_drops + self.pie_drops + self.police_drops + self.fq_codel_drops;
        QueueDrops {
            total: self.queue_drops,
            drop_tail: self.queue_drops.saturating_sub(named),
            codel: self.codel_drops,
            pie: self.pie_drops,
            fq_codel: self.fq_codel_drops,
            police: self.police_drops,
        }
    }
}

impl LinkDir {
    pub fn observed(&self) -> DirObserved {
        DirObserved {
            stats: self.stats,
            queue_delay: self.queue_delay(),
        }
    }
}

/// The queue discipline in words, e.g. `drop-tail 50`, `codel target=5ms interval=100ms limit
/// 1000`, `pie target=15ms tupdate=15ms ecn limit 100`, with ` police 8Mbit/60000B` behind a
/// policer.
pub fn describe_queue(link: &Link) -> String {
    use crate::units::format_duration as d;
    let mut text = match link.aqm.map(|a| (a.kind, a.ecn)) {
        Some((AqmKind::CoDel(c), ecn)) => format!(
            "codel target={} interval={}{} limit {}",
            d(c.target),
            d(c.interval),
            if ecn { " ecn" } else { "" },
            link.queue
        ),
        Some((AqmKind::Pie(p), ecn)) => format!(
            "pie target={} tupdate={}{} limit {}",
            d(p.target),
            d(p.tupdate),
            if ecn { " ecn" } else { "" },
            link.queue
        ),
        Some((AqmKind::FqCoDel(f), ecn)) => format!(
            "fq_codel target={} interval={} quantum={}{} limit {}",
            d(f.codel.target),
            d(f.codel.interval),
            f.quantum,
            if ecn { " ecn" } else { "" },
            link.queue
        ),
        None => format!("drop-tail {}", link.queue),
    };
    if let Some(p) = link.police {
        text.push_str(&format!(" police {}/{}B", p.rate, p.burst.0));
    }
    text
}

/// `summary.json`'s entry for `link`, for either runner: the configured figures, what the
/// runner `measured`, and, from an engine that runs this model, what each direction
/// (forward, reverse) observed. `run` is how long the run lasted, `trace_start` when it started
/// on the link's clock (the user-space engine starts before the flows), and `delivered_bytes`
/// the application bytes of the flows that cross the link.
pub fn summary(
    link: &Link,
    engine: &str,
    measured: Option<MeasuredLink>,
    observed: Option<[DirObserved; 2]>,
    run: Duration,
    trace_start: Duration,
    delivered_bytes: u64,
) -> LinkSummary {
    let trace = link.trace.as_ref().and_then(|t| {
        let s = Schedule::new(t).ok()?;
        let (from, to) = (nanos(trace_start), nanos(trace_start + run));
        let capacity = s.capacity_bytes(to) - s.capacity_bytes(from);
        let secs = run.as_secs_f64();
        Some(TraceUse {
            file: t.file.clone(),
            mean_capacity_bps: if secs > 0.0 {
                capacity as f64 * 8.0 / secs
            } else {
                0.0
            },
            goodput_fraction: if capacity > 0 {
                delivered_bytes as f64 / capacity as f64
            } else {
                0.0
            },
        })
    });
    let [fwd, rev] = observed.unwrap_or_default();
    LinkSummary {
        name: link.name.clone(),
        rate_bps: link.rate.0,
        delay_s: link.delay.as_secs_f64(),
        queue_packets: link.queue,
        loss: loss::describe(&link.loss),
        engine: engine.into(),
        measured,
        queue: describe_queue(link),
        queue_delay: fwd.queue_delay,
        queue_delay_unavailable: None,
        ce_marks: fwd.stats.ce_marks + rev.stats.ce_marks,
        reordered: fwd.stats.reordered + rev.stats.reordered,
        trace,
        queue_drops: observed.map(|_| fwd.stats.queue_drops_by()),
    }
}

/// Mean and 95th percentile of queueing delays given in microseconds.
pub fn queue_delay(sojourn_us: &[u32]) -> Option<QueueDelay> {
    if sojourn_us.is_empty() {
        return None;
    }
    let mean_us = sojourn_us.iter().map(|&s| s as f64).sum::<f64>() / sojourn_us.len() as f64;
    let mut sorted = sojourn_us.to_vec();
    let rank = ((sorted.len() as f64 * 0.95).ceil() as usize).clamp(1, sorted.len()) - 1;
    let (_, p95, _) = sorted.select_nth_unstable(rank);
    Some(QueueDelay {
        mean_s: mean_us / 1e6,
        p95_s: *p95 as f64 / 1e6,
    })
}

#[cfg(test)]
mod tests;
