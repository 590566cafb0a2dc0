//! Virtual time and the event queue.
//!
//! Time is a count of nanoseconds since the start of the run. quinn-proto wants
//! `std::time::Instant`s, so one real `Instant` captured when the run starts serves as the epoch
//! and every instant handed to quinn is `epoch + virtual offset`. Nothing ever sleeps.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use std::time::{Duration, Instant};

/// Virtual nanoseconds since the start of the run.
pub type VTime = u64;

pub const NANOS_PER_SEC: u64 = 1_000_000_000;

pub fn from_duration(d: Duration) -> VTime {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

pub fn secs(t: VTime) -> f64 {
    t as f64 / NANOS_PER_SEC as f64
}

/// When an endpoint wakes for a timer: at its deadline, or at the first tick of a host's timer
/// wheel at or after it (`timer_granularity`). A tokio runtime rounds every sleep up to its
/// millisecond ticks, so a paced release waits for the next tick and a receiver's ACK timer fires
/// late: timing a real-time run has and exact timers lack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerWake {
    AtDeadline,
    /// Ticks of this many nanoseconds of virtual time from the run's start.
    OnTicks(VTime),
}

impl TimerWake {
    pub fn new(granularity: Option<Duration>) -> Self {
        match granularity.map(from_duration) {
            Some(tick) if tick > 0 => TimerWake::OnTicks(tick),
            _ => TimerWake::AtDeadline,
        }
    }

    /// When a timer due at `deadline` fires, read at `now`: a deadline already past fires at
    /// once, as an expired sleep does.
    pub fn fires_at(self, deadline: VTime, now: VTime) -> VTime {
        match self {
            TimerWake::OnTicks(tick) if deadline > now => {
                deadline.div_ceil(tick).saturating_mul(tick)
            }
            _ => deadline.max(now),
        }
    }
}

/// A reading of the cheapest monotonic counter there is (the TSC on x86_64), for telling how much
/// of a run's wall time went where. The simulator reads it around every quinn-proto call, tens of
/// times per packet; with `Instant::now` (a `clock_gettime` call) those readings took a fifth of
/// a run. Only ratios of tick counts mean anything: [`share`] turns one into wall seconds.
#[inline]
pub fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: every x86_64 CPU has RDTSC, and reading it has no side effects.
    unsafe {
        std::arch::x86_64::_rdtsc()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        from_duration(EPOCH.get_or_init(Instant::now).elapsed())
    }
}

/// The wall time spent inside quinn-proto, in [`ticks`], estimated from a sample of its calls.
///
/// Reading the counter around every call (tens of calls a packet) cost a twentieth of a run.
/// Timing one call in [`QuinnTime::ONE_IN`], each chosen at random, costs a sixteenth of that
/// and still estimates the sum without bias: the sampled calls' ticks count `ONE_IN` times. The
/// choice draws from its own generator, never the run's, so no result depends on it.
#[derive(Debug, Clone)]
pub struct QuinnTime {
    ticks: u64,
    draw: u64,
}

impl Default for QuinnTime {
    fn default() -> Self {
        Self {
            ticks: 0,
            draw: 0x2545_f491_4f6c_dd1d,
        }
    }
}

impl QuinnTime {
    /// One call in this many is timed.
    pub const ONE_IN: u64 = 16;

    /// Runs `f`, a quinn-proto call, timing it if it is drawn.
    #[inline]
    pub fn timed<R>(&mut self, f: impl FnOnce() -> R) -> R {
        if !self.draw() {
            return f();
        }
        let t0 = ticks();
        let r = f();
        self.add_sampled(ticks().saturating_sub(t0));
        r
    }

    /// Whether to time the next call (xorshift64, Marsaglia 2003).
    #[inline]
    pub fn draw(&mut self) -> bool {
        self.draw ^= self.draw << 13;
        self.draw ^= self.draw >> 7;
        self.draw ^= self.draw << 17;
        self.draw.is_multiple_of(Self::ONE_IN)
    }

    /// Counts `ticks` measured on a call that [`Self::draw`] chose.
    #[inline]
    pub fn add_sampled(&mut self, ticks: u64) {
        self.ticks = self
            .ticks
            .saturating_add(ticks.saturating_mul(Self::ONE_IN));
    }

    /// The estimated total.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }
}

