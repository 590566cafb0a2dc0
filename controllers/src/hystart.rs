//! Leaving slow start on a delay rise: HyStart's delay test (Ha and Rhee, "Taming the elephants",
//! Computer Networks 2011, section 4.2; Linux `tcp_cubic.c`), with the round structure and
//! thresholds of HyStart++ (RFC 9406, section 4.2).
//!
//! A controller that keeps its window on random losses has no loss to end slow start until the
//! bottleneck queue overflows, or until an AQM has dropped the flow far past its target: the
//! window doubles once more than the path holds, and the queue it builds outlasts slow start.
//! The delay says it sooner. Once the minimum RTT of a round of at least [`N_RTT_SAMPLE`]
//! samples exceeds the previous round's by `clamp(previous / 8, 4 ms, 16 ms)`, the queue is
//! building, and slow start ends there: `ssthresh = cwnd`, congestion avoidance from now on.
//!
//! HyStart++'s Conservative Slow Start (CSS) is left out: it grows by a quarter per ACK for
//! five more rounds (3x) to guard against a spurious exit, and relies on a loss to stop it,
//! which this crate's controllers may read as random. As in Linux, the exit is final.
//!
//! Mapping to QUIC: RFC 9406 ends a round when the ACK of the round's last sent packet arrives;
//! here, when a packet sent after the round began is acknowledged (the algorithm sees send times,
//! not packet numbers). RTT samples are the per-ACK `now - sent`; a delayed ACK's sample is
//! large, so the round minimum passes over it.

use std::time::{Duration, Instant};

use crate::event::Ack;
use crate::window::Window;

/// RFC 9406 section 4.3: the bounds of the RTT increase that ends slow start.
const MIN_RTT_THRESH: Duration = Duration::from_millis(4);
const MAX_RTT_THRESH: Duration = Duration::from_millis(16);
const MIN_RTT_DIVISOR: u32 = 8;
/// RTT samples a round needs before its minimum counts.
pub const N_RTT_SAMPLE: u32 = 8;

/// The delay test's state for one flow.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HyStart {
    /// When the current round began: it ends with the ACK of a packet sent after it.
    round_start: Option<Instant>,
    last_round_min: Option<Duration>,
    current_round_min: Option<Duration>,
    samples: u32,
}

impl HyStart {
    /// Reads `ack`'s RTT sample while `window` is in slow start, and ends slow start
    /// (`ssthresh = cwnd`) when the round's minimum RTT has risen. Call before growing the
    /// window for the ACK.
    pub fn on_ack(&mut self, window: &mut Window, ack: &Ack) {
        if window.cwnd() >= window.ssthresh() {
            // A loss or the delay ended slow start; later slow starts (after persistent
            // congestion) go up to the ssthresh that the path set.
            return;
        }
        if self.round_start.is_none_or(|start| ack.sent >= start) {
            self.round_start = Some(ack.now);
            self.last_round_min = self.current_round_min.take().or(self.last_round_min);
            self.samples = 0;
        }
        let sample = ack.rtt.latest;
        let current = self.current_round_min.map_or(sample, |m| m.min(sample));
        self.current_round_min = Some(current);
        self.samples += 1;
        if let (true, Some(last)) = (self.samples >= N_RTT_SAMPLE, self.last_round_min) {
            let threshold = (last / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
            if current >= last + threshold {
                window.end_slow_start();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::RttSample;
    use crate::window::DEFAULT_INITIAL_WINDOW;

    const MSS: u64 = 1200;
    const MS: Duration = Duration::from_millis(1);

    /// Slow start over a path whose RTT is `rtt_at(cwnd)`: one ACK per MSS, rounds of one window.
    /// Returns the window when slow start ended and the round, or `None` after 12 rounds.
    fn slow_start(rtt_at: impl Fn(u64) -> Duration) -> Option<(u64, u32)> {
        let mut window = Window::new(DEFAULT_INITIAL_WINDOW, MSS, 2);
        let mut hystart = HyStart::default();
        let mut now = Instant::now();
        for round in 0..12 {
            let rtt = rtt_at(window.cwnd());
            let sent = now;
            now += rtt;
            for _ in 0..window.cwnd() / MSS {
                let ack = Ack::new(now, sent, MSS, false, RttSample::flat(rtt));
                hystart.on_ack(&mut window, &ack);
                window.grow_reno(MSS);
            }
            if window.cwnd() >= window.ssthresh() {
                return Some((window.cwnd(), round));
            }
        }
        None
    }

    #[test]
    fn a_flat_rtt_never_ends_slow_start() {
        assert_eq!(slow_start(|_| 40 * MS), None);
        // Delayed ACKs among the samples: the round minimum passes over them.
        let mut window = Window::new(DEFAULT_INITIAL_WINDOW, MSS, 2);
        let mut hystart = HyStart::default();
        let mut now = Instant::now();
        for _ in 0..10 {
            let sent = now;
            now += 40 * MS;
            for i in 0..window.cwnd() / MSS {
                let rtt = if i % 3 == 0 { 65 * MS } else { 40 * MS };
                let ack = Ack::new(now, sent, MSS, false, RttSample::flat(rtt));
                hystart.on_ack(&mut window, &ack);
                window.grow_reno(MSS);
            }
        }
        assert_eq!(window.ssthresh(), u64::MAX);
    }

    #[test]
    fn a_queue_building_ends_slow_start_near_the_path_s_capacity() {
        // 40 ms and 100 packets of BDP: beyond it, each packet more queues 0.4 ms.
        let bdp = 100 * MSS;
        let rtt = |cwnd: u64| 40 * MS + Duration::from_micros(400 * cwnd.saturating_sub(bdp) / MSS);
        let (cwnd, _) = slow_start(rtt).expect("slow start ends");
        // Without HyStart++ the window would double to about twice the BDP and the buffer.
        assert!(cwnd > bdp && cwnd < 2 * bdp, "cwnd {} MSS", cwnd / MSS);
    }
}
