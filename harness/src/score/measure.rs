//! What a run with a peer that came late or left early shows beyond its `summary.json`, read
//! from the flows' time series while the run's output is in hand, and kept beside the summary as
//! `measures.json`: flow 0's bytes while the peer sent (its share while the peer was there), and
//! the queue flow 0 kept after the peer left. Both boards use it: the random paths whose peer
//! comes or goes, and the fixed classes a peer visits.

use serde::{Deserialize, Serialize};

use crate::report::{FlowSeries, RunOutput};

/// The file beside a run's `summary.json`.
pub const FILE: &str = "measures.json";

/// Samples after the settling time below which the queue after the peer is not scored.
const MIN_SAMPLES: usize = 10;

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Measures {
    /// Flow 0's application bytes from the peer's start to its last byte (or the run's end).
    pub own_bytes_beside_peer: Option<u64>,
    /// The p95 of flow 0's RTT samples above its lowest, from a settling time after the peer's
    /// last byte (on the random board [`super::paths::SETTLE_OF_RUN`] of `T`) to the run's end; `None` without
    /// a peer that finished in time.
    pub queue_after_peer_p95_s: Option<f64>,
}

impl Measures {
    /// The measures of a run whose flow 0 is given `settle_s` after the peer's last byte before
    /// its queue is scored.
    pub fn of(out: &RunOutput, settle_s: f64) -> Measures {
        let (Some(peer), Some(own)) = (out.summary.flows.get(1), out.series.first()) else {
            return Measures::default();
        };
        let start = peer.start_s;
        let end = peer
            .completion_time_s
            .map_or(out.summary.duration_s, |c| start + c);
        let own_bytes = delivered_by(own, end).saturating_sub(delivered_by(own, start));
        let queue_after = peer
            .completion_time_s
            .and_then(|_| queue_p95_from(own, end + settle_s));
        Measures {
            own_bytes_beside_peer: Some(own_bytes),
            queue_after_peer_p95_s: queue_after,
        }
    }
}

/// The flow's bytes delivered by time `t_s`: its last sample's count at or before it.
fn delivered_by(series: &FlowSeries, t_s: f64) -> u64 {
    series
        .samples
        .iter()
        .take_while(|s| s.t_s <= t_s)
        .last()
        .map_or(0, |s| s.delivered_bytes)
}

/// The p95 (nearest rank) of the series' RTT above its lowest, over the samples from `from_s`.
fn queue_p95_from(series: &FlowSeries, from_s: f64) -> Option<f64> {
    let rtts = series.samples.iter().map(|s| s.rtt_s).filter(|r| *r > 0.0);
    let lowest = rtts.clone().fold(f64::INFINITY, f64::min);
    let mut queue: Vec<f64> = series
        .samples
        .iter()
        .filter(|s| s.t_s >= from_s && s.rtt_s > 0.0)
        .map(|s| s.rtt_s - lowest)
        .collect();
    if queue.len() < MIN_SAMPLES {
        return None;
    }
    queue.sort_by(f64::total_cmp);
    let rank = ((0.95 * queue.len() as f64).ceil() as usize).clamp(1, queue.len());
    Some(queue[rank - 1])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Sample;

    fn series(points: &[(f64, f64, u64)]) -> FlowSeries {
        FlowSeries {
            flow: 0,
            controller: "x".into(),
            samples: points
                .iter()
                .map(|&(t_s, rtt_s, delivered_bytes)| Sample {
                    t_s,
                    cwnd_bytes: 0,
                    ssthresh_bytes: None,
                    rtt_s,
                    delivered_bytes,
                })
                .collect(),
        }
    }

    #[test]
    fn bytes_by_a_time_are_the_last_sample_at_or_before_it() {
        let s = series(&[(1.0, 0.05, 100), (2.0, 0.05, 300), (3.0, 0.05, 600)]);
        assert_eq!(delivered_by(&s, 0.5), 0);
        assert_eq!(delivered_by(&s, 2.0), 300);
        assert_eq!(delivered_by(&s, 2.9), 300);
        assert_eq!(delivered_by(&s, 9.0), 600);
    }

    #[test]
    fn the_queue_after_is_the_p95_above_the_lowest_rtt_and_needs_samples() {
        let mut points: Vec<(f64, f64, u64)> = vec![(0.5, 0.040, 0), (1.0, 0.200, 0)];
        // Twenty samples from 2 s: 19 at 10 ms above the base, one at 100 ms above.
        points.extend((0..20).map(|i| (2.0 + i as f64 * 0.1, 0.050, 0)));
        points[21].1 = 0.140;
        let q = queue_p95_from(&series(&points), 2.0).unwrap();
        assert!((q - 0.010).abs() < 1e-9, "{q}");
        assert_eq!(queue_p95_from(&series(&points), 3.5), None);
    }
}
