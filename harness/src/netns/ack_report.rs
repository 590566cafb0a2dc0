//! A foreign receiver's own account of the ACK frames it sent, and the sender's recovered ACK
//! delays scored against it, frame by frame: what `delay_signals` does against the simulator's
//! ground truth, on real clocks (so with a 1 ms tolerance rather than 100 us).
//!
//! **How frames are matched.** quinn gives a controller no packet numbers, so the sender's `rtt`
//! records cannot name the largest packet a frame acknowledged; frames are matched by time
//! instead, which works because both endpoints of a flow run in one process on one monotonic
//! clock. A record says when quinn processed the frame (F) and when the frame's newest packet
//! was sent (S). The frame quinn processed at F is the last one the receiver sent at least the
//! reverse path's propagation delay before F: no link delivers a packet sooner than its
//! propagation delay (the user-space engine holds each packet until it is due, netem likewise),
//! and any frame sent later was still on its way. The match is kept only if that frame's newest
//! packet reached the receiver no sooner than the forward propagation delay after S. Frames lost
//! on the way back never reach quinn and are never asked for; a lost frame followed by none
//! within the reverse delay could be matched in its successor's place, so paths with reverse
//! loss score a little pessimistically.

use std::time::{Duration, Instant};

use crate::capture::FrameDelay;
use crate::report::ReceiverAcks;

/// A recovered delay this close to what the receiver encoded counts as recovered: real clocks
/// and two schedulers between the endpoints leave sub-millisecond noise the simulator has not.
pub const WITHIN: Duration = Duration::from_millis(1);

/// Slack for the two endpoints' clocks (one clock, read at slightly different moments) when a
/// match is checked against the forward propagation delay.
const CLOCK_SLACK: Duration = Duration::from_micros(100);

/// One ACK frame of the application packet number space, as its receiver sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SentAck {
    /// When the receiver sent the frame.
    pub sent: Instant,
    /// When the largest packet it acknowledges arrived.
    pub newest_arrival: Instant,
    /// The ACK delay the frame carries, as its peer decodes it, in microseconds.
    pub delay_us: u64,
}

/// What a foreign receiver reported over one flow.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReceiverLog {
    /// Packets it took in, every packet number space.
    pub packets: u64,
    /// Its application-space ACK frames, in the order sent.
    pub acks: Vec<SentAck>,
}

/// One `rtt` record of the flow's sender: when it was emitted, and what it says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recovered {
    pub at: Instant,
    pub frame: FrameDelay,
}

/// Scores every record of `recovered` (in emission order) against `log`, on a path whose links
/// delay a packet by `propagation` one way.
pub fn score(
    log: &ReceiverLog,
    recovered: impl IntoIterator<Item = Recovered>,
    propagation: Duration,
) -> ReceiverAcks {
    let mut errors = Vec::new();
    let mut unmatched = 0;
    let mut last = None;
    for r in recovered {
        match matching(&log.acks, &r, propagation) {
            // A classifier in front of a controller and the controller behind it report the
            // same frame: it is scored once.
            Some(i) if last == Some(i) => {}
            Some(i) => {
                last = Some(i);
                errors.push(r.frame.ack_delay_us.abs_diff(log.acks[i].delay_us));
            }
            None => unmatched += 1,
        }
    }
    summary(log, errors, unmatched)
}

/// The index in `acks` of the frame `r` recovered, if one fits.
fn matching(acks: &[SentAck], r: &Recovered, propagation: Duration) -> Option<usize> {
    let micros = Duration::from_micros;
    let processed = r.at.checked_sub(micros(r.frame.frame_age_us))?;
    let newest_sent = r.at.checked_sub(micros(r.frame.sent_age_us))?;
    let latest_send = processed.checked_sub(propagation)?;
    let i = acks
        .partition_point(|a| a.sent <= latest_send)
        .checked_sub(1)?;
    let plausible = acks[i].newest_arrival + CLOCK_SLACK >= newest_sent + propagation;
    plausible.then_some(i)
}

