//! The congestion window shared by every algorithm here: slow start, congestion avoidance,
//! recovery periods, and the reductions the papers apply to them.
//!
//! Sizes are bytes; one MSS is the path's current maximum QUIC datagram size.

use std::time::Instant;

use crate::event::{Ack, CongestionEvent, State};

/// Initial window of RFC 9002 section 7.2 for quinn's 1200-byte base datagram:
/// `min(10 * 1200, max(2 * 1200, 14720))`.
pub const DEFAULT_INITIAL_WINDOW: u64 = 12_000;

/// RFC 3742's `max_ssthresh` for the crate's paper controllers, in MSS: above it, slow start
/// adds at most half of it, 256 MSS, a round.
///
/// Why 512 rather than the RFC's 100: the limit exists to bound the drops of one overshooting
/// round, and the bound that matters in QUIC is the receiver's, which closes the connection
/// when a stream has more gaps than it holds ([`RECEIVER_GAP_BUDGET`] is a quarter of quinn's).
/// Slow start at a gigabit drops thousands of alternate packets in its last round; 256 MSS a
/// round leaves about 512 holes at most (the round that overflows and the one before the loss
/// is seen), and no window below 512 MSS changes.
///
/// [`RECEIVER_GAP_BUDGET`]: crate::classify::RECEIVER_GAP_BUDGET
pub const MAX_SSTHRESH_PACKETS: u64 = 512;

/// A window in bytes with its slow-start threshold and recovery bookkeeping.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    cwnd: u64,
    ssthresh: u64,
    mss: u64,
    /// Limited slow start's `max_ssthresh` (RFC 3742), in MSS, where the algorithm takes it.
    max_ssthresh_packets: Option<u64>,
    /// The window never falls below this many MSS.
    floor_packets: u64,
    /// When the last reduction happened; losses of packets sent before it belong to the same
    /// congestion episode and ACKs of them do not grow the window.
    reduced_at: Option<Instant>,
    in_recovery: bool,
    /// Bytes acknowledged towards the next one-MSS step of congestion avoidance (RFC 3465).
    avoidance_credit: u64,
}

impl Window {
    /// A window of `initial_window` bytes, never below `floor_packets` MSS of `mss` bytes;
    /// `ssthresh` starts unbounded.
    pub fn new(initial_window: u64, mss: u64, floor_packets: u64) -> Self {
        let mss = mss.max(1);
        let floor_packets = floor_packets.max(1);
        Self {
            cwnd: initial_window.max(floor_packets.saturating_mul(mss)),
            ssthresh: u64::MAX,
            mss,
            max_ssthresh_packets: None,
            floor_packets,
            reduced_at: None,
            in_recovery: false,
            avoidance_credit: 0,
        }
    }

    /// The same window with limited slow start (RFC 3742, section 3): above `max_ssthresh`
    /// MSS, a round of slow start adds at most `max_ssthresh / 2` MSS, so that one round's
    /// overshoot cannot drop thousands of packets ([`MAX_SSTHRESH_PACKETS`] says why that
    /// matters to a QUIC receiver).
    pub fn with_limited_slow_start(mut self, max_ssthresh_packets: u64) -> Self {
        self.max_ssthresh_packets = Some(max_ssthresh_packets.max(2));
        self
    }

