//! How ACKs open the window: the growth rules a [`crate::WindowAlgorithm`] is built from.
//!
//! Every rule shares slow start below ssthresh (RFC 5681 with RFC 3465 byte counting) except
//! paper 003's fractional increment, which has no exponential phase; they differ in congestion
//! avoidance.

use std::time::{Duration, Instant};

use crate::event::Ack;
use crate::window::Window;

/// A growth rule with the state it needs.
#[derive(Debug, Clone, PartialEq)]
pub enum Growth {
    /// One MSS per window acknowledged (RFC 5681).
    Reno,
    /// Paper 003's fractional increment: `cwnd += alpha * MSS * acked / cwnd` in every phase.
    /// ssthresh does not cap it: the reduction already leaves `cwnd = ssthresh` (see
    /// [`SackFew`](crate::SackFew)).
    Fractional {
        /// MSS added per window acknowledged.
        alpha: f64,
        /// Growth below one byte, carried to the next ACK.
        carry: f64,
    },
    /// CUBIC, RFC 9438, with its Reno-friendly region.
    Cubic(Cubic),
    /// TCP Veno (Fu and Liew, JSAC 2003, section III.A; Linux `tcp_veno.c`): Reno's increase
    /// while the flow's own backlog `N = cwnd * (rtt - base_rtt) / rtt` is below `backlog_packets`,
    /// half of it (one MSS every other window) once the flow queues that much: the link is
    /// nearly full, so probing slows down.
    Veno {
        /// Veno's `beta`, in packets: the backlog at which growth halves.
        backlog_packets: f64,
    },
}

impl Growth {
    /// Fractional growth of `alpha` MSS per window.
    pub fn fractional(alpha: f64) -> Self {
        Growth::Fractional { alpha, carry: 0.0 }
    }

    /// CUBIC with RFC 9438's constants, `C = 0.4` and `beta = 0.7`.
    pub fn cubic() -> Self {
        Growth::Cubic(Cubic::new(Cubic::C, Cubic::BETA))
    }

    /// Opens `window` for `ack`, which [`Window::admits_growth`] has let through.
    pub fn on_ack(&mut self, window: &mut Window, ack: &Ack) {
        match self {
            Growth::Reno => window.grow_reno(ack.bytes),
            Growth::Fractional { alpha, carry } => {
                let mss = window.mss() as f64;
                let increment = *alpha * mss * ack.bytes as f64 / window.cwnd() as f64 + *carry;
                window.add(whole_bytes(increment, carry));
            }
            Growth::Cubic(cubic) => cubic.on_ack(window, ack),
            Growth::Veno { backlog_packets } => {
                let backlog = backlog_packets_of(window.cwnd(), window.mss(), ack);
                if backlog < *backlog_packets || window.cwnd() < window.ssthresh() {
                    window.grow_reno(ack.bytes);
                } else {
                    window.grow_reno(ack.bytes / 2);
                }
            }
        }
    }

    /// The window was reduced from `before` bytes (MSS `mss`).
    pub fn on_reduction(&mut self, before: u64, mss: u64) {
        match self {
            Growth::Fractional { carry, .. } => *carry = 0.0,
            Growth::Cubic(cubic) => cubic.on_reduction(before as f64 / mss.max(1) as f64),
            Growth::Reno | Growth::Veno { .. } => {}
        }
    }
}

/// Veno's backlog estimate in packets: the part of the window that sits in queues,
/// `cwnd * (rtt - base_rtt) / rtt`, from the ACK-delay-corrected sample.
pub fn backlog_packets_of(cwnd: u64, mss: u64, ack: &Ack) -> f64 {
    let rtt = ack.rtt.corrected().as_secs_f64();
    if rtt <= 0.0 {
        return 0.0;
    }
    let queueing = ack.rtt.queueing().as_secs_f64();
    cwnd as f64 / mss.max(1) as f64 * queueing / rtt
}

/// The whole bytes of `bytes` of growth, for the window; the rest goes to `carry`, for the next
/// ACK. `as` truncates, which for `bytes >= 0` is the floor, and saturates anything below at 0
/// (all of it carried); unlike `floor` it needs no call into libm on every ACK.
fn whole_bytes(bytes: f64, carry: &mut f64) -> u64 {
    let whole = bytes as u64;
    *carry = bytes - whole as f64;
    whole
}

/// `duration` in seconds, with a multiplication where `Duration::as_secs_f64` divides: for what
/// runs on every ACK (CUBIC's epoch age) or frame.
pub(crate) fn in_seconds(duration: Duration) -> f64 {
    duration.as_secs() as f64 + f64::from(duration.subsec_nanos()) * 1e-9
}