/// The wall seconds `part` ticks stand for, of `whole` ticks that took `wall_s` seconds.
pub fn share(wall_s: f64, part: u64, whole: u64) -> f64 {
    if whole == 0 {
        return 0.0;
    }
    wall_s * part.min(whole) as f64 / whole as f64
}

/// Maps virtual time to the `Instant`s quinn-proto expects, and back.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    epoch: Instant,
}

impl Clock {
    pub fn new(epoch: Instant) -> Self {
        Self { epoch }
    }

    pub fn instant(&self, t: VTime) -> Instant {
        self.epoch + Duration::from_nanos(t)
    }

    /// The virtual time of an instant; instants before the epoch map to 0.
    pub fn vtime(&self, i: Instant) -> VTime {
        from_duration(i.saturating_duration_since(self.epoch))
    }
}

/// A heap entry: the event's time, its insertion sequence and where the event waits. Kept small
/// (24 bytes) so the heap's sifts move little; the events themselves (a packet with its buffer)
/// stay put until popped.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Entry {
    at: VTime,
    seq: u64,
    place: Place,
}

/// Where a heap entry's event waits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// In the slab, at this slot.
    Slab(u32),
    /// At the head of this line.
    Line(u32),
    /// In this timer: the entry is at or before the timer's time.
    Timer(u32),
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // Reversed: `BinaryHeap` is a max-heap and the earliest entry must come out first. `seq` is
    // unique, so `place` never decides.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// A timer that is set again and again ([`EventQueue::set_timer`]): its live event, and the
/// time and sequence of its earliest entry in the heap (`None`: no entry it counts on).
struct Timer<E> {
    live: Option<(VTime, u64, E)>,
    entry: Option<(VTime, u64)>,
}

/// Events ordered by (virtual time, insertion sequence): ties resolve in insertion order, which
/// makes the run a pure function of its inputs.
///
/// Most events are packets on their way along a link, and a link delivers in order: each
/// link's arrivals are a FIFO line ([`Self::push_in_line`]) of which only the head sits in the
/// heap. Most of the rest are connection timers, which quinn moves on every packet: a timer
/// ([`Self::set_timer`]) keeps one entry in the heap, at or before its time, where pushing each
/// new time would leave thousands of stale ones. A gigabit path has thousands of packets in
/// flight and a handful of lines and timers, so the heap stays small. Every event keeps the
/// sequence number it was given when pushed or set, so the order is the same as if each had
/// its own entry in the heap.
pub struct EventQueue<E> {
    /// Events later than this are never popped, so they are not kept. Without it, every receiver
    /// datagram would leave a stale idle-timeout event beyond the run's end in the heap (quinn
    /// pushes the idle timer back on every packet), and a long run's heap would grow by tens of
    /// thousands of entries, each making every push and pop slower.
    horizon: VTime,
    heap: BinaryHeap<Entry>,
    /// Pending events by slot; `None` slots are free and listed in `free`.
    slab: Vec<Option<E>>,
    free: Vec<u32>,
    /// In-order events by line, each with its time and sequence number.
    lines: Vec<VecDeque<(VTime, u64, E)>>,
    timers: Vec<Timer<E>>,
    seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::until(VTime::MAX)
    }
}

impl<E> EventQueue<E> {
    /// A queue for a run that ends at `horizon`: events after it are dropped on push.
    pub fn until(horizon: VTime) -> Self {
        Self {
            horizon,
            heap: BinaryHeap::new(),
            slab: Vec::new(),
            free: Vec::new(),
            lines: Vec::new(),
            timers: Vec::new(),
            seq: 0,
        }
    }

    pub fn push(&mut self, at: VTime, event: E) {
        if at > self.horizon {
            return;
        }
        self.seq += 1;
        self.push_in_slab(at, self.seq, event);
    }

    /// Pushes `event` at the end of line `line`, where it comes out after the line's earlier
    /// events. An event earlier than the line's last (a link that reorders) waits in the heap
    /// instead, with the same sequence number: the order of events is the same either way.
    pub fn push_in_line(&mut self, line: usize, at: VTime, event: E) {
        if at > self.horizon {
            return;
        }
        self.seq += 1;
        let seq = self.seq;
        if self.lines.len() <= line {
            self.lines.resize_with(line + 1, VecDeque::new);
        }
        let fifo = &mut self.lines[line];
        match fifo.back() {
            Some(&(last, ..)) if at < last => self.push_in_slab(at, seq, event),
            Some(_) => fifo.push_back((at, seq, event)),
            None => {
                fifo.push_back((at, seq, event));
                let line = u32::try_from(line).expect("fewer than 2^32 lines");
                self.heap.push(Entry {
                    at,
                    seq,
                    place: Place::Line(line),
                });
            }
        }
    }

