//! What a flow of either kind (QUIC or kernel TCP) reports at its end, and how its periodic
//! samples and controller events become one time series.

use std::time::{Duration, Instant};

use crate::capture::{CwndEvent, Verdict};
use crate::report::{FlowSummary, Sample, Verdicts};

/// How often every flow is sampled, besides its controller's window events.
pub const SAMPLE_INTERVAL: Duration = Duration::from_millis(10);

#[derive(Debug, Clone, Default)]
pub struct FlowResult {
    pub index: usize,
    pub controller: String,
    /// Since the run's epoch.
    pub start: Duration,
    /// Since the run's epoch: completion, or when the flow was stopped.
    pub end: Duration,
    pub completed: bool,
    pub delivered: u64,
    pub packets_delivered: u64,
    pub lost_packets: u64,
    pub congestion_events: u64,
    pub verified: bool,
    pub flow_control_limited: bool,
    /// The smallest RTT the sender saw.
    pub min_rtt: Option<Duration>,
    /// Periodic samples (times since the epoch).
    pub samples: Vec<Sample>,
}

impl FlowResult {
    pub fn summary(&self, verdicts: Verdicts) -> FlowSummary {
        let span = self.end.saturating_sub(self.start).as_secs_f64();
        FlowSummary {
            flow: self.index,
            controller: self.controller.clone(),
            bytes_delivered: self.delivered,
            packets_delivered: self.packets_delivered,
            goodput_bps: if span > 0.0 {
                self.delivered as f64 * 8.0 / span
            } else {
                0.0
            },
            start_s: self.start.as_secs_f64(),
            completion_time_s: self.completed.then_some(span),
            lost_packets: self.lost_packets,
            congestion_events: self.congestion_events,
            verdicts,
            verified: self.verified,
            flow_control_limited: self.flow_control_limited,
            // Neither engine attributes its queue's drops and delays to flows (the kernel's
            // counters are per qdisc), so netns summaries leave this out.
            queue: None,
        }
    }
}

/// Loss verdicts among a flow's events.
pub fn verdicts(events: &[&CwndEvent]) -> Verdicts {
    let mut v = Verdicts::default();
    for e in events.iter().filter(|e| e.loss) {
        if e.ecn_mark {
            v.ecn_marks += 1;
        }
        match e.verdict {
            Some(Verdict::Random) => v.random += 1,
            Some(Verdict::Congestion) => v.congestion += 1,
            None => {}
        }
    }
    v
}

fn ssthresh(v: Option<u64>) -> Option<u64> {
    v.filter(|&s| s != u64::MAX)
}

/// Periodic samples and controller events in time order: an event sample takes the RTT and the
/// delivered bytes of the sample before it, a periodic sample the ssthresh of the event before it.
pub fn merge(periodic: &[Sample], events: &[&CwndEvent], epoch: Instant) -> Vec<Sample> {
    let mut out = Vec::with_capacity(periodic.len() + events.len());
    let (mut i, mut j) = (0, 0);
    let mut last: Option<Sample> = None;
    let mut last_ssthresh = None;
    while i < periodic.len() || j < events.len() {
        let event_t = events
            .get(j)
            .map(|e| e.at.saturating_duration_since(epoch).as_secs_f64());
        let take_event = match (periodic.get(i), event_t) {
            (Some(p), Some(t)) => t < p.t_s,
            (None, Some(_)) => true,
            _ => false,
        };
        let s = if take_event {
            let e = events[j];
            j += 1;
            if e.ssthresh.is_some() {
                last_ssthresh = ssthresh(e.ssthresh);
            }
            let Some(cwnd) = e.cwnd else { continue };
            Sample {
                t_s: event_t.unwrap_or(0.0),
                cwnd_bytes: cwnd,
                ssthresh_bytes: last_ssthresh,
                rtt_s: last.map_or(0.0, |l| l.rtt_s),
                delivered_bytes: last.map_or(0, |l| l.delivered_bytes),
            }
        } else {
            let mut p = periodic[i];
            i += 1;
            if p.ssthresh_bytes.is_none() {
                p.ssthresh_bytes = last_ssthresh;
            }
            p
        };
        last = Some(s);
        out.push(s);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(t: f64, cwnd: u64, delivered: u64) -> Sample {
        Sample {
            t_s: t,
            cwnd_bytes: cwnd,
            ssthresh_bytes: None,
            rtt_s: 0.02,
            delivered_bytes: delivered,
        }
    }

    #[test]
    fn events_interleave_with_samples() {
        let epoch = Instant::now();
        let ev = |ms: u64, cwnd: u64, ss: u64, loss: bool| CwndEvent {
            flow: 0,
            at: epoch + Duration::from_millis(ms),
            loss,
            cwnd: Some(cwnd),
            ssthresh: Some(ss),
            verdict: loss.then_some(Verdict::Random),
            sent_age_us: None,
            delay: None,
            ecn_mark: false,
        };
        let e1 = ev(15, 5000, u64::MAX, false);
        let e2 = ev(25, 3000, 3000, true);
        let periodic = [
            sample(0.01, 4000, 100),
            sample(0.02, 5000, 200),
            sample(0.03, 3000, 300),
        ];
        let m = merge(&periodic, &[&e1, &e2], epoch);
        let got: Vec<(u64, Option<u64>, u64)> = m
            .iter()
            .map(|s| (s.cwnd_bytes, s.ssthresh_bytes, s.delivered_bytes))
            .collect();
        assert_eq!(
            got,
            vec![
                (4000, None, 100),
                (5000, None, 100),
                (5000, None, 200),
                (3000, Some(3000), 200),
                (3000, Some(3000), 300),
            ]
        );
        assert!(m.windows(2).all(|w| w[0].t_s <= w[1].t_s));
        let v = verdicts(&[&e1, &e2]);
        assert_eq!((v.random, v.congestion), (1, 0));
    }
}