/// RFC 9438 section 4.3: the additive increase a round trip, in segments, with which an AIMD
/// flow that cuts its window to `beta` takes the same share as Reno's (1 segment, 0.5).
pub fn reno_friendly_alpha(beta: f64) -> f64 {
    3.0 * (1.0 - beta) / (1.0 + beta)
}

/// CUBIC's window function and Reno-friendly estimate (RFC 9438 sections 4.2-4.3), in MSS.
///
/// After a reduction at window `W_max`, the window follows `W(t) = C (t - K)^3 + W_max` with
/// `K = cbrt((W_max - cwnd_epoch) / C)`, from the first ACK of the new epoch; each ACK moves
/// cwnd a `1/cwnd` step of the way to `W(t + RTT)`, never more than 1.5x per RTT. Where Reno with
/// CUBIC's `beta` would be ahead (`alpha = 3 (1 - beta) / (1 + beta)` MSS per window), that
/// estimate rules: the Reno-friendly region.
#[derive(Debug, Clone, PartialEq)]
pub struct Cubic {
    c: f64,
    beta: f64,
    /// [`reno_friendly_alpha`] of `beta`, worked out once: it is on every ACK's path.
    alpha: f64,
    /// Window before the last reduction, in MSS.
    w_max: f64,
    /// When the current avoidance epoch began, and K for it.
    epoch: Option<(Instant, f64)>,
    /// Reno-friendly estimate, in MSS.
    w_est: f64,
    /// Fraction of an MSS of growth carried between ACKs.
    carry: f64,
}

impl Cubic {
    /// RFC 9438 section 5.1.
    pub const C: f64 = 0.4;
    /// RFC 9438 section 4.6.
    pub const BETA: f64 = 0.7;

    /// CUBIC with constant `c` (RFC 9438 section 5.1) and multiplicative decrease `beta` (section
    /// 4.6).
    pub fn new(c: f64, beta: f64) -> Self {
        Self {
            c,
            beta,
            alpha: reno_friendly_alpha(beta),
            w_max: 0.0,
            epoch: None,
            w_est: 0.0,
            carry: 0.0,
        }
    }

    /// The multiplicative decrease this CUBIC was built for.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    fn on_ack(&mut self, window: &mut Window, ack: &Ack) {
        if window.cwnd() < window.ssthresh() {
            window.grow_reno(ack.bytes);
            return;
        }
        // The window function and the estimate are in MSS (RFC 9438 section 4.1); the step is
        // taken in bytes, where reading the window in MSS would cost a division on every ACK.
        let mss = window.mss() as f64;
        let cwnd = window.cwnd() as f64;
        let (start, k) = *self.epoch.get_or_insert_with(|| {
            let cwnd = cwnd / mss;
            // An epoch without a reduction before it (leaving slow start): W_max is where it is.
            if self.w_max < cwnd {
                self.w_max = cwnd;
            }
            self.w_est = cwnd;
            let k = ((self.w_max - cwnd).max(0.0) / self.c).cbrt();
            (ack.now, k)
        });
        // The ACK's share of the window: its segments over the window's, which RFC 9438's
        // per-ACK increments (sections 4.2 and 4.3) divide by.
        let acked_share = ack.bytes as f64 / cwnd;
        self.w_est += self.alpha * acked_share;
        let rtt = ack.rtt.corrected().max(Duration::from_millis(1));
        let t = in_seconds(ack.now.saturating_duration_since(start) + rtt);
        let target = ((self.c * (t - k).powi(3) + self.w_max) * mss).clamp(cwnd, 1.5 * cwnd);
        let estimate = self.w_est * mss;
        let increment = if estimate > target {
            // Reno-friendly region: the window is the estimate.
            (estimate - cwnd).max(0.0)
        } else {
            (target - cwnd) * acked_share
        };
        window.add(whole_bytes(increment + self.carry, &mut self.carry));
    }

    /// Records the window of `before` MSS at a reduction, with RFC 9438 section 4.7's fast
    /// convergence (a flow whose W_max keeps falling releases bandwidth to newer flows), and
    /// starts a new epoch at the next ACK.
    fn on_reduction(&mut self, before: f64) {
        self.w_max = if before < self.w_max {
            before * (1.0 + self.beta) / 2.0
        } else {
            before
        };
        self.epoch = None;
        self.carry = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_seconds_agrees_with_the_standard_library_to_a_rounding() {
        let durations = [
            Duration::ZERO,
            Duration::from_nanos(1),
            Duration::from_micros(1_500_000),
            Duration::from_secs(86_400) + Duration::from_nanos(999_999_999),
        ];
        for duration in durations {
            let exact = duration.as_secs_f64();
            assert!(
                (in_seconds(duration) - exact).abs() <= 1e-15 * exact.max(1.0),
                "{duration:?}: {} against {exact}",
                in_seconds(duration)
            );
        }
    }
}