fn summary(log: &ReceiverLog, mut errors: Vec<u64>, unmatched: u64) -> ReceiverAcks {
    let mean = |xs: &[u64]| {
        if xs.is_empty() {
            0.0
        } else {
            xs.iter().sum::<u64>() as f64 / xs.len() as f64
        }
    };
    let encoded: Vec<u64> = log.acks.iter().map(|a| a.delay_us).collect();
    errors.sort_unstable();
    let within = errors.partition_point(|&e| e <= WITHIN.as_micros() as u64);
    // Nearest rank: the smallest error at least 95 % of the frames do not exceed.
    let p95 = match errors.len() {
        0 => 0,
        n => errors[(n * 95).div_ceil(100) - 1],
    };
    ReceiverAcks {
        packets_received: log.packets,
        frames_sent: log.acks.len() as u64,
        encoded_delay_mean_us: mean(&encoded),
        frames_checked: errors.len() as u64,
        frames_unmatched: unmatched,
        ack_delay_within_1ms: within as f64 / errors.len().max(1) as f64,
        ack_delay_error_mean_us: mean(&errors),
        ack_delay_error_p95_us: p95,
    }
}

/// A receiver that keeps its own account of the ACK frames it sent (s2n-quic's event
/// subscriber), read once the flow is over.
pub(super) trait ReportsAcks: Send {
    /// Everything recorded so far, on the sender's clock.
    fn report(&self) -> ReceiverLog;
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    /// A path of 20 ms each way; the receiver acknowledges at 100 ms (held 25 ms) and at
    /// 106 ms (held 0.2 ms); the ACKs take 20.3 ms back.
    fn log(t0: Instant) -> ReceiverLog {
        ReceiverLog {
            packets: 12,
            acks: vec![
                SentAck {
                    sent: t0 + 100 * MS,
                    newest_arrival: t0 + 75 * MS,
                    delay_us: 25_000,
                },
                SentAck {
                    sent: t0 + 106 * MS,
                    newest_arrival: t0 + 105_800 * MS / 1000,
                    delay_us: 200,
                },
            ],
        }
    }

    /// The sender's record of a frame processed at `processed` whose newest packet it sent at
    /// `sent`, emitted 7 ms after it, with `ack_delay_us` recovered.
    fn record(t0: Instant, processed: Duration, sent: Duration, ack_delay_us: u64) -> Recovered {
        let at = t0 + processed + 7 * MS;
        Recovered {
            at,
            frame: FrameDelay {
                frame_age_us: 7_000,
                sent_age_us: (processed + 7 * MS - sent).as_micros() as u64,
                ack_delay_us,
                ..FrameDelay::default()
            },
        }
    }

    #[test]
    fn each_record_meets_the_last_frame_sent_a_propagation_delay_before() {
        let t0 = Instant::now();
        let log = log(t0);
        let second = record(t0, 126_300 * MS / 1000, 85_800 * MS / 1000, 2_000);
        let s = score(
            &log,
            [
                record(t0, 120_300 * MS / 1000, 55 * MS, 24_600),
                // The same frame again, from a controller behind a classifier.
                record(t0, 120_300 * MS / 1000, 55 * MS, 24_600),
                second,
            ],
            20 * MS,
        );
        assert_eq!((s.frames_checked, s.frames_unmatched), (2, 0));
        assert_eq!((s.frames_sent, s.packets_received), (2, 12));
        // Errors of 400 us and 1.8 ms: one of the two within 1 ms.
        assert_eq!(s.ack_delay_within_1ms, 0.5);
        assert_eq!(s.ack_delay_error_mean_us, 1_100.0);
        assert_eq!(s.ack_delay_error_p95_us, 1_800);
        assert_eq!(s.encoded_delay_mean_us, 12_600.0);
    }

    #[test]
    fn a_record_no_frame_explains_is_unmatched() {
        let t0 = Instant::now();
        // Processed before any frame could have come back.
        let early = record(t0, 110 * MS, 60 * MS, 0);
        // Its newest packet sent after the frame's newest one arrived.
        let impossible = record(t0, 121 * MS, 70 * MS, 0);
        let s = score(&log(t0), [early, impossible], 20 * MS);
        assert_eq!((s.frames_checked, s.frames_unmatched), (0, 2));
        assert_eq!(s.ack_delay_within_1ms, 0.0);
    }
}