    /// Congestion window, in bytes.
    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }

    /// Slow-start threshold, in bytes; `u64::MAX` before the first reduction.
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    /// Maximum segment size, in bytes: the path's maximum datagram size as quinn reports it.
    pub fn mss(&self) -> u64 {
        self.mss
    }

    /// The smallest window this algorithm allows.
    pub fn min_window(&self) -> u64 {
        self.floor_packets.saturating_mul(self.mss)
    }

    /// Slow start below `ssthresh`, avoidance at or above it, recovery after a reduction until a
    /// packet sent after it is acknowledged.
    pub fn state(&self) -> State {
        if self.in_recovery {
            State::Recovery
        } else if self.cwnd < self.ssthresh {
            State::SlowStart
        } else {
            State::Avoidance
        }
    }

    /// Whether the window is below `ssthresh`, recovery or not: a cut that keeps slow start going
    /// ([`Self::reduce_in_slow_start`], [`Self::collapse`]) leaves it so while its recovery
    /// period lasts, and a controller that moves the window once a round must not read that
    /// period as the end of slow start.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Whether `ack` may grow the window: it must not be application-limited and must be for a
    /// packet sent after the last reduction. Such an ACK also ends the recovery period.
    pub fn admits_growth(&mut self, ack: &Ack) -> bool {
        if self.reduced_at.is_some_and(|at| ack.sent <= at) {
            return false;
        }
        self.in_recovery = false;
        !ack.app_limited
    }

    /// Reno growth: one MSS per MSS acknowledged below ssthresh (less above limited slow
    /// start's `max_ssthresh`), one MSS per window above it.
    pub fn grow_reno(&mut self, acked: u64) {
        if self.cwnd < self.ssthresh {
            let increase = match self.max_ssthresh_packets {
                Some(packets) => {
                    limited_slow_start_increase(acked, self.cwnd, packets.saturating_mul(self.mss))
                }
                None => acked,
            };
            self.cwnd = self.cwnd.saturating_add(increase);
            if self.cwnd >= self.ssthresh {
                // The overshoot already counts towards avoidance.
                self.avoidance_credit = self.cwnd - self.ssthresh;
            }
        } else {
            self.avoidance_credit = self.avoidance_credit.saturating_add(acked);
            if self.avoidance_credit >= self.cwnd {
                self.avoidance_credit -= self.cwnd;
                self.cwnd = self.cwnd.saturating_add(self.mss);
            }
        }
    }

    /// Adds `bytes` to the window as it stands.
    pub fn add(&mut self, bytes: u64) {
        self.cwnd = self.cwnd.saturating_add(bytes);
    }

    /// Sets the window to `bytes` (at least the floor) outside any loss episode, as a delay-based
    /// controller moves it: `ssthresh = cwnd`, congestion avoidance, no recovery period.
    pub fn resize(&mut self, bytes: u64) {
        self.cwnd = bytes.max(self.min_window());
        self.ssthresh = self.cwnd;
        self.avoidance_credit = 0;
    }

    /// Slow start again from where the window stands, until the next reduction or `until` bytes,
    /// limited above [`MAX_SSTHRESH_PACKETS`] (RFC 3742) whatever the window was built with: a
    /// flow that reopens slow start meets a buffer that is already full, where one doubling of a
    /// large window would drop thousands of packets.
    pub fn reopen_slow_start(&mut self, until: u64) {
        self.ssthresh = until.max(self.cwnd);
        self.avoidance_credit = 0;
        let limit = self.max_ssthresh_packets.unwrap_or(MAX_SSTHRESH_PACKETS);
        self.max_ssthresh_packets = Some(limit.min(MAX_SSTHRESH_PACKETS));
    }

    /// Ends slow start where the window stands: `ssthresh = cwnd`, congestion avoidance from here.
    pub fn end_slow_start(&mut self) {
        self.ssthresh = self.cwnd;
        self.avoidance_credit = 0;
    }

    /// `event` with the window's size in whole MSS filled in: classifiers that weigh a loss
    /// against the window (Veno's backlog, a burst's size, a loss share) read it from the event.
    pub fn annotate(&self, event: &CongestionEvent) -> CongestionEvent {
        CongestionEvent {
            window_packets: self.cwnd / self.mss.max(1),
            ..*event
        }
    }

    /// True if a loss of a packet sent at `sent` starts a new congestion episode, i.e. the packet
    /// went out after the last reduction.
    pub fn is_new_episode(&self, sent: Instant) -> bool {
        self.reduced_at.is_none_or(|at| sent > at)
    }

    /// Fast recovery: `cwnd = max(cwnd * beta, floor)`, `ssthresh = cwnd`.
    pub fn reduce(&mut self, now: Instant, beta: f64) {
        self.reduce_in_slow_start(now, beta);
        self.ssthresh = self.cwnd;
    }

    /// Fast recovery's cut, `cwnd = max(cwnd * beta, floor)`, with slow start going on
    /// (`ssthresh` as it was): for a loss that says nothing of the path's capacity.
    pub fn reduce_in_slow_start(&mut self, now: Instant, beta: f64) {
        self.cwnd = scale(self.cwnd, beta).max(self.min_window());
        self.enter_recovery(now);
    }

    /// A reduction to `bytes` (at least the floor): `cwnd = ssthresh = bytes`.
    pub fn reduce_to(&mut self, now: Instant, bytes: u64) {
        self.cwnd = bytes.max(self.min_window());
        self.ssthresh = self.cwnd;
        self.enter_recovery(now);
    }

    /// Tahoe's response: `ssthresh = max(cwnd * ssthresh_factor, 2 MSS)`, then slow start from
    /// `restart_packets` MSS.
    pub fn restart(&mut self, now: Instant, ssthresh_factor: f64, restart_packets: u64) {
        self.ssthresh = self.reduced_ssthresh(ssthresh_factor);
        self.cwnd = restart_packets
            .saturating_mul(self.mss)
            .max(self.min_window());
        self.enter_recovery(now);
    }

    /// Persistent congestion (TCP's retransmission timeout): ssthresh as for a loss, the window
    /// to its floor, slow start.
    pub fn collapse(&mut self, now: Instant, ssthresh_factor: f64) {
        self.ssthresh = self.reduced_ssthresh(ssthresh_factor);
        self.cwnd = self.min_window();
        self.enter_recovery(now);
    }

    /// A new path MTU: the window keeps its bytes but never falls below the new floor.
    pub fn set_mss(&mut self, mss: u64) {
        self.mss = mss.max(1);
        self.cwnd = self.cwnd.max(self.min_window());
    }

    fn reduced_ssthresh(&self, factor: f64) -> u64 {
        scale(self.cwnd, factor).max(self.mss.saturating_mul(2))
    }

    fn enter_recovery(&mut self, now: Instant) {
        // Events may arrive out of order in time; never move the episode boundary backwards.
        self.reduced_at = Some(self.reduced_at.map_or(now, |at| at.max(now)));
        self.in_recovery = true;
        self.avoidance_credit = 0;
    }
}

/// RFC 3742, section 3: below `max_ssthresh` bytes slow start adds what was acknowledged;
/// above it, `acked / K` with `K = int(cwnd / (0.5 * max_ssthresh))`, at most
/// `max_ssthresh / 2` a round.
fn limited_slow_start_increase(acked: u64, cwnd: u64, max_ssthresh: u64) -> u64 {
    if cwnd <= max_ssthresh {
        return acked;
    }
    let k = (cwnd / (max_ssthresh / 2).max(1)).max(1);
    acked / k
}

/// `bytes * factor`, saturating, for factors in [0, 1].
fn scale(bytes: u64, factor: f64) -> u64 {
    (bytes as f64 * factor.clamp(0.0, 1.0)) as u64
}