    fn push_in_slab(&mut self, at: VTime, seq: u64, event: E) {
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slab[slot as usize] = Some(event);
                slot
            }
            None => {
                self.slab.push(Some(event));
                u32::try_from(self.slab.len() - 1).expect("fewer than 2^32 pending events")
            }
        };
        self.heap.push(Entry {
            at,
            seq,
            place: Place::Slab(slot),
        });
    }

    /// Sets timer `key` to fire `event` at `at`, or cancels it (`None`, or a time after the
    /// horizon). Its earlier setting no longer fires.
    pub fn set_timer(&mut self, key: usize, at: Option<VTime>, event: E) {
        if self.timers.len() <= key {
            self.timers.resize_with(key + 1, || Timer {
                live: None,
                entry: None,
            });
        }
        let Some(at) = at.filter(|&at| at <= self.horizon) else {
            self.timers[key].live = None;
            return;
        };
        self.seq += 1;
        let seq = self.seq;
        let timer = &mut self.timers[key];
        timer.live = Some((at, seq, event));
        if timer.entry.is_some_and(|entry| entry <= (at, seq)) {
            // The entry it has comes out first, and moves on to this time then.
            return;
        }
        timer.entry = Some((at, seq));
        let key = u32::try_from(key).expect("fewer than 2^32 timers");
        self.heap.push(Entry {
            at,
            seq,
            place: Place::Timer(key),
        });
    }

    /// Pops timer entries from the top of the heap until the top is an event that fires: an
    /// entry the timer no longer counts on goes, and one before its timer's live time moves on
    /// to that time.
    fn settle_top(&mut self) {
        while let Some(&top) = self.heap.peek() {
            let Place::Timer(key) = top.place else {
                return;
            };
            let timer = &mut self.timers[key as usize];
            let here = (top.at, top.seq);
            let live = timer.live.as_ref().map(|&(at, seq, _)| (at, seq));
            if timer.entry == Some(here) && live == Some(here) {
                return;
            }
            self.heap.pop();
            if timer.entry != Some(here) {
                continue;
            }
            timer.entry = live;
            if let Some((at, seq)) = live {
                self.heap.push(Entry { at, seq, ..top });
            }
        }
    }

    pub fn peek_time(&mut self) -> Option<VTime> {
        self.settle_top();
        self.heap.peek().map(|e| e.at)
    }

    pub fn pop(&mut self) -> Option<(VTime, E)> {
        self.settle_top();
        let e = self.heap.pop()?;
        match e.place {
            Place::Slab(slot) => {
                self.free.push(slot);
                let event = self.slab[slot as usize]
                    .take()
                    .expect("a queued slot holds its event");
                Some((e.at, event))
            }
            Place::Line(line) => {
                let fifo = &mut self.lines[line as usize];
                let (at, _, event) = fifo.pop_front().expect("a line in the heap has a head");
                if let Some(&(at, seq, _)) = fifo.front() {
                    self.heap.push(Entry { at, seq, ..e });
                }
                Some((at, event))
            }
            Place::Timer(key) => {
                let timer = &mut self.timers[key as usize];
                timer.entry = None;
                let (at, _, event) = timer.live.take().expect("a settled timer is live");
                Some((at, event))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: VTime = 1_000_000;

    #[test]
    fn a_timer_on_ticks_fires_at_the_first_tick_at_or_after_its_deadline() {
        let ticks = TimerWake::new(Some(Duration::from_millis(1)));
        assert_eq!(ticks.fires_at(MS + MS / 5, MS), 2 * MS);
        assert_eq!(ticks.fires_at(3 * MS, MS), 3 * MS, "a deadline on a tick");
        assert_eq!(
            ticks.fires_at(MS / 2, MS),
            MS,
            "a deadline already past fires at once"
        );
        let exact = TimerWake::new(None);
        assert_eq!(exact.fires_at(MS + MS / 5, MS), MS + MS / 5);
        assert_eq!(exact.fires_at(MS / 2, MS), MS);
    }

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = EventQueue::default();
        q.push(5, "c");
        q.push(1, "a");
        q.push(5, "d");
        q.push(1, "b");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(1, "a"), (1, "b"), (5, "c"), (5, "d")]);
    }

    #[test]
    fn lines_pop_in_the_same_order_as_the_heap_alone() {
        // Two links' arrivals (one reorders now and then) and timers, pushed in one
        // interleaving: lines must not change the order of anything.
        let mut lined = EventQueue::default();
        let mut plain = EventQueue::default();
        let mut clock = 0u64;
        let mut order = (Vec::new(), Vec::new());
        for i in 0..2000u64 {
            clock += i % 7;
            let line = (i % 3) as usize;
            let late = if i % 50 == 0 { 0 } else { 40 };
            let at = clock + late + (i % 5);
            if line == 2 {
                lined.push(at, i);
            } else {
                lined.push_in_line(line, at, i);
            }
            plain.push(at, i);
            if i % 4 == 0 {
                order.0.extend(lined.pop());
                order.1.extend(plain.pop());
            }
        }
        order.0.extend(std::iter::from_fn(|| lined.pop()));
        order.1.extend(std::iter::from_fn(|| plain.pop()));
        assert_eq!(order.0.len(), 2000);
        assert_eq!(order.0, order.1);
    }

    #[test]
    fn timers_fire_in_the_same_order_as_an_entry_for_every_setting() {
        // The old way: every setting pushed, and a stale one was recognised by its generation.
        // Two timers moved later, earlier, cancelled and past the horizon, among packets.
        let horizon = 5_000;
        let mut timers = EventQueue::until(horizon);
        let mut plain = EventQueue::until(horizon);
        let mut generation = [0u64; 2];
        let mut order = (Vec::new(), Vec::new());
        let mut clock = 0u64;
        for i in 0..3000u64 {
            clock += i % 3;
            let key = (i % 2) as usize;
            let at = match i % 11 {
                0 => None,
                1 => Some(horizon + 1),
                n => Some(clock + 10 * n + i % 7),
            };
            generation[key] += 1;
            timers.set_timer(key, at, (key as u64, generation[key]));
            if let Some(at) = at {
                plain.push(at, (key as u64, generation[key]));
            }
            timers.push(clock + 25, (9, i));
            plain.push(clock + 25, (9, i));
            if i % 3 == 0 {
                order.0.extend(timers.pop());
                order.1.extend(
                    std::iter::from_fn(|| plain.pop())
                        .find(|&(_, (key, gen))| key == 9 || gen == generation[key as usize]),
                );
            }
        }
        order.0.extend(std::iter::from_fn(|| timers.pop()));
        order.1.extend(
            std::iter::from_fn(|| plain.pop())
                .filter(|&(_, (key, gen))| key == 9 || gen == generation[key as usize]),
        );
        assert!(order.0.len() > 3000);
        assert_eq!(order.0, order.1);
    }

    #[test]
    fn slots_are_reused_and_order_holds_across_reuse() {
        let mut q = EventQueue::default();
        let mut popped = Vec::new();
        for round in 0..50u64 {
            q.push(round * 10 + 5, round * 2);
            q.push(round * 10, round * 2 + 1);
            popped.push(q.pop().unwrap());
        }
        popped.extend(std::iter::from_fn(|| q.pop()));
        assert!(q.slab.len() <= 51, "{}", q.slab.len());
        let times: Vec<u64> = popped.iter().map(|p| p.0).collect();
        let mut sorted = times.clone();
        sorted.sort();
        // Each round pops the earliest pending event, so the overall order is by time.
        assert_eq!(times.len(), 100);
        assert_eq!(sorted, {
            let mut t: Vec<u64> = (0..50).flat_map(|r| [r * 10, r * 10 + 5]).collect();
            t.sort();
            t
        });
        assert!(q.pop().is_none());
    }

    #[test]
    fn events_after_the_horizon_are_not_kept() {
        let mut q = EventQueue::until(10);
        q.push(11, "late");
        q.push(10, "last");
        q.push(3, "first");
        assert_eq!(q.heap.len(), 2);
        assert_eq!(q.pop(), Some((3, "first")));
        assert_eq!(q.pop(), Some((10, "last")));
        assert!(q.pop().is_none());
    }

    #[test]
    fn clock_round_trips() {
        let c = Clock::new(Instant::now());
        assert_eq!(c.vtime(c.instant(123_456_789)), 123_456_789);
    }
}
